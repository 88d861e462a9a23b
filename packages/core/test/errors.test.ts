/** core's errors: a stable code and field, and no stack trace (they describe input, not a fault). */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CryptoError, decryptionFailed, invalidInput, openOrFail, StacklessError, unsupportedAlgorithm } from '../src/errors.ts';
import { xchachaOpen, xchachaSeal } from '../src/aead.ts';
import { chacha20Poly1305Open, chacha20Poly1305Seal } from '../src/hpke.ts';
import { unwrapKey, wrapKey } from '../src/keywrap.ts';
import { openBox, sealBox } from '../src/sealedbox.ts';

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

/**
 * Runs `failingOpen` with Error.stackTraceLimit replaced by an accessor that records each write
 * with the value it replaced, and says whether decryptionFailed() was built while stack traces
 * were already off: true only when the open ran inside openOrFail's window, where the library's
 * own error was built too. (V8 reads the limit only as a data property: with the accessor in
 * place it captures no stack at all, which this test does not rely on.)
 */
function failedInsideOpenOrFail(failingOpen: () => unknown): boolean {
  const original = Object.getOwnPropertyDescriptor(Error, 'stackTraceLimit');
  let limit = Error.stackTraceLimit;
  const writes: { from: number; to: number }[] = [];
  Object.defineProperty(Error, 'stackTraceLimit', {
    configurable: true,
    get: () => limit,
    set: (value: number) => {
      writes.push({ from: limit, to: value });
      limit = value;
    },
  });
  try {
    assert.throws(failingOpen, (error: unknown) => error instanceof CryptoError && error.code === 'DECRYPTION_FAILED');
  } finally {
    if (original !== undefined) Object.defineProperty(Error, 'stackTraceLimit', original);
  }
  assert.equal(writes.at(-1)?.to, writes[0]?.from, 'the limit is restored');
  return writes.some(({ from, to }) => from === 0 && to === 0);
}

describe('every open of core fails inside openOrFail', () => {
  const forged = (sealed: Uint8Array) => {
    const copy = sealed.slice();
    copy[copy.length - 1]! ^= 1;
    return copy;
  };
  const key = new Uint8Array(32).fill(9);

  test('the probe tells a wrapped open from a bare decryptionFailed()', () => {
    assert.equal(failedInsideOpenOrFail(() => openOrFail(() => { throw new Error('invalid tag'); })), true);
    assert.equal(failedInsideOpenOrFail(() => { throw decryptionFailed(); }), false);
  });

  test('XChaCha20-Poly1305 and HPKE ChaCha20-Poly1305, both backends; the sealed box; AES key unwrap', () => {
    for (const backend of ['noble', 'native'] as const) {
      assert.ok(failedInsideOpenOrFail(() => xchachaOpen(key, forged(xchachaSeal(key, new Uint8Array(64))), undefined, { backend })), `xchacha, ${backend}`);
      const nonce = new Uint8Array(12);
      const aad = new Uint8Array(0);
      const sealed = forged(chacha20Poly1305Seal(key, nonce, aad, new Uint8Array(64), backend));
      assert.ok(failedInsideOpenOrFail(() => chacha20Poly1305Open(key, nonce, aad, sealed, backend)), `hpke, ${backend}`);
    }
    // RFC 7748 §6.1: Bob's X25519 key pair.
    const secretKey = Uint8Array.from(Buffer.from('5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb', 'hex'));
    const publicKey = Uint8Array.from(Buffer.from('de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f', 'hex'));
    assert.ok(failedInsideOpenOrFail(() => openBox(secretKey, forged(sealBox(publicKey, new Uint8Array(64))))), 'sealed box');
    const kek = new Uint8Array(16).fill(3);
    assert.ok(failedInsideOpenOrFail(() => unwrapKey('aes-kw', kek, forged(wrapKey('aes-kw', kek, new Uint8Array(16))))), 'aes-kw');
  });
});
