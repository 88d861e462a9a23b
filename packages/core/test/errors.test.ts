/** core's errors: a stable code and field, and no stack trace (they describe input, not a fault). */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CryptoError,
  decryptionFailed,
  invalidInput,
  openOrFail,
  StacklessError,
  tryOr,
  tryOrThrow,
  unsupportedAlgorithm,
} from '../src/errors.ts';
import { xchachaOpen, xchachaSeal } from '../src/aead.ts';
import { chacha20Poly1305Open, chacha20Poly1305Seal } from '../src/hpke.ts';
import { unwrapKey, wrapKey } from '../src/keywrap.ts';
import { openBox, sealBox } from '../src/sealedbox.ts';
import { bytesToUtf8 } from '../src/codec.ts';
import { signMessage, verifySignature } from '../src/signature.ts';
import { ML_KEM_PARAMETERS, mlKemDecapsulate, mlKemEncapsulate } from '../src/ml-kem.ts';
import { ML_DSA_PARAMETERS, mlDsaSign } from '../src/ml-dsa.ts';
import { X25519_KEY_LENGTH } from '../src/x25519.ts';
import { xwingEncapsulate, xwingKeygen } from '../src/xwing.ts';
import { PQ_NATIVE_SUPPORT } from '../src/pq-common.ts';

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

describe('tryOr and tryOrThrow', () => {
  test('return what the work returns; on any failure, what `otherwise` returns or the error `failure` makes', () => {
    assert.equal(
      tryOr(
        () => 1,
        () => 2,
      ),
      1,
    );
    assert.equal(
      tryOr(
        () => {
          throw new TypeError('any');
        },
        () => 2,
      ),
      2,
    );
    assert.equal(
      tryOrThrow(
        () => 'ok',
        () => invalidInput('never'),
      ),
      'ok',
    );
    assert.throws(
      () =>
        tryOrThrow(
          () => {
            throw new RangeError('any');
          },
          () => invalidInput('publicKey is not a point', '/publicKey'),
        ),
      (error: unknown) => error instanceof CryptoError && error.field === '/publicKey',
    );
  });

  test('capture no stack for the error they discard, and restore Error.stackTraceLimit', () => {
    const before = Error.stackTraceLimit;
    let discarded: Error | undefined;
    assert.equal(
      tryOr(
        () => {
          discarded = new Error('bad point');
          throw discarded;
        },
        () => false,
      ),
      false,
    );
    assert.equal(discarded?.stack, 'Error: bad point');
    assert.equal(Error.stackTraceLimit, before);
    assert.match(String(new Error('later').stack), /\n\s+at /, 'errors after the call keep their stacks');
  });

  test('tryOrThrow passes on the caught error itself, when failure() says so, with the frames of the call; inside tryOr, with none', () => {
    const before = Error.stackTraceLimit;
    const library = () => {
      throw new Error("not the input's fault");
    };
    let passedOn: unknown;
    try {
      (function decideOnFailure() {
        tryOrThrow(library, (error) => error);
      })();
    } catch (error) {
      passedOn = error;
    }
    assert.ok(passedOn instanceof Error);
    assert.equal(passedOn.message, "not the input's fault");
    assert.match(String(passedOn.stack), /^[^\n]*\n\s+at decideOnFailure /);
    assert.equal(Error.stackTraceLimit, before);
    // Nested in another tryOr, whose caller discards or passes it on in turn: still no frames.
    const inner = tryOr(
      () => tryOrThrow(library, (error) => error),
      (error) => error,
    );
    assert.ok(inner instanceof Error);
    assert.equal(inner.stack, "Error: not the input's fault");
    // An answer of ours thrown by the work (a JSON reviver's 400) and passed on: still no frames.
    assert.throws(
      () =>
        tryOrThrow(
          () => {
            throw invalidInput('forbidden key', '/body');
          },
          (error) => error,
        ),
      (error: unknown) => error instanceof CryptoError && error.stack === 'CryptoError: forbidden key',
    );
    assert.equal(Error.stackTraceLimit, before);
  });
});

