/**
 * Byte compatibility with the real service, both ways: what the service seals, MACs, hashes and
 * signs, this package opens, checks and verifies; what this package seals, the service opens.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { shake256 } from '@noble/hashes/sha3.js';
import { useCryptoService } from '@crypto-service/testing/node-test';
import {
  bytesToBase64,
  bytesToHex,
  decrypt,
  EdgeCryptoError,
  encrypt,
  hash,
  HASH_ALGORITHMS,
  hexToBytes,
  hmac,
  hmacVerify,
  MAC_ALGORITHMS,
  pqSealedBoxOpen,
  pqSealedBoxSeal,
  sealedBoxOpen,
  sealedBoxSeal,
  secretboxOpen,
  secretboxSeal,
  verify,
} from '../src/index.ts';

const service = useCryptoService();
const MESSAGES = ['', 'hello', 'grüße 🔐', 'x'.repeat(5000)];

/** The sealed blob with one bit of its last byte flipped. */
function tampered(base64: string): string {
  const bytes = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
  bytes[bytes.length - 1]! ^= 1;
  return bytesToBase64(bytes);
}

/** X-Wing's seed expanded as the draft does: the ML-KEM-768 seed and the X25519 private key. */
function xwingParts(seedHex: string) {
  const expanded = shake256(hexToBytes(seedHex), { dkLen: 96 });
  return { mlKemPrivateKey: bytesToHex(expanded.subarray(0, 64)), x25519PrivateKey: bytesToHex(expanded.subarray(64)) };
}

describe('XChaCha20-Poly1305 (/v2/encrypt and /v2/secretbox)', () => {
  test('the service seals, the package opens; the package seals, the service opens', async () => {
    const { key } = service.fixtures.aead;
    for (const plaintext of MESSAGES) {
      const aad = `aad for ${plaintext.length}`;
      const fromService = (await service.client.encrypt({ key, plaintext, aad })).data;
      assert.equal(await decrypt({ key, ciphertext: fromService.ciphertext, aad }), plaintext);
      const fromEdge = await encrypt({ key, plaintext, aad });
      assert.equal(fromEdge.algorithm, fromService.algorithm);
      assert.equal((await service.client.decrypt({ key, ciphertext: fromEdge.ciphertext, aad })).data, plaintext);
      const boxed = await secretboxSeal({ key, plaintext });
      assert.equal((await service.client.secretboxOpen({ key, ciphertext: boxed.ciphertext })).data, plaintext);
      const served = (await service.client.secretboxSeal({ key, plaintext })).data;
      assert.equal(await secretboxOpen({ key, ciphertext: served.ciphertext }), plaintext);
    }
  });

  test('hex and base64 encodings read and answer as the service does', async () => {
    const { key } = service.fixtures.aead;
    const plaintext = 'ff00fe01';
    const sealed = await encrypt({ key, plaintext, aad: 'aabb', encoding: 'hex' });
    const opened = await service.client.decrypt({ key, ciphertext: sealed.ciphertext, aad: 'aabb', encoding: 'hex' });
    assert.equal(opened.data, plaintext);
    assert.equal(await decrypt({ key, ciphertext: sealed.ciphertext, aad: 'qrs=', encoding: 'base64' }), '/wD+AQ==');
  });

  test('a tampered box, a wrong aad and a wrong key all fail with the one DECRYPTION_FAILED', async () => {
    const { key } = service.fixtures.aead;
    const { ciphertext } = (await service.client.encrypt({ key, plaintext: 'secret', aad: 'a' })).data;
    const otherKey = 'ab'.repeat(32);
    for (const attempt of [
      { key, ciphertext: tampered(ciphertext), aad: 'a' },
      { key, ciphertext, aad: 'b' },
      { key: otherKey, ciphertext, aad: 'a' },
    ]) {
      await assert.rejects(decrypt(attempt), (error: unknown) => {
        assert.ok(error instanceof EdgeCryptoError);
        assert.equal(error.code, 'DECRYPTION_FAILED');
        assert.equal(error.message, 'decryption failed');
        return true;
      });
    }
  });
});

