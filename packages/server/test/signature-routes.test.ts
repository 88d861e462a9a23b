/**
 * The signature family over HTTP: `/v2/sign`, `/v2/verify` and `/v2/keys/generate`. Round trips
 * for every algorithm and encoding, verification against @noble/curves end to end, key
 * generation for every identifier and format (with no body at all, and with {}), scopes, and a
 * table of wrong inputs that must all be 4xx problems, never 5xx.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { SignJWT } from 'jose';
import { ed25519 } from '@noble/curves/ed25519.js';
import { ed448 } from '@noble/curves/ed448.js';
import { p256, p384 } from '@noble/curves/nist.js';
import { postJson, testApp, TEST_JWT_SECRET } from './helpers.ts';
import type { FastifyInstance } from 'fastify';

type Response = Awaited<ReturnType<typeof postJson>>;

const SIGNATURE_ALGORITHMS = ['ed25519', 'ed448', 'ecdsa-p256', 'ecdsa-p384'] as const;
type SignatureAlgorithm = (typeof SIGNATURE_ALGORITHMS)[number];
const ENCODINGS = ['utf8', 'base64', 'hex'] as const;
const HEX = /^(?:[0-9a-f]{2})*$/;

const LENGTHS: Record<
  SignatureAlgorithm,
  { privateKey: number; publicKey: number; compressed?: number; signature: number }
> = {
  ed25519: { privateKey: 32, publicKey: 32, signature: 64 },
  ed448: { privateKey: 57, publicKey: 57, signature: 114 },
  'ecdsa-p256': { privateKey: 32, publicKey: 65, compressed: 33, signature: 64 },
  'ecdsa-p384': { privateKey: 48, publicKey: 97, compressed: 49, signature: 96 },
};

const PAIR_IDS: Record<string, { privateKey: number; publicKey: number; kty: 'OKP' | 'EC'; crv: string }> = {
  ed25519: { privateKey: 32, publicKey: 32, kty: 'OKP', crv: 'Ed25519' },
  ed448: { privateKey: 57, publicKey: 57, kty: 'OKP', crv: 'Ed448' },
  'ecdsa-p256': { privateKey: 32, publicKey: 65, kty: 'EC', crv: 'P-256' },
  'ecdsa-p384': { privateKey: 48, publicKey: 97, kty: 'EC', crv: 'P-384' },
  x25519: { privateKey: 32, publicKey: 32, kty: 'OKP', crv: 'X25519' },
  x448: { privateKey: 56, publicKey: 56, kty: 'OKP', crv: 'X448' },
};

const SECRET_IDS: Record<string, number> = {
  'xchacha20-poly1305': 32,
  'aes-128': 16,
  'aes-192': 24,
  'aes-256': 32,
  'hmac-sha256': 32,
  'hmac-sha384': 48,
  'hmac-sha512': 64,
  'hmac-sha3-256': 32,
  'hmac-sha3-384': 48,
  'hmac-sha3-512': 64,
};

const hexOf = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const bytesOf = (hex: string) => new Uint8Array(Buffer.from(hex, 'hex'));

function encode(text: string, encoding: (typeof ENCODINGS)[number]): string {
  return encoding === 'utf8' ? text : Buffer.from(text, 'utf8').toString(encoding);
}

function flipHexBit(hex: string, byte: number): string {
  const bytes = bytesOf(hex);
  bytes[byte]! ^= 0x01;
  return hexOf(bytes);
}

/** A problem+json response with the given status and code. */
function assertProblem(response: Response, status: number, code: string, label = ''): { errors?: { field: string }[] } {
  assert.equal(response.statusCode, status, `${label}: ${response.body}`);
  assert.match(String(response.headers['content-type']), /^application\/problem\+json/, label);
  const body = response.json();
  assert.equal(body.status, status, label);
  assert.equal(body.code, code, label);
  assert.equal(body.error, body.detail, label);
  return body;
}

// @noble/curves with this service's settings (SHA-256 / SHA-384 prehash, compact r ‖ s, no low-s rule).
const NOBLE_VERIFY: Record<
  SignatureAlgorithm,
  (signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array, context?: Uint8Array) => boolean
