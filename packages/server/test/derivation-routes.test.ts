/**
 * The key-derivation, MAC and password routes through the whole app (testApp()): success shapes,
 * published vectors end to end, a table of wrong inputs that must each be a 4xx problem (never a
 * 500), scopes, rate-limit cost, and overload answered with 503 + Retry-After.
 *
 * Expected values come from RFC 5869 A.1/A.3, RFC 4231 §4.3 and §4.6 (case 5's
 * published 128-bit prefix), NIST's HMAC-SHA3-256 example and the Argon2 reference implementation's
 * test vector; one scrypt and one PBKDF2 value are computed by @noble/hashes, an independent
 * implementation (RFC 7914's scrypt vectors are under the OWASP floor: core checks them).
 * Argon2id costs stay at OWASP's floor (m = 19456 KiB, t = 2, p = 1) except in the one test of the
 * defaults.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SignJWT } from 'jose';
import { pbkdf2 as noblePbkdf2 } from '@noble/hashes/pbkdf2.js';
import { scrypt as nobleScrypt } from '@noble/hashes/scrypt.js';
import { sha256 } from '@noble/hashes/sha2.js';
import type { FastifyInstance } from 'fastify';
import { postJson, testApp, TEST_JWT_SECRET } from './helpers.ts';
import { singleForm } from '../src/openapi-batch.ts';

const FLOOR = { timeCost: 2, memoryCost: 19456, parallelism: 1 };
const asciiHex = (text: string) => Buffer.from(text, 'utf8').toString('hex');
/** Plenty of rate-limit units: these tests are about the routes, not the limiter. */
const ROOMY = { RATE_LIMIT_MAX: '1000000' };

function assertProblem(
  response: Awaited<ReturnType<typeof postJson>>,
  status: number,
  code: string,
  label = '',
): Record<string, unknown> {
  assert.equal(response.statusCode, status, `${label}: ${response.body.slice(0, 300)}`);
  assert.match(String(response.headers['content-type']), /^application\/problem\+json/, label);
  const body = response.json();
  assert.equal(body.code, code, label);
  assert.equal(body.error, body.detail, label);
  return body;
}

describe('POST /v2/kdf', () => {
  let app: FastifyInstance;
  test.before(async () => {
    app = await testApp(ROOMY);
  });
  test.after(() => app.close());

  test('scrypt at the OWASP floor (N=2^14, r=8, p=5) agrees with @noble/hashes', async () => {
    const params = { N: 16384, r: 8, p: 5 };
    const response = await postJson(app, '/v2/kdf', {
      algorithm: 'scrypt',
      password: 'pleaseletmein',
      salt: asciiHex('SodiumChloride'),
      keyLength: 64,
      params,
    });
    assert.equal(response.statusCode, 200, response.body);
    const expected = nobleScrypt('pleaseletmein', 'SodiumChloride', { ...params, dkLen: 64 });
    assert.deepEqual(response.json(), {
      data: {
        derivedKey: Buffer.from(expected).toString('hex'),
        salt: asciiHex('SodiumChloride'),
        algorithm: 'scrypt',
        keyLength: 64,
        params,
      },
    });
  });

  test("scrypt: RFC 7914 §12's N=16384, r=8, p=1 is under the work floor, a 400 naming /params", async () => {
    const response = await postJson(app, '/v2/kdf', {
      algorithm: 'scrypt',
      password: 'pleaseletmein',
      salt: asciiHex('SodiumChloride'),
      params: { N: 16384, r: 8, p: 1 },
    });
    assert.equal(response.statusCode, 400, response.body);
    assert.match(response.json().detail, /N · r · p must be at least 655360/);
    assert.deepEqual(
      response.json().errors?.map((error: { field: string }) => error.field),
      ['/params'],
    );
  });

  test('hkdf-sha256: RFC 5869 A.1, with `encoding` applying to the input keying material and to info', async () => {
    const okm = '3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865';
    const ikm = '0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b';
    const info = 'f0f1f2f3f4f5f6f7f8f9';
    const asHex = await postJson(app, '/v2/kdf', {
      algorithm: 'hkdf-sha256',
      password: ikm,
      encoding: 'hex',
      salt: '000102030405060708090A0B0C',
      keyLength: 42,
      params: { info },
    });
    assert.equal(asHex.statusCode, 200, asHex.body);
    assert.deepEqual(asHex.json().data, {
      derivedKey: okm,
      salt: '000102030405060708090a0b0c',
      algorithm: 'hkdf-sha256',
      keyLength: 42,
      params: { info },
    });
    const b64 = (hex: string) => Buffer.from(hex, 'hex').toString('base64');
    const asBase64 = await postJson(app, '/v2/kdf', {
      algorithm: 'hkdf-sha256',
      password: b64(ikm),
      encoding: 'base64',
      salt: '000102030405060708090a0b0c',
      keyLength: 42,
      params: { info: b64(info) },
    });
    assert.equal(asBase64.json().data.derivedKey, okm);
    assert.equal(asBase64.json().data.params.info, b64(info), "info is echoed in the request's encoding");
  });

  test('hkdf-sha256: RFC 5869 A.3 (no salt, no info): the salt is reported empty, not generated', async () => {
    const response = await postJson(app, '/v2/kdf', {
      algorithm: 'hkdf-sha256',
      password: '0b'.repeat(22),
      encoding: 'hex',
      keyLength: 42,
    });
    assert.deepEqual(response.json().data, {
      derivedKey: '8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8',
      salt: '',
      algorithm: 'hkdf-sha256',
      keyLength: 42,
      params: { info: '' },
    });
  });

  test('scrypt defaults: N = 2^17, r = 8, p = 1, 32 bytes, a fresh 16-byte salt that reproduces the key when sent back', async () => {
    const first = (await postJson(app, '/v2/kdf', { algorithm: 'scrypt', password: 'hunter2' })).json().data;
    assert.deepEqual(first.params, { N: 131072, r: 8, p: 1 });
    assert.equal(first.keyLength, 32);
    assert.match(first.salt, /^[0-9a-f]{32}$/);
    assert.match(first.derivedKey, /^[0-9a-f]{64}$/);
    const again = (
      await postJson(app, '/v2/kdf', { algorithm: 'scrypt', password: 'hunter2', salt: first.salt })
    ).json().data;
    assert.equal(again.derivedKey, first.derivedKey);
  });

  test('pbkdf2-sha256: 600,000 iterations by default; at the floor the key matches @noble/hashes', async () => {
    const defaults = (await postJson(app, '/v2/kdf', { algorithm: 'pbkdf2-sha256', password: 'hunter2' })).json().data;
    assert.deepEqual(defaults.params, { iterations: 600_000 });
    const salt = '00112233445566778899aabbccddeeff';
    const response = await postJson(app, '/v2/kdf', {
      algorithm: 'pbkdf2-sha256',
      password: 'hunter2',
      salt,
      keyLength: 64,
      params: { iterations: 600_000 },
    });
    const expected = Buffer.from(
      noblePbkdf2(sha256, 'hunter2', Buffer.from(salt, 'hex'), { c: 600_000, dkLen: 64 }),
    ).toString('hex');
    assert.equal(response.json().data.derivedKey, expected);
  });

  test('HKDF and HMAC cost one unit; a PHC string refused before its parameters are known costs one', async (t) => {
    const limited = await testApp();
    t.after(() => limited.close());
    const kdf = await postJson(limited, '/v2/kdf', { algorithm: 'hkdf-sha256', password: 'ikm' });
    assert.equal(kdf.headers.ratelimit, '"default";r=999;t=60');
    const hmac = await postJson(limited, '/v2/hmac', { algorithm: 'hmac-sha256', key: '00', data: 'x' });
    assert.equal(hmac.headers.ratelimit, '"default";r=998;t=60');
    const verify = await postJson(limited, '/v2/password/verify', { password: 'x', hash: 'not a hash' });
    assert.equal(verify.headers.ratelimit, '"default";r=997;t=60', 'charged even when refused: the limiter runs first');
  });
});

