/**
 * The formats checked against implementations that share no code with this package: libsodium
 * (XChaCha20-Poly1305 IETF, crypto_box_seal, BLAKE2b), @hpke/core with @hpke/hybridkem-x-wing
 * (the X-Wing sealed box), node:crypto / OpenSSL (digests, HMAC, Ed25519 and ECDSA signatures).
 * Also the paths a runtime without Web Crypto takes (@noble instead of crypto.subtle).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createHmac, generateKeyPairSync, sign } from 'node:crypto';
import sodium from 'libsodium-wrappers';
import { CipherSuite, HkdfSha256 } from '@hpke/core';
import { Chacha20Poly1305 } from '@hpke/chacha20poly1305';
import { XWing } from '@hpke/hybridkem-x-wing';
import { ml_dsa44 } from '@noble/post-quantum/ml-dsa.js';
import {
  base64ToBytes,
  bytesToBase64,
  bytesToHex,
  decrypt,
  encrypt,
  hash,
  hmac,
  hmacVerify,
  pqSealedBoxOpen,
  pqSealedBoxSeal,
  sealedBoxOpen,
  sealedBoxSeal,
  verify,
} from '../src/index.ts';

await sodium.ready;

const patterned = (length: number) => Uint8Array.from({ length }, (_, index) => (index * 31 + 7) & 0xff);
const buffer = (bytes: Uint8Array) => bytes.slice().buffer;
const LENGTHS = [0, 1, 64, 3000];

describe('XChaCha20-Poly1305 against libsodium', () => {
  test('libsodium opens what the package seals, and the package opens what libsodium seals', async () => {
    const key = sodium.crypto_aead_xchacha20poly1305_ietf_keygen();
    for (const length of LENGTHS) {
      const plaintext = patterned(length);
      const aad = patterned(length % 17);
      const sealed = base64ToBytes((await encrypt({ key, plaintext, aad })).ciphertext);
      const opened = sodium.crypto_aead_xchacha20poly1305_ietf_decrypt(
        null,
        sealed.subarray(24),
        aad,
        sealed.subarray(0, 24),
        key,
      );
      assert.deepEqual(opened, plaintext);
      const nonce = sodium.randombytes_buf(24);
      const theirs = sodium.crypto_aead_xchacha20poly1305_ietf_encrypt(plaintext, aad, null, nonce, key);
      const ciphertext = bytesToBase64(new Uint8Array([...nonce, ...theirs]));
      assert.equal(await decrypt({ key, ciphertext, aad, encoding: 'hex' }), bytesToHex(plaintext));
    }
  });
});

describe('sealed box against libsodium crypto_box_seal', () => {
  test('both ways', async () => {
    const { publicKey, privateKey } = sodium.crypto_box_keypair();
    for (const length of LENGTHS) {
      const plaintext = patterned(length);
      const sealed = base64ToBytes((await sealedBoxSeal({ publicKey, plaintext })).ciphertext);
      assert.equal(sealed.byteLength, length + 48);
      assert.deepEqual(sodium.crypto_box_seal_open(sealed, publicKey, privateKey), plaintext);
      const theirs = bytesToBase64(sodium.crypto_box_seal(plaintext, publicKey));
      assert.equal(
        await sealedBoxOpen({ privateKey, ciphertext: theirs, encoding: 'base64' }),
        bytesToBase64(plaintext),
      );
    }
  });
});

describe('X-Wing sealed box against @hpke/core + @hpke/hybridkem-x-wing', () => {
  const suite = new CipherSuite({ kem: new XWing(), kdf: new HkdfSha256(), aead: new Chacha20Poly1305() });
  const info = buffer(new TextEncoder().encode('crypto-service/v2/sealedbox-pq'));

  test('both ways, given only the 32-byte seed and the 1216-byte public key', async () => {
    const pair = await suite.kem.generateKeyPair();
    const privateKey = new Uint8Array(await suite.kem.serializePrivateKey(pair.privateKey));
    const publicKey = new Uint8Array(await suite.kem.serializePublicKey(pair.publicKey));
    for (const length of LENGTHS) {
      const plaintext = patterned(length);
      const sealed = base64ToBytes((await pqSealedBoxSeal({ publicKey, plaintext })).ciphertext);
      const opened = await suite.open(
        { recipientKey: pair.privateKey, enc: buffer(sealed.subarray(0, 1120)), info },
        buffer(sealed.subarray(1120)),
      );
      assert.deepEqual(new Uint8Array(opened), plaintext);
      const { enc, ct } = await suite.seal({ recipientPublicKey: pair.publicKey, info }, buffer(plaintext));
      const ciphertext = bytesToBase64(new Uint8Array([...new Uint8Array(enc), ...new Uint8Array(ct)]));
      assert.equal(await pqSealedBoxOpen({ privateKey, ciphertext, encoding: 'hex' }), bytesToHex(plaintext));
    }
  });
});

describe('digests, MACs and signatures against node:crypto (OpenSSL)', () => {
  test('digests', async () => {
    const openssl = {
      sha256: 'sha256',
      sha384: 'sha384',
      sha512: 'sha512',
      'sha512-256': 'sha512-256',
      'sha3-256': 'sha3-256',
      'sha3-384': 'sha3-384',
      'sha3-512': 'sha3-512',
      'blake2b-512': 'blake2b512',
      blake2b: 'blake2b512',
    } as const;
    for (const length of LENGTHS) {
      const data = patterned(length);
      for (const [algorithm, name] of Object.entries(openssl)) {
        const expected = createHash(name).update(data).digest('hex');
        assert.equal(await hash({ algorithm: algorithm as 'sha256', data }), expected, `${algorithm} ${length}`);
      }
      const shake = createHash('shake256', { outputLength: 200 }).update(data).digest('hex');
      assert.equal(await hash({ algorithm: 'shake256', data, length: 200 }), shake);
      const blake2b256 = bytesToHex(sodium.crypto_generichash(32, data, null));
      assert.equal(await hash({ algorithm: 'blake2b-256', data }), blake2b256);
    }
  });

  test('HMACs', async () => {
    const key = patterned(200);
    for (const length of LENGTHS) {
      const data = patterned(length);
      for (const name of ['sha256', 'sha384', 'sha512', 'sha3-256', 'sha3-384', 'sha3-512']) {
        const algorithm = `hmac-${name}` as 'hmac-sha256';
        const expected = createHmac(name, key).update(data).digest('hex');
        assert.equal((await hmac({ algorithm, key, data })).mac, expected, `${algorithm} ${length}`);
        assert.equal((await hmacVerify({ algorithm, key, data, mac: expected })).valid, true);
      }
    }
  });

  test('Ed25519 and ECDSA (P1363 r ‖ s) signatures made by OpenSSL', async () => {
    const message = patterned(100);
    const ed = generateKeyPairSync('ed25519');
    const edPublic = ed.publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
    const edSignature = sign(null, message, ed.privateKey);
    assert.equal((await verify({ publicKey: edPublic, message, signature: edSignature })).valid, true);
    for (const [algorithm, namedCurve, digest] of [
      ['ecdsa-p256', 'prime256v1', 'sha256'],
      ['ecdsa-p384', 'secp384r1', 'sha384'],
    ] as const) {
      const pair = generateKeyPairSync('ec', { namedCurve });
      const jwk = pair.publicKey.export({ format: 'jwk' });
      const point = new Uint8Array([4, ...Buffer.from(jwk.x!, 'base64url'), ...Buffer.from(jwk.y!, 'base64url')]);
      const signature = sign(digest, message, { key: pair.privateKey, dsaEncoding: 'ieee-p1363' });
      assert.equal((await verify({ algorithm, publicKey: point, message, signature })).valid, true, algorithm);
      signature[0]! ^= 1;
      assert.equal((await verify({ algorithm, publicKey: point, message, signature })).valid, false, algorithm);
    }
  });
});

describe('without Web Crypto (a page outside a secure context): the @noble paths', () => {
  const descriptor = Object.getOwnPropertyDescriptor(globalThis, 'crypto')!;
  const getRandomValues = globalThis.crypto.getRandomValues.bind(globalThis.crypto);
  before(() => Object.defineProperty(globalThis, 'crypto', { value: { getRandomValues }, configurable: true }));
  after(() => Object.defineProperty(globalThis, 'crypto', descriptor));

  test('SHA-2 digests, HMAC-SHA-2 and Ed25519 give the same answers as OpenSSL', async () => {
    assert.equal(globalThis.crypto.subtle, undefined);
    const data = patterned(1000);
    for (const name of ['sha256', 'sha384', 'sha512'] as const) {
      assert.equal(await hash({ algorithm: name, data }), createHash(name).update(data).digest('hex'));
      const mac = createHmac(name, data).update(data).digest('hex');
      assert.equal((await hmac({ algorithm: `hmac-${name}`, key: data, data })).mac, mac);
    }
    const ed = generateKeyPairSync('ed25519');
    const publicKey = ed.publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
    const signature = sign(null, data, ed.privateKey);
    assert.equal((await verify({ publicKey, message: data, signature })).valid, true);
    signature[63]! ^= 0x10;
    assert.equal((await verify({ publicKey, message: data, signature })).valid, false);
  });

  test('ML-DSA, which never needs Web Crypto, verifies a @noble signature with its context', async () => {
    const keys = ml_dsa44.keygen(patterned(32));
    const context = new TextEncoder().encode('ctx');
    const signature = ml_dsa44.sign(patterned(10), keys.secretKey, { context });
    const input = { algorithm: 'ml-dsa-44', publicKey: keys.publicKey, message: patterned(10), signature } as const;
    assert.equal((await verify({ ...input, context: 'ctx' })).valid, true);
    assert.equal((await verify(input)).valid, false);
  });
});