describe('openOrFail', () => {
  test('returns what the open returns, and turns any failure into the one DECRYPTION_FAILED', () => {
    const plaintext = new Uint8Array([1, 2, 3]);
    assert.equal(
      openOrFail(() => plaintext),
      plaintext,
    );
    for (const failure of [
      () => {
        throw new Error('invalid tag');
      },
      () => {
        throw new TypeError('anything');
      },
    ]) {
      assert.throws(
        () => openOrFail(failure),
        (error: unknown) =>
          error instanceof CryptoError && error.code === 'DECRYPTION_FAILED' && error.message === 'decryption failed',
      );
    }
  });

  test('captures no stack for the error it discards, and restores Error.stackTraceLimit', () => {
    const before = Error.stackTraceLimit;
    let discarded: Error | undefined;
    assert.throws(
      () =>
        openOrFail(() => {
          discarded = new Error('invalid tag');
          throw discarded;
        }),
      CryptoError,
    );
    assert.equal(discarded?.stack, 'Error: invalid tag');
    assert.equal(Error.stackTraceLimit, before);
  });

  test('a forged XChaCha20-Poly1305 ciphertext fails the same way with either backend', () => {
    const key = new Uint8Array(32).fill(7);
    for (const size of [16, 4096]) {
      const sealed = xchachaSeal(key, new Uint8Array(size).fill(1));
      sealed[sealed.length - 1]! ^= 1;
      for (const backend of ['noble', 'native'] as const) {
        assert.throws(
          () => xchachaOpen(key, sealed, undefined, { backend }),
          (error: unknown) => error instanceof CryptoError && error.code === 'DECRYPTION_FAILED',
          `${backend}, ${size} B`,
        );
      }
    }
  });
});

/**
 * Runs `failingCall` with Error.stackTraceLimit replaced by an accessor that records each write
 * with the value it replaced, and says whether the CryptoError it fails with was built while stack
 * traces were already off: true only when the call failed inside tryOr's window (openOrFail's,
 * tryOrThrow's), where the library's own error was built too. (V8 reads the limit only as a data
 * property: with the accessor in place it captures no stack at all, which this test does not rely
 * on.) Async calls are awaited with the accessor in place.
 */
async function failedInsideTryOr(
  failingCall: () => unknown,
  code: CryptoError['code'] = 'DECRYPTION_FAILED',
): Promise<boolean> {
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
    await assert.rejects(
      async () => failingCall(),
      (error: unknown) => error instanceof CryptoError && error.code === code,
    );
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

  test('the probe tells a wrapped open from a bare decryptionFailed()', async () => {
    assert.equal(
      await failedInsideTryOr(() =>
        openOrFail(() => {
          throw new Error('invalid tag');
        }),
      ),
      true,
    );
    assert.equal(
      await failedInsideTryOr(() => {
        throw decryptionFailed();
      }),
      false,
    );
  });

  test('XChaCha20-Poly1305 and HPKE ChaCha20-Poly1305, both backends; the sealed box; AES key unwrap', async () => {
    for (const backend of ['noble', 'native'] as const) {
      assert.ok(
        await failedInsideTryOr(() =>
          xchachaOpen(key, forged(xchachaSeal(key, new Uint8Array(64))), undefined, { backend }),
        ),
        `xchacha, ${backend}`,
      );
      const nonce = new Uint8Array(12);
      const aad = new Uint8Array(0);
      const sealed = forged(chacha20Poly1305Seal(key, nonce, aad, new Uint8Array(64), backend));
      assert.ok(
        await failedInsideTryOr(() => chacha20Poly1305Open(key, nonce, aad, sealed, backend)),
        `hpke, ${backend}`,
      );
    }
    // RFC 7748 §6.1: Bob's X25519 key pair.
    const secretKey = Uint8Array.from(
      Buffer.from('5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb', 'hex'),
    );
    const publicKey = Uint8Array.from(
      Buffer.from('de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f', 'hex'),
    );
    assert.ok(
      await failedInsideTryOr(() => openBox(secretKey, forged(sealBox(publicKey, new Uint8Array(64))))),
      'sealed box',
    );
    const kek = new Uint8Array(16).fill(3);
    assert.ok(
      await failedInsideTryOr(() => unwrapKey('aes-kw', kek, forged(wrapKey('aes-kw', kek, new Uint8Array(16))))),
      'aes-kw',
    );
  });
});

