import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { SignJWT } from 'jose';
import type { FastifyInstance } from 'fastify';
import { postJson, testApp, TEST_JWT_SECRET } from './helpers.ts';
import { withXWingParts } from './xwing-parts.ts';

const ENCRYPT = '/v2/multi-recipient/encrypt';
const DECRYPT = '/v2/multi-recipient/decrypt';
// Enough headroom for the input tables below, which send a few hundred requests to one app.
const ENV = { RATE_LIMIT_MAX: '100000' };

interface Pair {
  publicKey: string;
  privateKey: string;
}

/** An X25519 key pair from node:crypto (not from the code under test), as raw hex. */
function x25519Pair(): Pair {
  const { publicKey, privateKey } = generateKeyPairSync('x25519');
  const jwk = privateKey.export({ format: 'jwk' });
  const pub = publicKey.export({ format: 'jwk' });
  return {
    publicKey: Buffer.from(pub.x ?? '', 'base64url').toString('hex'),
    privateKey: Buffer.from(jwk.d ?? '', 'base64url').toString('hex'),
  };
}

function flipFirstBit(base64: string): string {
  const bytes = Buffer.from(base64, 'base64');
  bytes[0]! ^= 1;
  return bytes.toString('base64');
}

function expectProblem(
  response: { statusCode: number; headers: Record<string, unknown>; json: () => any },
  label: string,
) {
  assert.ok(response.statusCode >= 400 && response.statusCode < 500, `${label}: status ${response.statusCode}`);
  assert.match(String(response.headers['content-type']), /^application\/problem\+json/, label);
  const body = response.json();
  assert.equal(body.status, response.statusCode, label);
  assert.equal(typeof body.code, 'string', label);
  assert.equal(body.error, body.detail, label);
  return body;
}

