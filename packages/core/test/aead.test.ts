/**
 * XChaCha20-Poly1305 (packages/core/src/aead.ts): the published vectors of draft-irtf-cfrg-xchacha,
 * byte-for-byte agreement of the two backends, and the one DECRYPTION_FAILED for every failure.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { NATIVE_AEAD_THRESHOLD, XCHACHA_OVERHEAD, xchachaOpen, xchachaSeal, type AeadBackend } from '../src/aead.ts';
import { hchacha20 } from '../src/hchacha-hsalsa.ts';
import { CryptoError, DECRYPTION_FAILED_MESSAGE } from '../src/errors.ts';

const fromHex = (hex: string) => Uint8Array.from(Buffer.from(hex, 'hex'));
const toHex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

/** Reproducible test bytes: SHAKE256 of a label, so a failure can be replayed exactly. */
function bytes(label: string, length: number): Uint8Array {
  return Uint8Array.from(createHash('shake256', { outputLength: length }).update(label).digest());
}

function flipBit(data: Uint8Array, bit: number): Uint8Array {
  const copy = Uint8Array.from(data);
  copy[bit >> 3]! ^= 1 << (bit & 7);
  return copy;
}

/** Asserts the one decryption failure: same code, same fixed text, no field, whatever the cause. */
function assertDecryptionFailed(work: () => unknown, label: string): void {
  assert.throws(
    work,
    (error: unknown) => {
      assert.ok(error instanceof CryptoError, `${label}: not a CryptoError: ${String(error)}`);
      assert.equal(error.code, 'DECRYPTION_FAILED', label);
      assert.equal(error.message, DECRYPTION_FAILED_MESSAGE, label);
      assert.equal(error.field, undefined, label);
      return true;
    },
    label,
  );
}

function assertInvalidInput(work: () => unknown, field: string, label: string): void {
  assert.throws(
    work,
    (error: unknown) => {
      assert.ok(error instanceof CryptoError, `${label}: not a CryptoError: ${String(error)}`);
      assert.equal(error.code, 'INVALID_INPUT', label);
      assert.equal(error.field, field, label);
      return true;
    },
    label,
  );
}

const BACKENDS: readonly AeadBackend[] = ['native', 'noble'];

describe('draft-irtf-cfrg-xchacha-03 published vectors', () => {
  test('HChaCha20, §2.2.1', () => {
    const key = fromHex('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f');
    const nonce = fromHex('000000090000004a0000000031415927');
    assert.equal(toHex(hchacha20(key, nonce)), '82413b4227b27bfed30e42508a877d73a0f9e4d58a74a853c12ec41326d3ecdc');
  });

  // §A.3.1, "Example and Test Vector for AEAD_XCHACHA20_POLY1305".
  const key = fromHex('808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f');
  const nonce = fromHex('404142434445464748494a4b4c4d4e4f5051525354555657');
  const aad = fromHex('50515253c0c1c2c3c4c5c6c7');
  const plaintext = new TextEncoder().encode(
    "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.",
  );
  const ciphertext =
    'bd6d179d3e83d43b9576579493c0e939572a1700252bfaccbed2902c21396cbb731c7f1b0b4aa6440bf3a82f4eda7e39' +
    'ae64c6708c54c216cb96b72e1213b4522f8c9ba40db5d945b11b69b982c1bb9e3f3fac2bc369488f76b2383565d3fff921f9664c97637da976' +
    '8812f615c68b13b52e';
  const tag = 'c0875924c1c7987947deafd8780acf49';

  for (const backend of BACKENDS) {
    test(`AEAD_XCHACHA20_POLY1305, §A.3.1, ${backend} backend: seal gives nonce ‖ ciphertext ‖ tag, open gives the plaintext`, () => {
      const sealed = xchachaSeal(key, plaintext, aad, { nonce, backend });
      assert.equal(toHex(sealed), toHex(nonce) + ciphertext + tag);
      assert.equal(toHex(xchachaOpen(key, sealed, aad, { backend })), toHex(plaintext));
    });
  }
});

describe('the native and noble backends agree byte for byte', () => {
  // Every length 0…4096 (which crosses NATIVE_AEAD_THRESHOLD = 2048, hence 2047/2048/2049), then 64 KiB.
  const lengths = [...Array.from({ length: 4097 }, (_, i) => i), 65536];

  test('the threshold the lengths are chosen around is the one aead.ts uses', () => {
    assert.equal(NATIVE_AEAD_THRESHOLD, 2048);
  });

  for (const withAad of [false, true]) {
    test(`seal and open at every length 0…4096 and 64 KiB, ${withAad ? 'with' : 'without'} AAD`, () => {
      const key = bytes(`key ${withAad}`, 32);
      for (const length of lengths) {
        const nonce = bytes(`nonce ${length} ${withAad}`, 24);
        const plaintext = bytes(`plaintext ${length} ${withAad}`, length);
        const aad = withAad ? bytes(`aad ${length}`, 1 + (length % 97)) : undefined;
        const native = xchachaSeal(key, plaintext, aad, { nonce, backend: 'native' });
        const noble = xchachaSeal(key, plaintext, aad, { nonce, backend: 'noble' });
        const auto = xchachaSeal(key, plaintext, aad, { nonce });
        assert.equal(native.byteLength, plaintext.byteLength + XCHACHA_OVERHEAD, `length ${length}`);
        assert.ok(Buffer.from(native).equals(noble), `native and noble differ at length ${length}`);
        assert.ok(Buffer.from(native).equals(auto), `auto differs at length ${length}`);
        // Each backend opens the other's output.
        assert.ok(
          Buffer.from(xchachaOpen(key, native, aad, { backend: 'noble' })).equals(plaintext),
          `noble opens native, ${length}`,
        );
        assert.ok(
          Buffer.from(xchachaOpen(key, noble, aad, { backend: 'native' })).equals(plaintext),
          `native opens noble, ${length}`,
        );
      }
    });
  }
});

