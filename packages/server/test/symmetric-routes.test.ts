/**
 * The symmetric family over HTTP: `/v2/encrypt`, `/v2/decrypt`, `/v2/secretbox/seal|open`,
 * `/v2/sealedbox/seal|open`, `/v2/keys/wrap|unwrap`. Success shapes, round trips, libsodium
 * interoperation end to end, the one byte-identical 400 for every decryption or unwrap failure, and
 * a table of wrong inputs that must all be 4xx problems, never 5xx.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import sodium from 'libsodium-wrappers';
import { SignJWT } from 'jose';
import { postJson, testApp, TEST_JWT_SECRET } from './helpers.ts';
import type { FastifyInstance } from 'fastify';
import { singleForm } from '../src/openapi-batch.ts';

await sodium.ready;

type Response = Awaited<ReturnType<typeof postJson>>;

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
const fromB64 = (text: string) => Uint8Array.from(Buffer.from(text, 'base64'));
const KEY = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f';
const OTHER_KEY = 'ff'.repeat(32);

function x25519KeyPair(): { publicKey: string; secretKey: string } {
  const jwk = generateKeyPairSync('x25519').privateKey.export({ format: 'jwk' });
  return { publicKey: hex(Buffer.from(jwk.x!, 'base64url')), secretKey: hex(Buffer.from(jwk.d!, 'base64url')) };
}

/** A problem+json response with the given status and code. */
function assertProblem(response: Response, status: number, code: string, label = ''): any {
  assert.equal(response.statusCode, status, `${label}: ${response.body}`);
  assert.match(String(response.headers['content-type']), /^application\/problem\+json/, label);
  const body = response.json();
  assert.equal(body.status, status, label);
  assert.equal(body.code, code, label);
  assert.equal(body.error, body.detail, label);
  return body;
}

function flipBase64Bit(text: string, byte: number): string {
  const bytes = fromB64(text);
  const index = byte < 0 ? bytes.byteLength + byte : byte;
  bytes[index]! ^= 1;
  return b64(bytes);
}

