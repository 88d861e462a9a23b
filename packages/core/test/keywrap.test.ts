/**
 * AES-KW and AES-KWP (packages/core/src/keywrap.ts): the RFC 3394 §4 and RFC 5649 §6 vectors,
 * agreement with an independent implementation (@noble/ciphers), the length rules, and the one
 * DECRYPTION_FAILED for every unwrap failure.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { aeskw, aeskwp } from '@noble/ciphers/aes.js';
import { KEY_WRAP_ALGORITHM_IDS, unwrapKey, wrapKey } from '../src/keywrap.ts';
import { CryptoError, DECRYPTION_FAILED_MESSAGE } from '../src/errors.ts';

const fromHex = (hex: string) => Uint8Array.from(Buffer.from(hex, 'hex'));
const toHex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

function bytes(label: string, length: number): Uint8Array {
  return Uint8Array.from(createHash('shake256', { outputLength: length }).update(label).digest());
}

function flipBit(data: Uint8Array, bit: number): Uint8Array {
  const copy = Uint8Array.from(data);
  copy[bit >> 3]! ^= 1 << (bit & 7);
  return copy;
}

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

function assertRefused(work: () => unknown, code: string, field: string, label: string): void {
  assert.throws(
    work,
    (error: unknown) => {
      assert.ok(error instanceof CryptoError, `${label}: not a CryptoError: ${String(error)}`);
      assert.equal(error.code, code, label);
      assert.equal(error.field, field, label);
      return true;
    },
    label,
  );
}

test('the identifiers, default first', () => {
  assert.deepEqual(KEY_WRAP_ALGORITHM_IDS, ['aes-kw', 'aes-kwp']);
});

describe('RFC 3394 §4 test vectors (AES-KW)', () => {
  const KEK128 = '000102030405060708090a0b0c0d0e0f';
  const KEK192 = '000102030405060708090a0b0c0d0e0f1011121314151617';
  const KEK256 = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f';
  const DATA128 = '00112233445566778899aabbccddeeff';
  const DATA192 = '00112233445566778899aabbccddeeff0001020304050607';
  const DATA256 = '00112233445566778899aabbccddeeff000102030405060708090a0b0c0d0e0f';
  const vectors = [
    ['4.1 128 bits of key data, 128-bit KEK', KEK128, DATA128, '1fa68b0a8112b447aef34bd8fb5a7b829d3e862371d2cfe5'],
    ['4.2 128 bits of key data, 192-bit KEK', KEK192, DATA128, '96778b25ae6ca435f92b5b97c050aed2468ab8a17ad84e5d'],
    ['4.3 128 bits of key data, 256-bit KEK', KEK256, DATA128, '64e8c3f9ce0f5ba263e9777905818a2a93c8191e7d6e8ae7'],
    [
      '4.4 192 bits of key data, 192-bit KEK',
      KEK192,
      DATA192,
      '031d33264e15d33268f24ec260743edce1c6c7ddee725a936ba814915c6762d2',
    ],
    [
      '4.5 192 bits of key data, 256-bit KEK',
      KEK256,
      DATA192,
      'a8f9bc1612c68b3ff6e6f4fbe30e71e4769c8b80a32cb8958cd5d17d6b254da1',
    ],
    [
      '4.6 256 bits of key data, 256-bit KEK',
      KEK256,
      DATA256,
      '28c9f404c4b810f4cbccb35cfb87f8263f5786e2d80ed326cbc7f0e71a99f43bfb988b9b7a02dd21',
    ],
  ] as const;
  for (const [name, kek, data, wrapped] of vectors) {
    test(name, () => {
      assert.equal(toHex(wrapKey('aes-kw', fromHex(kek), fromHex(data))), wrapped);
      assert.equal(toHex(unwrapKey('aes-kw', fromHex(kek), fromHex(wrapped))), data);
    });
  }
});

describe('RFC 5649 §6 test vectors (AES-KWP)', () => {
  const KEK = '5840df6e29b02af1ab493b705bf16ea1ae8338f4dcc176a8';
  const vectors = [
    [
      '20 octets of key data, 192-bit KEK',
      'c37b7e6492584340bed12207808941155068f738',
      '138bdeaa9b8fa7fc61f97742e72248ee5ae6ae5360d1ae6a5f54f373fa543b6a',
    ],
    ['7 octets of key data, 192-bit KEK', '466f7250617369', 'afbeb0f07dfbf5419200f2ccb50bb24f'],
  ] as const;
  for (const [name, data, wrapped] of vectors) {
    test(name, () => {
      assert.equal(toHex(wrapKey('aes-kwp', fromHex(KEK), fromHex(data))), wrapped);
      assert.equal(toHex(unwrapKey('aes-kwp', fromHex(KEK), fromHex(wrapped))), data);
    });
  }
});

describe('agreement with @noble/ciphers (an independent implementation) for every KEK size', () => {
  for (const kekLength of [16, 24, 32]) {
    test(`AES-KW, ${kekLength}-byte KEK, keys of 16…512 bytes in 8-byte steps`, () => {
      const kek = bytes(`kw kek ${kekLength}`, kekLength);
      for (let length = 16; length <= 512; length += 8) {
        const key = bytes(`kw key ${length}`, length);
        const ours = wrapKey('aes-kw', kek, key);
        assert.equal(toHex(ours), toHex(aeskw(kek).encrypt(key)), `length ${length}`);
        assert.equal(toHex(unwrapKey('aes-kw', kek, ours)), toHex(key), `length ${length}`);
      }
    });

    test(`AES-KWP, ${kekLength}-byte KEK, keys of 1…512 bytes`, () => {
      const kek = bytes(`kwp kek ${kekLength}`, kekLength);
      for (let length = 1; length <= 512; length++) {
        const key = bytes(`kwp key ${length}`, length);
        const ours = wrapKey('aes-kwp', kek, key);
        assert.equal(toHex(ours), toHex(aeskwp(kek).encrypt(key)), `length ${length}`);
        assert.equal(toHex(unwrapKey('aes-kwp', kek, ours)), toHex(key), `length ${length}`);
      }
    });
  }
});

describe('length rules (INVALID_INPUT, naming the field)', () => {
  for (const length of [0, 1, 8, 15, 17, 23, 25, 31, 33, 64]) {
    test(`a ${length}-byte KEK`, () => {
      for (const algorithm of KEY_WRAP_ALGORITHM_IDS) {
        assertRefused(
          () => wrapKey(algorithm, new Uint8Array(length), new Uint8Array(16)),
          'INVALID_INPUT',
          '/kek',
          `${algorithm} wrap`,
        );
        assertRefused(
          () => unwrapKey(algorithm, new Uint8Array(length), new Uint8Array(24)),
          'INVALID_INPUT',
          '/kek',
          `${algorithm} unwrap`,
        );
      }
    });
  }

  test('AES-KW wraps at least 16 bytes (RFC 3394: n ≥ 2 blocks), in whole 8-byte blocks', () => {
    for (const length of [0, 1, 7, 8, 9, 15, 17, 20, 23, 31]) {
      assertRefused(
        () => wrapKey('aes-kw', new Uint8Array(16), new Uint8Array(length)),
        'INVALID_INPUT',
        '/keyToWrap',
        `${length} bytes`,
      );
    }
    for (const length of [16, 24, 32, 40]) {
      assert.equal(wrapKey('aes-kw', new Uint8Array(16), new Uint8Array(length)).byteLength, length + 8);
    }
  });

  test('AES-KWP wraps any key of 1 byte or more; the empty key is refused', () => {
    assertRefused(
      () => wrapKey('aes-kwp', new Uint8Array(16), new Uint8Array(0)),
      'INVALID_INPUT',
      '/keyToWrap',
      'empty',
    );
    for (const [length, wrapped] of [
      [1, 16],
      [8, 16],
      [9, 24],
      [16, 24],
      [17, 32],
    ] as const) {
      assert.equal(
        wrapKey('aes-kwp', new Uint8Array(16), new Uint8Array(length)).byteLength,
        wrapped,
        `${length} bytes`,
      );
    }
  });

  test('an unknown algorithm is UNSUPPORTED_ALGORITHM', () => {
    for (const algorithm of ['aes-gcm', 'AES-KW', 'aes-kw-pad', '']) {
      assertRefused(
        () => wrapKey(algorithm, new Uint8Array(16), new Uint8Array(16)),
        'UNSUPPORTED_ALGORITHM',
        '/algorithm',
        `wrap ${algorithm}`,
      );
      assertRefused(
        () => unwrapKey(algorithm, new Uint8Array(16), new Uint8Array(24)),
        'UNSUPPORTED_ALGORITHM',
        '/algorithm',
        `unwrap ${algorithm}`,
      );
    }
  });
});

describe('every unwrap failure is the one DECRYPTION_FAILED', () => {
  for (const algorithm of KEY_WRAP_ALGORITHM_IDS) {
    const kek = bytes(`failure kek ${algorithm}`, 32);
    const key = bytes(`failure key ${algorithm}`, 32);
    const wrapped = wrapKey(algorithm, kek, key);

    test(`${algorithm}: the unmodified input unwraps (so each case below fails for its one change)`, () => {
      assert.equal(toHex(unwrapKey(algorithm, kek, wrapped)), toHex(key));
    });

    test(`${algorithm}: wrong KEK, of the same and of another size`, () => {
      assertDecryptionFailed(() => unwrapKey(algorithm, flipBit(kek, 0), wrapped), 'one bit off');
      assertDecryptionFailed(() => unwrapKey(algorithm, bytes('other kek', 32), wrapped), 'unrelated');
      assertDecryptionFailed(() => unwrapKey(algorithm, kek.subarray(0, 16), wrapped), 'AES-128 prefix of the KEK');
    });

    test(`${algorithm}: every single-bit change of the wrapped key`, () => {
      for (let bit = 0; bit < wrapped.byteLength * 8; bit++) {
        assertDecryptionFailed(() => unwrapKey(algorithm, kek, flipBit(wrapped, bit)), `bit ${bit}`);
      }
    });

    test(`${algorithm}: every truncation, and extensions`, () => {
      for (let length = 0; length < wrapped.byteLength; length++) {
        assertDecryptionFailed(() => unwrapKey(algorithm, kek, wrapped.subarray(0, length)), `${length} bytes`);
      }
      assertDecryptionFailed(() => unwrapKey(algorithm, kek, Uint8Array.from([...wrapped, 0])), 'one byte more');
      assertDecryptionFailed(
        () => unwrapKey(algorithm, kek, Uint8Array.from([...wrapped, ...new Uint8Array(8)])),
        'one block more',
      );
    });
  }

  test('a key wrapped with one mode does not unwrap with the other', () => {
    const kek = bytes('cross kek', 16);
    const key = bytes('cross key', 24);
    assertDecryptionFailed(() => unwrapKey('aes-kwp', kek, wrapKey('aes-kw', kek, key)), 'KW as KWP');
    assertDecryptionFailed(() => unwrapKey('aes-kw', kek, wrapKey('aes-kwp', kek, key)), 'KWP as KW');
  });

  test('the single-block AES-KW form of an 8-byte key (not RFC 3394; OpenSSL would unwrap it) is refused', () => {
    // Wycheproof aes_wrap_test.json tcId 12 ("wrapping an 8 byte key", result "acceptable").
    assertDecryptionFailed(
      () =>
        unwrapKey('aes-kw', fromHex('574957151fc2afe0fa3dc7a9a7da6495'), fromHex('6f0b501f1f2f59e3ae605aa679ce43a6')),
      'tcId 12',
    );
  });
});