describe('POST /v2/hmac and /v2/hmac/verify', () => {
  let app: FastifyInstance;
  test.before(async () => {
    app = await testApp(ROOMY);
  });
  test.after(() => app.close());

  const CASE_2 = { key: asciiHex('Jefe'), data: 'what do ya want for nothing?' };
  const CASE_2_SHA256 = '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843';

  test('RFC 4231 test case 2 (HMAC-SHA256), and the same bytes sent as base64', async () => {
    const response = await postJson(app, '/v2/hmac', { algorithm: 'hmac-sha256', ...CASE_2 });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), { data: { mac: CASE_2_SHA256, algorithm: 'hmac-sha256' } });
    const base64 = await postJson(app, '/v2/hmac', {
      algorithm: 'hmac-sha256',
      key: CASE_2.key,
      data: Buffer.from(CASE_2.data).toString('base64'),
      encoding: 'base64',
    });
    assert.equal(base64.json().data.mac, CASE_2_SHA256);
  });

  test('NIST HMAC-SHA3-256 example (32-byte key 00…1f, "Sample message for keylen<blocklen")', async () => {
    const key = Buffer.from(Array.from({ length: 32 }, (_, i) => i)).toString('hex');
    const response = await postJson(app, '/v2/hmac', {
      algorithm: 'hmac-sha3-256',
      key,
      data: 'Sample message for keylen<blocklen',
    });
    assert.equal(response.json().data.mac, '4fe8e202c4f058e8dddc23d8c34e467343e23555e24fc2f025d598f558f67205');
  });

  test('verify: the right MAC (in either case) is valid; a changed one is valid: false with status 200', async () => {
    for (const mac of [CASE_2_SHA256, CASE_2_SHA256.toUpperCase()]) {
      const response = await postJson(app, '/v2/hmac/verify', { algorithm: 'hmac-sha256', ...CASE_2, mac });
      assert.deepEqual(response.json(), { data: { valid: true, algorithm: 'hmac-sha256' } });
    }
    const changed = `${CASE_2_SHA256.slice(0, -1)}4`;
    const response = await postJson(app, '/v2/hmac/verify', { algorithm: 'hmac-sha256', ...CASE_2, mac: changed });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), { data: { valid: false, algorithm: 'hmac-sha256' } });
  });

  test("a truncated MAC (RFC 4231 case 5's published 128 bits) is a 400 on /mac, not a prefix match", async () => {
    const response = await postJson(app, '/v2/hmac/verify', {
      algorithm: 'hmac-sha256',
      key: '0c'.repeat(20),
      data: 'Test With Truncation',
      mac: 'a3b6167473100ee06e0c796c2955552b',
    });
    const body = assertProblem(response, 400, 'INVALID_INPUT');
    assert.deepEqual(
      (body.errors as { field: string }[]).map((error) => error.field),
      ['/mac'],
    );
  });
});

