/**
 * Properties of the symmetric family, for every length and for arbitrary binary data:
 * - round trips: XChaCha20-Poly1305, the sealed box and AES-KWP at every length 0…4096 (KWP from 1),
 *   AES-KW at every multiple of 8 from 16 to 4096, and fast-check's arbitrary bytes;
 * - any single changed bit of the nonce, ciphertext, tag, ephemeral key, wrapped key or AAD is
 *   rejected: exhaustively for small messages, at fast-check's chosen positions for larger ones.
 *
 * fast-check runs with a fixed seed so that a failure replays; numRuns keeps the file to a few
 * seconds.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { XCHACHA_NONCE_LENGTH, xchachaOpen, xchachaSeal, type AeadBackend } from '../src/aead.ts';
import { SEALED_BOX_OVERHEAD, openBox, sealBox } from '../src/sealedbox.ts';
import { unwrapKey, wrapKey, type KeyWrapAlgorithm } from '../src/keywrap.ts';
import { CryptoError } from '../src/errors.ts';

const SEED = 0x5eed2026;
const RUNS = 150;

function bytes(label: string, length: number): Uint8Array {
  return Uint8Array.from(createHash('shake256', { outputLength: length }).update(label).digest());
}

function flipBit(data: Uint8Array, bit: number): Uint8Array {
  const copy = Uint8Array.from(data);
  copy[bit >> 3]! ^= 1 << (bit & 7);
  return copy;
}

const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

/** True when `work` throws the one decryption failure; anything else (a result, another error) is false. */
function rejects(work: () => unknown): boolean {
  try {
    work();
    return false;
  } catch (error) {
    return error instanceof CryptoError && error.code === 'DECRYPTION_FAILED';
  }
}

function x25519KeyPair(): { publicKey: Uint8Array; secretKey: Uint8Array } {
  const jwk = generateKeyPairSync('x25519').privateKey.export({ format: 'jwk' });
  return {
    publicKey: Uint8Array.from(Buffer.from(jwk.x!, 'base64url')),
    secretKey: Uint8Array.from(Buffer.from(jwk.d!, 'base64url')),
  };
}

const recipient = x25519KeyPair();

describe('round trips at every length', () => {
  test('XChaCha20-Poly1305, 0…4096 bytes, with AAD', () => {
    const key = bytes('aead every length', 32);
    for (let length = 0; length <= 4096; length++) {
      const plaintext = bytes(`aead ${length}`, length);
      const aad = bytes(`aead aad ${length}`, length % 50);
      assert.ok(same(xchachaOpen(key, xchachaSeal(key, plaintext, aad), aad), plaintext), `length ${length}`);
    }
  });

  test('sealed box, 0…4096 bytes', () => {
    for (let length = 0; length <= 4096; length++) {
      const plaintext = bytes(`box ${length}`, length);
      const sealed = sealBox(recipient.publicKey, plaintext);
      assert.equal(sealed.byteLength, length + SEALED_BOX_OVERHEAD);
      assert.ok(same(openBox(recipient.secretKey, sealed), plaintext), `length ${length}`);
    }
  });

  test('AES-KWP, 1…4096 bytes, each KEK size in turn', () => {
    for (let length = 1; length <= 4096; length++) {
      const kek = bytes(`kwp kek ${length}`, [16, 24, 32][length % 3]!);
      const key = bytes(`kwp ${length}`, length);
      const wrapped = wrapKey('aes-kwp', kek, key);
      assert.equal(wrapped.byteLength, 8 * Math.ceil(length / 8) + 8, `length ${length}`);
      assert.ok(same(unwrapKey('aes-kwp', kek, wrapped), key), `length ${length}`);
    }
  });

  test('AES-KW, 16…4096 bytes in 8-byte steps, each KEK size in turn', () => {
    for (let length = 16; length <= 4096; length += 8) {
      const kek = bytes(`kw kek ${length}`, [16, 24, 32][(length / 8) % 3]!);
      const key = bytes(`kw ${length}`, length);
      const wrapped = wrapKey('aes-kw', kek, key);
      assert.equal(wrapped.byteLength, length + 8, `length ${length}`);
      assert.ok(same(unwrapKey('aes-kw', kek, wrapped), key), `length ${length}`);
    }
  });
});

/**
 * Messages of 0…4096 bytes. size 'max' spreads the lengths over the whole range (fast-check's
 * default keeps arrays to a few bytes), so both AEAD backends (the switch is at 2048) are reached;
 * `coverage` checks that they were.
 */
const message = fc.uint8Array({ maxLength: 4096, size: 'max' });

function coverage(lengths: number[], label: string): void {
  assert.ok(
    lengths.some((length) => length < 2048),
    `${label}: no message below 2048 bytes was generated`,
  );
  assert.ok(
    lengths.some((length) => length >= 2048),
    `${label}: no message of 2048 bytes or more was generated`,
  );
}

