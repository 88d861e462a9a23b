/** core's errors: a stable code and field, and no stack trace (they describe input, not a fault). */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CryptoError, decryptionFailed, invalidInput, openOrFail, StacklessError, unsupportedAlgorithm } from '../src/errors.ts';
import { xchachaOpen, xchachaSeal } from '../src/aead.ts';

describe('CryptoError', () => {
  test('carries its code, message and field, and no stack frames', () => {
    for (const [error, code] of [
      [invalidInput('key must be 32 bytes', '/key'), 'INVALID_INPUT'],
      [unsupportedAlgorithm('unsupported algorithm'), 'UNSUPPORTED_ALGORITHM'],
      [decryptionFailed(), 'DECRYPTION_FAILED'],
    ] as const) {
      assert.ok(error instanceof CryptoError && error instanceof StacklessError && error instanceof Error);
      assert.equal(error.name, 'CryptoError');
      assert.equal(error.code, code);
      assert.equal(error.stack, `CryptoError: ${error.message}`);
    }
    assert.equal(invalidInput('bad', '/key').field, '/key');
  });

  test('StacklessError leaves Error.stackTraceLimit as it was, even when it was changed', () => {
    const before = Error.stackTraceLimit;
    try {
      Error.stackTraceLimit = 3;
      assert.equal(new StacklessError('no frames').stack, 'Error: no frames');
      assert.equal(Error.stackTraceLimit, 3);
      assert.match(String(new Error('other').stack), /\n\s+at /, 'other errors keep their stacks');
    } finally {
      Error.stackTraceLimit = before;
    }
  });
});

describe('openOrFail', () => {
  test('returns what the open returns, and turns any failure into the one DECRYPTION_FAILED', () => {
    const plaintext = new Uint8Array([1, 2, 3]);
    assert.equal(openOrFail(() => plaintext), plaintext);
    for (const failure of [() => { throw new Error('invalid tag'); }, () => { throw new TypeError('anything'); }]) {
      assert.throws(() => openOrFail(failure), (error: unknown) => error instanceof CryptoError && error.code === 'DECRYPTION_FAILED' && error.message === 'decryption failed');
    }
  });

  test('captures no stack for the error it discards, and restores Error.stackTraceLimit', () => {
    const before = Error.stackTraceLimit;
    let discarded: Error | undefined;
    assert.throws(() => openOrFail(() => {
      discarded = new Error('invalid tag');
      throw discarded;
    }), CryptoError);
    assert.equal(discarded?.stack, 'Error: invalid tag');
    assert.equal(Error.stackTraceLimit, before);
  });

  test('a forged XChaCha20-Poly1305 ciphertext fails the same way with either backend', () => {
    const key = new Uint8Array(32).fill(7);
    for (const size of [16, 4096]) {
      const sealed = xchachaSeal(key, new Uint8Array(size).fill(1));
      sealed[sealed.length - 1]! ^= 1;
      for (const backend of ['noble', 'native'] as const) {
        assert.throws(() => xchachaOpen(key, sealed, undefined, { backend }), (error: unknown) => error instanceof CryptoError && error.code === 'DECRYPTION_FAILED', `${backend}, ${size} B`);
      }
    }
  });
});
