/**
 * Every method of the main operations against the real service over HTTP: each
 * operation is checked by its inverse or by a known answer, so a wrong path, body or envelope
 * fails here.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CryptoClient } from '@crypto-service/client';
import { startService, type Service } from './helpers.ts';

const KEY_32 = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f';

describe('the main operations, against the real service', () => {
  let service: Service;
  let client: CryptoClient;
  before(async () => {
    service = await startService();
    // A trailing slash on baseUrl is tolerated, since callers often copy a URL that ends in one.
    client = new CryptoClient({ baseUrl: `${service.baseUrl}/` });
  });
  after(() => service.close());

  test('hash returns { data: { digest, algorithm, length } }', async () => {
    const { data } = await client.hash({ algorithm: 'sha256', data: 'abc' });
    assert.deepEqual(data, {
      digest: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
      algorithm: 'sha256',
      length: 32,
    });
    const xof = await client.hash({ algorithm: 'blake3', data: '', length: 8 });
    assert.deepEqual(xof.data, { digest: 'af1349b9f5f9a1a6', algorithm: 'blake3', length: 8 });
  });

  test('encrypt then decrypt, with AAD', async () => {
    const sealed = await client.encrypt({ key: KEY_32, plaintext: 'attack at dawn', aad: 'header' });
    assert.equal(sealed.data.algorithm, 'xchacha20-poly1305');
    const opened = await client.decrypt({ key: KEY_32, ciphertext: sealed.data.ciphertext, aad: 'header' });
    assert.equal(opened.data, 'attack at dawn');
  });

  test('generateKeyPair (no body) then sign then verify', async () => {
    const { data: pair } = await client.generateKeyPair();
    assert.equal(pair.algorithm, 'ed25519');
    assert.ok('privateKey' in pair && typeof pair.privateKey === 'string' && typeof pair.publicKey === 'string');
    const signed = await client.sign({ privateKey: pair.privateKey, message: 'hello' });
    assert.equal(signed.data.signature.length, 128);
    const good = await client.verify({ publicKey: pair.publicKey, message: 'hello', signature: signed.data.signature });
    assert.deepEqual(good.data, { valid: true, algorithm: 'ed25519' });
    const bad = await client.verify({ publicKey: pair.publicKey, message: 'hellO', signature: signed.data.signature });
    assert.equal(bad.data.valid, false);
  });

  test('generateKeyPair with a body: a symmetric key', async () => {
    const { data } = await client.generateKeyPair({ algorithm: 'xchacha20-poly1305' });
    assert.ok('key' in data);
    assert.match(String(data.key), /^[0-9a-f]{64}$/);
  });

  test('kdf: HKDF-SHA256 known answer (RFC 5869, test case 1)', async () => {
    const { data } = await client.kdf({
      algorithm: 'hkdf-sha256',
      password: '0b'.repeat(22),
      salt: '000102030405060708090a0b0c',
      keyLength: 42,
      params: { info: 'f0f1f2f3f4f5f6f7f8f9' },
      encoding: 'hex',
    });
    assert.equal(
      data.derivedKey,
      '3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865',
    );
    assert.equal(data.keyLength, 42);
  });

  test('mac (RFC 4231 test case 2) then macVerify', async () => {
    const body = { algorithm: 'hmac-sha256' as const, key: '4a656665', data: 'what do ya want for nothing?' };
    const { data } = await client.mac(body);
    assert.equal(data.mac, '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
    assert.equal(data.algorithm, 'hmac-sha256');
    assert.deepEqual((await client.macVerify({ ...data, key: body.key, data: body.data })).data, {
      valid: true,
      algorithm: 'hmac-sha256',
    });
    assert.equal((await client.macVerify({ ...body, mac: '00'.repeat(32) })).data.valid, false);
  });

  test('passwordHash (OWASP floor m=19456, t=2, p=1) then passwordVerify', async () => {
    const { data } = await client.passwordHash({
      password: 'correct horse',
      memoryCost: 19456,
      timeCost: 2,
      parallelism: 1,
    });
    assert.deepEqual(data.params, { m: 19456, t: 2, p: 1 });
    assert.match(data.hash, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    const right = await client.passwordVerify({ password: 'correct horse', hash: data.hash });
    assert.equal(right.data.valid, true);
    assert.equal(right.data.needsRehash, true, "below today's defaults, so a rehash is advised");
    assert.equal((await client.passwordVerify({ password: 'wrong horse', hash: data.hash })).data.valid, false);
  });

  test('passwordEncrypt then passwordDecrypt', async () => {
    const { data } = await client.passwordEncrypt({ password: 'pw', plaintext: 'secret note' });
    assert.equal(data.algorithm, 'argon2id-xchacha20-poly1305');
    assert.equal((await client.passwordDecrypt({ password: 'pw', ciphertext: data.ciphertext })).data, 'secret note');
  });

  test('keyWrap then keyUnwrap (AES-KW)', async () => {
    const keyToWrap = 'ff'.repeat(32);
    const { data } = await client.keyWrap({ kek: KEY_32, keyToWrap });
    assert.equal(data.algorithm, 'aes-kw');
    assert.equal((await client.keyUnwrap({ kek: KEY_32, wrappedKey: data.wrappedKey })).data, keyToWrap);
    assert.equal((await client.keyUnwrap({ ...data, kek: KEY_32 })).data, keyToWrap);
  });

  test('secretboxSeal then secretboxOpen', async () => {
    const { data } = await client.secretboxSeal({ key: KEY_32, plaintext: 'boxed' });
    assert.equal((await client.secretboxOpen({ key: KEY_32, ciphertext: data.ciphertext })).data, 'boxed');
    assert.equal((await client.secretboxOpen({ ...data, key: KEY_32 })).data, 'boxed');
  });

  test('sealedboxSeal then sealedboxOpen, with an X25519 key pair', async () => {
    const { data: pair } = await client.generateKeyPair({ algorithm: 'x25519' });
    assert.ok('privateKey' in pair && typeof pair.publicKey === 'string' && typeof pair.privateKey === 'string');
    const { data } = await client.sealedboxSeal({ publicKey: pair.publicKey, plaintext: 'anonymous' });
    assert.equal(data.algorithm, 'x25519-xsalsa20-poly1305');
    assert.equal((await client.sealedboxOpen({ ...data, privateKey: pair.privateKey })).data, 'anonymous');
  });

  test('pqGenerateKeyPair (no body) then pqEncapsulate then pqDecapsulate (X-Wing)', async () => {
    const { data: pair } = await client.pqGenerateKeyPair();
    assert.equal(pair.algorithm, 'x25519-ml-kem-768');
    const { data: sent } = await client.pqEncapsulate({ publicKey: pair.publicKey });
    const { data: received } = await client.pqDecapsulate({ privateKey: pair.privateKey, ciphertext: sent.ciphertext });
    assert.match(sent.sharedSecret, /^[0-9a-f]{64}$/);
    assert.equal(received.sharedSecret, sent.sharedSecret);
    // The producer's data passed on whole, as the rule for chaining calls says.
    const chained = await client.pqDecapsulate({ ...sent, privateKey: pair.privateKey });
    assert.deepEqual(chained.data, { sharedSecret: sent.sharedSecret, algorithm: 'x25519-ml-kem-768' });
  });

  test('pqSignKeygen then pqSign then pqVerify (ML-DSA)', async () => {
    const { data: pair } = await client.pqSignKeygen({ algorithm: 'ml-dsa-44' });
    assert.equal(pair.algorithm, 'ml-dsa-44');
    const { data: signed } = await client.pqSign({
      privateKey: pair.privateKey,
      message: 'pq',
      algorithm: 'ml-dsa-44',
      context: 'ctx',
    });
    const good = await client.pqVerify({
      publicKey: pair.publicKey,
      message: 'pq',
      signature: signed.signature,
      context: 'ctx',
    });
    assert.equal(good.data.valid, true);
    const otherContext = await client.pqVerify({
      publicKey: pair.publicKey,
      message: 'pq',
      signature: signed.signature,
      context: 'other',
    });
    assert.equal(otherContext.data.valid, false);
  });

  test('pqHashSignKeygen then pqHashSign then pqHashVerify (SLH-DSA under /v2/pq/hash-sign)', async () => {
    const { data: pair } = await client.pqHashSignKeygen();
    assert.equal(pair.algorithm, 'slh-dsa-sha2-128f');
    const { data: signed } = await client.pqHashSign({ privateKey: pair.privateKey, message: 'stateless' });
    assert.equal(
      (await client.pqHashVerify({ publicKey: pair.publicKey, message: 'stateless', signature: signed.signature })).data
        .valid,
      true,
    );
    assert.equal(
      (await client.pqHashVerify({ publicKey: pair.publicKey, message: 'stateful', signature: signed.signature })).data
        .valid,
      false,
    );
  });

  test('algorithms lists what the routes accept', async () => {
    const { data } = await client.algorithms();
    assert.ok(data.hash.includes('sha256'));
    assert.ok(!data.hash.includes('md5'));
    assert.ok(data.signature.includes('ed25519'));
  });

  test('health wraps the probe as { data }', async () => {
    const { data } = await client.health();
    assert.equal(data.status, 'ok');
    assert.equal(typeof data.uptime, 'number');
  });
});