describe('round trips of arbitrary binary data (fast-check)', () => {
  const key32 = fc.uint8Array({ minLength: 32, maxLength: 32 });

  test("XChaCha20-Poly1305, either backend opens either backend's output", () => {
    const lengths: number[] = [];
    fc.assert(
      fc.property(
        key32,
        message,
        fc.uint8Array({ maxLength: 64 }),
        fc.constantFrom<AeadBackend>('native', 'noble'),
        (key, plaintext, aad, backend) => {
          lengths.push(plaintext.byteLength);
          const sealed = xchachaSeal(key, plaintext, aad, { backend });
          return same(xchachaOpen(key, sealed, aad, { backend: backend === 'native' ? 'noble' : 'native' }), plaintext);
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
    coverage(lengths, 'AEAD round trip');
  });

  test('sealed box', () => {
    fc.assert(
      fc.property(message, (plaintext) =>
        same(openBox(recipient.secretKey, sealBox(recipient.publicKey, plaintext)), plaintext),
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });

  test('AES-KW and AES-KWP', () => {
    const kek = fc.constantFrom(16, 24, 32).chain((length) => fc.uint8Array({ minLength: length, maxLength: length }));
    fc.assert(
      fc.property(kek, fc.uint8Array({ minLength: 1, maxLength: 1024, size: 'max' }), (kekBytes, key) => {
        const padded = same(unwrapKey('aes-kwp', kekBytes, wrapKey('aes-kwp', kekBytes, key)), key);
        // AES-KW takes whole blocks of at least two: use the longest such prefix, if any.
        const aligned = key.subarray(0, key.byteLength - (key.byteLength % 8));
        const plain =
          aligned.byteLength < 16 || same(unwrapKey('aes-kw', kekBytes, wrapKey('aes-kw', kekBytes, aligned)), aligned);
        return padded && plain;
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
});

describe('every single-bit change is rejected, exhaustively', () => {
  for (const backend of ['native', 'noble'] as const) {
    test(`XChaCha20-Poly1305 (${backend}): every bit of nonce, ciphertext, tag and AAD`, () => {
      const key = bytes('flip key', 32);
      const aad = bytes('flip aad', 12);
      const sealed = xchachaSeal(key, bytes('flip message', 20), aad, { backend });
      for (let bit = 0; bit < sealed.byteLength * 8; bit++) {
        assert.ok(
          rejects(() => xchachaOpen(key, flipBit(sealed, bit), aad, { backend })),
          `sealed bit ${bit}`,
        );
      }
      for (let bit = 0; bit < aad.byteLength * 8; bit++) {
        assert.ok(
          rejects(() => xchachaOpen(key, sealed, flipBit(aad, bit), { backend })),
          `aad bit ${bit}`,
        );
      }
    });
  }

  test('sealed box: every bit of ephemeral key, tag and ciphertext', () => {
    const sealed = sealBox(recipient.publicKey, bytes('flip box', 20));
    for (let bit = 0; bit < sealed.byteLength * 8; bit++) {
      assert.ok(
        rejects(() => openBox(recipient.secretKey, flipBit(sealed, bit))),
        `bit ${bit}`,
      );
    }
  });

  for (const [algorithm, length] of [
    ['aes-kw', 16],
    ['aes-kw', 32],
    ['aes-kwp', 1],
    ['aes-kwp', 7],
    ['aes-kwp', 20],
  ] as const) {
    test(`${algorithm}: every bit of a wrapped ${length}-byte key`, () => {
      const kek = bytes(`flip kek ${algorithm} ${length}`, 24);
      const wrapped = wrapKey(algorithm, kek, bytes(`flip key ${length}`, length));
      for (let bit = 0; bit < wrapped.byteLength * 8; bit++) {
        assert.ok(
          rejects(() => unwrapKey(algorithm, kek, flipBit(wrapped, bit))),
          `bit ${bit}`,
        );
      }
    });
  }
});

describe("any single-bit change is rejected, at fast-check's positions in larger inputs", () => {
  test('XChaCha20-Poly1305: a bit of the sealed output, or of the AAD', () => {
    const lengths: number[] = [];
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        message,
        fc.uint8Array({ minLength: 1, maxLength: 64 }),
        fc.nat(),
        fc.boolean(),
        (key, plaintext, aad, position, inAad) => {
          lengths.push(plaintext.byteLength);
          const sealed = xchachaSeal(key, plaintext, aad);
          if (inAad) return rejects(() => xchachaOpen(key, sealed, flipBit(aad, position % (aad.byteLength * 8))));
          return rejects(() => xchachaOpen(key, flipBit(sealed, position % (sealed.byteLength * 8)), aad));
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
    coverage(lengths, 'AEAD bit flips');
  });

  test('the nonce alone: any bit of the first 24 bytes', () => {
    const key = bytes('nonce flips', 32);
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 256 }),
        fc.integer({ min: 0, max: XCHACHA_NONCE_LENGTH * 8 - 1 }),
        (plaintext, bit) => rejects(() => xchachaOpen(key, flipBit(xchachaSeal(key, plaintext), bit))),
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });

  test('sealed box: a bit anywhere, the ephemeral key included', () => {
    fc.assert(
      fc.property(message, fc.nat(), (plaintext, position) => {
        const sealed = sealBox(recipient.publicKey, plaintext);
        return rejects(() => openBox(recipient.secretKey, flipBit(sealed, position % (sealed.byteLength * 8))));
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  test('AES-KW / AES-KWP: a bit anywhere in the wrapped key', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<KeyWrapAlgorithm>('aes-kw', 'aes-kwp'),
        fc.constantFrom(16, 24, 32),
        fc.integer({ min: 2, max: 512 }),
        fc.nat(),
        (algorithm, kekLength, blocks, position) => {
          const kek = bytes(`kek ${kekLength} ${blocks}`, kekLength);
          // KW: whole blocks; KWP: a length that is usually not a multiple of 8.
          const key = bytes(`key ${blocks}`, algorithm === 'aes-kw' ? blocks * 8 : blocks * 8 - (blocks % 8));
          const wrapped = wrapKey(algorithm, kek, key);
          return rejects(() => unwrapKey(algorithm, kek, flipBit(wrapped, position % (wrapped.byteLength * 8))));
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });
});