describe('symmetric routes', () => {
  let app: FastifyInstance;
  const post = (url: string, body: unknown) => postJson(app, url, body);
  test.before(async () => {
    // The wrong-input table sends a few hundred requests; the default limit of 1000 a minute is not the subject here.
    app = await testApp({ RATE_LIMIT_MAX: '100000' });
  });
  test.after(() => app.close());

  describe('success shapes', () => {
    test('POST /v2/encrypt → { data: { ciphertext, algorithm } }; ciphertext is base64 of nonce ‖ ct ‖ tag', async () => {
      const response = await post('/v2/encrypt', { key: KEY, plaintext: 'hello' });
      assert.equal(response.statusCode, 200);
      const { data } = response.json();
      assert.deepEqual(Object.keys(data).sort(), ['algorithm', 'ciphertext']);
      assert.equal(data.algorithm, 'xchacha20-poly1305');
      assert.match(data.ciphertext, BASE64);
      assert.equal(fromB64(data.ciphertext).byteLength, 24 + 5 + 16);
    });

    test('POST /v2/decrypt → { data: plaintext }', async () => {
      const { ciphertext } = (await post('/v2/encrypt', { key: KEY, plaintext: 'hello' })).json().data;
      const response = await post('/v2/decrypt', { key: KEY, ciphertext });
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), { data: 'hello' });
    });

    test('POST /v2/secretbox/seal → { data: { ciphertext, algorithm } }, and /open → { data: plaintext }', async () => {
      const response = await post('/v2/secretbox/seal', { key: KEY, plaintext: 'box' });
      assert.equal(response.statusCode, 200);
      const { data } = response.json();
      assert.deepEqual(Object.keys(data).sort(), ['algorithm', 'ciphertext']);
      assert.equal(data.algorithm, 'xchacha20-poly1305');
      assert.equal(fromB64(data.ciphertext).byteLength, 24 + 3 + 16);
      const opened = await post('/v2/secretbox/open', { key: KEY, ciphertext: data.ciphertext });
      assert.equal(opened.statusCode, 200);
      assert.deepEqual(opened.json(), { data: 'box' });
    });

    test('POST /v2/sealedbox/seal → { data: { ciphertext, algorithm } }, and /open → { data: plaintext }', async () => {
      const recipient = x25519KeyPair();
      const response = await post('/v2/sealedbox/seal', { publicKey: recipient.publicKey, plaintext: 'anon' });
      assert.equal(response.statusCode, 200);
      const { data } = response.json();
      assert.deepEqual(Object.keys(data).sort(), ['algorithm', 'ciphertext']);
      assert.equal(data.algorithm, 'x25519-xsalsa20-poly1305');
      assert.equal(fromB64(data.ciphertext).byteLength, 32 + 16 + 4);
      const opened = await post('/v2/sealedbox/open', { privateKey: recipient.secretKey, ciphertext: data.ciphertext });
      assert.equal(opened.statusCode, 200);
      assert.deepEqual(opened.json(), { data: 'anon' });
    });

    test('POST /v2/keys/wrap → { data: { wrappedKey, algorithm } } (aes-kw by default); /unwrap → { data: hex key } (RFC 3394 §4.1)', async () => {
      const kek = '000102030405060708090a0b0c0d0e0f';
      const key = '00112233445566778899aabbccddeeff';
      const response = await post('/v2/keys/wrap', { kek, keyToWrap: key });
      assert.equal(response.statusCode, 200);
      const expected = b64(Buffer.from('1fa68b0a8112b447aef34bd8fb5a7b829d3e862371d2cfe5', 'hex'));
      assert.deepEqual(response.json(), { data: { wrappedKey: expected, algorithm: 'aes-kw' } });
      const unwrapped = await post('/v2/keys/unwrap', { kek, wrappedKey: expected });
      assert.equal(unwrapped.statusCode, 200);
      assert.deepEqual(unwrapped.json(), { data: key });
      // Hex input in either case; output lowercase.
      const upper = await post('/v2/keys/unwrap', { kek: kek.toUpperCase(), wrappedKey: expected });
      assert.deepEqual(upper.json(), { data: key });
    });

    test('POST /v2/keys/wrap with aes-kwp (RFC 5649 §6, 7-byte key)', async () => {
      const kek = '5840df6e29b02af1ab493b705bf16ea1ae8338f4dcc176a8';
      const response = await post('/v2/keys/wrap', { kek, keyToWrap: '466f7250617369', algorithm: 'aes-kwp' });
      const expected = b64(Buffer.from('afbeb0f07dfbf5419200f2ccb50bb24f', 'hex'));
      assert.deepEqual(response.json(), { data: { wrappedKey: expected, algorithm: 'aes-kwp' } });
      const unwrapped = await post('/v2/keys/unwrap', { kek, wrappedKey: expected, algorithm: 'aes-kwp' });
      assert.deepEqual(unwrapped.json(), { data: '466f7250617369' });
    });

    test('GET /v2/algorithms lists the identifiers these routes answer with', async () => {
      const { data } = (await app.inject({ method: 'GET', url: '/v2/algorithms' })).json();
      assert.deepEqual(data.aead, ['xchacha20-poly1305']);
      assert.deepEqual(data.sealedBox, ['x25519-xsalsa20-poly1305']);
      assert.deepEqual(data.pqSealedBox, ['hpke-x25519-ml-kem-768-chacha20-poly1305']);
      assert.deepEqual(data.keyWrap, ['aes-kw', 'aes-kwp']);
      for (const algorithm of data.keyWrap) {
        const response = await post('/v2/keys/wrap', { kek: KEY, keyToWrap: KEY, algorithm });
        assert.equal(response.statusCode, 200, algorithm);
        assert.equal(response.json().data.algorithm, algorithm);
      }
    });
  });

  describe('round trips and encodings', () => {
    test("encrypt → decrypt in each encoding, with and without AAD; AAD is read in the request's encoding", async () => {
      const text = 'Grüße, 世界 🌍';
      const cases = [
        { encoding: 'utf8', plaintext: text, aad: 'header v1' },
        {
          encoding: 'base64',
          plaintext: Buffer.from(text).toString('base64'),
          aad: Buffer.from('header v1').toString('base64'),
        },
        {
          encoding: 'hex',
          plaintext: Buffer.from(text).toString('hex'),
          aad: Buffer.from('header v1').toString('hex'),
        },
      ];
      for (const { encoding, plaintext, aad } of cases) {
        for (const withAad of [false, true]) {
          const extra = withAad ? { aad } : {};
          const sealed = (await post('/v2/encrypt', { key: KEY, plaintext, encoding, ...extra })).json().data
            .ciphertext;
          const response = await post('/v2/decrypt', { key: KEY, ciphertext: sealed, encoding, ...extra });
          assert.equal(response.statusCode, 200, `${encoding} ${withAad}`);
          assert.equal(response.json().data, plaintext, `${encoding} ${withAad}`);
        }
      }
      // The same AAD bytes written as utf8 on one side and base64 on the other authenticate alike;
      // encoding then also names how the plaintext comes back.
      const sealed = (await post('/v2/encrypt', { key: KEY, plaintext: text, aad: 'header v1' })).json().data
        .ciphertext;
      const asBase64 = await post('/v2/decrypt', {
        key: KEY,
        ciphertext: sealed,
        aad: Buffer.from('header v1').toString('base64'),
        encoding: 'base64',
      });
      assert.equal(asBase64.json().data, Buffer.from(text).toString('base64'));
    });

    test("encrypt and secretbox share one format: each opens the other's output", async () => {
      const viaEncrypt = (await post('/v2/encrypt', { key: KEY, plaintext: 'one format', aad: 'a' })).json().data
        .ciphertext;
      const viaSeal = (await post('/v2/secretbox/seal', { key: KEY, plaintext: 'one format', aad: 'a' })).json().data
        .ciphertext;
      assert.equal(
        (await post('/v2/secretbox/open', { key: KEY, ciphertext: viaEncrypt, aad: 'a' })).json().data,
        'one format',
      );
      assert.equal((await post('/v2/decrypt', { key: KEY, ciphertext: viaSeal, aad: 'a' })).json().data, 'one format');
    });

    test('binary data of every byte value round trips through each route as base64', async () => {
      const all = b64(Uint8Array.from({ length: 256 }, (_, i) => i));
      const recipient = x25519KeyPair();
      const encrypted = (await post('/v2/encrypt', { key: KEY, plaintext: all, encoding: 'base64' })).json().data
        .ciphertext;
      assert.equal(
        (await post('/v2/decrypt', { key: KEY, ciphertext: encrypted, encoding: 'base64' })).json().data,
        all,
      );
      const boxed = (await post('/v2/secretbox/seal', { key: KEY, plaintext: all, encoding: 'base64' })).json().data
        .ciphertext;
      assert.equal(
        (await post('/v2/secretbox/open', { key: KEY, ciphertext: boxed, encoding: 'base64' })).json().data,
        all,
      );
      const sealed = (
        await post('/v2/sealedbox/seal', {
          publicKey: recipient.publicKey,
          plaintext: all,
          encoding: 'base64',
        })
      ).json().data.ciphertext;
      assert.equal(
        (
          await post('/v2/sealedbox/open', { privateKey: recipient.secretKey, ciphertext: sealed, encoding: 'base64' })
        ).json().data,
        all,
      );
      const keyToWrap = hex(fromB64(all));
      for (const algorithm of ['aes-kw', 'aes-kwp']) {
        const wrapped = (await post('/v2/keys/wrap', { kek: KEY, keyToWrap, algorithm })).json().data.wrappedKey;
        assert.equal(
          (await post('/v2/keys/unwrap', { kek: KEY, wrappedKey: wrapped, algorithm })).json().data,
          keyToWrap,
          algorithm,
        );
      }
    });

    test('the empty plaintext encrypts and decrypts', async () => {
      const sealed = (await post('/v2/encrypt', { key: KEY, plaintext: '' })).json().data.ciphertext;
      assert.equal(fromB64(sealed).byteLength, 40);
      assert.deepEqual((await post('/v2/decrypt', { key: KEY, ciphertext: sealed })).json(), { data: '' });
    });

    test('a plaintext that is not UTF-8, asked for as utf8, is a 400 that says to ask for base64; as base64 it is returned', async () => {
      const binary = b64(Uint8Array.from([0xff, 0xfe, 0x00, 0xc3]));
      const recipient = x25519KeyPair();
      const encrypted = (await post('/v2/encrypt', { key: KEY, plaintext: binary, encoding: 'base64' })).json().data
        .ciphertext;
      const boxed = (await post('/v2/secretbox/seal', { key: KEY, plaintext: binary, encoding: 'base64' })).json().data
        .ciphertext;
      const sealed = (
        await post('/v2/sealedbox/seal', {
          publicKey: recipient.publicKey,
          plaintext: binary,
          encoding: 'base64',
        })
      ).json().data.ciphertext;
      const cases: [string, Record<string, string>][] = [
        ['/v2/decrypt', { key: KEY, ciphertext: encrypted }],
        ['/v2/secretbox/open', { key: KEY, ciphertext: boxed }],
        ['/v2/sealedbox/open', { privateKey: recipient.secretKey, ciphertext: sealed }],
      ];
      for (const [url, body] of cases) {
        const refused = assertProblem(await post(url, body), 400, 'INVALID_INPUT', url);
        assert.match(refused.detail, /not valid UTF-8/, url);
        assert.match(refused.detail, /base64/, url);
        assert.equal((await post(url, { ...body, encoding: 'base64' })).json().data, binary, url);
        assert.equal((await post(url, { ...body, encoding: 'hex' })).json().data, 'fffe00c3', url);
      }
    });
  });

  describe('interoperation with libsodium, end to end', () => {
    test('libsodium opens /v2/encrypt and /v2/secretbox/seal output (the 24-byte nonce split off), with and without AAD', async () => {
      const key = Buffer.from(KEY, 'hex');
      for (const aad of [undefined, 'bound header']) {
        const body = { key: KEY, plaintext: 'to libsodium', ...(aad === undefined ? {} : { aad }) };
        for (const [url, field] of [
          ['/v2/encrypt', 'ciphertext'],
          ['/v2/secretbox/seal', 'ciphertext'],
        ] as const) {
          const blob = fromB64((await post(url, body)).json().data[field]);
          const opened = sodium.crypto_aead_xchacha20poly1305_ietf_decrypt(
            null,
            blob.subarray(24),
            aad ?? null,
            blob.subarray(0, 24),
            key,
          );
          assert.equal(Buffer.from(opened).toString(), 'to libsodium', `${url} ${aad}`);
        }
      }
    });

    test("/v2/decrypt and /v2/secretbox/open open libsodium's output", async () => {
      const key = Buffer.from(KEY, 'hex');
      for (const aad of [undefined, 'bound header']) {
        const nonce = sodium.randombytes_buf(24);
        const body = sodium.crypto_aead_xchacha20poly1305_ietf_encrypt('from libsodium', aad ?? null, null, nonce, key);
        const ciphertext = b64(Uint8Array.from([...nonce, ...body]));
        const request = { key: KEY, ciphertext, ...(aad === undefined ? {} : { aad }) };
        assert.deepEqual((await post('/v2/decrypt', request)).json(), { data: 'from libsodium' });
        assert.deepEqual((await post('/v2/secretbox/open', request)).json(), { data: 'from libsodium' });
      }
    });

    test('crypto_box_seal_open opens /v2/sealedbox/seal output; /v2/sealedbox/open opens crypto_box_seal output', async () => {
      const recipient = sodium.crypto_box_keypair();
      const sealed = (
        await post('/v2/sealedbox/seal', { publicKey: hex(recipient.publicKey), plaintext: 'to libsodium' })
      ).json().data.ciphertext;
      assert.equal(
        Buffer.from(sodium.crypto_box_seal_open(fromB64(sealed), recipient.publicKey, recipient.privateKey)).toString(),
        'to libsodium',
      );
      const theirs = b64(sodium.crypto_box_seal('from libsodium', recipient.publicKey));
      assert.deepEqual(
        (await post('/v2/sealedbox/open', { privateKey: hex(recipient.privateKey), ciphertext: theirs })).json(),
        { data: 'from libsodium' },
      );
    });
  });

  describe('every decryption or unwrap failure is the same 400, byte for byte', () => {
    async function assertOneFailure(url: string, bodies: Record<string, unknown>[], label: string): Promise<void> {
      const responses = await Promise.all(bodies.map((body) => post(url, body)));
      responses.forEach((response, index) => {
        const problem = assertProblem(response, 400, 'DECRYPTION_FAILED', `${label} #${index}`);
        assert.equal(problem.errors, undefined, `${label} #${index}: names a field`);
        assert.equal(problem.instance, url);
      });
      const distinct = new Set(responses.map((response) => response.body));
      assert.equal(distinct.size, 1, `${label}: the failure bodies differ:\n${[...distinct].join('\n')}`);
    }

    for (const [url, sealUrl, field] of [
      ['/v2/decrypt', '/v2/encrypt', 'ciphertext'],
      ['/v2/secretbox/open', '/v2/secretbox/seal', 'ciphertext'],
    ] as const) {
      test(`${url}: wrong key, tampered nonce / ciphertext / tag, wrong / missing / added AAD, truncated, empty`, async () => {
        const good = (await post(sealUrl, { key: KEY, plaintext: 'secret message', aad: 'hdr' })).json().data[
          field
        ] as string;
        const noAad = (await post(sealUrl, { key: KEY, plaintext: 'secret message' })).json().data[field] as string;
        assert.equal(
          (await post(url, { key: KEY, ciphertext: good, aad: 'hdr' })).statusCode,
          200,
          'the unmodified input opens',
        );
        await assertOneFailure(
          url,
          [
            { key: OTHER_KEY, ciphertext: good, aad: 'hdr' },
            { key: KEY, ciphertext: flipBase64Bit(good, 0), aad: 'hdr' },
            { key: KEY, ciphertext: flipBase64Bit(good, 30), aad: 'hdr' },
            { key: KEY, ciphertext: flipBase64Bit(good, -1), aad: 'hdr' },
            { key: KEY, ciphertext: good, aad: 'hdR' },
            { key: KEY, ciphertext: good },
            { key: KEY, ciphertext: noAad, aad: 'hdr' },
            { key: KEY, ciphertext: b64(fromB64(good).subarray(0, 30)), aad: 'hdr' },
            { key: KEY, ciphertext: b64(fromB64(good).subarray(0, fromB64(good).byteLength - 1)), aad: 'hdr' },
            { key: KEY, ciphertext: '', aad: 'hdr' },
          ],
          url,
        );
      });
    }

    test('/v2/sealedbox/open: wrong key, tampered ephemeral key / tag / ciphertext, truncated, low-order ephemeral key', async () => {
      const recipient = x25519KeyPair();
      const good = (
        await post('/v2/sealedbox/seal', { publicKey: recipient.publicKey, plaintext: 'secret message' })
      ).json().data.ciphertext as string;
      assert.equal(
        (await post('/v2/sealedbox/open', { privateKey: recipient.secretKey, ciphertext: good })).statusCode,
        200,
      );
      const lowOrder = b64(Uint8Array.from([...new Uint8Array(32), ...fromB64(good).subarray(32)]));
      await assertOneFailure(
        '/v2/sealedbox/open',
        [
          { privateKey: x25519KeyPair().secretKey, ciphertext: good },
          { privateKey: recipient.secretKey, ciphertext: flipBase64Bit(good, 0) },
          { privateKey: recipient.secretKey, ciphertext: flipBase64Bit(good, 40) },
          { privateKey: recipient.secretKey, ciphertext: flipBase64Bit(good, -1) },
          { privateKey: recipient.secretKey, ciphertext: b64(fromB64(good).subarray(0, 47)) },
          { privateKey: recipient.secretKey, ciphertext: '' },
          { privateKey: recipient.secretKey, ciphertext: lowOrder },
        ],
        'sealedbox',
      );
    });

    test('/v2/keys/unwrap: wrong KEK, tampered, truncated, the other mode, the 8-byte single-block form', async () => {
      const good = (await post('/v2/keys/wrap', { kek: KEY, keyToWrap: OTHER_KEY })).json().data.wrappedKey as string;
      const padded = (await post('/v2/keys/wrap', { kek: KEY, keyToWrap: OTHER_KEY, algorithm: 'aes-kwp' })).json().data
        .wrappedKey as string;
      assert.equal((await post('/v2/keys/unwrap', { kek: KEY, wrappedKey: good })).statusCode, 200);
      await assertOneFailure(
        '/v2/keys/unwrap',
        [
          { kek: OTHER_KEY, wrappedKey: good },
          { kek: KEY.slice(0, 32), wrappedKey: good },
          { kek: KEY, wrappedKey: flipBase64Bit(good, 0) },
          { kek: KEY, wrappedKey: flipBase64Bit(good, -1) },
          { kek: KEY, wrappedKey: b64(fromB64(good).subarray(0, 32)) },
          { kek: KEY, wrappedKey: b64(fromB64(good).subarray(0, 39)) },
          { kek: KEY, wrappedKey: '' },
          { kek: KEY, wrappedKey: good, algorithm: 'aes-kwp' },
          { kek: KEY, wrappedKey: padded, algorithm: 'aes-kw' },
          // Wycheproof aes_wrap_test.json tcId 12: an 8-byte key wrapped as one AES block.
          {
            kek: '574957151fc2afe0fa3dc7a9a7da6495',
            wrappedKey: b64(Buffer.from('6f0b501f1f2f59e3ae605aa679ce43a6', 'hex')),
          },
        ],
        'unwrap',
      );
    });

    test('the detail is the same fixed text on every route', async () => {
      const details = new Set<string>();
      details.add((await post('/v2/decrypt', { key: KEY, ciphertext: '' })).json().detail);
      details.add((await post('/v2/secretbox/open', { key: KEY, ciphertext: '' })).json().detail);
      details.add((await post('/v2/sealedbox/open', { privateKey: KEY, ciphertext: '' })).json().detail);
      details.add((await post('/v2/keys/unwrap', { kek: KEY, wrappedKey: '' })).json().detail);
      assert.deepEqual([...details], ['decryption failed']);
    });
  });

  describe('wrong inputs are 4xx problems, never 5xx', () => {
    const recipient = x25519KeyPair();
    const valid: Record<string, Record<string, unknown>> = {
      '/v2/encrypt': { key: KEY, plaintext: 'p', aad: 'a', encoding: 'utf8' },
      '/v2/decrypt': { key: KEY, ciphertext: b64(new Uint8Array(40)), aad: 'a', encoding: 'utf8' },
      '/v2/secretbox/seal': { key: KEY, plaintext: 'p', aad: 'a', encoding: 'utf8' },
      '/v2/secretbox/open': { key: KEY, ciphertext: b64(new Uint8Array(40)), aad: 'a', encoding: 'utf8' },
      '/v2/sealedbox/seal': { publicKey: recipient.publicKey, plaintext: 'p', encoding: 'utf8' },
      '/v2/sealedbox/open': {
        privateKey: recipient.secretKey,
        ciphertext: b64(new Uint8Array(48)),
        encoding: 'utf8',
      },
      '/v2/keys/wrap': { kek: KEY, keyToWrap: KEY, algorithm: 'aes-kw' },
      '/v2/keys/unwrap': { kek: KEY, wrappedKey: b64(new Uint8Array(40)), algorithm: 'aes-kw' },
    };
    const required: Record<string, string[]> = {
      '/v2/encrypt': ['key', 'plaintext'],
      '/v2/decrypt': ['key', 'ciphertext'],
      '/v2/secretbox/seal': ['key', 'plaintext'],
      '/v2/secretbox/open': ['key', 'ciphertext'],
      '/v2/sealedbox/seal': ['publicKey', 'plaintext'],
      '/v2/sealedbox/open': ['privateKey', 'ciphertext'],
      '/v2/keys/wrap': ['kek', 'keyToWrap'],
      '/v2/keys/unwrap': ['kek', 'wrappedKey'],
    };
    const hexFields = new Set(['key', 'publicKey', 'privateKey', 'kek', 'keyToWrap']);
    const base64Fields = new Set(['ciphertext', 'wrappedKey']);
    const textFields = new Set(['plaintext', 'aad']);
    const keyLengths: Record<string, number[]> = {
      key: [0, 1, 16, 31, 33, 64],
      publicKey: [0, 1, 16, 31, 33, 64],
      privateKey: [0, 1, 16, 31, 33, 64],
      kek: [0, 1, 8, 15, 17, 23, 25, 31, 33, 64],
    };

    /** Every case: [label, url, body, the field the error must name (when one is known)]. */
    function cases(): [string, string, unknown, string | undefined][] {
      const all: [string, string, unknown, string | undefined][] = [];
      for (const [url, body] of Object.entries(valid)) {
        for (const notAnObject of [[], 'text', 42, null, true])
          all.push([`body ${JSON.stringify(notAnObject)}`, url, notAnObject, undefined]);
        all.push(['empty object', url, {}, undefined]);
        for (const field of required[url]!) {
          const { [field]: _dropped, ...rest } = body;
          all.push([`missing ${field}`, url, rest, `/${field}`]);
        }
        all.push(['unknown field', url, { ...body, extra: 'x' }, '/extra']);
        all.push(['unknown field "nonce"', url, { ...body, nonce: '00'.repeat(24) }, '/nonce']);
        for (const field of Object.keys(body)) {
          for (const wrong of [1, true, null, {}, ['x']])
            all.push([`${field} = ${JSON.stringify(wrong)}`, url, { ...body, [field]: wrong }, `/${field}`]);
          if (hexFields.has(field)) {
            for (const bad of ['zz'.repeat(32), 'abc', ` ${KEY}`, `${KEY}\n`, '0x' + KEY.slice(2)]) {
              all.push([
                `${field} bad hex ${JSON.stringify(bad.slice(0, 8))}`,
                url,
                { ...body, [field]: bad },
                `/${field}`,
              ]);
            }
          }
          if (base64Fields.has(field)) {
            for (const bad of ['YWJj=', 'not base64!', 'YW Jj', 'YWJjZA', '-_-_']) {
              all.push([`${field} bad base64 ${JSON.stringify(bad)}`, url, { ...body, [field]: bad }, `/${field}`]);
            }
          }
          if (textFields.has(field)) {
            // The other text fields are made valid in the chosen encoding, so that only this one is wrong.
            const asHex = Object.fromEntries(
              Object.keys(body)
                .filter((name) => textFields.has(name))
                .map((name) => [name, '70']),
            );
            const asBase64 = Object.fromEntries(
              Object.keys(body)
                .filter((name) => textFields.has(name))
                .map((name) => [name, 'cA==']),
            );
            all.push([
              `${field} bad hex with encoding hex`,
              url,
              { ...body, ...asHex, encoding: 'hex', [field]: 'xyz' },
              `/${field}`,
            ]);
            all.push([
              `${field} bad base64 with encoding base64`,
              url,
              { ...body, ...asBase64, encoding: 'base64', [field]: 'a' },
              `/${field}`,
            ]);
          }
          if (field === 'encoding') {
            for (const bad of ['utf-8', 'UTF8', 'latin1', 'binary', ''])
              all.push([`encoding ${JSON.stringify(bad)}`, url, { ...body, encoding: bad }, '/encoding']);
          }
          if (field === 'algorithm') {
            for (const bad of ['aes-gcm', 'AES-KW', 'md5', 'des', ''])
              all.push([`algorithm ${JSON.stringify(bad)}`, url, { ...body, algorithm: bad }, '/algorithm']);
          }
          for (const length of keyLengths[field] ?? []) {
            all.push([`${field} of ${length} bytes`, url, { ...body, [field]: '00'.repeat(length) }, `/${field}`]);
          }
        }
      }
      for (const length of [0, 1, 8, 15, 17, 23]) {
        all.push([
          `aes-kw keyToWrap of ${length} bytes`,
          '/v2/keys/wrap',
          { kek: KEY, keyToWrap: '00'.repeat(length) },
          '/keyToWrap',
        ]);
      }
      all.push([
        'aes-kwp keyToWrap of 0 bytes',
        '/v2/keys/wrap',
        { kek: KEY, keyToWrap: '', algorithm: 'aes-kwp' },
        '/keyToWrap',
      ]);
      for (const point of ['00'.repeat(32), '01' + '00'.repeat(31), 'ec' + 'ff'.repeat(30) + '7f']) {
        all.push([
          `low-order publicKey ${point.slice(0, 4)}…`,
          '/v2/sealedbox/seal',
          { publicKey: point, plaintext: 'p' },
          '/publicKey',
        ]);
      }
      return all;
    }

    test('each case of the table', async () => {
      const table = cases();
      assert.ok(table.length > 300, `only ${table.length} cases`);
      for (const [label, url, body, field] of table) {
        const response = await post(url, body);
        const where = `${url} ${label}`;
        assert.ok(
          response.statusCode >= 400 && response.statusCode < 500,
          `${where}: ${response.statusCode} ${response.body}`,
        );
        assert.match(String(response.headers['content-type']), /^application\/problem\+json/, where);
        const problem = response.json();
        assert.notEqual(problem.code, 'INTERNAL_ERROR', where);
        assert.notEqual(problem.code, 'DECRYPTION_FAILED', `${where}: a malformed request is not a decryption failure`);
        if (field !== undefined) {
          assert.ok(Array.isArray(problem.errors), `${where}: no errors member: ${response.body}`);
          assert.ok(
            problem.errors.some((error: { field: string }) => error.field === field),
            `${where}: expected ${field} in ${JSON.stringify(problem.errors)}`,
          );
        }
      }
    });

    test('a wrong key length names the field and the length expected', async () => {
      const problem = assertProblem(
        await post('/v2/encrypt', { key: '00'.repeat(31), plaintext: 'p' }),
        400,
        'INVALID_INPUT',
      );
      assert.deepEqual(problem.errors, [{ field: '/key', message: 'key must be 32 bytes (got 31)' }]);
      const kek = assertProblem(
        await post('/v2/keys/wrap', { kek: '00'.repeat(20), keyToWrap: KEY }),
        400,
        'INVALID_INPUT',
      );
      assert.equal(kek.errors[0].field, '/kek');
      assert.match(kek.detail, /16, 24 or 32 bytes/);
    });

    test('an unknown key-wrap algorithm is UNSUPPORTED_ALGORITHM; md5 is called insecure', async () => {
      assertProblem(
        await post('/v2/keys/wrap', { kek: KEY, keyToWrap: KEY, algorithm: 'aes-gcm' }),
        400,
        'UNSUPPORTED_ALGORITHM',
      );
      const md5 = assertProblem(
        await post('/v2/keys/unwrap', { kek: KEY, wrappedKey: b64(new Uint8Array(40)), algorithm: 'md5' }),
        400,
        'UNSUPPORTED_ALGORITHM',
      );
      assert.match(md5.detail, /insecure/);
    });

    test('a lone surrogate in a utf8 plaintext or AAD is refused, not replaced', async () => {
      for (const [url, payload] of [
        ['/v2/encrypt', `{"key":"${KEY}","plaintext":"\\ud800"}`],
        ['/v2/encrypt', `{"key":"${KEY}","plaintext":"p","aad":"\\udfff"}`],
        ['/v2/sealedbox/seal', `{"publicKey":"${recipient.publicKey}","plaintext":"a\\ud800b"}`],
      ] as const) {
        const response = await app.inject({
          method: 'POST',
          url,
          payload,
          headers: { 'content-type': 'application/json' },
        });
        const problem = assertProblem(response, 400, 'INVALID_INPUT', url);
        assert.match(problem.detail, /base64 or hex/);
      }
    });

    test('the problem never echoes a key, plaintext or AAD', async () => {
      const marker = 'c0ffee'.repeat(5);
      for (const [url, body] of [
        ['/v2/encrypt', { key: `${marker}zz`, plaintext: 'p' }],
        ['/v2/encrypt', { key: `${marker}00`, plaintext: 'p' }],
        ['/v2/decrypt', { key: KEY, ciphertext: b64(new Uint8Array(40)), aad: marker }],
        ['/v2/keys/wrap', { kek: marker, keyToWrap: marker }],
      ] as const) {
        const response = await post(url, body);
        assert.equal(response.statusCode, 400, url);
        assert.doesNotMatch(response.body, new RegExp(marker), url);
      }
    });
  });

  describe('scopes', () => {
    const secret = new TextEncoder().encode(TEST_JWT_SECRET);
    const token = (scope: string) =>
      new SignJWT({ scope }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('5m').sign(secret);

    test('encrypt/seal need crypto:encrypt, decrypt/open crypto:decrypt, wrap/unwrap crypto:keys', async (t) => {
      const scoped = await testApp({ JWT_SECRET: TEST_JWT_SECRET });
      t.after(() => scoped.close());
      const recipient = x25519KeyPair();
      const routes: [string, string, Record<string, unknown>][] = [
        ['/v2/encrypt', 'crypto:encrypt', { key: KEY, plaintext: 'p' }],
        ['/v2/secretbox/seal', 'crypto:encrypt', { key: KEY, plaintext: 'p' }],
        ['/v2/sealedbox/seal', 'crypto:encrypt', { publicKey: recipient.publicKey, plaintext: 'p' }],
        ['/v2/decrypt', 'crypto:decrypt', { key: KEY, ciphertext: '' }],
        ['/v2/secretbox/open', 'crypto:decrypt', { key: KEY, ciphertext: '' }],
        ['/v2/sealedbox/open', 'crypto:decrypt', { privateKey: recipient.secretKey, ciphertext: '' }],
        ['/v2/keys/wrap', 'crypto:keys', { kek: KEY, keyToWrap: KEY }],
        ['/v2/keys/unwrap', 'crypto:keys', { kek: KEY, wrappedKey: '' }],
      ];
      for (const [url, scope, body] of routes) {
        const allowed = await postJson(scoped, url, body, { authorization: `Bearer ${await token(scope)}` });
        // Allowed through: a 200, or the handler's own 400 (the empty blobs above do not open).
        assert.ok(
          allowed.statusCode === 200 || allowed.json().code === 'DECRYPTION_FAILED',
          `${url} with ${scope}: ${allowed.body}`,
        );
        const other = ['crypto:encrypt', 'crypto:decrypt', 'crypto:keys', 'crypto:hash']
          .filter((s) => s !== scope)
          .join(' ');
        const denied = await postJson(scoped, url, body, { authorization: `Bearer ${await token(other)}` });
        assertProblem(denied, 403, 'FORBIDDEN', `${url} without ${scope}`);
      }
    });
  });

  test("the OpenAPI document has the eight routes, their tags, and the registry's key-wrap list as the enum", async () => {
    const openapi = (await app.inject({ method: 'GET', url: '/docs/json' })).json();
    const tags: Record<string, string> = {
      '/v2/encrypt': 'aead',
      '/v2/decrypt': 'aead',
      '/v2/secretbox/seal': 'aead',
      '/v2/secretbox/open': 'aead',
      '/v2/sealedbox/seal': 'sealed-box',
      '/v2/sealedbox/open': 'sealed-box',
      '/v2/keys/wrap': 'keys',
      '/v2/keys/unwrap': 'keys',
    };
    for (const [url, tag] of Object.entries(tags)) {
      assert.deepEqual(openapi.paths[url]?.post?.tags, [tag], url);
    }
    const { data } = (await app.inject({ method: 'GET', url: '/v2/algorithms' })).json();
    for (const url of ['/v2/keys/wrap', '/v2/keys/unwrap']) {
      const schema = singleForm(openapi.paths[url].post.requestBody.content['application/json'].schema);
      assert.deepEqual(schema.properties.algorithm.enum, data.keyWrap, url);
    }
  });

  test('metrics count each operation by name and outcome', async () => {
    await post('/v2/encrypt', { key: KEY, plaintext: 'counted' });
    await post('/v2/keys/unwrap', { kek: KEY, wrappedKey: b64(new Uint8Array(40)), algorithm: 'aes-kwp' });
    const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    assert.match(
      text,
      /^crypto_operations_total\{operation="aead.encrypt",algorithm="xchacha20-poly1305",outcome="success"\} \d+$/m,
    );
    assert.match(
      text,
      /^crypto_operations_total\{operation="keys.unwrap",algorithm="aes-kwp",outcome="rejected"\} \d+$/m,
    );
  });
});
