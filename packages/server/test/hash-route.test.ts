import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { postJson, testApp } from './helpers.ts';
import type { FastifyInstance } from 'fastify';
import { singleForm } from '../src/openapi-batch.ts';

// FIPS 180-4 example: SHA-256("abc").
const SHA256_ABC = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';

describe('POST /v2/hash', () => {
  let app: FastifyInstance;
  test.before(async () => {
    app = await testApp();
  });
  test.after(() => app.close());

  test('data is the digest itself, as lowercase hex', async () => {
    const response = await postJson(app, '/v2/hash', { algorithm: 'sha256', data: 'abc' });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), { data: SHA256_ABC });
  });

  test('the three encodings of the same bytes give the same digest', async () => {
    for (const [data, encoding] of [
      ['abc', 'utf8'],
      ['YWJj', 'base64'],
      ['616263', 'hex'],
      ['616263'.toUpperCase(), 'hex'],
    ]) {
      const response = await postJson(app, '/v2/hash', { algorithm: 'sha256', data, encoding });
      assert.equal(response.json().data, SHA256_ABC, `${encoding} ${data}`);
    }
  });

  test('bad hex or base64 is a 400 that names the field', async () => {
    for (const [data, encoding] of [
      ['abc', 'hex'],
      ['zz', 'hex'],
      ['YWJj=', 'base64'],
      ['YW Jj', 'base64'],
    ]) {
      const response = await postJson(app, '/v2/hash', { algorithm: 'sha256', data, encoding });
      assert.equal(response.statusCode, 400, `${encoding} ${data}`);
      assert.equal(response.json().code, 'INVALID_INPUT');
      assert.equal(response.json().errors[0].field, '/data');
    }
  });

  test('a lone surrogate in utf8 data is refused rather than silently replaced', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/v2/hash',
      headers: { 'content-type': 'application/json' },
      payload: '{"algorithm":"sha256","data":"\\ud800"}',
    });
    assert.equal(response.statusCode, 400);
    assert.match(response.json().detail, /base64 or hex/);
  });

  test('length sets the output of BLAKE3 and SHAKE; the 32-byte BLAKE3 output is a prefix of longer ones', async () => {
    const short = (await postJson(app, '/v2/hash', { algorithm: 'blake3', data: 'abc' })).json().data;
    const long = (await postJson(app, '/v2/hash', { algorithm: 'blake3', data: 'abc', length: 100 })).json().data;
    assert.equal(short.length, 64);
    assert.equal(long.length, 200);
    assert.ok(long.startsWith(short));
    const shake = (await postJson(app, '/v2/hash', { algorithm: 'shake256', data: 'abc', length: 16 })).json().data;
    assert.equal(shake.length, 32);
  });

  test('length on a fixed-size digest, or out of range, is a 400', async () => {
    assert.equal((await postJson(app, '/v2/hash', { algorithm: 'sha256', data: 'abc', length: 16 })).statusCode, 400);
    assert.equal((await postJson(app, '/v2/hash', { algorithm: 'blake3', data: 'abc', length: 0 })).statusCode, 400);
    assert.equal((await postJson(app, '/v2/hash', { algorithm: 'blake3', data: 'abc', length: 1025 })).statusCode, 400);
    assert.equal((await postJson(app, '/v2/hash', { algorithm: 'blake3', data: 'abc', length: 1.5 })).statusCode, 400);
    assert.equal((await postJson(app, '/v2/hash', { algorithm: 'blake3', data: 'abc', length: '32' })).statusCode, 400);
  });

  test('blake2b is the alias of blake2b-512; blake2b-256 is a different function, not a truncation', async () => {
    const alias = (await postJson(app, '/v2/hash', { algorithm: 'blake2b', data: 'abc' })).json().data;
    const full = (await postJson(app, '/v2/hash', { algorithm: 'blake2b-512', data: 'abc' })).json().data;
    const short = (await postJson(app, '/v2/hash', { algorithm: 'blake2b-256', data: 'abc' })).json().data;
    assert.equal(alias, full);
    assert.equal(short.length, 64);
    assert.ok(!full.startsWith(short));
  });

  test('the empty string hashes (it is data too)', async () => {
    const response = await postJson(app, '/v2/hash', { algorithm: 'sha256', data: '' });
    // FIPS 180-4: SHA-256 of the empty message.
    assert.equal(response.json().data, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });
});

describe('GET /v2/algorithms', () => {
  test('lists every documented family, and every listed hash is accepted by /v2/hash', async (t) => {
    const app = await testApp();
    t.after(() => app.close());
    const { data } = (await app.inject({ method: 'GET', url: '/v2/algorithms' })).json();
    assert.deepEqual(Object.keys(data), [
      'hash',
      'aead',
      'signature',
      'mlDsa',
      'slhDsa',
      'mlKem',
      'hybridKem',
      'kdf',
      'mac',
      'password',
      'passwordEncryption',
      'keyWrap',
      'sealedBox',
      'pqSealedBox',
      'multiRecipient',
      'recipientType',
      'keyGeneration',
    ]);
    assert.deepEqual(data.mlKem, ['ml-kem-512', 'ml-kem-768', 'ml-kem-1024']);
    assert.deepEqual(data.hybridKem, ['x25519-ml-kem-768']);
    assert.deepEqual(data.recipientType, ['x25519', 'x25519-ml-kem-768']);
    assert.deepEqual(data.mlDsa, ['ml-dsa-44', 'ml-dsa-65', 'ml-dsa-87']);
    assert.equal(data.slhDsa.length, 12);
    assert.deepEqual(data.passwordEncryption, ['argon2id-xchacha20-poly1305']);
    assert.deepEqual(data.multiRecipient, ['hpke-xchacha20-poly1305']);
    assert.ok(data.hash.length >= 12);
    for (const id of [
      'sha256',
      'sha384',
      'sha512',
      'sha512-256',
      'sha3-256',
      'sha3-384',
      'sha3-512',
      'blake2b-256',
      'blake2b-512',
      'blake2b',
      'blake3',
    ]) {
      assert.ok(data.hash.includes(id), id);
    }
    for (const id of ['md5', 'sha1']) assert.ok(!data.hash.includes(id), id);
    for (const algorithm of data.hash) {
      const response = await postJson(app, '/v2/hash', { algorithm, data: 'abc' });
      assert.equal(response.statusCode, 200, algorithm);
      assert.match(response.json().data, /^[0-9a-f]+$/);
    }
  });

  test('the OpenAPI enum for /v2/hash algorithm is the registry list', async (t) => {
    const app = await testApp();
    t.after(() => app.close());
    const { data } = (await app.inject({ method: 'GET', url: '/v2/algorithms' })).json();
    const openapi = (await app.inject({ method: 'GET', url: '/docs/json' })).json();
    const schema = singleForm(openapi.paths['/v2/hash'].post.requestBody.content['application/json'].schema);
    assert.deepEqual(schema.properties.algorithm.enum, data.hash);
  });
});