describe('a key or text a library refuses fails inside tryOr', () => {
  const invalid = (call: () => unknown) => failedInsideTryOr(call, 'INVALID_INPUT');
  const message = new Uint8Array(8);

  test('classical keys: a P-256 point off the curve, a zero P-256 scalar, an unreadable PEM key, a low-order X25519 key', async () => {
    const offCurve = new Uint8Array(65).fill(1);
    offCurve[0] = 4;
    assert.ok(
      await invalid(() => verifySignature('ecdsa-p256', offCurve, message, new Uint8Array(64))),
      'ECDSA public key',
    );
    assert.ok(await invalid(() => signMessage('ecdsa-p256', new Uint8Array(32), message)), 'ECDSA private key');
    assert.ok(
      await invalid(() =>
        verifySignature(
          'ed25519',
          '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n',
          message,
          new Uint8Array(64),
        ),
      ),
      'PEM',
    );
    assert.ok(await invalid(() => sealBox(new Uint8Array(32), message)), 'sealed box to a low-order key');
  });

  test('post-quantum keys with both backends: an ML-KEM key out of range, an expanded key that fails its check; X-Wing to a low-order X25519 key', async () => {
    const outOfRange = new Uint8Array(1184).fill(0xff);
    for (const backend of ['noble', ...(PQ_NATIVE_SUPPORT.mlKem ? ['native' as const] : [])] as const) {
      assert.ok(await invalid(() => mlKemEncapsulate(outOfRange, { backend })), `ML-KEM encapsulation key, ${backend}`);
      const seed = new Uint8Array(64).fill(5);
      const { publicKey, secretKey } = ML_KEM_PARAMETERS['ml-kem-768'].noble.keygen(seed);
      const { cipherText: ciphertext } = ML_KEM_PARAMETERS['ml-kem-768'].noble.encapsulate(publicKey);
      const expandedSecretKey = secretKey.slice();
      expandedSecretKey[expandedSecretKey.length - 40]! ^= 1; // inside H(ek): FIPS 203 §7.3's hash check fails
      assert.ok(
        await invalid(() => mlKemDecapsulate(expandedSecretKey, ciphertext, undefined, { backend })),
        `ML-KEM decapsulation key, ${backend}`,
      );
    }
    if (PQ_NATIVE_SUPPORT.mlDsa) {
      const expanded = ML_DSA_PARAMETERS['ml-dsa-44'].noble.keygen(new Uint8Array(32).fill(6)).secretKey.slice();
      expanded[70]! ^= 1; // inside tr = H(pk): OpenSSL's consistency check fails
      assert.ok(
        await invalid(() => mlDsaSign(expanded, message, { backend: 'native' })),
        'ML-DSA expanded key, native',
      );
    }
    const { publicKey } = await xwingKeygen();
    const lowOrder = publicKey.slice();
    lowOrder.fill(0, lowOrder.length - X25519_KEY_LENGTH);
    assert.ok(await invalid(() => xwingEncapsulate(lowOrder)), 'X-Wing');
  });

  test('text that is not UTF-8', async () => {
    assert.ok(await invalid(() => bytesToUtf8(Uint8Array.of(0xc3, 0x28))));
  });
});
