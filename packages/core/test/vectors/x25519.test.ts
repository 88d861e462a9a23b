/**
 * Wycheproof x25519_test.json through sealedBoxX25519, the X25519 that packages/core/src/sealedbox.ts
 * uses (node:crypto / OpenSSL). Every group and result kind is handled explicitly and counted:
 *
 * - valid: the shared secret is the expected one;
 * - acceptable: Wycheproof leaves the choice to the implementation, and ours is RFC 7748 plus one
 *   refusal. Where the expected shared secret is all zero (a low-order public key: flag
 *   ZeroSharedSecret), the sealed box refuses it, so this X25519 throws INVALID_INPUT; every other
 *   acceptable case (twist points, non-canonical encodings with bit 255 set, which RFC 7748 §5
 *   masks, edge-case multiplications) must agree with the expected shared secret;
 * - invalid: must throw (the pinned file has none).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sealedBoxX25519 } from '../../src/sealedbox.ts';
import { CryptoError } from '../../src/errors.ts';
import { fromHex, toHex, readVectorFile } from './vector-files.ts';

interface XdhVector {
  tcId: number;
  comment: string;
  flags: string[];
  public: string;
  private: string;
  shared: string;
  result: 'valid' | 'invalid' | 'acceptable';
}
interface XdhGroup {
  type: string;
  curve: string;
  tests: XdhVector[];
}
interface XdhFile {
  algorithm: string;
  numberOfTests: number;
  testGroups: XdhGroup[];
}

const FILE = 'wycheproof/x25519_test.json';
const ALL_ZERO = /^(?:00)+$/;

function refusedAsLowOrder(work: () => unknown): boolean {
  try {
    work();
    return false;
  } catch (error) {
    return (
      error instanceof CryptoError &&
      error.code === 'INVALID_INPUT' &&
      error.field === '/publicKey' &&
      /low-order/.test(error.message)
    );
  }
}

const data = readVectorFile<XdhFile>(FILE);

const counts = { valid: 0, invalid: 0, acceptable: 0, acceptableAgreed: 0, acceptableRefused: 0 };

describe(`Wycheproof ${FILE}`, () => {
  test('is the XDH file', () => {
    assert.equal(data.algorithm, 'XDH');
  });

  for (const group of data.testGroups) {
    test(`group: ${group.type} on ${group.curve} (${group.tests.length} tests)`, () => {
      assert.equal(group.type, 'XdhComp');
      assert.equal(group.curve, 'curve25519');
      for (const vector of group.tests) {
        const label = `tcId ${vector.tcId} ${vector.comment} [${vector.flags.join(', ')}]`;
        const secretKey = fromHex(vector.private);
        const publicKey = fromHex(vector.public);
        const zero = ALL_ZERO.test(vector.shared);
        switch (vector.result) {
          case 'valid':
            assert.ok(!zero, `${label}: a valid case with an all-zero shared secret`);
            assert.equal(toHex(sealedBoxX25519(secretKey, publicKey)), vector.shared, label);
            counts.valid++;
            break;
          case 'acceptable':
            if (zero) {
              assert.ok(vector.flags.includes('ZeroSharedSecret'), label);
              assert.ok(
                refusedAsLowOrder(() => sealedBoxX25519(secretKey, publicKey)),
                `${label}: not refused`,
              );
              counts.acceptableRefused++;
            } else {
              assert.equal(toHex(sealedBoxX25519(secretKey, publicKey)), vector.shared, label);
              counts.acceptableAgreed++;
            }
            counts.acceptable++;
            break;
          case 'invalid':
            assert.throws(() => sealedBoxX25519(secretKey, publicKey), CryptoError, label);
            counts.invalid++;
            break;
          default:
            assert.fail(`${label}: unknown result ${JSON.stringify(vector.result)}`);
        }
      }
    });
  }

  test('every test was handled and counted', () => {
    assert.equal(counts.valid + counts.invalid + counts.acceptable, data.numberOfTests);
    assert.deepEqual(counts, { valid: 264, invalid: 0, acceptable: 254, acceptableAgreed: 223, acceptableRefused: 31 });
  });
});
