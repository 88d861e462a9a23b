/**
 * `/v2/sealedbox/seal-pq` and `/v2/sealedbox/open-pq` over HTTP: every key form both ways, the
 * encodings, the wire format checked with an independent HPKE implementation (@hpke/core with
 * @hpke/hybridkem-x-wing), the one byte-identical DECRYPTION_FAILED for every way a box fails to
 * open, a table of wrong inputs that are all 4xx problems (never dressed up as a decryption
 * failure), scopes, metrics and the OpenAPI document.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { SignJWT } from 'jose';
import { CipherSuite, HkdfSha256 } from '@hpke/core';
import { Chacha20Poly1305 } from '@hpke/chacha20poly1305';
import { XWing } from '@hpke/hybridkem-x-wing';
import { postJson, testApp, TEST_JWT_SECRET } from './helpers.ts';
import { withXWingParts, type XWingKeyHex } from './xwing-parts.ts';

const SEAL = '/v2/sealedbox/seal-pq';
const OPEN = '/v2/sealedbox/open-pq';
const ALGORITHM = 'hpke-x25519-ml-kem-768-chacha20-poly1305';
const INFO = new TextEncoder().encode('crypto-service/v2/sealedbox-pq');
const LOW_ORDER = 'e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800';

type Response = Awaited<ReturnType<typeof postJson>>;
type Keys = XWingKeyHex;

function problem(response: Response, label: string) {
  assert.ok(
    response.statusCode >= 400 && response.statusCode < 500,
    `${label}: ${response.statusCode} ${response.body.slice(0, 200)}`,
  );
  assert.match(String(response.headers['content-type']), /^application\/problem\+json/, label);
  const body = response.json();
  assert.equal(body.status, response.statusCode, label);
  assert.equal(body.error, body.detail, label);
  return body;
}

function flipBit(base64: string, byte: number): string {
  const bytes = Buffer.from(base64, 'base64');
  bytes[byte]! ^= 1;
  return bytes.toString('base64');
}

describe('POST /v2/sealedbox/seal-pq and /open-pq', () => {
  let app: FastifyInstance;
  let keys: Keys;
  let other: Keys;
  const post = (url: string, body: unknown) => postJson(app, url, body);
  const seal = async (body: Record<string, unknown>) => {
    const response = await post(SEAL, body);
    assert.equal(response.statusCode, 200, response.body);
    return response.json().data as { ciphertext: string; algorithm: string };
  };
  before(async () => {
    app = await testApp({ RATE_LIMIT_MAX: '100000' });
    keys = withXWingParts((await post('/v2/pq/hybrid/keygen', {})).json().data);
    other = withXWingParts((await post('/v2/pq/hybrid/keygen', {})).json().data);
  });
  after(() => app.close());

  const publicForms = (k: Keys) => [
    { x25519PublicKey: k.x25519PublicKey, mlKemPublicKey: k.mlKemPublicKey },
    { publicKey: k.publicKey },
  ];
  const secretForms = (k: Keys) => [
    { x25519PrivateKey: k.x25519PrivateKey, mlKemPrivateKey: k.mlKemPrivateKey },
    { privateKey: k.privateKey },
  ];

  test('every public-key form seals and every secret-key form opens; the shape is { ciphertext, algorithm }', async () => {
    const plaintext = 'post-quantum ✓ sealed';
    for (const recipient of publicForms(keys)) {
      const data = await seal({ ...recipient, plaintext });
      assert.deepEqual(Object.keys(data).sort(), ['algorithm', 'ciphertext']);
      assert.equal(data.algorithm, ALGORITHM);
      assert.equal(Buffer.from(data.ciphertext, 'base64').byteLength, Buffer.byteLength(plaintext) + 1120 + 16);
      for (const secret of secretForms(keys)) {
        const opened = await post(OPEN, { ...secret, ciphertext: data.ciphertext });
        assert.equal(opened.statusCode, 200, opened.body);
        assert.deepEqual(opened.json(), { data: plaintext });
      }
    }
    // Hex keys in either case.
    const upper = await seal({
      x25519PublicKey: keys.x25519PublicKey.toUpperCase(),
      mlKemPublicKey: keys.mlKemPublicKey.toUpperCase(),
      plaintext: 'x',
    });
    assert.deepEqual(
      (await post(OPEN, { privateKey: keys.privateKey.toUpperCase(), ciphertext: upper.ciphertext })).json(),
      {
        data: 'x',
      },
    );
  });

  test('binary data passes as base64 or hex; a non-UTF-8 plaintext asked for as utf8 is a 400 that says to ask for base64', async () => {
    const bytes = Buffer.from([0xff, 0xfe, 0x00, 0x80]);
    const { ciphertext: sealed } = await seal({
      publicKey: keys.publicKey,
      plaintext: bytes.toString('base64'),
      encoding: 'base64',
    });
    assert.deepEqual((await post(OPEN, { privateKey: keys.privateKey, ciphertext: sealed, encoding: 'hex' })).json(), {
      data: bytes.toString('hex'),
    });
    assert.deepEqual(
      (await post(OPEN, { privateKey: keys.privateKey, ciphertext: sealed, encoding: 'base64' })).json(),
      {
        data: bytes.toString('base64'),
      },
    );
    const asText = problem(await post(OPEN, { privateKey: keys.privateKey, ciphertext: sealed }), 'utf8 of binary');
    assert.equal(asText.code, 'INVALID_INPUT');
    assert.match(asText.detail, /base64/);
    assert.deepEqual(
      (
        await post(OPEN, {
          privateKey: keys.privateKey,
          ciphertext: (await seal({ publicKey: keys.publicKey, plaintext: '' })).ciphertext,
        })
      ).json(),
      { data: '' },
    );
  });

  test("the wire format is HPKE's: @hpke/core opens what the route seals, and the route opens what @hpke/core seals", async () => {
    const suite = new CipherSuite({ kem: new XWing(), kdf: new HkdfSha256(), aead: new Chacha20Poly1305() });
    const { ciphertext: sealed } = await seal({ ...publicForms(keys)[0], plaintext: 'to @hpke' });
    const box = Buffer.from(sealed, 'base64');
    const recipientKey = await suite.kem.deserializePrivateKey(
      new Uint8Array(Buffer.from(keys.privateKey, 'hex')).buffer,
    );
    const opened = await suite.open(
      { recipientKey, enc: new Uint8Array(box.subarray(0, 1120)).buffer, info: INFO.slice().buffer },
      new Uint8Array(box.subarray(1120)).buffer,
    );
    assert.equal(new TextDecoder().decode(opened), 'to @hpke');
    const recipientPublicKey = await suite.kem.deserializePublicKey(
      new Uint8Array(Buffer.from(keys.publicKey, 'hex')).buffer,
    );
    const theirs = await suite.seal(
      { recipientPublicKey, info: INFO.slice().buffer },
      new TextEncoder().encode('from @hpke').buffer,
    );
    const theirBox = Buffer.concat([Buffer.from(theirs.enc), Buffer.from(theirs.ct)]).toString('base64');
    for (const secret of secretForms(keys))
      assert.deepEqual((await post(OPEN, { ...secret, ciphertext: theirBox })).json(), { data: 'from @hpke' });
  });

  test('every cause of failure to open gives the identical 400 DECRYPTION_FAILED, with no field and no hint', async () => {
    const { ciphertext: sealed } = await seal({ publicKey: keys.publicKey, plaintext: 'secret' });
    const length = Buffer.from(sealed, 'base64').byteLength;
    const lowOrder = Buffer.from(sealed, 'base64');
    Buffer.from(LOW_ORDER, 'hex').copy(lowOrder, 1088);
    const classical = (
      await post('/v2/sealedbox/seal', { publicKey: keys.x25519PublicKey, plaintext: 'secret' })
    ).json().data.ciphertext;
    const causes: [string, Record<string, unknown>][] = [
      ['another X-Wing seed', { privateKey: other.privateKey, ciphertext: sealed }],
      [
        "another key's parts",
        { x25519PrivateKey: other.x25519PrivateKey, mlKemPrivateKey: other.mlKemPrivateKey, ciphertext: sealed },
      ],
      [
        'the X25519 part of another key',
        { x25519PrivateKey: other.x25519PrivateKey, mlKemPrivateKey: keys.mlKemPrivateKey, ciphertext: sealed },
      ],
      [
        'the ML-KEM part of another key',
        { x25519PrivateKey: keys.x25519PrivateKey, mlKemPrivateKey: other.mlKemPrivateKey, ciphertext: sealed },
      ],
      ['a changed ML-KEM ciphertext', { privateKey: keys.privateKey, ciphertext: flipBit(sealed, 100) }],
      ['a changed ephemeral X25519 key', { privateKey: keys.privateKey, ciphertext: flipBit(sealed, 1100) }],
      ['a changed ciphertext', { privateKey: keys.privateKey, ciphertext: flipBit(sealed, 1120) }],
      ['a changed tag', { privateKey: keys.privateKey, ciphertext: flipBit(sealed, length - 1) }],
      [
        'a truncated box',
        { privateKey: keys.privateKey, ciphertext: Buffer.from(sealed, 'base64').subarray(0, 1135).toString('base64') },
      ],
      ['an empty box', { privateKey: keys.privateKey, ciphertext: '' }],
      ['a low-order ephemeral X25519 key', { privateKey: keys.privateKey, ciphertext: lowOrder.toString('base64') }],
      ['a classical sealed box', { privateKey: keys.privateKey, ciphertext: classical }],
    ];
    const bodies: string[] = [];
    for (const [label, body] of causes) {
      const response = await post(OPEN, body);
      assert.equal(response.statusCode, 400, label);
      const details = problem(response, label);
      assert.equal(details.code, 'DECRYPTION_FAILED', label);
      assert.equal(details.errors, undefined, label);
      bodies.push(response.body);
    }
    assert.equal(new Set(bodies).size, 1, 'one body for every cause');
    assert.deepEqual(JSON.parse(bodies[0]!), {
      type: 'urn:crypto-service:problem:decryption-failed',
      title: 'Decryption failed',
      status: 400,
      detail: 'decryption failed',
      instance: OPEN,
      error: 'decryption failed',
      code: 'DECRYPTION_FAILED',
    });
  });

  test('a table of wrong bodies: every one a 4xx problem, never a DECRYPTION_FAILED, naming the field where there is one', async () => {
    const { ciphertext: sealed } = await seal({ publicKey: keys.publicKey, plaintext: 'x' });
    const sealCases: [string, unknown, string | undefined][] = [
      ['no key', { plaintext: 'x' }, '/'],
      ['x25519PublicKey alone', { x25519PublicKey: keys.x25519PublicKey, plaintext: 'x' }, '/mlKemPublicKey'],
      ['mlKemPublicKey alone', { mlKemPublicKey: keys.mlKemPublicKey, plaintext: 'x' }, '/x25519PublicKey'],
      ['both forms', { ...publicForms(keys)[0], publicKey: keys.publicKey, plaintext: 'x' }, '/x25519PublicKey'],
      ['no plaintext', { publicKey: keys.publicKey }, '/plaintext'],
      [
        'an unknown field',
        { publicKey: keys.publicKey, plaintext: 'x', recipientPublicKey: keys.x25519PublicKey },
        '/recipientPublicKey',
      ],
      [
        'x25519PublicKey of 31 bytes',
        { x25519PublicKey: keys.x25519PublicKey.slice(2), mlKemPublicKey: keys.mlKemPublicKey, plaintext: 'x' },
        '/x25519PublicKey',
      ],
      [
        'mlKemPublicKey of 1183 bytes',
        { x25519PublicKey: keys.x25519PublicKey, mlKemPublicKey: keys.mlKemPublicKey.slice(2), plaintext: 'x' },
        '/mlKemPublicKey',
      ],
      [
        'an ML-KEM-512 key as mlKemPublicKey',
        { x25519PublicKey: keys.x25519PublicKey, mlKemPublicKey: 'ab'.repeat(800), plaintext: 'x' },
        '/mlKemPublicKey',
      ],
      [
        'a low-order x25519PublicKey',
        { x25519PublicKey: LOW_ORDER, mlKemPublicKey: keys.mlKemPublicKey, plaintext: 'x' },
        '/x25519PublicKey',
      ],
      [
        'an unreduced mlKemPublicKey',
        {
          x25519PublicKey: keys.x25519PublicKey,
          mlKemPublicKey: `ffff${keys.mlKemPublicKey.slice(4)}`,
          plaintext: 'x',
        },
        '/mlKemPublicKey',
      ],
      ['publicKey of 1215 bytes', { publicKey: keys.publicKey.slice(2), plaintext: 'x' }, '/publicKey'],
      ['publicKey not hex', { publicKey: 'zz'.repeat(1216), plaintext: 'x' }, '/publicKey'],
      ['publicKey a number', { publicKey: 7, plaintext: 'x' }, '/publicKey'],
      [
        'plaintext not base64',
        { publicKey: keys.publicKey, plaintext: 'not base64!', encoding: 'base64' },
        '/plaintext',
      ],
      ['an unknown encoding', { publicKey: keys.publicKey, plaintext: 'x', encoding: 'latin1' }, '/encoding'],
      ['a body that is an array', [], undefined],
    ];
    const openCases: [string, unknown, string | undefined][] = [
      ['no key', { ciphertext: sealed }, '/'],
      ['x25519PrivateKey alone', { x25519PrivateKey: keys.x25519PrivateKey, ciphertext: sealed }, '/mlKemPrivateKey'],
      ['both forms', { ...secretForms(keys)[0], privateKey: keys.privateKey, ciphertext: sealed }, '/x25519PrivateKey'],
      ['no ciphertext', { privateKey: keys.privateKey }, '/ciphertext'],
      ['privateKey of 31 bytes', { privateKey: keys.privateKey.slice(2), ciphertext: sealed }, '/privateKey'],
      ['privateKey of 64 bytes', { privateKey: keys.mlKemPrivateKey, ciphertext: sealed }, '/privateKey'],
      [
        'x25519PrivateKey of 33 bytes',
        { x25519PrivateKey: `${keys.x25519PrivateKey}00`, mlKemPrivateKey: keys.mlKemPrivateKey, ciphertext: sealed },
        '/x25519PrivateKey',
      ],
      [
        'mlKemPrivateKey of 63 bytes',
        { x25519PrivateKey: keys.x25519PrivateKey, mlKemPrivateKey: keys.mlKemPrivateKey.slice(2), ciphertext: sealed },
        '/mlKemPrivateKey',
      ],
      [
        'an expanded mlKemPrivateKey whose H(ek) does not match',
        { x25519PrivateKey: keys.x25519PrivateKey, mlKemPrivateKey: '00'.repeat(2400), ciphertext: sealed },
        '/mlKemPrivateKey',
      ],
      ['ciphertext not base64', { privateKey: keys.privateKey, ciphertext: 'not base64!' }, '/ciphertext'],
      ['ciphertext not canonical base64', { privateKey: keys.privateKey, ciphertext: 'YR==' }, '/ciphertext'],
      [
        'the classical field name',
        { recipientSecretKey: keys.x25519PrivateKey, ciphertext: sealed },
        '/recipientSecretKey',
      ],
      ['an unknown encoding', { privateKey: keys.privateKey, ciphertext: sealed, encoding: 'utf16' }, '/encoding'],
      ['a body that is null', null, undefined],
    ];
    for (const [url, cases] of [
      [SEAL, sealCases],
      [OPEN, openCases],
    ] as const) {
      for (const [label, body, field] of cases) {
        const details = problem(await post(url, body), `${url} ${label}`);
        assert.equal(details.status, 400, `${url} ${label}`);
        assert.notEqual(details.code, 'DECRYPTION_FAILED', `${url} ${label}`);
        if (field !== undefined) assert.equal(details.errors?.[0]?.field, field, `${url} ${label}: ${details.detail}`);
        for (const secret of [keys.privateKey, keys.x25519PrivateKey, keys.mlKemPrivateKey])
          assert.ok(!JSON.stringify(details).includes(secret), label);
      }
    }
  });

  test('each open or seal is counted by operation and outcome', async () => {
    const { ciphertext: sealed } = await seal({ publicKey: keys.publicKey, plaintext: 'counted' });
    await post(OPEN, { privateKey: other.privateKey, ciphertext: sealed });
    const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    assert.match(
      metrics,
      new RegExp(
        `crypto_operations_total\\{operation="sealedbox.seal-pq",algorithm="${ALGORITHM}",outcome="success"\\} \\d+`,
      ),
    );
    assert.match(
      metrics,
      new RegExp(
        `crypto_operations_total\\{operation="sealedbox.open-pq",algorithm="${ALGORITHM}",outcome="rejected"\\} \\d+`,
      ),
    );
  });

  test('both routes are in the OpenAPI document under sealed-box, with the key forms as optional fields', async () => {
    const document = (await app.inject({ method: 'GET', url: '/docs/json' })).json();
    for (const path of [SEAL, OPEN]) assert.deepEqual(document.paths[path].post.tags, ['sealed-box'], path);
    const sealSchema = document.paths[SEAL].post.requestBody.content['application/json'].schema;
    assert.deepEqual(sealSchema.required, ['plaintext']);
    assert.deepEqual(Object.keys(sealSchema.properties).sort(), [
      'algorithm',
      'encoding',
      'mlKemPublicKey',
      'plaintext',
      'publicKey',
      'x25519PublicKey',
    ]);
    const openSchema = document.paths[OPEN].post.requestBody.content['application/json'].schema;
    assert.deepEqual(openSchema.required, ['ciphertext']);
    assert.deepEqual(Object.keys(openSchema.properties).sort(), [
      'algorithm',
      'ciphertext',
      'encoding',
      'mlKemPrivateKey',
      'privateKey',
      'x25519PrivateKey',
    ]);
  });
});

describe('sealed-box PQ scopes', () => {
  test('seal-pq needs crypto:encrypt and crypto:pq, open-pq crypto:decrypt and crypto:pq', async (t) => {
    const app = await testApp({ JWT_SECRET: TEST_JWT_SECRET });
    t.after(() => app.close());
    const secret = new TextEncoder().encode(TEST_JWT_SECRET);
    const bearer = async (scope: string) => ({
      authorization: `Bearer ${await new SignJWT({ scope }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('5m').sign(secret)}`,
    });
    const keys = (await postJson(app, '/v2/pq/hybrid/keygen', {}, await bearer('crypto:pq'))).json().data;
    const sealBody = { publicKey: keys.publicKey, plaintext: 'scoped' };
    assert.equal((await postJson(app, SEAL, sealBody, await bearer('crypto:decrypt crypto:pq'))).statusCode, 403);
    assert.equal((await postJson(app, SEAL, sealBody, await bearer('crypto:encrypt'))).statusCode, 403);
    const sealed = await postJson(app, SEAL, sealBody, await bearer('crypto:encrypt crypto:pq'));
    assert.equal(sealed.statusCode, 200);
    const openBody = { privateKey: keys.privateKey, ciphertext: sealed.json().data.ciphertext };
    assert.equal((await postJson(app, OPEN, openBody, await bearer('crypto:encrypt crypto:pq'))).statusCode, 403);
    assert.equal((await postJson(app, OPEN, openBody, await bearer('crypto:decrypt'))).statusCode, 403);
    assert.deepEqual((await postJson(app, OPEN, openBody, await bearer('crypto:decrypt crypto:pq'))).json(), {
      data: 'scoped',
    });
  });
});
