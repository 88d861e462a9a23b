/**
 * Interoperation with libsodium (libsodium-wrappers, the reference C library compiled to
 * WebAssembly), in both directions:
 * - `/v2/encrypt` and `/v2/secretbox/seal` output (both xchachaSeal: nonce ‖ ciphertext ‖ tag) is
 *   crypto_aead_xchacha20poly1305_ietf once the 24-byte nonce is split off, and back;
 * - `/v2/sealedbox/seal` output is crypto_box_seal, and back;
 * - both refuse the same low-order recipient keys.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import sodium from 'libsodium-wrappers';
import { XCHACHA_NONCE_LENGTH, xchachaOpen, xchachaSeal, type AeadBackend } from '../src/aead.ts';
import { openBox, sealBox } from '../src/sealedbox.ts';
import { CryptoError } from '../src/errors.ts';

await sodium.ready;

function bytes(label: string, length: number): Uint8Array {
  return Uint8Array.from(createHash('shake256', { outputLength: length }).update(label).digest());
}

const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

// Both sides of NATIVE_AEAD_THRESHOLD (2048) and the block and tag boundaries.
const LENGTHS = [0, 1, 15, 16, 17, 63, 64, 65, 1000, 2047, 2048, 2049, 4096, 65536];
// 'auto' is what the routes use; the two explicit backends make sure both are covered at every length.
const BACKENDS: readonly AeadBackend[] = ['auto', 'native', 'noble'];

describe('XChaCha20-Poly1305 with libsodium crypto_aead_xchacha20poly1305_ietf', () => {
  for (const withAad of [false, true]) {
    for (const backend of BACKENDS) {
      test(`libsodium opens ours, ${backend} backend, ${withAad ? 'with' : 'without'} AAD`, () => {
        const key = bytes(`key ${backend} ${withAad}`, 32);
        for (const length of LENGTHS) {
          const plaintext = bytes(`plaintext ${length}`, length);
          const aad = withAad ? bytes(`aad ${length}`, 13) : undefined;
          const sealed = xchachaSeal(key, plaintext, aad, { backend });
          const nonce = sealed.subarray(0, XCHACHA_NONCE_LENGTH);
          const opened = sodium.crypto_aead_xchacha20poly1305_ietf_decrypt(
            null,
            sealed.subarray(XCHACHA_NONCE_LENGTH),
            aad ?? null,
            nonce,
            key,
          );
          assert.ok(same(opened, plaintext), `length ${length}`);
        }
      });

      test(`we open libsodium's, ${backend} backend, ${withAad ? 'with' : 'without'} AAD`, () => {
        const key = sodium.crypto_aead_xchacha20poly1305_ietf_keygen();
        for (const length of LENGTHS) {
          const plaintext = bytes(`libsodium plaintext ${length}`, length);
          const aad = withAad ? bytes(`libsodium aad ${length}`, 7) : null;
          const nonce = sodium.randombytes_buf(XCHACHA_NONCE_LENGTH);
          const body = sodium.crypto_aead_xchacha20poly1305_ietf_encrypt(plaintext, aad, null, nonce, key);
          const sealed = Uint8Array.from([...nonce, ...body]);
          assert.ok(same(xchachaOpen(key, sealed, aad ?? undefined, { backend }), plaintext), `length ${length}`);
        }
      });
    }
  }

  test('a libsodium ciphertext with the AAD dropped or changed does not open here either', () => {
    const key = sodium.crypto_aead_xchacha20poly1305_ietf_keygen();
    const nonce = sodium.randombytes_buf(XCHACHA_NONCE_LENGTH);
    const aad = bytes('bound', 8);
    const sealed = Uint8Array.from([
      ...nonce,
      ...sodium.crypto_aead_xchacha20poly1305_ietf_encrypt(bytes('m', 30), aad, null, nonce, key),
    ]);
    assert.throws(
      () => xchachaOpen(key, sealed),
      (error: unknown) => error instanceof CryptoError && error.code === 'DECRYPTION_FAILED',
    );
    assert.throws(
      () => xchachaOpen(key, sealed, bytes('other', 8)),
      (error: unknown) => error instanceof CryptoError && error.code === 'DECRYPTION_FAILED',
    );
  });
});

describe('sealed boxes with libsodium crypto_box_seal', () => {
  test('crypto_box_seal_open opens ours', () => {
    const recipient = sodium.crypto_box_keypair();
    for (const length of LENGTHS) {
      const plaintext = bytes(`box ${length}`, length);
      const sealed = sealBox(recipient.publicKey, plaintext);
      assert.ok(
        same(sodium.crypto_box_seal_open(sealed, recipient.publicKey, recipient.privateKey), plaintext),
        `length ${length}`,
      );
    }
  });

  test("we open crypto_box_seal's", () => {
    const recipient = sodium.crypto_box_keypair();
    for (const length of LENGTHS) {
      const plaintext = bytes(`libsodium box ${length}`, length);
      const sealed = sodium.crypto_box_seal(plaintext, recipient.publicKey);
      assert.ok(same(openBox(recipient.privateKey, sealed), plaintext), `length ${length}`);
    }
  });

  test('a box sealed to someone else fails on both sides', () => {
    const alice = sodium.crypto_box_keypair();
    const bob = sodium.crypto_box_keypair();
    const ours = sealBox(alice.publicKey, bytes('for alice', 20));
    assert.throws(() => sodium.crypto_box_seal_open(ours, bob.publicKey, bob.privateKey));
    const theirs = sodium.crypto_box_seal(bytes('for alice', 20), alice.publicKey);
    assert.throws(
      () => openBox(bob.privateKey, theirs),
      (error: unknown) => error instanceof CryptoError && error.code === 'DECRYPTION_FAILED',
    );
  });

  test('libsodium and we refuse the same low-order recipient keys', () => {
    const lowOrder = [
      '0000000000000000000000000000000000000000000000000000000000000000',
      '0100000000000000000000000000000000000000000000000000000000000000',
      'e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800',
      '5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157',
      'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
      'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
      'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
    ];
    for (const hex of lowOrder) {
      const point = Uint8Array.from(Buffer.from(hex, 'hex'));
      assert.throws(() => sodium.crypto_box_seal(bytes('x', 5), point), `libsodium seals to ${hex}`);
      assert.throws(
        () => sealBox(point, bytes('x', 5)),
        (error: unknown) => error instanceof CryptoError && error.code === 'INVALID_INPUT',
        `we seal to ${hex}`,
      );
    }
  });
});