describe('sealed box (/v2/sealedbox, crypto_box_seal)', () => {
  test('both ways, and a tampered box fails', async () => {
    const { publicKey, privateKey } = service.fixtures.x25519;
    for (const plaintext of MESSAGES) {
      const fromService = (await service.client.sealedboxSeal({ publicKey, plaintext })).data;
      assert.equal(await sealedBoxOpen({ privateKey, ciphertext: fromService.ciphertext }), plaintext);
      const fromEdge = await sealedBoxSeal({ publicKey, plaintext });
      assert.equal(fromEdge.algorithm, fromService.algorithm);
      assert.equal(
        (await service.client.sealedboxOpen({ privateKey, ciphertext: fromEdge.ciphertext })).data,
        plaintext,
      );
      await assert.rejects(sealedBoxOpen({ privateKey, ciphertext: tampered(fromService.ciphertext) }), {
        code: 'DECRYPTION_FAILED',
      });
    }
  });

  test('a low-order public key is refused, as the service refuses it', async () => {
    await assert.rejects(sealedBoxSeal({ publicKey: '00'.repeat(32), plaintext: 'x' }), {
      code: 'INVALID_INPUT',
      field: '/publicKey',
    });
  });
});

describe('X-Wing post-quantum sealed box (/v2/sealedbox/seal-pq)', () => {
  test('both ways, with the key whole and in parts, and a tampered box fails', async () => {
    const { publicKey, privateKey } = service.fixtures.xWing;
    const parts = xwingParts(privateKey);
    const halves = { mlKemPublicKey: publicKey.slice(0, 2368), x25519PublicKey: publicKey.slice(2368) };
    for (const plaintext of MESSAGES) {
      const fromService = (await service.client.sealedboxSealPq({ publicKey, plaintext })).data;
      assert.equal(await pqSealedBoxOpen({ privateKey, ciphertext: fromService.ciphertext }), plaintext);
      assert.equal(await pqSealedBoxOpen({ ...parts, ciphertext: fromService.ciphertext }), plaintext);
      const fromEdge = await pqSealedBoxSeal({ publicKey, plaintext });
      assert.equal(fromEdge.algorithm, fromService.algorithm);
      assert.equal(
        (await service.client.sealedboxOpenPq({ privateKey, ciphertext: fromEdge.ciphertext })).data,
        plaintext,
      );
      const fromParts = await pqSealedBoxSeal({ ...halves, plaintext });
      assert.equal(
        (await service.client.sealedboxOpenPq({ ...parts, ciphertext: fromParts.ciphertext })).data,
        plaintext,
      );
      await assert.rejects(pqSealedBoxOpen({ privateKey, ciphertext: tampered(fromService.ciphertext) }), {
        code: 'DECRYPTION_FAILED',
      });
    }
  });
});

describe('HMAC (/v2/hmac)', () => {
  test('every algorithm gives the service MAC, verifies it, and refuses a changed one', async () => {
    const key = service.fixtures.hmac.key;
    for (const algorithm of MAC_ALGORITHMS) {
      for (const data of ['', 'webhook body', 'y'.repeat(3000)]) {
        const fromService = (await service.client.mac({ algorithm, key, data })).data;
        assert.deepEqual(await hmac({ algorithm, key, data }), fromService, `${algorithm} ${data.length}`);
        assert.deepEqual(await hmacVerify({ algorithm, key, data, mac: fromService.mac }), { valid: true, algorithm });
        const changed = (fromService.mac[0] === '0' ? '1' : '0') + fromService.mac.slice(1);
        assert.deepEqual(await hmacVerify({ algorithm, key, data, mac: changed }), { valid: false, algorithm });
      }
    }
  });

  test('a truncated MAC and an empty key are errors, as in the service', async () => {
    const key = service.fixtures.hmac.key;
    const { mac } = await hmac({ algorithm: 'hmac-sha256', key, data: 'd' });
    await assert.rejects(hmacVerify({ algorithm: 'hmac-sha256', key, data: 'd', mac: mac.slice(0, 32) }), {
      code: 'INVALID_INPUT',
      field: '/mac',
    });
    await assert.rejects(hmac({ algorithm: 'hmac-sha256', key: '', data: 'd' }), { code: 'INVALID_INPUT' });
  });
});