> = {
  ed25519: (s, m, k) => ed25519.verify(s, m, k, { zip215: false }),
  ed448: (s, m, k, context) => ed448.verify(s, m, k, context === undefined ? {} : { context }),
  'ecdsa-p256': (s, m, k) => p256.verify(s, m, k, { lowS: false }),
  'ecdsa-p384': (s, m, k) => p384.verify(s, m, k, { lowS: false }),
};

describe('signature routes', () => {
  let app: FastifyInstance;
  const post = (url: string, body: unknown) => postJson(app, url, body);
  const keys: Partial<Record<SignatureAlgorithm, { privateKey: string; publicKey: string }>> = {};
  const keyOf = (algorithm: SignatureAlgorithm) => keys[algorithm]!;

  test.before(async () => {
    // The wrong-input table sends a few hundred requests; the default limit of 1000 a minute is not the subject here.
    app = await testApp({ RATE_LIMIT_MAX: '100000' });
    for (const algorithm of SIGNATURE_ALGORITHMS) {
      const response = await post('/v2/keys/generate', { algorithm });
      assert.equal(response.statusCode, 200, response.body);
      keys[algorithm] = response.json().data;
    }
  });
  test.after(() => app.close());

  describe('sign and verify', () => {
    for (const algorithm of SIGNATURE_ALGORITHMS) {
      for (const encoding of ENCODINGS) {
        test(`${algorithm}, ${encoding}: sign → verify is valid; a changed message or signature is 200 valid: false`, async () => {
          const { privateKey, publicKey } = keyOf(algorithm);
          const message = encode(`a message to sign, ünïcödé ✓ (${encoding})`, encoding);
          const signed = await post('/v2/sign', { algorithm, privateKey, message, encoding });
          assert.equal(signed.statusCode, 200, signed.body);
          const data = signed.json().data;
          assert.deepEqual(Object.keys(data).sort(), ['algorithm', 'signature']);
          assert.equal(data.algorithm, algorithm);
          assert.match(data.signature, HEX);
          assert.equal(data.signature.length, 2 * LENGTHS[algorithm].signature);

          const verify = (body: Record<string, unknown>) =>
            post('/v2/verify', { algorithm, publicKey, message, signature: data.signature, encoding, ...body });
          const good = await verify({});
          assert.equal(good.statusCode, 200, good.body);
          assert.deepEqual(good.json(), { data: { valid: true, algorithm } });
          // Hex input is accepted in either case.
          assert.equal(
            (await verify({ signature: data.signature.toUpperCase(), publicKey: publicKey.toUpperCase() })).json().data
              .valid,
            true,
          );

          const otherMessage = encode('a different message', encoding);
          const tamperedMessage = await verify({ message: otherMessage });
          assert.equal(tamperedMessage.statusCode, 200);
          assert.deepEqual(tamperedMessage.json(), { data: { valid: false, algorithm } });
          for (const byte of [0, LENGTHS[algorithm].signature - 1]) {
            const tampered = await verify({ signature: flipHexBit(data.signature, byte) });
            assert.equal(tampered.statusCode, 200, tampered.body);
            assert.deepEqual(tampered.json(), { data: { valid: false, algorithm } });
          }
          // The message bytes are the decoded ones: @noble/curves verifies the signature over them.
          const messageBytes = new Uint8Array(Buffer.from(message, encoding === 'utf8' ? 'utf8' : encoding));
          assert.equal(NOBLE_VERIFY[algorithm](bytesOf(data.signature), messageBytes, bytesOf(publicKey)), true);
        });
      }
    }

    test('the algorithm defaults to ed25519, for sign and for verify', async () => {
      const { privateKey, publicKey } = keyOf('ed25519');
      const signed = await post('/v2/sign', { privateKey, message: 'default' });
      assert.equal(signed.statusCode, 200, signed.body);
      assert.equal(signed.json().data.algorithm, 'ed25519');
      const verified = await post('/v2/verify', {
        publicKey,
        message: 'default',
        signature: signed.json().data.signature,
      });
      assert.deepEqual(verified.json(), { data: { valid: true, algorithm: 'ed25519' } });
    });

    test('the empty message signs and verifies', async () => {
      for (const algorithm of SIGNATURE_ALGORITHMS) {
        const { privateKey, publicKey } = keyOf(algorithm);
        const signature = (await post('/v2/sign', { algorithm, privateKey, message: '' })).json().data.signature;
        assert.equal(
          (await post('/v2/verify', { algorithm, publicKey, message: '', signature })).json().data.valid,
          true,
          algorithm,
        );
      }
    });

    test('ed448 with a context: it verifies with the same context only, and @noble/curves agrees', async () => {
      const { privateKey, publicKey } = keyOf('ed448');
      const context = 'crypto-service/test ✓';
      const signature = (await post('/v2/sign', { algorithm: 'ed448', privateKey, message: 'm', context })).json().data
        .signature;
      const verify = (extra: Record<string, unknown>) =>
        post('/v2/verify', { algorithm: 'ed448', publicKey, message: 'm', signature, ...extra });
      assert.equal((await verify({ context })).json().data.valid, true);
      assert.equal((await verify({ context: 'another' })).json().data.valid, false);
      assert.equal((await verify({})).json().data.valid, false);
      assert.equal(
        NOBLE_VERIFY.ed448(
          bytesOf(signature),
          new TextEncoder().encode('m'),
          bytesOf(publicKey),
          new TextEncoder().encode(context),
        ),
        true,
      );
      // 255 bytes of UTF-8 is the limit, whatever the characters.
      const longest = 'é'.repeat(127) + 'x';
      assert.equal(Buffer.byteLength(longest), 255);
      assert.equal(
        (await post('/v2/sign', { algorithm: 'ed448', privateKey, message: 'm', context: longest })).statusCode,
        200,
      );
    });

    test('ECDSA verifies with the public key in SEC1 compressed form too', async () => {
      for (const algorithm of ['ecdsa-p256', 'ecdsa-p384'] as const) {
        const { privateKey, publicKey } = keyOf(algorithm);
        const point = bytesOf(publicKey);
        const size = (point.byteLength - 1) / 2;
        const compressed = hexOf(new Uint8Array([0x02 | (point.at(-1)! & 1), ...point.subarray(1, 1 + size)]));
        const signature = (await post('/v2/sign', { algorithm, privateKey, message: 'm' })).json().data.signature;
        assert.equal(
          (await post('/v2/verify', { algorithm, publicKey: compressed, message: 'm', signature })).json().data.valid,
          true,
          algorithm,
        );
      }
    });

    test('PEM keys (PKCS#8 / SPKI) from keys/generate and from node:crypto sign and verify', async () => {
      for (const algorithm of SIGNATURE_ALGORITHMS) {
        const pem = (await post('/v2/keys/generate', { algorithm, format: 'pem' })).json().data;
        const signed = await post('/v2/sign', { algorithm, privateKey: pem.privateKey, message: 'pem' });
        assert.equal(signed.statusCode, 200, signed.body);
        const verified = await post('/v2/verify', {
          algorithm,
          publicKey: pem.publicKey,
          message: 'pem',
          signature: signed.json().data.signature,
        });
        assert.equal(verified.json().data.valid, true, algorithm);
      }
      const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-384' });
      const signed = await post('/v2/sign', {
        algorithm: 'ecdsa-p384',
        privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }),
        message: 'openssl',
      });
      assert.equal(signed.statusCode, 200, signed.body);
      const raw = publicKey.export({ format: 'jwk' });
      const point = hexOf(
        new Uint8Array([4, ...Buffer.from(raw.x!, 'base64url'), ...Buffer.from(raw.y!, 'base64url')]),
      );
      const verified = await post('/v2/verify', {
        algorithm: 'ecdsa-p384',
        publicKey: point,
        message: 'openssl',
        signature: signed.json().data.signature,
      });
      assert.equal(verified.json().data.valid, true);
    });
  });

  describe('POST /v2/keys/generate', () => {
    test('no body at all, and {}, give an Ed25519 pair as raw hex', async () => {
      const bare = await app.inject({ method: 'POST', url: '/v2/keys/generate' });
      const empty = await post('/v2/keys/generate', {});
      for (const response of [bare, empty]) {
        assert.equal(response.statusCode, 200, response.body);
        const data = response.json().data;
        assert.deepEqual(Object.keys(data).sort(), ['algorithm', 'format', 'privateKey', 'publicKey']);
        assert.equal(data.algorithm, 'ed25519');
        assert.equal(data.format, 'raw');
        assert.match(data.privateKey, HEX);
        assert.equal(data.privateKey.length, 64);
        assert.equal(hexOf(ed25519.getPublicKey(bytesOf(data.privateKey))), data.publicKey);
      }
      assert.notEqual(bare.json().data.privateKey, empty.json().data.privateKey);
    });

    for (const [algorithm, spec] of Object.entries(PAIR_IDS)) {
      test(`${algorithm}: raw, pem and jwk`, async () => {
        const raw = await post('/v2/keys/generate', { algorithm, format: 'raw' });
        assert.equal(raw.statusCode, 200, raw.body);
        const rawData = raw.json().data;
        assert.deepEqual(Object.keys(rawData).sort(), ['algorithm', 'format', 'privateKey', 'publicKey']);
        assert.equal(rawData.algorithm, algorithm);
        assert.equal(rawData.format, 'raw');
        assert.match(rawData.privateKey, HEX);
        assert.match(rawData.publicKey, HEX);
        assert.equal(rawData.privateKey.length, 2 * spec.privateKey);
        assert.equal(rawData.publicKey.length, 2 * spec.publicKey);

        const pem = (await post('/v2/keys/generate', { algorithm, format: 'pem' })).json().data;
        assert.equal(pem.format, 'pem');
        const privateKey = createPrivateKey(pem.privateKey);
        const publicKey = createPublicKey(pem.publicKey);
        assert.equal(privateKey.type, 'private');
        assert.equal(publicKey.type, 'public');
        assert.equal(privateKey.asymmetricKeyType, spec.kty === 'EC' ? 'ec' : algorithm);

        const jwk = (await post('/v2/keys/generate', { algorithm, format: 'jwk' })).json().data;
        assert.equal(jwk.format, 'jwk');
        assert.equal(jwk.privateKey.kty, spec.kty);
        assert.equal(jwk.privateKey.crv, spec.crv);
        assert.equal(typeof jwk.privateKey.d, 'string');
        assert.equal(jwk.publicKey.d, undefined);
        assert.equal(jwk.publicKey.x, jwk.privateKey.x);
        assert.equal(createPrivateKey({ key: jwk.privateKey, format: 'jwk' }).type, 'private');
      });
    }

    for (const [algorithm, length] of Object.entries(SECRET_IDS)) {
      test(`${algorithm}: { algorithm, format, key } as hex or an oct JWK; pem is a 400 naming /format`, async () => {
        const raw = await post('/v2/keys/generate', { algorithm });
        assert.equal(raw.statusCode, 200, raw.body);
        assert.deepEqual(Object.keys(raw.json().data).sort(), ['algorithm', 'format', 'key']);
        assert.equal(raw.json().data.algorithm, algorithm);
        assert.match(raw.json().data.key, HEX);
        assert.equal(raw.json().data.key.length, 2 * length);
        const jwk = (await post('/v2/keys/generate', { algorithm, format: 'jwk' })).json().data;
        assert.deepEqual(jwk.key, { kty: 'oct', k: jwk.key.k });
        assert.equal(Buffer.from(jwk.key.k, 'base64url').byteLength, length);
        const pem = await post('/v2/keys/generate', { algorithm, format: 'pem' });
        const body = assertProblem(pem, 400, 'INVALID_INPUT', algorithm);
        assert.equal(body.errors?.[0]?.field, '/format');
      });
    }

    test('every classical identifier listed by GET /v2/algorithms (keyGeneration) is generated, and the signature list starts with ours', async () => {
      // The post-quantum identifiers of both lists: pq-signature-routes.test.ts and registry-routes.test.ts.
      const { data } = (await app.inject({ method: 'GET', url: '/v2/algorithms' })).json();
      const classical = [...Object.keys(PAIR_IDS), ...Object.keys(SECRET_IDS)];
      assert.deepEqual(data.keyGeneration.slice(0, classical.length).sort(), classical.sort());
      assert.deepEqual(data.signature.slice(0, SIGNATURE_ALGORITHMS.length), [...SIGNATURE_ALGORITHMS]);
      for (const algorithm of classical) {
        assert.equal((await post('/v2/keys/generate', { algorithm })).statusCode, 200, algorithm);
      }
    });

    test('a raw key from keys/generate is what sign and verify take, for every signature algorithm', async () => {
      for (const algorithm of SIGNATURE_ALGORITHMS) {
        const pair = (await post('/v2/keys/generate', { algorithm })).json().data;
        const signature = (await post('/v2/sign', { algorithm, privateKey: pair.privateKey, message: 'x' })).json().data
          .signature;
        assert.equal(
          (await post('/v2/verify', { algorithm, publicKey: pair.publicKey, message: 'x', signature })).json().data
            .valid,
          true,
          algorithm,
        );
      }
    });
  });

  describe('wrong inputs are 4xx problems, never 5xx', () => {
    test('the table', async () => {
      const ed = keyOf('ed25519');
      const p256Key = keyOf('ecdsa-p256');
      const ed448Key = keyOf('ed448');
      const edSignature = (await post('/v2/sign', { privateKey: ed.privateKey, message: 'm' })).json().data.signature;
      const sign = (extra: Record<string, unknown>) => ({
        url: '/v2/sign',
        body: { privateKey: ed.privateKey, message: 'm', ...extra },
      });
      const verify = (extra: Record<string, unknown>) => ({
        url: '/v2/verify',
        body: { publicKey: ed.publicKey, message: 'm', signature: edSignature, ...extra },
      });
      const keygen = (body: unknown) => ({ url: '/v2/keys/generate', body });
      const without = (body: Record<string, unknown>, field: string) =>
        Object.fromEntries(Object.entries(body).filter(([key]) => key !== field));

      type Case = { name: string; url: string; body: unknown; status?: number; code?: string; field?: string };
      const cases: Case[] = [
        // Wrong types.
        ...['privateKey', 'message', 'algorithm', 'context', 'encoding'].flatMap((field) =>
          [42, null, true, [], {}].map((value) => ({
            name: `sign ${field} = ${JSON.stringify(value)}`,
            ...sign({ [field]: value }),
          })),
        ),
        ...['publicKey', 'message', 'signature', 'algorithm', 'context', 'encoding'].flatMap((field) =>
          [42, null, false, ['00'], { a: 1 }].map((value) => ({
            name: `verify ${field} = ${JSON.stringify(value)}`,
            ...verify({ [field]: value }),
          })),
        ),
        ...['algorithm', 'format'].flatMap((field) =>
          [1, null, true, [], {}].map((value) => ({
            name: `keygen ${field} = ${JSON.stringify(value)}`,
            ...keygen({ [field]: value }),
          })),
        ),
        { name: 'sign body is an array', url: '/v2/sign', body: [], status: 400 },
        { name: 'verify body is a string', url: '/v2/verify', body: 'x', status: 400 },
        { name: 'keygen body is null', url: '/v2/keys/generate', body: null, status: 400 },
        { name: 'keygen body is a number', url: '/v2/keys/generate', body: 7, status: 400 },
        // Missing fields.
        ...['privateKey', 'message'].map((field) => ({
          name: `sign without ${field}`,
          url: '/v2/sign',
          body: without(sign({}).body, field),
          status: 400,
          field: `/${field}`,
        })),
        ...['publicKey', 'message', 'signature'].map((field) => ({
          name: `verify without ${field}`,
          url: '/v2/verify',
          body: without(verify({}).body, field),
          status: 400,
          field: `/${field}`,
        })),
        // Unknown fields.
        { name: 'sign with an unknown field', ...sign({ extra: 1 }), status: 400, field: '/extra' },
        { name: 'sign with publicKey', ...sign({ publicKey: ed.publicKey }), status: 400, field: '/publicKey' },
        { name: 'verify with privateKey', ...verify({ privateKey: ed.privateKey }), status: 400, field: '/privateKey' },
        { name: 'keygen with an unknown field', ...keygen({ curve: 'P-256' }), status: 400, field: '/curve' },
        // Unknown or insecure algorithms, formats and encodings.
        ...['rsa', 'ECDSA-P256', 'ed25519ph', 'ecdsa-p521', 'x25519', 'md5', ''].map((algorithm) => ({
          name: `sign algorithm ${algorithm}`,
          ...sign({ algorithm }),
          status: 400,
          code: 'UNSUPPORTED_ALGORITHM',
        })),
        ...['rsa', 'aes-kw', 'sha256'].map((algorithm) => ({
          name: `verify algorithm ${algorithm}`,
          ...verify({ algorithm }),
          status: 400,
          code: 'UNSUPPORTED_ALGORITHM',
        })),
        ...['rsa-2048', 'ml-kem-768x', 'AES-256'].map((algorithm) => ({
          name: `keygen algorithm ${algorithm}`,
          ...keygen({ algorithm }),
          status: 400,
          code: 'UNSUPPORTED_ALGORITHM',
        })),
        ...['der', 'PEM', 'ssh', ''].map((format) => ({
          name: `keygen format ${format}`,
          ...keygen({ format }),
          status: 400,
        })),
        { name: 'sign encoding latin1', ...sign({ encoding: 'latin1' }), status: 400 },
        // Bad hex and bad encodings.
        {
          name: 'sign privateKey odd hex',
          ...sign({ privateKey: ed.privateKey.slice(1) }),
          status: 400,
          field: '/privateKey',
        },
        {
          name: 'sign privateKey not hex',
          ...sign({ privateKey: 'zz'.repeat(32) }),
          status: 400,
          field: '/privateKey',
        },
        { name: 'sign privateKey empty', ...sign({ privateKey: '' }), status: 400, field: '/privateKey' },
        {
          name: 'sign privateKey 0x prefix',
          ...sign({ privateKey: `0x${ed.privateKey}` }),
          status: 400,
          field: '/privateKey',
        },
        {
          name: 'verify publicKey not hex',
          ...verify({ publicKey: 'g'.repeat(64) }),
          status: 400,
          field: '/publicKey',
        },
        {
          name: 'verify signature not hex',
          ...verify({ signature: 'xy'.repeat(64) }),
          status: 400,
          field: '/signature',
        },
        {
          name: 'verify signature odd hex',
          ...verify({ signature: edSignature.slice(1) }),
          status: 400,
          field: '/signature',
        },
        { name: 'sign message bad hex', ...sign({ message: 'abc', encoding: 'hex' }), status: 400, field: '/message' },
        {
          name: 'sign message bad base64',
          ...sign({ message: 'YWJj=', encoding: 'base64' }),
          status: 400,
          field: '/message',
        },
        {
          name: 'verify message bad base64',
          ...verify({ message: 'Y W J j', encoding: 'base64' }),
          status: 400,
          field: '/message',
        },
        // Context too long, or on a scheme without one.
        {
          name: 'ed448 context of 256 ASCII characters',
          url: '/v2/sign',
          body: { algorithm: 'ed448', privateKey: ed448Key.privateKey, message: 'm', context: 'x'.repeat(256) },
          status: 400,
          field: '/context',
        },
        {
          name: 'ed448 context of 128 two-byte characters (256 bytes)',
          url: '/v2/sign',
          body: { algorithm: 'ed448', privateKey: ed448Key.privateKey, message: 'm', context: 'é'.repeat(128) },
          status: 400,
          code: 'INVALID_INPUT',
          field: '/context',
        },
        {
          name: 'ed448 verify context too long',
          url: '/v2/verify',
          body: {
            algorithm: 'ed448',
            publicKey: ed448Key.publicKey,
            message: 'm',
            signature: '00'.repeat(114),
            context: '€'.repeat(86),
          },
          status: 400,
          code: 'INVALID_INPUT',
          field: '/context',
        },
        {
          name: 'ed25519 sign with a context',
          ...sign({ context: 'ctx' }),
          status: 400,
          code: 'INVALID_INPUT',
          field: '/context',
        },
        {
          name: 'ed25519 sign with an empty context',
          ...sign({ context: '' }),
          status: 400,
          code: 'INVALID_INPUT',
          field: '/context',
        },
        {
          name: 'ed25519 verify with a context',
          ...verify({ context: 'ctx' }),
          status: 400,
          code: 'INVALID_INPUT',
          field: '/context',
        },
        {
          name: 'ecdsa-p256 sign with a context',
          url: '/v2/sign',
          body: { algorithm: 'ecdsa-p256', privateKey: p256Key.privateKey, message: 'm', context: 'ctx' },
          status: 400,
          code: 'INVALID_INPUT',
          field: '/context',
        },
        // PEM that is not a key of the algorithm, and symmetric keys as PEM.
        {
          name: 'sign with a PUBLIC KEY PEM',
          ...sign({
            privateKey: String(generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' })),
          }),
          status: 400,
          code: 'INVALID_INPUT',
          field: '/privateKey',
        },
        {
          name: 'sign ed25519 with a P-256 PEM',
          ...sign({
            privateKey: String(
              generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }),
            ),
          }),
          status: 400,
          code: 'INVALID_INPUT',
          field: '/privateKey',
        },
        {
          name: 'sign with a broken PEM',
          ...sign({ privateKey: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----' }),
          status: 400,
          code: 'INVALID_INPUT',
          field: '/privateKey',
        },
        {
          name: 'verify with a truncated PEM',
          ...verify({ publicKey: '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA' }),
          status: 400,
          code: 'INVALID_INPUT',
          field: '/publicKey',
        },
        ...Object.keys(SECRET_IDS).map((algorithm) => ({
          name: `keygen ${algorithm} as pem`,
          ...keygen({ algorithm, format: 'pem' }),
          status: 400,
          code: 'INVALID_INPUT',
          field: '/format',
        })),
        // ECDSA public keys that are not points of the curve.
        {
          name: 'p256 public key off the curve',
          url: '/v2/verify',
          body: {
            algorithm: 'ecdsa-p256',
            publicKey: p256Key.publicKey.slice(0, -2) + (p256Key.publicKey.endsWith('00') ? '01' : '00'),
            message: 'm',
            signature: '00'.repeat(64),
          },
          status: 400,
          code: 'INVALID_INPUT',
          field: '/publicKey',
        },
        // SEC1 "hybrid" points (0x06 / 0x07 ‖ x ‖ y): OpenSSL reads the one whose prefix matches y's parity; the API accepts only uncompressed and compressed points.
        ...['06', '07'].map((prefix) => ({
          name: `p256 public key with the hybrid prefix ${prefix}`,
          url: '/v2/verify',
          body: {
            algorithm: 'ecdsa-p256',
            publicKey: `${prefix}${p256Key.publicKey.slice(2)}`,
            message: 'm',
            signature: '00'.repeat(64),
          },
          status: 400,
          code: 'INVALID_INPUT',
          field: '/publicKey',
        })),
        {
          name: 'p256 private scalar 0',
          url: '/v2/sign',
          body: { algorithm: 'ecdsa-p256', privateKey: '00'.repeat(32), message: 'm' },
          status: 400,
          code: 'INVALID_INPUT',
          field: '/privateKey',
        },
        {
          name: 'p384 private scalar ff…ff',
          url: '/v2/sign',
          body: { algorithm: 'ecdsa-p384', privateKey: 'ff'.repeat(48), message: 'm' },
          status: 400,
          code: 'INVALID_INPUT',
          field: '/privateKey',
        },
      ];

      // Keys and signatures of every wrong length, for every algorithm.
      for (const algorithm of SIGNATURE_ALGORITHMS) {
        const lengths = LENGTHS[algorithm];
        const pair = keyOf(algorithm);
        const signature = (await post('/v2/sign', { algorithm, privateKey: pair.privateKey, message: 'm' })).json().data
          .signature;
        const validPublic = [lengths.publicKey, lengths.compressed].filter((n) => n !== undefined);
        for (const length of [0, 1, 16, 31, 32, 33, 48, 49, 56, 57, 64, 65, 96, 97, 114, 128]) {
          if (length !== lengths.privateKey && length > 0) {
            cases.push({
              name: `${algorithm} privateKey of ${length} bytes`,
              url: '/v2/sign',
              body: { algorithm, privateKey: '11'.repeat(length), message: 'm' },
              status: 400,
              code: 'INVALID_INPUT',
              field: '/privateKey',
            });
          }
          if (!validPublic.includes(length) && length > 0) {
            cases.push({
              name: `${algorithm} publicKey of ${length} bytes`,
              url: '/v2/verify',
              body: { algorithm, publicKey: '04'.repeat(length), message: 'm', signature },
              status: 400,
              code: 'INVALID_INPUT',
              field: '/publicKey',
            });
          }
          if (length !== lengths.signature) {
            cases.push({
              name: `${algorithm} signature of ${length} bytes`,
              url: '/v2/verify',
              body: { algorithm, publicKey: pair.publicKey, message: 'm', signature: '22'.repeat(length) },
              status: 400,
              code: 'INVALID_INPUT',
              field: '/signature',
            });
          }
        }
        // A signature one byte short or long of the real one (truncated, or with trailing garbage).
        cases.push({
          name: `${algorithm} signature truncated`,
          url: '/v2/verify',
          body: { algorithm, publicKey: pair.publicKey, message: 'm', signature: signature.slice(0, -2) },
          status: 400,
          code: 'INVALID_INPUT',
          field: '/signature',
        });
        cases.push({
          name: `${algorithm} signature with garbage`,
          url: '/v2/verify',
          body: { algorithm, publicKey: pair.publicKey, message: 'm', signature: `${signature}00` },
          status: 400,
          code: 'INVALID_INPUT',
          field: '/signature',
        });
      }

      assert.ok(cases.length > 250, `only ${cases.length} cases`);
      for (const testCase of cases) {
        const response = await post(testCase.url, testCase.body);
        assert.ok(
          response.statusCode >= 400 && response.statusCode < 500,
          `${testCase.name}: ${response.statusCode} ${response.body}`,
        );
        assert.match(String(response.headers['content-type']), /^application\/problem\+json/, testCase.name);
        const body = response.json();
        assert.equal(body.status, response.statusCode, testCase.name);
        assert.equal(body.error, body.detail, testCase.name);
        if (testCase.status !== undefined)
          assert.equal(response.statusCode, testCase.status, `${testCase.name}: ${response.body}`);
        if (testCase.code !== undefined) assert.equal(body.code, testCase.code, `${testCase.name}: ${response.body}`);
        if (testCase.field !== undefined)
          assert.equal(body.errors?.[0]?.field, testCase.field, `${testCase.name}: ${response.body}`);
        // Messages name the field and the rule, never the value: no key material comes back.
        for (const secret of [ed.privateKey, p256Key.privateKey, ed448Key.privateKey])
          assert.ok(!response.body.includes(secret), testCase.name);
      }
    });

    test('a body that is not JSON, or not application/json, is a 4xx', async () => {
      const notJson = await app.inject({
        method: 'POST',
        url: '/v2/sign',
        payload: '{"privateKey":',
        headers: { 'content-type': 'application/json' },
      });
      assertProblem(notJson, 400, 'MALFORMED_JSON');
      const text = await app.inject({
        method: 'POST',
        url: '/v2/verify',
        payload: 'hello',
        headers: { 'content-type': 'text/plain' },
      });
      assertProblem(text, 415, 'UNSUPPORTED_MEDIA_TYPE');
      const emptyJson = await app.inject({
        method: 'POST',
        url: '/v2/keys/generate',
        payload: '',
        headers: { 'content-type': 'application/json' },
      });
      assert.ok(emptyJson.statusCode >= 400 && emptyJson.statusCode < 500, emptyJson.body);
    });
  });
});

