/**
 * Wycheproof aes_kwp_test.json (AES-KWP, RFC 5649) through packages/core/src/keywrap.ts. Every
 * group and result kind is handled explicitly and counted:
 *
 * - valid: wrap gives ct; unwrap gives msg;
 * - invalid (ModifiedPadding: a wrong alternative IV, length indicator or padding): unwrap is
 *   DECRYPTION_FAILED; wrapping msg is INVALID_INPUT when msg is empty (RFC 5649 wraps 1 byte
 *   upward), and otherwise never gives the invalid ct;
 * - acceptable: the pinned file has none; one would need a decision, so it fails.
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

const FILE = 'wycheproof/aes_kwp_test.json';
const ALGORITHM = 'aes-kwp';

const data = readVectorFile<KeywrapFile>(FILE);

const counts = { valid: 0, invalid: 0, acceptable: 0, invalidWrapRefused: 0, invalidWrapDiffers: 0 };

describe(`Wycheproof ${FILE}`, () => {
  test('is the AES-KWP file', () => {
    assert.equal(data.algorithm, 'AES-KWP');
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
          case 'invalid':
            assert.ok(
              failsWith(() => unwrapKey(ALGORITHM, kek, ct), 'DECRYPTION_FAILED'),
              `${label}: unwrap`,
            );
            if (msg.byteLength >= 1) {
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
          case 'acceptable':
            assert.fail(`${label}: an "acceptable" AES-KWP case; decide how it is handled before accepting the file`);
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
      valid: 77,
      invalid: 177,
      acceptable: 0,
      invalidWrapRefused: 3,
      invalidWrapDiffers: 174,
    });
  });
});
