/**
 * Bugs the fuzzer found, each pinned by the input that found it. (The ones that need a real
 * socket, an `Expect` header other than 100-continue and an absolute-form request target, are
 * end to end in http.test.ts.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scrypt as nobleScrypt } from '@noble/hashes/scrypt.js';
import { postJson, testApp } from '../helpers.ts';
import { V1_FIXTURES } from './v1-fixtures.ts';
import { isV1Path } from '../../src/v1/deprecation.ts';

test('regression: /v1/sign of the empty message gives a cleartext signature that verifies (was a 500)', async (t) => {
  // Found by the fuzzer: {"message":"","privateKey":<armored key>} made OpenPGP.js's
  // createCleartextMessage throw, which the worker reported as an unexpected failure.
  const app = await testApp();
  t.after(() => app.close());
  const signed = await postJson(app, '/v1/sign', { message: '', privateKey: V1_FIXTURES.privateKey });
  assert.equal(signed.statusCode, 200, signed.body);
  const armored = (signed.json() as { data: string }).data;
  assert.match(armored, /^-----BEGIN PGP SIGNED MESSAGE-----\n/);
  const verified = await postJson(app, '/v1/verify', { message: armored, publicKeys: V1_FIXTURES.publicKey });
  assert.equal(verified.statusCode, 200, verified.body);
  assert.equal((verified.json() as { data: { valid: boolean } }).data.valid, true);
  // A signature of the empty text does not verify for another text.
  const tampered = armored.replace(/\n\n\n-----BEGIN PGP SIGNATURE/, '\n\nx\n-----BEGIN PGP SIGNATURE');
  assert.notEqual(tampered, armored);
  const refused = await postJson(app, '/v1/verify', { message: tampered, publicKeys: V1_FIXTURES.publicKey });
  assert.equal(refused.statusCode, 200, refused.body);
  assert.equal((refused.json() as { data: { valid: boolean } }).data.valid, false);
});

test('regression: /v1/sign of the empty message as a detached signature', async (t) => {
  const app = await testApp();
  t.after(() => app.close());
  const signed = await postJson(app, '/v1/sign', { message: '', privateKey: V1_FIXTURES.privateKey, detached: true });
  assert.equal(signed.statusCode, 200, signed.body);
  const signature = (signed.json() as { data: string }).data;
  const verified = await postJson(app, '/v1/verify', { message: '', signature, publicKeys: [V1_FIXTURES.publicKey] });
  assert.equal((verified.json() as { data: { valid: boolean } }).data.valid, true, verified.body);
});

test('regression: an absolute-form request target under /v1 counts as /v1 for the deprecation headers', () => {
  assert.equal(isV1Path('http://127.0.0.1/v1/verify'), true);
  assert.equal(isV1Path('https://example.com:8443/v1?x=1'), true);
  assert.equal(isV1Path('http://127.0.0.1/v2/hash'), false);
  assert.equal(isV1Path('http://127.0.0.1/v10/x'), false);
  assert.equal(isV1Path('/v1/sign'), true);
  // A path that merely contains a scheme-like segment is still a path.
  assert.equal(isV1Path('/x/http://h/v1/sign'), false);
});

test('regression: scrypt with r = 1 and N of 2^16 or more is a 400 naming params.N (was a 500 from OpenSSL)', async (t) => {
  // Found by the long run on Node 22: {"algorithm":"scrypt",…,"params":{"r":1}} (N defaults to
  // 2^17). RFC 7914 §2 requires N < 2^(128 · r / 8); OpenSSL refused with "memory limit exceeded".
  const app = await testApp();
  t.after(() => app.close());
  for (const params of [{ r: 1 }, { N: 2 ** 16, r: 1 }, { N: 2 ** 20, r: 1 }]) {
    const refused = await postJson(app, '/v2/kdf', {
      algorithm: 'scrypt',
      password: 'password',
      salt: '00'.repeat(16),
      params,
    });
    assert.equal(refused.statusCode, 400, refused.body);
    const problem = refused.json() as { code: string; errors?: { field: string }[] };
    assert.equal(problem.code, 'INVALID_INPUT');
    assert.equal(problem.errors?.[0]?.field, '/params/N');
  }
  // A small r with N and p at the work floor still derives, and the key is scrypt's (checked against noble).
  const salt = new Uint8Array(16).fill(7);
  const params = { N: 2 ** 15, r: 2, p: 10 };
  const derived = await postJson(app, '/v2/kdf', {
    algorithm: 'scrypt',
    password: 'password',
    salt: Buffer.from(salt).toString('hex'),
    params,
  });
  assert.equal(derived.statusCode, 200, derived.body);
  const expected = nobleScrypt(new TextEncoder().encode('password'), salt, { ...params, dkLen: 32 });
  assert.equal(
    (derived.json() as { data: { derivedKey: string } }).data.derivedKey,
    Buffer.from(expected).toString('hex'),
  );
});