describe('POST /v2/password/*', () => {
  let app: FastifyInstance;
  test.before(async () => {
    app = await testApp(ROOMY);
  });
  test.after(() => app.close());

  test('hash: a PHC string with the parameters asked for; verify: valid, needsRehash (floor is not the default)', async () => {
    const hashed = await postJson(app, '/v2/password/hash', { password: 'correct horse', ...FLOOR });
    assert.equal(hashed.statusCode, 200, hashed.body);
    const { data } = hashed.json();
    assert.deepEqual(Object.keys(data).sort(), ['algorithm', 'hash', 'params']);
    assert.equal(data.algorithm, 'argon2id');
    assert.deepEqual(data.params, { t: 2, m: 19456, p: 1 });
    assert.match(data.hash, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    const right = await postJson(app, '/v2/password/verify', { password: 'correct horse', hash: data.hash });
    assert.deepEqual(right.json(), { data: { valid: true, needsRehash: true } });
    const wrong = await postJson(app, '/v2/password/verify', { password: 'correct horsE', hash: data.hash });
    assert.equal(wrong.statusCode, 200);
    assert.deepEqual(wrong.json(), { data: { valid: false, needsRehash: true } });
    // The hash's data sent whole: algorithm and params are accepted, and the PHC string decides.
    const whole = await postJson(app, '/v2/password/verify', { ...data, password: 'correct horse' });
    assert.deepEqual(whole.json(), { data: { valid: true, needsRehash: true } });
    const otherParams = { ...data, params: { t: 9, m: 99999, p: 9 }, password: 'correct horse' };
    assert.deepEqual((await postJson(app, '/v2/password/verify', otherParams)).json(), whole.json());
  });

  test('hash with the defaults (RFC 9106: t = 3, m = 65536, p = 4) needs no rehash', async () => {
    const { data } = (await postJson(app, '/v2/password/hash', { password: 'pässwörd' })).json();
    assert.deepEqual(data.params, { t: 3, m: 65536, p: 4 });
    const verified = await postJson(app, '/v2/password/verify', { password: 'pässwörd', hash: data.hash });
    assert.deepEqual(verified.json(), { data: { valid: true, needsRehash: false } });
  });

  test("verify: the Argon2 reference implementation's argon2id vector", async () => {
    const hash = '$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc';
    assert.deepEqual((await postJson(app, '/v2/password/verify', { password: 'password', hash })).json(), {
      data: { valid: true, needsRehash: true },
    });
    assert.deepEqual((await postJson(app, '/v2/password/verify', { password: 'passwore', hash })).json(), {
      data: { valid: false, needsRehash: true },
    });
  });

  test("encrypt then decrypt; the blob's header carries the default parameters", async () => {
    const encrypted = await postJson(app, '/v2/password/encrypt', { password: 'pw', plaintext: 'attack at dawn ☀' });
    assert.equal(encrypted.statusCode, 200, encrypted.body);
    const { data } = encrypted.json();
    assert.equal(data.algorithm, 'argon2id-xchacha20-poly1305');
    const blob = Buffer.from(data.ciphertext, 'base64');
    assert.equal(blob.toString('base64'), data.ciphertext, 'standard padded base64');
    assert.equal(blob.subarray(0, 13).toString('hex'), '01' + '00000003' + '00010000' + '00000004');
    assert.equal(blob.byteLength, 53 + Buffer.byteLength('attack at dawn ☀') + 16);
    const decrypted = await postJson(app, '/v2/password/decrypt', { password: 'pw', ciphertext: data.ciphertext });
    assert.deepEqual(decrypted.json(), { data: 'attack at dawn ☀' });
  });

  test('binary plaintext goes in and comes back as base64; asked for as utf8 it is a 400 that says so', async () => {
    const binary = Buffer.from([0xff, 0xfe, 0x00, 0x80]).toString('base64');
    const { data } = (
      await postJson(app, '/v2/password/encrypt', { password: 'pw', plaintext: binary, encoding: 'base64' })
    ).json();
    const back = await postJson(app, '/v2/password/decrypt', {
      password: 'pw',
      ciphertext: data.ciphertext,
      encoding: 'base64',
    });
    assert.deepEqual(back.json(), { data: binary });
    const asText = await postJson(app, '/v2/password/decrypt', { password: 'pw', ciphertext: data.ciphertext });
    const body = assertProblem(asText, 400, 'INVALID_INPUT');
    assert.match(String(body.detail), /base64/);
  });

  test('a wrong password and a tampered blob give the same DECRYPTION_FAILED problem', async () => {
    const { data } = (await postJson(app, '/v2/password/encrypt', { password: 'pw', plaintext: 'x' })).json();
    const blob = Buffer.from(data.ciphertext, 'base64');
    blob[20]! ^= 1; // inside the salt
    const bodies = [
      assertProblem(
        await postJson(app, '/v2/password/decrypt', { password: 'pW', ciphertext: data.ciphertext }),
        400,
        'DECRYPTION_FAILED',
        'wrong password',
      ),
      assertProblem(
        await postJson(app, '/v2/password/decrypt', { password: 'pw', ciphertext: blob.toString('base64') }),
        400,
        'DECRYPTION_FAILED',
        'tampered',
      ),
    ];
    for (const body of bodies) {
      assert.equal(body.detail, 'decryption failed');
      assert.equal(body.errors, undefined, 'no field is named: nothing to learn');
    }
  });
});

describe('wrong inputs are 4xx problems, never 500', () => {
  let app: FastifyInstance;
  test.before(async () => {
    app = await testApp(ROOMY);
  });
  test.after(() => app.close());

  const salt = 'c29tZXNhbHRzb21lc2FsdA';
  const tag = 'CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc';
  /** A version-1 header with the given parameters, a zero salt and nonce, and a 16-byte "tag". */
  const envelope = (version: number, t: number, m: number, p: number) => {
    const blob = Buffer.alloc(53 + 16);
    blob.writeUInt8(version, 0);
    blob.writeUInt32BE(t, 1);
    blob.writeUInt32BE(m, 5);
    blob.writeUInt32BE(p, 9);
    return blob.toString('base64');
  };

  const V = 'VALIDATION_FAILED';
  const I = 'INVALID_INPUT';
  const U = 'UNSUPPORTED_ALGORITHM';
  const D = 'DECRYPTION_FAILED';
  const cases: [string, string, unknown, string][] = [
    // /v2/kdf
    ['kdf: empty body object', '/v2/kdf', {}, V],
    ['kdf: missing password', '/v2/kdf', { algorithm: 'scrypt' }, V],
    ['kdf: md5 is refused as insecure', '/v2/kdf', { algorithm: 'md5', password: 'x' }, U],
    ['kdf: bcrypt is not offered', '/v2/kdf', { algorithm: 'bcrypt', password: 'x' }, U],
    ['kdf: algorithm as a number (an enum miss on /algorithm)', '/v2/kdf', { algorithm: 7, password: 'x' }, U],
    ['kdf: password as a number', '/v2/kdf', { algorithm: 'scrypt', password: 1234 }, V],
    ['kdf: empty password', '/v2/kdf', { algorithm: 'hkdf-sha256', password: '' }, V],
    ['kdf: salt not hex', '/v2/kdf', { algorithm: 'scrypt', password: 'x', salt: 'zz'.repeat(8) }, V],
    ['kdf: salt of odd length', '/v2/kdf', { algorithm: 'scrypt', password: 'x', salt: 'abc' }, V],
    ['kdf: salt of 7 bytes', '/v2/kdf', { algorithm: 'scrypt', password: 'x', salt: '00'.repeat(7) }, I],
    ['kdf: keyLength 15', '/v2/kdf', { algorithm: 'scrypt', password: 'x', keyLength: 15 }, V],
    ['kdf: keyLength above every maximum', '/v2/kdf', { algorithm: 'hkdf-sha512', password: 'x', keyLength: 16321 }, V],
    ['kdf: keyLength 65 for PBKDF2', '/v2/kdf', { algorithm: 'pbkdf2-sha256', password: 'x', keyLength: 65 }, I],
    ['kdf: keyLength 8161 for HKDF-SHA256', '/v2/kdf', { algorithm: 'hkdf-sha256', password: 'x', keyLength: 8161 }, I],
    ['kdf: keyLength as a string', '/v2/kdf', { algorithm: 'scrypt', password: 'x', keyLength: '32' }, V],
    ['kdf: keyLength fractional', '/v2/kdf', { algorithm: 'scrypt', password: 'x', keyLength: 32.5 }, V],
    ['kdf: params as an array', '/v2/kdf', { algorithm: 'scrypt', password: 'x', params: [] }, V],
    ['kdf: unknown parameter', '/v2/kdf', { algorithm: 'scrypt', password: 'x', params: { cost: 5 } }, V],
    ['kdf: N below the floor', '/v2/kdf', { algorithm: 'scrypt', password: 'x', params: { N: 1024 } }, V],
    ['kdf: N above the cap', '/v2/kdf', { algorithm: 'scrypt', password: 'x', params: { N: 2 ** 21 } }, V],
    ['kdf: N not a power of two', '/v2/kdf', { algorithm: 'scrypt', password: 'x', params: { N: 3 * 2 ** 14 } }, I],
    ['kdf: r = 0', '/v2/kdf', { algorithm: 'scrypt', password: 'x', params: { r: 0 } }, V],
    ['kdf: p = 17', '/v2/kdf', { algorithm: 'scrypt', password: 'x', params: { p: 17 } }, V],
    [
      'kdf: scrypt memory over 256 MiB',
      '/v2/kdf',
      { algorithm: 'scrypt', password: 'x', params: { N: 2 ** 18, r: 16 } },
      I,
    ],
    ['kdf: scrypt work over 2^22', '/v2/kdf', { algorithm: 'scrypt', password: 'x', params: { p: 16 } }, I],
    [
      'kdf: iterations below the floor',
      '/v2/kdf',
      { algorithm: 'pbkdf2-sha256', password: 'x', params: { iterations: 99_999 } },
      V,
    ],
    [
      'kdf: iterations above the cap',
      '/v2/kdf',
      { algorithm: 'pbkdf2-sha256', password: 'x', params: { iterations: 2_000_001 } },
      V,
    ],
    ['kdf: N on PBKDF2', '/v2/kdf', { algorithm: 'pbkdf2-sha256', password: 'x', params: { N: 16384 } }, I],
    ['kdf: info on scrypt', '/v2/kdf', { algorithm: 'scrypt', password: 'x', params: { info: 'ctx' } }, I],
    [
      'kdf: info over 1024 bytes',
      '/v2/kdf',
      { algorithm: 'hkdf-sha256', password: 'x', params: { info: 'i'.repeat(1025) } },
      I,
    ],
    [
      'kdf: password not hex under encoding hex',
      '/v2/kdf',
      { algorithm: 'hkdf-sha256', password: 'xyz', encoding: 'hex' },
      I,
    ],
    [
      'kdf: info not base64 under encoding base64',
      '/v2/kdf',
      { algorithm: 'hkdf-sha256', password: 'eA==', encoding: 'base64', params: { info: '***' } },
      I,
    ],
    ['kdf: unknown encoding', '/v2/kdf', { algorithm: 'hkdf-sha256', password: 'x', encoding: 'latin1' }, V],
    ['kdf: unknown field', '/v2/kdf', { algorithm: 'hkdf-sha256', password: 'x', iterations: 5 }, V],
    // /v2/hmac and /v2/hmac/verify
    ['hmac: missing key', '/v2/hmac', { algorithm: 'hmac-sha256', data: 'x' }, V],
    ['hmac: empty key', '/v2/hmac', { algorithm: 'hmac-sha256', key: '', data: 'x' }, I],
    ['hmac: key not hex', '/v2/hmac', { algorithm: 'hmac-sha256', key: 'key!', data: 'x' }, V],
    ['hmac: sha1 is refused as insecure', '/v2/hmac', { algorithm: 'sha1', key: '00', data: 'x' }, U],
    ['hmac: a bare hash name is no identifier', '/v2/hmac', { algorithm: 'sha256', key: '00', data: 'x' }, U],
    ['hmac: blake3 is not an HMAC here', '/v2/hmac', { algorithm: 'blake3', key: '00', data: 'x' }, U],
    ['hmac: data as an object', '/v2/hmac', { algorithm: 'hmac-sha256', key: '00', data: { a: 1 } }, V],
    ['hmac: unknown field', '/v2/hmac', { algorithm: 'hmac-sha256', key: '00', data: 'x', mac: '00' }, V],
    ['hmac/verify: missing mac', '/v2/hmac/verify', { algorithm: 'hmac-sha256', key: '00', data: 'x' }, V],
    [
      'hmac/verify: mac not hex',
      '/v2/hmac/verify',
      { algorithm: 'hmac-sha256', key: '00', data: 'x', mac: 'g'.repeat(64) },
      V,
    ],
    [
      'hmac/verify: mac of the wrong length',
      '/v2/hmac/verify',
      { algorithm: 'hmac-sha512', key: '00', data: 'x', mac: '00'.repeat(32) },
      I,
    ],
    ['hmac/verify: empty mac', '/v2/hmac/verify', { algorithm: 'hmac-sha256', key: '00', data: 'x', mac: '' }, I],
    // /v2/password/hash
    ['password/hash: missing password', '/v2/password/hash', { ...FLOOR }, V],
    ['password/hash: empty password', '/v2/password/hash', { password: '', ...FLOOR }, V],
    ['password/hash: password as a number', '/v2/password/hash', { password: 1234 }, V],
    ['password/hash: timeCost below the floor', '/v2/password/hash', { password: 'x', timeCost: 1 }, V],
    ['password/hash: timeCost above the cap', '/v2/password/hash', { password: 'x', timeCost: 11 }, V],
    ['password/hash: memoryCost below the floor', '/v2/password/hash', { password: 'x', memoryCost: 19455 }, V],
    ['password/hash: memoryCost above the cap', '/v2/password/hash', { password: 'x', memoryCost: 262145 }, V],
    ['password/hash: memoryCost of 4 GiB', '/v2/password/hash', { password: 'x', memoryCost: 4194304 }, V],
    ['password/hash: parallelism 0', '/v2/password/hash', { password: 'x', parallelism: 0 }, V],
    ['password/hash: parallelism 17', '/v2/password/hash', { password: 'x', parallelism: 17 }, V],
    ['password/hash: timeCost as a string', '/v2/password/hash', { password: 'x', timeCost: '3' }, V],
    ['password/hash: a salt may not be chosen', '/v2/password/hash', { password: 'x', salt: '00'.repeat(16) }, V],
    ['password/hash: encoding does not apply', '/v2/password/hash', { password: 'x', encoding: 'hex' }, V],
    // /v2/password/verify
    ['password/verify: missing hash', '/v2/password/verify', { password: 'x' }, V],
    ['password/verify: empty hash', '/v2/password/verify', { password: 'x', hash: '' }, I],
    ['password/verify: not a PHC string', '/v2/password/verify', { password: 'x', hash: 'hunter2' }, I],
    [
      'password/verify: bcrypt hash',
      '/v2/password/verify',
      { password: 'x', hash: '$2b$12$R9h/cIPz0gi.URNNX3kh2OPST9/PgBkqquzi.Ss7KIUgO2t0jWMUW' },
      I,
    ],
    [
      'password/verify: m of 4 GiB',
      '/v2/password/verify',
      { password: 'x', hash: `$argon2id$v=19$m=4194304,t=2,p=1$${salt}$${tag}` },
      I,
    ],
    [
      'password/verify: m one over the cap',
      '/v2/password/verify',
      { password: 'x', hash: `$argon2id$v=19$m=262145,t=2,p=1$${salt}$${tag}` },
      I,
    ],
    [
      'password/verify: t over the cap',
      '/v2/password/verify',
      { password: 'x', hash: `$argon2id$v=19$m=65536,t=1000,p=1$${salt}$${tag}` },
      I,
    ],
    [
      'password/verify: p over the cap',
      '/v2/password/verify',
      { password: 'x', hash: `$argon2id$v=19$m=65536,t=2,p=255$${salt}$${tag}` },
      I,
    ],
    [
      'password/verify: version 16',
      '/v2/password/verify',
      { password: 'x', hash: `$argon2id$v=16$m=65536,t=2,p=1$${salt}$${tag}` },
      I,
    ],
    [
      'password/verify: no version',
      '/v2/password/verify',
      { password: 'x', hash: `$argon2id$m=65536,t=2,p=1$${salt}$${tag}` },
      I,
    ],
    [
      'password/verify: a huge number',
      '/v2/password/verify',
      { password: 'x', hash: `$argon2id$v=19$m=99999999999999999999,t=2,p=1$${salt}$${tag}` },
      I,
    ],
    [
      'password/verify: salt too short',
      '/v2/password/verify',
      { password: 'x', hash: `$argon2id$v=19$m=65536,t=2,p=1$c29tZQ$${tag}` },
      I,
    ],
    [
      'password/verify: longer than any valid string',
      '/v2/password/verify',
      { password: 'x', hash: `$argon2id$v=19$m=65536,t=2,p=1$${salt}$${'A'.repeat(300)}` },
      V,
    ],
    ['password/verify: hash as a number', '/v2/password/verify', { password: 'x', hash: 5 }, V],
    // /v2/password/encrypt and /v2/password/decrypt
    ['password/encrypt: missing plaintext', '/v2/password/encrypt', { password: 'x' }, V],
    ['password/encrypt: empty password', '/v2/password/encrypt', { password: '', plaintext: 'x' }, V],
    [
      'password/encrypt: plaintext not base64 under encoding base64',
      '/v2/password/encrypt',
      { password: 'x', plaintext: 'abc', encoding: 'base64' },
      I,
    ],
    [
      'password/encrypt: unknown encoding',
      '/v2/password/encrypt',
      { password: 'x', plaintext: 'x', encoding: 'utf16' },
      V,
    ],
    [
      'password/encrypt: parameters may not be chosen',
      '/v2/password/encrypt',
      { password: 'x', plaintext: 'x', timeCost: 2 },
      V,
    ],
    ['password/decrypt: missing ciphertext', '/v2/password/decrypt', { password: 'x' }, V],
    [
      'password/decrypt: ciphertext not base64',
      '/v2/password/decrypt',
      { password: 'x', ciphertext: 'not base64!' },
      I,
    ],
    ['password/decrypt: empty ciphertext', '/v2/password/decrypt', { password: 'x', ciphertext: '' }, D],
    ['password/decrypt: shorter than a header', '/v2/password/decrypt', { password: 'x', ciphertext: 'AQAAAAI=' }, D],
    [
      'password/decrypt: unknown format version',
      '/v2/password/decrypt',
      { password: 'x', ciphertext: envelope(2, 2, 19456, 1) },
      D,
    ],
    [
      'password/decrypt: header with m of 4 TiB',
      '/v2/password/decrypt',
      { password: 'x', ciphertext: envelope(1, 2, 0xffffffff, 1) },
      D,
    ],
    [
      'password/decrypt: header with t over the cap',
      '/v2/password/decrypt',
      { password: 'x', ciphertext: envelope(1, 0xffffffff, 19456, 1) },
      D,
    ],
    [
      'password/decrypt: header below the floor',
      '/v2/password/decrypt',
      { password: 'x', ciphertext: envelope(1, 1, 8, 1) },
      D,
    ],
    [
      'password/decrypt: a well-formed header, garbage after it',
      '/v2/password/decrypt',
      { password: 'x', ciphertext: envelope(1, 2, 19456, 1) },
      D,
    ],
  ];

  for (const [name, url, body, code] of cases) {
    test(name, async () => {
      assertProblem(await postJson(app, url, body), 400, code, name);
    });
  }

  test('a lone surrogate in a password is refused rather than replaced', async () => {
    for (const url of ['/v2/password/hash', '/v2/password/verify', '/v2/kdf']) {
      const payload =
        url === '/v2/kdf'
          ? '{"algorithm":"hkdf-sha256","password":"\\ud800"}'
          : url === '/v2/password/verify'
            ? `{"password":"\\ud800","hash":"$argon2id$v=19$m=19456,t=2,p=1$${salt}$${tag}"}`
            : '{"password":"\\ud800"}';
      const response = await app.inject({
        method: 'POST',
        url,
        payload,
        headers: { 'content-type': 'application/json' },
      });
      const problem = assertProblem(response, 400, 'INVALID_INPUT', url);
      assert.deepEqual(
        (problem.errors as { field: string }[]).map((error) => error.field),
        ['/password'],
        url,
      );
    }
  });

  test('a body that is not JSON, or not JSON at all by its type, is 400 / 415', async () => {
    for (const url of ['/v2/kdf', '/v2/hmac', '/v2/password/hash', '/v2/password/decrypt']) {
      assertProblem(
        await app.inject({
          method: 'POST',
          url,
          payload: '{"password":',
          headers: { 'content-type': 'application/json' },
        }),
        400,
        'MALFORMED_JSON',
        url,
      );
      assertProblem(
        await app.inject({
          method: 'POST',
          url,
          payload: 'password=x',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        }),
        415,
        'UNSUPPORTED_MEDIA_TYPE',
        url,
      );
    }
  });

  test('no error names a secret it was given', async () => {
    const response = await postJson(app, '/v2/kdf', {
      algorithm: 'hkdf-sha256',
      password: 'SUPERSECRETVALUE',
      encoding: 'hex',
    });
    assertProblem(response, 400, 'INVALID_INPUT');
    assert.doesNotMatch(response.body, /SUPERSECRETVALUE/);
  });
});

describe('overload: a full queue answers 503 with Retry-After', () => {
  /** Occupies every running slot and every waiting place of a queue until `release` is called. */
  function fill(queue: FastifyInstance['workQueues']['password']): { release: () => Promise<void> } {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const fillers = Array.from({ length: queue.options.concurrency + queue.options.maxQueued }, () =>
      queue.run(0, () => gate),
    );
    assert.equal(queue.running, queue.options.concurrency);
    assert.equal(queue.queued, queue.options.maxQueued);
    return {
      release: async () => {
        open();
        await Promise.all(fillers);
      },
    };
  }

  test('the Argon2id queue: all four password routes are refused; KDF and HMAC still work; afterwards all is well', async (t) => {
    const app = await testApp(ROOMY);
    t.after(() => app.close());
    const { data: sealed } = (await postJson(app, '/v2/password/encrypt', { password: 'pw', plaintext: 'x' })).json();
    const full = fill(app.workQueues.password);
    try {
      const requests: [string, unknown][] = [
        ['/v2/password/hash', { password: 'x', ...FLOOR }],
        [
          '/v2/password/verify',
          {
            password: 'x',
            hash: '$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc',
          },
        ],
        ['/v2/password/encrypt', { password: 'x', plaintext: 'x' }],
        ['/v2/password/decrypt', { password: 'pw', ciphertext: sealed.ciphertext }],
      ];
      for (const [url, body] of requests) {
        const response = await postJson(app, url, body);
        const problem = assertProblem(response, 503, 'SERVICE_UNAVAILABLE', url);
        assert.equal(response.headers['retry-after'], '1', url);
        assert.match(String(problem.detail), /busy/);
      }
      // A bad request is still told what is wrong with it: checks come before the queue.
      assertProblem(
        await postJson(app, '/v2/password/verify', { password: 'x', hash: 'nonsense' }),
        400,
        'INVALID_INPUT',
      );
      // The other queue and the cheap routes are unaffected.
      assert.equal(
        (await postJson(app, '/v2/kdf', { algorithm: 'scrypt', password: 'x', params: { N: 16384, r: 8, p: 5 } }))
          .statusCode,
        200,
      );
      assert.equal(
        (await postJson(app, '/v2/hmac', { algorithm: 'hmac-sha256', key: '00', data: 'x' })).statusCode,
        200,
      );
      const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body;
      assert.match(metrics, /crypto_work_queue_rejected_total\{queue="password"\} 4/);
      assert.match(metrics, /crypto_work_queue_jobs\{queue="password",state="waiting"\} 32/);
    } finally {
      await full.release();
    }
    assert.equal((await postJson(app, '/v2/password/hash', { password: 'x', ...FLOOR })).statusCode, 200);
    assert.equal(app.workQueues.password.running, 0);
  });

  test('the scrypt/PBKDF2 queue: both refused, HKDF (not queued) and passwords still served', async (t) => {
    const app = await testApp(ROOMY);
    t.after(() => app.close());
    const full = fill(app.workQueues.kdf);
    try {
      for (const body of [
        { algorithm: 'scrypt', password: 'x' },
        { algorithm: 'pbkdf2-sha256', password: 'x' },
      ]) {
        const response = await postJson(app, '/v2/kdf', body);
        assertProblem(response, 503, 'SERVICE_UNAVAILABLE', body.algorithm);
        assert.equal(response.headers['retry-after'], '1');
      }
      assert.equal((await postJson(app, '/v2/kdf', { algorithm: 'hkdf-sha512', password: 'x' })).statusCode, 200);
      assert.equal((await postJson(app, '/v2/password/hash', { password: 'x', ...FLOOR })).statusCode, 200);
      // Turned away is not a bug: the operations metric says `unavailable`, never `error`.
      const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body;
      assert.match(
        metrics,
        /crypto_operations_total\{operation="kdf.derive",algorithm="scrypt",outcome="unavailable"\} 1/,
      );
      assert.doesNotMatch(metrics, /outcome="error"/);
    } finally {
      await full.release();
    }
    assert.equal(
      (await postJson(app, '/v2/kdf', { algorithm: 'pbkdf2-sha256', password: 'x', params: { iterations: 600_000 } }))
        .statusCode,
      200,
    );
  });
});

describe('scopes', () => {
  const secret = new TextEncoder().encode(TEST_JWT_SECRET);
  const token = (scope: string) =>
    new SignJWT({ scope })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + 300)
      .sign(secret);

  // A body that passes the scope check but fails validation (so no work is done), and one that is valid.
  const routes: [string, string, unknown, unknown][] = [
    ['/v2/kdf', 'crypto:kdf', { algorithm: 'scrypt' }, { algorithm: 'hkdf-sha256', password: 'x' }],
    ['/v2/hmac', 'crypto:mac', { algorithm: 'hmac-sha256' }, { algorithm: 'hmac-sha256', key: '00', data: 'x' }],
    [
      '/v2/hmac/verify',
      'crypto:mac',
      { algorithm: 'hmac-sha256' },
      { algorithm: 'hmac-sha256', key: '00', data: 'x', mac: '00'.repeat(32) },
    ],
    ['/v2/password/hash', 'crypto:kdf', {}, { password: 'x', ...FLOOR }],
    ['/v2/password/verify', 'crypto:kdf', {}, { password: 'x', hash: 'x' }],
    ['/v2/password/encrypt', 'crypto:encrypt', {}, { password: 'x', plaintext: 'x' }],
    ['/v2/password/decrypt', 'crypto:decrypt', {}, { password: 'x', ciphertext: '' }],
  ];

  test('each route needs its scope: with it the request reaches the route, without it 403', async (t) => {
    const app = await testApp({ ...ROOMY, JWT_SECRET: TEST_JWT_SECRET });
    t.after(() => app.close());
    const unrelated = await token('crypto:hash crypto:sign');
    for (const [url, scope, invalid, valid] of routes) {
      const allowed = await postJson(app, url, invalid, { authorization: `Bearer ${await token(scope)}` });
      assert.equal(allowed.statusCode, 400, `${url} with ${scope}`);
      assertProblem(await postJson(app, url, valid, { authorization: `Bearer ${unrelated}` }), 403, 'FORBIDDEN', url);
    }
  });
});

