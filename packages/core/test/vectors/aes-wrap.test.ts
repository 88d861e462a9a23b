/**
 * Wycheproof aes_wrap_test.json (AES-KW, RFC 3394) through packages/core/src/keywrap.ts. Every
 * group and result kind is handled explicitly and counted:
 *
 * - valid: wrap gives ct; unwrap gives msg;
 * - acceptable (ShortKey: an 8-byte key wrapped as a single AES block, which RFC 3394 does not
 *   define): refused, as keywrap.ts documents: wrap is INVALID_INPUT naming /keyToWrap, unwrap is
 *   DECRYPTION_FAILED;
 * - invalid: unwrap is DECRYPTION_FAILED; wrapping msg is INVALID_INPUT when msg is not a length
 *   AES-KW wraps (under 16 bytes, or not whole blocks), and otherwise never gives the invalid ct.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { unwrapKey, wrapKey } from '../../src/keywrap.ts';
import { fromHex, toHex, failsWith, readVectorFile } from './vector-files.ts';

interface KeywrapVector {
  tcId: number;
  comment: string;
  flags: string[];
  key: string;
  msg: string;
  ct: string;
  result: 'valid' | 'invalid' | 'acceptable';
}
interface KeywrapGroup {
  type: string;
  keySize: number;
  tests: KeywrapVector[];
}
interface KeywrapFile {
  algorithm: string;
  numberOfTests: number;
  testGroups: KeywrapGroup[];
}

const FILE = 'wycheproof/aes_wrap_test.json';
const ALGORITHM = 'aes-kw';
/** The key lengths AES-KW wraps here: RFC 3394's n ≥ 2 blocks of 8 bytes. */
const wrappable = (length: number) => length >= 16 && length % 8 === 0;

const data = readVectorFile<KeywrapFile>(FILE);

const counts = { valid: 0, invalid: 0, acceptable: 0, invalidWrapRefused: 0, invalidWrapDiffers: 0 };

describe(`Wycheproof ${FILE}`, () => {
  test('is the AES-KW file', () => {
    assert.equal(data.algorithm, 'AES-WRAP');
  });

  for (const group of data.testGroups) {
    test(`group: ${group.type}, ${group.keySize}-bit KEK (${group.tests.length} tests)`, () => {
      assert.equal(group.type, 'KeywrapTest');
      for (const vector of group.tests) {
        const label = `tcId ${vector.tcId} ${vector.comment} [${vector.flags.join(', ')}]`;
        const kek = fromHex(vector.key);
        const msg = fromHex(vector.msg);
        const ct = fromHex(vector.ct);
        assert.equal(kek.byteLength * 8, group.keySize, label);
        switch (vector.result) {
          case 'valid':
            assert.equal(toHex(wrapKey(ALGORITHM, kek, msg)), vector.ct, `${label}: wrap`);
            assert.equal(toHex(unwrapKey(ALGORITHM, kek, ct)), vector.msg, `${label}: unwrap`);
            counts.valid++;
            break;
          case 'acceptable':
            assert.deepEqual(
              vector.flags,
              ['ShortKey'],
              `${label}: an acceptable case other than the single-block wrap needs a decision`,
            );
            assert.equal(msg.byteLength, 8, label);
            assert.ok(
              failsWith(() => wrapKey(ALGORITHM, kek, msg), 'INVALID_INPUT', '/keyToWrap'),
              `${label}: wrap is refused`,
            );
            assert.ok(
              failsWith(() => unwrapKey(ALGORITHM, kek, ct), 'DECRYPTION_FAILED'),
              `${label}: unwrap is refused`,
            );
            counts.acceptable++;
            break;
          case 'invalid':
            assert.ok(
              failsWith(() => unwrapKey(ALGORITHM, kek, ct), 'DECRYPTION_FAILED'),
              `${label}: unwrap`,
            );
            if (wrappable(msg.byteLength)) {
              assert.notEqual(
                toHex(wrapKey(ALGORITHM, kek, msg)),
                vector.ct,
                `${label}: wrap gives the invalid ciphertext`,
              );
              counts.invalidWrapDiffers++;
            } else {
              assert.ok(
                failsWith(() => wrapKey(ALGORITHM, kek, msg), 'INVALID_INPUT', '/keyToWrap'),
                `${label}: wrap`,
              );
              counts.invalidWrapRefused++;
            }
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
    assert.deepEqual(counts, {
      valid: 36,
      invalid: 126,
      acceptable: 3,
      invalidWrapRefused: 51,
      invalidWrapDiffers: 75,
    });
  });
});