describe('scopes', () => {
  const secret = new TextEncoder().encode(TEST_JWT_SECRET);
  const token = (scope: string) =>
    new SignJWT({ scope }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('5m').sign(secret);

  test('sign needs crypto:sign, verify crypto:verify, keys/generate crypto:keys', async (t) => {
    const app = await testApp({ JWT_SECRET: TEST_JWT_SECRET });
    t.after(() => app.close());
    const pair = generateKeyPairSync('ed25519');
    const privateKey = Buffer.from(pair.privateKey.export({ format: 'jwk' }).d!, 'base64url').toString('hex');
    const publicKey = Buffer.from(pair.publicKey.export({ format: 'jwk' }).x!, 'base64url').toString('hex');
    const routes: [string, string, unknown][] = [
      ['/v2/sign', 'crypto:sign', { privateKey, message: 'm' }],
      ['/v2/verify', 'crypto:verify', { publicKey, message: 'm', signature: '00'.repeat(64) }],
      ['/v2/keys/generate', 'crypto:keys', {}],
    ];
    for (const [url, scope, body] of routes) {
      const allowed = await postJson(app, url, body, { authorization: `Bearer ${await token(scope)}` });
      assert.equal(allowed.statusCode, 200, `${url} with ${scope}: ${allowed.body}`);
      const others = ['crypto:sign', 'crypto:verify', 'crypto:keys', 'crypto:hash']
        .filter((s) => s !== scope)
        .join(' ');
      const denied = await postJson(app, url, body, { authorization: `Bearer ${await token(others)}` });
      assertProblem(denied, 403, 'FORBIDDEN', `${url} without ${scope}`);
    }
  });
});