describe('POST /v2/multi-recipient/encrypt and /decrypt', () => {
  let app: FastifyInstance;
  const pairs = [x25519Pair(), x25519Pair(), x25519Pair()];
  test.before(async () => {
    app = await testApp(ENV);
  });
  test.after(() => app.close());

  async function encrypt(body: Record<string, unknown>) {
    const response = await postJson(app, ENCRYPT, body);
    assert.equal(response.statusCode, 200, response.body);
    return response.json().data;
  }

  test('several recipients (one without a type) each decrypt the same UTF-8 text; the envelope has the documented shape', async () => {
    const plaintext = 'für alle drei ✓';
    const data = await encrypt({
      plaintext,
      recipients: [
        { type: 'x25519', publicKey: pairs[0]!.publicKey },
        { publicKey: pairs[1]!.publicKey.toUpperCase() },
        { type: 'x25519', publicKey: pairs[2]!.publicKey },
      ],
    });
    assert.deepEqual(Object.keys(data).sort(), ['algorithm', 'ciphertext', 'recipients']);
    assert.equal(data.algorithm, 'hpke-xchacha20-poly1305');
    assert.equal(Buffer.from(data.ciphertext, 'base64').byteLength, Buffer.byteLength(plaintext) + 40);
    assert.equal(data.recipients.length, 3);
    for (const slot of data.recipients) {
      assert.deepEqual(Object.keys(slot).sort(), ['enc', 'type', 'wrappedKey']);
      assert.equal(slot.type, 'x25519');
      assert.equal(Buffer.from(slot.enc, 'base64').byteLength, 32);
      assert.equal(Buffer.from(slot.wrappedKey, 'base64').byteLength, 48);
    }
    for (const pair of pairs) {
      // The encrypt response's data goes back as it is, algorithm included.
      const response = await postJson(app, DECRYPT, { ...data, privateKey: pair.privateKey });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), { data: plaintext });
    }
    const upper = await postJson(app, DECRYPT, {
      ciphertext: data.ciphertext,
      recipients: data.recipients,
      privateKey: pairs[1]!.privateKey.toUpperCase(),
    });
    assert.deepEqual(upper.json(), { data: plaintext });
  });

  test('binary data passes as base64 or hex; a non-UTF-8 plaintext asked for as utf8 is a 400 that says to ask for base64', async () => {
    const bytes = Buffer.from([0xff, 0xfe, 0x00, 0x80, 0x41]);
    const data = await encrypt({
      plaintext: bytes.toString('base64'),
      encoding: 'base64',
      recipients: [{ type: 'x25519', publicKey: pairs[0]!.publicKey }],
    });
    const base = { ciphertext: data.ciphertext, recipients: data.recipients, privateKey: pairs[0]!.privateKey };
    assert.deepEqual((await postJson(app, DECRYPT, { ...base, encoding: 'base64' })).json(), {
      data: bytes.toString('base64'),
    });
    assert.deepEqual((await postJson(app, DECRYPT, { ...base, encoding: 'hex' })).json(), {
      data: bytes.toString('hex'),
    });
    const asText = await postJson(app, DECRYPT, base);
    const problem = expectProblem(asText, 'utf8 of binary');
    assert.equal(problem.code, 'INVALID_INPUT');
    assert.match(problem.detail, /base64/);
    const fromHex = await encrypt({
      plaintext: bytes.toString('hex'),
      encoding: 'hex',
      recipients: [{ type: 'x25519', publicKey: pairs[1]!.publicKey }],
    });
    assert.deepEqual(
      (
        await postJson(app, DECRYPT, {
          ciphertext: fromHex.ciphertext,
          recipients: fromHex.recipients,
          privateKey: pairs[1]!.privateKey,
          encoding: 'hex',
        })
      ).json(),
      { data: bytes.toString('hex') },
    );
  });

  test('the empty plaintext round-trips', async () => {
    const data = await encrypt({ plaintext: '', recipients: [{ type: 'x25519', publicKey: pairs[2]!.publicKey }] });
    assert.deepEqual((await postJson(app, DECRYPT, { ...data, privateKey: pairs[2]!.privateKey })).json(), {
      data: '',
    });
  });

  test('every cause of decryption failure gives the identical 400, with no field and no hint', async () => {
    const data = await encrypt({
      plaintext: 'secret',
      recipients: [
        { type: 'x25519', publicKey: pairs[0]!.publicKey },
        { type: 'x25519', publicKey: pairs[1]!.publicKey },
      ],
    });
    const [first, second] = data.recipients;
    const valid = { ciphertext: data.ciphertext, recipients: data.recipients, privateKey: pairs[0]!.privateKey };
    const zero32 = Buffer.alloc(32).toString('base64');
    const causes: [string, Record<string, unknown>][] = [
      ["a key that is not a recipient's", { ...valid, privateKey: pairs[2]!.privateKey }],
      ['a tampered payload', { ...valid, ciphertext: flipFirstBit(data.ciphertext) }],
      [
        'a truncated payload',
        { ...valid, ciphertext: Buffer.from(data.ciphertext, 'base64').subarray(0, 39).toString('base64') },
      ],
      ['an empty payload', { ...valid, ciphertext: '' }],
      ['a tampered enc', { ...valid, recipients: [{ ...first, enc: flipFirstBit(first.enc) }, second] }],
      [
        'a tampered wrappedKey',
        { ...valid, recipients: [{ ...first, wrappedKey: flipFirstBit(first.wrappedKey) }, second] },
      ],
      [
        "the slots swapped between recipients' encs",
        {
          ...valid,
          recipients: [
            { ...first, enc: second.enc },
            { ...second, enc: first.enc },
          ],
        },
      ],
      ['a low-order (all-zero) enc', { ...valid, recipients: [{ ...first, enc: zero32 }] }],
      [
        'an enc of the wrong length',
        { ...valid, recipients: [{ ...first, enc: Buffer.alloc(31, 1).toString('base64') }] },
      ],
      [
        'a wrappedKey of the wrong length',
        { ...valid, recipients: [{ ...first, wrappedKey: Buffer.alloc(47, 1).toString('base64') }] },
      ],
      [
        "no slot of the recipient's type",
        {
          ...valid,
          recipients: [
            { ...first, type: 'x25519-ml-kem-768' },
            { ...second, type: 'x25519-ml-kem-768' },
          ],
        },
      ],
      ["only the other recipient's slot", { ...valid, recipients: [second] }],
    ];
    const bodies = [];
    for (const [label, body] of causes) {
      const response = await postJson(app, DECRYPT, body);
      assert.equal(response.statusCode, 400, label);
      const problem = expectProblem(response, label);
      assert.equal(problem.code, 'DECRYPTION_FAILED', label);
      assert.equal(problem.errors, undefined, label);
      bodies.push({ label, body: response.body });
    }
    for (const { label, body } of bodies)
      assert.equal(body, bodies[0]!.body, `${label} answers differently from ${bodies[0]!.label}`);
    assert.deepEqual(JSON.parse(bodies[0]!.body), {
      type: 'urn:crypto-service:problem:decryption-failed',
      title: 'Decryption failed',
      status: 400,
      detail: 'decryption failed',
      instance: DECRYPT,
      error: 'decryption failed',
      code: 'DECRYPTION_FAILED',
    });
  });

  /** An X-Wing key pair from /v2/pq/hybrid/keygen, with its parts expanded from the seed. */
  async function hybridPair(): Promise<Record<string, string>> {
    const response = await postJson(app, '/v2/pq/hybrid/keygen', {});
    assert.equal(response.statusCode, 200, response.body);
    return { ...withXWingParts(response.json().data) };
  }

  test('hybrid recipients (whole key, parts) beside x25519 ones: every recipient decrypts, with every credential form', async () => {
    const [alice, bob] = [await hybridPair(), await hybridPair()];
    const plaintext = 'für Alice, Bob und Carol ✓';
    const data = await encrypt({
      plaintext,
      recipients: [
        { type: 'x25519-ml-kem-768', publicKey: alice.publicKey },
        { type: 'x25519', publicKey: pairs[0]!.publicKey },
        { x25519PublicKey: bob.x25519PublicKey, mlKemPublicKey: bob.mlKemPublicKey!.toUpperCase() },
      ],
    });
    assert.deepEqual(
      data.recipients.map((slot: { type: string; enc: string; wrappedKey: string }) => [
        slot.type,
        Buffer.from(slot.enc, 'base64').byteLength,
        Buffer.from(slot.wrappedKey, 'base64').byteLength,
      ]),
      [
        ['x25519-ml-kem-768', 1120, 48],
        ['x25519', 32, 48],
        ['x25519-ml-kem-768', 1120, 48],
      ],
    );
    const credentials = (keys: Record<string, string>) => [
      { privateKey: keys.privateKey },
      { x25519PrivateKey: keys.x25519PrivateKey, mlKemPrivateKey: keys.mlKemPrivateKey },
    ];
    for (const keys of [alice, bob]) {
      for (const credential of credentials(keys)) {
        const response = await postJson(app, DECRYPT, { ...data, ...credential });
        assert.equal(response.statusCode, 200, response.body);
        assert.deepEqual(response.json(), { data: plaintext });
      }
    }
    assert.deepEqual((await postJson(app, DECRYPT, { ...data, privateKey: pairs[0]!.privateKey })).json(), {
      data: plaintext,
    });
    // An X-Wing seed has no x25519 slot to open (tried there as an X25519 key, it opens none), and
    // the parts form tries hybrid slots only: without them each fails like any wrong key.
    const onlyClassical = { ...data, recipients: [data.recipients[1]] };
    for (const credential of credentials(alice)) {
      const refused = await postJson(app, DECRYPT, { ...onlyClassical, ...credential });
      assert.equal(refused.statusCode, 400);
      assert.equal(refused.json().code, 'DECRYPTION_FAILED');
    }
  });

  test('the credential forms: none, a mix, or half of one is a 400 naming what is expected', async () => {
    const alice = await hybridPair();
    const data = await encrypt({ plaintext: 'x', recipients: [{ publicKey: alice.publicKey }] });
    const expected = 'give privateKey, or x25519PrivateKey and mlKemPrivateKey';
    const cases: [string, Record<string, unknown>, RegExp, string][] = [
      ['no credential', {}, /^no key given/, '/'],
      [
        'privateKey and x25519PrivateKey',
        { privateKey: alice.privateKey, x25519PrivateKey: alice.x25519PrivateKey },
        /cannot be mixed/,
        '/x25519PrivateKey',
      ],
      [
        'x25519PrivateKey alone',
        { x25519PrivateKey: alice.x25519PrivateKey },
        /^mlKemPrivateKey is missing/,
        '/mlKemPrivateKey',
      ],
      [
        'mlKemPrivateKey alone',
        { mlKemPrivateKey: alice.mlKemPrivateKey },
        /^x25519PrivateKey is missing/,
        '/x25519PrivateKey',
      ],
    ];
    for (const [label, credential, detail, field] of cases) {
      const response = await postJson(app, DECRYPT, {
        ciphertext: data.ciphertext,
        recipients: data.recipients,
        ...credential,
      });
      const problem = expectProblem(response, label);
      assert.equal(response.statusCode, 400, label);
      assert.equal(problem.code, 'INVALID_INPUT', label);
      assert.match(problem.detail, detail, label);
      assert.ok(problem.detail.endsWith(expected), `${label}: ${problem.detail}`);
      assert.equal(problem.errors[0].field, field, label);
    }
  });

  test('hybrid keys and credentials of the wrong shape are 400s naming the field; hybrid decryption failures are the one DECRYPTION_FAILED', async () => {
    const alice = await hybridPair();
    const data = await encrypt({
      plaintext: 'x',
      recipients: [{ type: 'x25519-ml-kem-768', publicKey: alice.publicKey }],
    });
    const lowOrder = 'e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800';
    const encryptCases: [Record<string, unknown>, string][] = [
      [{ publicKey: alice.publicKey!.slice(2) }, '/recipients/0/publicKey'],
      // A 32-byte key is an X25519 key: the hybrid type given with it disagrees.
      [{ publicKey: alice.x25519PublicKey }, '/recipients/0/type'],
      // Both forms at once: the second form is named.
      [{ publicKey: alice.publicKey, mlKemPublicKey: alice.mlKemPublicKey }, '/recipients/0/mlKemPublicKey'],
      [{ x25519PublicKey: alice.x25519PublicKey }, '/recipients/0/mlKemPublicKey'],
      [
        { x25519PublicKey: alice.x25519PublicKey, mlKemPublicKey: alice.mlKemPublicKey!.slice(2) },
        '/recipients/0/mlKemPublicKey',
      ],
      [{ x25519PublicKey: lowOrder, mlKemPublicKey: alice.mlKemPublicKey }, '/recipients/0/x25519PublicKey'],
      [
        { x25519PublicKey: alice.x25519PublicKey, mlKemPublicKey: `ffff${alice.mlKemPublicKey!.slice(4)}` },
        '/recipients/0/mlKemPublicKey',
      ],
    ];
    for (const [recipient, field] of encryptCases) {
      const response = await postJson(app, ENCRYPT, {
        plaintext: 'x',
        recipients: [{ type: 'x25519-ml-kem-768', ...recipient }],
      });
      const problem = expectProblem(response, field);
      assert.equal(response.statusCode, 400, `${field}: ${response.body}`);
      assert.deepEqual(
        problem.errors.map((error: { field: string }) => error.field),
        [field],
        JSON.stringify(Object.keys(recipient)),
      );
    }
    const decryptCases: [Record<string, unknown>, string][] = [
      [{ privateKey: alice.privateKey!.slice(2) }, '/privateKey'],
      [{ privateKey: `${alice.privateKey}00` }, '/privateKey'],
      [
        { x25519PrivateKey: alice.x25519PrivateKey!.slice(2), mlKemPrivateKey: alice.mlKemPrivateKey },
        '/x25519PrivateKey',
      ],
      [
        { x25519PrivateKey: alice.x25519PrivateKey, mlKemPrivateKey: alice.mlKemPrivateKey!.slice(2) },
        '/mlKemPrivateKey',
      ],
      [{ x25519PrivateKey: alice.x25519PrivateKey, mlKemPrivateKey: '00'.repeat(2400) }, '/mlKemPrivateKey'],
      [{ x25519PrivateKey: alice.x25519PrivateKey, mlKemPrivateKey: '00'.repeat(2401) }, '/mlKemPrivateKey'],
      [{ x25519PrivateKey: 'zz'.repeat(32), mlKemPrivateKey: alice.mlKemPrivateKey }, '/x25519PrivateKey'],
    ];
    for (const [credential, field] of decryptCases) {
      const response = await postJson(app, DECRYPT, {
        ciphertext: data.ciphertext,
        recipients: data.recipients,
        ...credential,
      });
      const problem = expectProblem(response, field);
      assert.equal(response.statusCode, 400, field);
      assert.notEqual(problem.code, 'DECRYPTION_FAILED', field);
      assert.equal(problem.errors[0].field, field, `${field}: ${problem.detail}`);
    }
    const other = await hybridPair();
    const slot = data.recipients[0];
    const failures: [string, Record<string, unknown>][] = [
      ['another hybrid key', { ...data, privateKey: other.privateKey }],
      [
        'another key as parts',
        { ...data, x25519PrivateKey: other.x25519PrivateKey, mlKemPrivateKey: other.mlKemPrivateKey },
      ],
      [
        'parts of two keys',
        { ...data, x25519PrivateKey: alice.x25519PrivateKey, mlKemPrivateKey: other.mlKemPrivateKey },
      ],
      [
        'a tampered enc',
        { ...data, recipients: [{ ...slot, enc: flipFirstBit(slot.enc) }], privateKey: alice.privateKey },
      ],
      [
        'a tampered wrappedKey',
        { ...data, recipients: [{ ...slot, wrappedKey: flipFirstBit(slot.wrappedKey) }], privateKey: alice.privateKey },
      ],
      [
        'an X25519-sized enc in a hybrid slot',
        {
          ...data,
          recipients: [{ ...slot, enc: Buffer.alloc(32, 9).toString('base64') }],
          privateKey: alice.privateKey,
        },
      ],
      ['a tampered payload', { ...data, ciphertext: flipFirstBit(data.ciphertext), privateKey: alice.privateKey }],
    ];
    const bodies = new Set<string>();
    for (const [label, body] of failures) {
      const response = await postJson(app, DECRYPT, body);
      assert.equal(response.statusCode, 400, label);
      assert.equal(response.json().code, 'DECRYPTION_FAILED', label);
      bodies.add(response.body);
    }
    assert.equal(bodies.size, 1, 'every failure answers with the identical body');
  });

  test('a repeated public key, a low-order key and a stray mlKemPublicKey are 400s that name the entry', async () => {
    const cases: [string, Record<string, unknown>[], string][] = [
      [
        'repeated key',
        [{ type: 'x25519', publicKey: pairs[0]!.publicKey }, { publicKey: pairs[0]!.publicKey.toUpperCase() }],
        '/recipients/1/publicKey',
      ],
      [
        'low-order key',
        [
          { type: 'x25519', publicKey: pairs[0]!.publicKey },
          { type: 'x25519', publicKey: '01'.padEnd(64, '0') },
        ],
        '/recipients/1/publicKey',
      ],
      [
        'mlKemPublicKey on x25519',
        [{ type: 'x25519', publicKey: pairs[0]!.publicKey, mlKemPublicKey: 'ab'.repeat(1184) }],
        '/recipients/0/mlKemPublicKey',
      ],
    ];
    for (const [label, recipients, field] of cases) {
      const response = await postJson(app, ENCRYPT, { plaintext: 'x', recipients });
      const problem = expectProblem(response, label);
      assert.equal(response.statusCode, 400, label);
      assert.equal(problem.code, 'INVALID_INPUT', label);
      assert.deepEqual(
        problem.errors.map((error: { field: string }) => error.field),
        [field],
        label,
      );
    }
  });

  test('a table of wrong encrypt bodies: every one is a 4xx problem, never a 5xx', async () => {
    const key = pairs[0]!.publicKey;
    const one = { type: 'x25519', publicKey: key };
    const bodies: [string, unknown][] = [
      ['empty object', {}],
      ['array body', []],
      ['string body', 'plaintext'],
      ['number body', 42],
      ['null body', null],
      ['missing plaintext', { recipients: [one] }],
      ['missing recipients', { plaintext: 'x' }],
      ['unknown field', { plaintext: 'x', recipients: [one], keyId: 'a' }],
      ["another family's algorithm", { plaintext: 'x', recipients: [one], algorithm: 'xchacha20-poly1305' }],
      ['plaintext a number', { plaintext: 1, recipients: [one] }],
      ['plaintext null', { plaintext: null, recipients: [one] }],
      ['recipients an object', { plaintext: 'x', recipients: one }],
      ['recipients a string', { plaintext: 'x', recipients: key }],
      ['0 recipients', { plaintext: 'x', recipients: [] }],
      ['101 recipients', { plaintext: 'x', recipients: Array.from({ length: 101 }, () => one) }],
      ['recipient null', { plaintext: 'x', recipients: [null] }],
      ['recipient a string', { plaintext: 'x', recipients: [key] }],
      ["the removed alias 'classical'", { plaintext: 'x', recipients: [{ ...one, type: 'classical' }] }],
      ["the removed alias 'pq'", { plaintext: 'x', recipients: [{ ...one, type: 'pq' }] }],
      ['recipient without publicKey', { plaintext: 'x', recipients: [{ type: 'x25519' }] }],
      ['unknown field in a recipient', { plaintext: 'x', recipients: [{ ...one, keyId: 'a' }] }],
      ['unknown type', { plaintext: 'x', recipients: [{ ...one, type: 'x448' }] }],
      ['type in upper case', { plaintext: 'x', recipients: [{ ...one, type: 'X25519' }] }],
      ['type a number', { plaintext: 'x', recipients: [{ ...one, type: 25519 }] }],
      ['publicKey not hex', { plaintext: 'x', recipients: [{ ...one, publicKey: 'zz'.repeat(32) }] }],
      ['publicKey odd length', { plaintext: 'x', recipients: [{ ...one, publicKey: key.slice(1) }] }],
      ['publicKey a number', { plaintext: 'x', recipients: [{ ...one, publicKey: 1 }] }],
      [
        'publicKey as base64',
        { plaintext: 'x', recipients: [{ ...one, publicKey: Buffer.from(key, 'hex').toString('base64') }] },
      ],
      ['publicKey longer than any key', { plaintext: 'x', recipients: [{ ...one, publicKey: 'ab'.repeat(1217) }] }],
      ['mlKemPublicKey not hex', { plaintext: 'x', recipients: [{ x25519PublicKey: key, mlKemPublicKey: 'xy' }] }],
      [
        'mlKemPublicKey too long',
        { plaintext: 'x', recipients: [{ x25519PublicKey: key, mlKemPublicKey: 'ab'.repeat(1185) }] },
      ],
      [
        'x25519PublicKey too long',
        { plaintext: 'x', recipients: [{ x25519PublicKey: `${key}ab`, mlKemPublicKey: 'ab'.repeat(1184) }] },
      ],
      ['unknown encoding', { plaintext: 'x', recipients: [one], encoding: 'latin1' }],
      ['plaintext not base64', { plaintext: 'not base64!', encoding: 'base64', recipients: [one] }],
      ['plaintext not canonical base64', { plaintext: 'YR==', encoding: 'base64', recipients: [one] }],
      ['plaintext not hex', { plaintext: 'abc', encoding: 'hex', recipients: [one] }],
    ];
    for (let bytes = 0; bytes <= 66; bytes++) {
      if (bytes !== 32)
        bodies.push([
          `publicKey of ${bytes} bytes`,
          { plaintext: 'x', recipients: [{ ...one, publicKey: 'a1'.repeat(bytes) }] },
        ]);
    }
    for (const bytes of [1184, 1216]) {
      bodies.push([
        `publicKey of ${bytes} bytes`,
        { plaintext: 'x', recipients: [{ ...one, publicKey: 'a1'.repeat(bytes) }] },
      ]);
    }
    for (const [label, body] of bodies) {
      const response = await postJson(app, ENCRYPT, body);
      assert.equal(response.statusCode, 400, `${label}: ${response.body}`);
      expectProblem(response, label);
    }
    const surrogate = await app.inject({
      method: 'POST',
      url: ENCRYPT,
      headers: { 'content-type': 'application/json' },
      payload: `{"plaintext":"\\ud800","recipients":[{"type":"x25519","publicKey":"${key}"}]}`,
    });
    assert.equal(surrogate.statusCode, 400);
    expectProblem(surrogate, 'lone surrogate');
  });

  test('a table of wrong decrypt bodies: every one is a 4xx problem, never a 5xx', async () => {
    const data = await encrypt({ plaintext: 'x', recipients: [{ type: 'x25519', publicKey: pairs[0]!.publicKey }] });
    const slot = data.recipients[0];
    const valid = { ciphertext: data.ciphertext, recipients: data.recipients, privateKey: pairs[0]!.privateKey };
    const bodies: [string, unknown][] = [
      ['empty object', {}],
      ['array body', []],
      ['null body', null],
      ['missing ciphertext', { recipients: valid.recipients, privateKey: valid.privateKey }],
      ['missing recipients', { ciphertext: valid.ciphertext, privateKey: valid.privateKey }],
      ['missing privateKey', { ciphertext: valid.ciphertext, recipients: valid.recipients }],
      ['unknown field', { ...valid, note: 'x' }],
      [
        'an x25519 credential mixed with a hybrid one',
        { ...valid, x25519PrivateKey: valid.privateKey, mlKemPrivateKey: 'ab'.repeat(64) },
      ],
      ['another algorithm', { ...valid, algorithm: 'xchacha20-poly1305' }],
      ['ciphertext a number', { ...valid, ciphertext: 5 }],
      ['ciphertext not base64', { ...valid, ciphertext: 'not base64!' }],
      ['ciphertext without its padding', { ...valid, ciphertext: valid.ciphertext.replace(/=+$/, '') }],
      ['ciphertext not canonical base64', { ...valid, ciphertext: 'YR==' }],
      ['0 slots', { ...valid, recipients: [] }],
      ['101 slots', { ...valid, recipients: Array.from({ length: 101 }, () => slot) }],
      ['slot null', { ...valid, recipients: [null] }],
      ['slot without enc', { ...valid, recipients: [{ type: 'x25519', wrappedKey: slot.wrappedKey }] }],
      ['slot without wrappedKey', { ...valid, recipients: [{ type: 'x25519', enc: slot.enc }] }],
      ['slot without type', { ...valid, recipients: [{ enc: slot.enc, wrappedKey: slot.wrappedKey }] }],
      ['unknown field in a slot', { ...valid, recipients: [{ ...slot, publicKey: pairs[0]!.publicKey }] }],
      ['unknown slot type', { ...valid, recipients: [{ ...slot, type: 'x448' }] }],
      ['enc not base64', { ...valid, recipients: [{ ...slot, enc: 'abc' }] }],
      [
        'enc as unpadded base64url',
        { ...valid, recipients: [{ ...slot, enc: Buffer.from(slot.enc, 'base64').toString('base64url') }] },
      ],
      [
        "enc longer than any KEM's",
        { ...valid, recipients: [{ ...slot, enc: Buffer.alloc(1123).toString('base64') }] },
      ],
      [
        'wrappedKey longer than a wrapped key',
        { ...valid, recipients: [{ ...slot, wrappedKey: Buffer.alloc(49).toString('base64') }] },
      ],
      ['wrappedKey not canonical base64', { ...valid, recipients: [{ ...slot, wrappedKey: 'YR==' }] }],
      ['privateKey not hex', { ...valid, privateKey: 'zz'.repeat(32) }],
      ['privateKey a number', { ...valid, privateKey: 1 }],
      ['unknown encoding', { ...valid, encoding: 'utf16' }],
    ];
    for (let bytes = 0; bytes <= 40; bytes++) {
      if (bytes !== 32) bodies.push([`privateKey of ${bytes} bytes`, { ...valid, privateKey: '5a'.repeat(bytes) }]);
    }
    for (const [label, body] of bodies) {
      const response = await postJson(app, DECRYPT, body);
      assert.equal(response.statusCode, 400, `${label}: ${response.body}`);
      const problem = expectProblem(response, label);
      // Malformed input is a validation or input error, never dressed up as a decryption failure.
      assert.notEqual(problem.code, 'DECRYPTION_FAILED', label);
    }
    // The valid body still decrypts: the table failed for its defects, not for the envelope.
    assert.deepEqual((await postJson(app, DECRYPT, valid)).json(), { data: 'x' });
  });

  test('a body that is not JSON, or not sent as JSON, is a 4xx problem', async () => {
    const malformed = await app.inject({
      method: 'POST',
      url: ENCRYPT,
      headers: { 'content-type': 'application/json' },
      payload: '{"plaintext":',
    });
    assert.equal(malformed.statusCode, 400);
    expectProblem(malformed, 'malformed JSON');
    const text = await app.inject({
      method: 'POST',
      url: DECRYPT,
      headers: { 'content-type': 'text/plain' },
      payload: 'x',
    });
    assert.equal(text.statusCode, 415);
    expectProblem(text, 'text/plain');
  });

  test('both routes appear in the OpenAPI document under the multi-recipient tag', async () => {
    const openapi = (await app.inject({ method: 'GET', url: '/docs/json' })).json();
    for (const path of [ENCRYPT, DECRYPT]) {
      assert.deepEqual(openapi.paths[path].post.tags, ['multi-recipient'], path);
    }
    const schema = openapi.paths[ENCRYPT].post.requestBody.content['application/json'].schema;
    assert.equal(schema.properties.recipients.maxItems, 100);
    assert.equal(schema.properties.recipients.minItems, 1);
  });
});