describe('hashing (/v2/hash)', () => {
  test('every hash id gives the service digest, XOF lengths included', async () => {
    for (const algorithm of HASH_ALGORITHMS) {
      for (const data of ['', 'abc', 'z'.repeat(4097)]) {
        const { digest } = (await service.client.hash({ algorithm, data })).data;
        assert.equal(await hash({ algorithm, data }), digest, `${algorithm} ${data.length}`);
      }
    }
    for (const algorithm of ['blake3', 'shake128', 'shake256'] as const) {
      const { digest } = (await service.client.hash({ algorithm, data: '00ff', encoding: 'hex', length: 100 })).data;
      assert.equal(await hash({ algorithm, data: '00ff', encoding: 'hex', length: 100 }), digest);
    }
  });
});

describe('signature verification (/v2/sign by the service, verified here)', () => {
  const pairs = async () => ({
    ed25519: service.fixtures.ed25519,
    'ecdsa-p256': service.fixtures.ecdsaP256,
    'ecdsa-p384': (await service.client.generateKeyPair({ algorithm: 'ecdsa-p384' })).data,
    'ml-dsa-44': (await service.client.generateKeyPair({ algorithm: 'ml-dsa-44' })).data,
    'ml-dsa-65': service.fixtures.mlDsa65,
    'ml-dsa-87': (await service.client.generateKeyPair({ algorithm: 'ml-dsa-87' })).data,
  });

  test('every service signature verifies; a changed message or signature does not', async () => {
    for (const [algorithm, pair] of Object.entries(await pairs())) {
      const { publicKey, privateKey } = pair as { publicKey: string; privateKey: string };
      const message = `signed by ${algorithm}`;
      const { signature } = (await service.client.sign({ algorithm, privateKey, message } as never)).data as {
        signature: string;
      };
      const id = algorithm as 'ed25519';
      assert.deepEqual(await verify({ algorithm: id, publicKey, message, signature }), { valid: true, algorithm });
      assert.equal((await verify({ algorithm: id, publicKey, message: `${message}!`, signature })).valid, false);
      const flipped = signature.slice(0, 10) + (signature[10] === '0' ? '1' : '0') + signature.slice(11);
      assert.equal((await verify({ algorithm: id, publicKey, message, signature: flipped })).valid, false, algorithm);
    }
  });

  test('ML-DSA with a context verifies only under that context', async () => {
    const { publicKey, privateKey } = service.fixtures.mlDsa65;
    const context = 'invoice-v1';
    const { signature } = (await service.client.sign({ algorithm: 'ml-dsa-65', privateKey, message: 'm', context }))
      .data;
    assert.equal((await verify({ algorithm: 'ml-dsa-65', publicKey, message: 'm', signature, context })).valid, true);
    assert.equal((await verify({ algorithm: 'ml-dsa-65', publicKey, message: 'm', signature })).valid, false);
    assert.equal(
      (await verify({ algorithm: 'ml-dsa-65', publicKey, message: 'm', signature, context: 'invoice-v2' })).valid,
      false,
    );
  });

  test('a compressed ECDSA public key verifies the same signature', async () => {
    const { publicKey, privateKey } = service.fixtures.ecdsaP256;
    const { signature } = (await service.client.sign({ algorithm: 'ecdsa-p256', privateKey, message: 'c' })).data;
    const y = hexToBytes(publicKey.slice(66));
    const compressed = ((y[31]! & 1) === 1 ? '03' : '02') + publicKey.slice(2, 66);
    assert.equal(
      (await verify({ algorithm: 'ecdsa-p256', publicKey: compressed, message: 'c', signature })).valid,
      true,
    );
  });
});
