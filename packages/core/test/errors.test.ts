/** core's errors: a stable code and field, and no stack trace (they describe input, not a fault). */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CryptoError, decryptionFailed, invalidInput, StacklessError, unsupportedAlgorithm } from '../src/errors.ts';

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