describe('multi-recipient scopes', () => {
  test('encrypt needs crypto:encrypt and decrypt needs crypto:decrypt', async (t) => {
    const app = await testApp({ JWT_SECRET: TEST_JWT_SECRET });
    t.after(() => app.close());
    const secret = new TextEncoder().encode(TEST_JWT_SECRET);
    const bearer = async (scope: string) => ({
      authorization: `Bearer ${await new SignJWT({ scope }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('5m').sign(secret)}`,
    });
    const pair = x25519Pair();
    const encryptBody = { plaintext: 'scoped', recipients: [{ type: 'x25519', publicKey: pair.publicKey }] };
    const encrypted = await postJson(app, ENCRYPT, encryptBody, await bearer('crypto:encrypt'));
    assert.equal(encrypted.statusCode, 200);
    assert.equal((await postJson(app, ENCRYPT, encryptBody, await bearer('crypto:decrypt'))).statusCode, 403);
    const decryptBody = { ...encrypted.json().data, privateKey: pair.privateKey };
    const decrypted = await postJson(app, DECRYPT, decryptBody, await bearer('crypto:decrypt'));
    assert.deepEqual(decrypted.json(), { data: 'scoped' });
    assert.equal((await postJson(app, DECRYPT, decryptBody, await bearer('crypto:encrypt'))).statusCode, 403);
  });
});