describe('every failure is the one DECRYPTION_FAILED', () => {
  const key = bytes('failure key', 32);
  const aad = bytes('failure aad', 16);

  for (const backend of BACKENDS) {
    for (const length of [0, 1, 100, 3000]) {
      test(`${backend} backend, ${length}-byte message`, () => {
        const plaintext = bytes(`failure plaintext ${length}`, length);
        const sealed = xchachaSeal(key, plaintext, aad, { backend });
        const open = (k: Uint8Array, s: Uint8Array, a: Uint8Array | undefined) => () =>
          xchachaOpen(k, s, a, { backend });
        // The unmodified input opens, so each failure below is caused by its one change.
        assert.ok(Buffer.from(xchachaOpen(key, sealed, aad, { backend })).equals(plaintext));

        assertDecryptionFailed(open(bytes('another key', 32), sealed, aad), 'unrelated key');
        assertDecryptionFailed(open(flipBit(key, 0), sealed, aad), 'key one bit off');
        assertDecryptionFailed(open(key, flipBit(sealed, 0), aad), 'nonce, first bit');
        assertDecryptionFailed(open(key, flipBit(sealed, 24 * 8 - 1), aad), 'nonce, last bit');
        if (length > 0) {
          assertDecryptionFailed(open(key, flipBit(sealed, 24 * 8), aad), 'ciphertext, first bit');
          assertDecryptionFailed(open(key, flipBit(sealed, (24 + length) * 8 - 1), aad), 'ciphertext, last bit');
        }
        assertDecryptionFailed(open(key, flipBit(sealed, (24 + length) * 8), aad), 'tag, first bit');
        assertDecryptionFailed(open(key, flipBit(sealed, sealed.byteLength * 8 - 1), aad), 'tag, last bit');
        assertDecryptionFailed(open(key, sealed, undefined), 'AAD missing');
        assertDecryptionFailed(open(key, sealed, flipBit(aad, 5)), 'AAD one bit off');
        assertDecryptionFailed(open(key, sealed, aad.subarray(1)), 'AAD one byte short');
        assertDecryptionFailed(open(key, sealed, Uint8Array.from([...aad, 0])), 'AAD one byte long');
        assertDecryptionFailed(open(key, sealed.subarray(0, sealed.byteLength - 1), aad), 'truncated by one byte');
        assertDecryptionFailed(open(key, Uint8Array.from([...sealed, 0]), aad), 'one byte appended');
        // The nonce with the tag of a different message.
        const other = xchachaSeal(key, bytes('other', length), aad, { backend });
        assertDecryptionFailed(
          open(
            key,
            Uint8Array.from([...sealed.subarray(0, sealed.byteLength - 16), ...other.subarray(other.byteLength - 16)]),
            aad,
          ),
          'tag swapped',
        );
      });
    }

    test(`${backend} backend: AAD added to a message sealed without it, and inputs shorter than nonce + tag`, () => {
      const sealed = xchachaSeal(key, bytes('no aad', 10), undefined, { backend });
      assertDecryptionFailed(() => xchachaOpen(key, sealed, aad, { backend }), 'AAD added');
      for (let length = 0; length < XCHACHA_OVERHEAD; length++) {
        assertDecryptionFailed(
          () => xchachaOpen(key, sealed.subarray(0, length), undefined, { backend }),
          `${length} bytes`,
        );
      }
    });
  }

  test('the error is the same object shape for every cause', () => {
    const sealed = xchachaSeal(key, bytes('shape', 5), aad);
    const causes = [
      () => xchachaOpen(bytes('k2', 32), sealed, aad),
      () => xchachaOpen(key, flipBit(sealed, 200), aad),
      () => xchachaOpen(key, sealed, undefined),
      () => xchachaOpen(key, sealed.subarray(0, 10), aad),
    ];
    const seen = causes.map((cause) => {
      try {
        cause();
      } catch (error) {
        const { code, message, field, name } = error as CryptoError;
        return JSON.stringify({ code, message, field, name });
      }
      return 'no error';
    });
    assert.equal(new Set(seen).size, 1, seen.join('\n'));
    assert.notEqual(seen[0], 'no error');
  });
});

describe('malformed keys and nonces are INVALID_INPUT, not decryption failures', () => {
  for (const length of [0, 16, 31, 33, 64]) {
    test(`a ${length}-byte key`, () => {
      assertInvalidInput(() => xchachaSeal(new Uint8Array(length), new Uint8Array(1)), '/key', 'seal');
      assertInvalidInput(() => xchachaOpen(new Uint8Array(length), new Uint8Array(XCHACHA_OVERHEAD)), '/key', 'open');
    });
  }
  for (const length of [0, 8, 12, 23, 25, 32]) {
    test(`a ${length}-byte nonce`, () => {
      assertInvalidInput(
        () => xchachaSeal(new Uint8Array(32), new Uint8Array(1), undefined, { nonce: new Uint8Array(length) }),
        '/nonce',
        'seal',
      );
    });
  }
});

test('the nonce is random: sealing the same message twice gives different nonces and ciphertexts', () => {
  const key = bytes('random nonce', 32);
  const plaintext = bytes('same message', 64);
  const first = xchachaSeal(key, plaintext);
  const second = xchachaSeal(key, plaintext);
  assert.notEqual(toHex(first.subarray(0, 24)), toHex(second.subarray(0, 24)));
  assert.notEqual(toHex(first.subarray(24)), toHex(second.subarray(24)));
});