describe('the listing and the OpenAPI document agree with the routes', () => {
  test("every listed kdf and mac identifier is accepted; the schemas' enums are the registry lists", async (t) => {
    const app = await testApp(ROOMY);
    t.after(() => app.close());
    const { data } = (await app.inject({ method: 'GET', url: '/v2/algorithms' })).json();
    assert.deepEqual(data.kdf, ['scrypt', 'hkdf-sha256', 'hkdf-sha384', 'hkdf-sha512', 'pbkdf2-sha256']);
    assert.deepEqual(data.mac, [
      'hmac-sha256',
      'hmac-sha384',
      'hmac-sha512',
      'hmac-sha3-256',
      'hmac-sha3-384',
      'hmac-sha3-512',
    ]);
    assert.deepEqual(data.password, ['argon2id']);
    for (const algorithm of data.mac) {
      assert.equal((await postJson(app, '/v2/hmac', { algorithm, key: '00', data: 'x' })).statusCode, 200, algorithm);
    }
    for (const algorithm of data.kdf) {
      const params =
        algorithm === 'scrypt'
          ? { N: 16384, r: 8, p: 5 }
          : algorithm === 'pbkdf2-sha256'
            ? { iterations: 600_000 }
            : {};
      assert.equal((await postJson(app, '/v2/kdf', { algorithm, password: 'x', params })).statusCode, 200, algorithm);
    }
    const openapi = (await app.inject({ method: 'GET', url: '/docs/json' })).json();
    const bodySchema = (path: string) =>
      singleForm(openapi.paths[path].post.requestBody.content['application/json'].schema);
    assert.deepEqual(bodySchema('/v2/kdf').properties.algorithm.enum, data.kdf);
    assert.deepEqual(bodySchema('/v2/hmac').properties.algorithm.enum, data.mac);
    for (const path of [
      '/v2/kdf',
      '/v2/hmac',
      '/v2/hmac/verify',
      '/v2/password/hash',
      '/v2/password/verify',
      '/v2/password/encrypt',
      '/v2/password/decrypt',
    ]) {
      assert.ok(openapi.paths[path]?.post, path);
    }
  });
});

describe('queue sizes come from the configuration', () => {
  test('PASSWORD_* and KDF_* variables size the queues; BUSY_REFUSAL_DELAY_MS delays their refusals', async (t) => {
    const app = await testApp({
      PASSWORD_CONCURRENCY: '3',
      PASSWORD_QUEUE_LIMIT: '5',
      PASSWORD_MEMORY_BUDGET_MIB: '512',
      KDF_CONCURRENCY: '2',
      KDF_QUEUE_LIMIT: '7',
      BUSY_REFUSAL_DELAY_MS: '40',
    });
    t.after(() => app.close());
    assert.equal(app.workQueues.password.options.refusalDelayMs, 40);
    assert.equal(app.workQueues.kdf.options.refusalDelayMs, 40);
    assert.equal(app.workQueues.password.options.concurrency, 3);
    assert.equal(app.workQueues.password.options.maxQueued, 5);
    assert.equal(app.workQueues.password.options.memoryBudgetBytes, 512 * 1024 * 1024);
    assert.equal(app.workQueues.kdf.options.concurrency, 2);
    assert.equal(app.workQueues.kdf.options.maxQueued, 7);
  });
});