describe('multi-recipient metrics', () => {
  test('each call is counted by operation and outcome: success, and rejected for a decryption failure or a refused key', async (t) => {
    const app = await testApp();
    t.after(() => app.close());
    const pair = x25519Pair();
    const encrypted = await postJson(app, ENCRYPT, {
      plaintext: 'counted',
      recipients: [{ type: 'x25519', publicKey: pair.publicKey }],
    });
    const data = encrypted.json().data;
    assert.equal((await postJson(app, DECRYPT, { ...data, privateKey: pair.privateKey })).statusCode, 200);
    assert.equal((await postJson(app, DECRYPT, { ...data, privateKey: x25519Pair().privateKey })).statusCode, 400);
    assert.equal(
      (await postJson(app, ENCRYPT, { plaintext: 'x', recipients: [{ type: 'x25519', publicKey: '00'.repeat(31) }] }))
        .statusCode,
      400,
    );
    const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    const count = (operation: string, outcome: string) => {
      const line = metrics
        .split('\n')
        .find(
          (entry) =>
            entry.startsWith('crypto_operations_total{') &&
            entry.includes(`operation="${operation}"`) &&
            entry.includes('algorithm="hpke-xchacha20-poly1305"') &&
            entry.includes(`outcome="${outcome}"`),
        );
      return line === undefined ? 0 : Number(line.split(' ').at(-1));
    };
    assert.equal(count('multi-recipient.encrypt', 'success'), 1);
    assert.equal(count('multi-recipient.encrypt', 'rejected'), 1);
    assert.equal(count('multi-recipient.decrypt', 'success'), 1);
    assert.equal(count('multi-recipient.decrypt', 'rejected'), 1);
  });
});
