/**
 * Wycheproof xchacha20_poly1305_test.json through our XChaCha20-Poly1305 (packages/core/src/aead.ts),
 * with the test's nonce supplied, on both backends. Every group and every result kind is handled
 * explicitly and counted; the counts are checked against the pinned file at the end.
 *
 * - valid: seal gives nonce ‖ ct ‖ tag byte for byte, and open gives msg back;
 * - invalid, 192-bit nonce (ModifiedTag): open fails with DECRYPTION_FAILED, and our seal of msg
 *   is not the invalid ciphertext;
 * - invalid, any other nonce size (InvalidNonceSize): seal refuses the nonce (INVALID_INPUT,
 *   /nonce); the wire format cannot carry another nonce size, so iv ‖ ct ‖ tag fails to open.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { XCHACHA_NONCE_LENGTH, xchachaOpen, xchachaSeal, type AeadBackend } from '../../src/aead.ts';
import { fromHex, toHex, failsWith, readVectorFile } from './vector-files.ts';

interface AeadVector {
  tcId: number;
  comment: string;
  flags: string[];
  key: string;
  iv: string;
  aad: string;
  msg: string;
  ct: string;
  tag: string;
  result: 'valid' | 'invalid' | 'acceptable';
}
interface AeadGroup {
  type: string;
  ivSize: number;
  keySize: number;
  tagSize: number;
  tests: AeadVector[];
}
interface AeadFile {
  algorithm: string;
  numberOfTests: number;
  testGroups: AeadGroup[];
}

const FILE = 'wycheproof/xchacha20_poly1305_test.json';
const BACKENDS: readonly AeadBackend[] = ['native', 'noble'];

const data = readVectorFile<AeadFile>(FILE);

const counts = { valid: 0, invalid: 0, acceptable: 0, modifiedTag: 0, invalidNonceSize: 0 };

describe(`Wycheproof ${FILE}`, () => {
  test('is the XChaCha20-Poly1305 file', () => {
    assert.equal(data.algorithm, 'XCHACHA20-POLY1305');
  });

  for (const group of data.testGroups) {
    test(`group: ${group.type}, ${group.ivSize}-bit nonce, ${group.keySize}-bit key, ${group.tagSize}-bit tag (${group.tests.length} tests)`, () => {
      assert.equal(group.type, 'AeadTest');
      assert.equal(group.keySize, 256);
      assert.equal(group.tagSize, 128);
      for (const vector of group.tests) {
        const label = `tcId ${vector.tcId} ${vector.comment} [${vector.flags.join(', ')}]`;
        const key = fromHex(vector.key);
        const iv = fromHex(vector.iv);
        const aad = fromHex(vector.aad);
        const msg = fromHex(vector.msg);
        const blob = fromHex(vector.iv + vector.ct + vector.tag);
        switch (vector.result) {
          case 'valid': {
            assert.equal(group.ivSize, XCHACHA_NONCE_LENGTH * 8, label);
            for (const backend of BACKENDS) {
              assert.equal(
                toHex(xchachaSeal(key, msg, aad, { nonce: iv, backend })),
                toHex(blob),
                `${label}, ${backend} seal`,
              );
              assert.equal(toHex(xchachaOpen(key, blob, aad, { backend })), vector.msg, `${label}, ${backend} open`);
            }
            counts.valid++;
            break;
          }
          case 'invalid': {
            if (group.ivSize === XCHACHA_NONCE_LENGTH * 8) {
              assert.ok(
                vector.flags.includes('ModifiedTag'),
                `${label}: an invalid case with a 192-bit nonce that is not a modified tag`,
              );
              for (const backend of BACKENDS) {
                assert.ok(
                  failsWith(() => xchachaOpen(key, blob, aad, { backend }), 'DECRYPTION_FAILED'),
                  `${label}, ${backend} open`,
                );
                assert.notEqual(
                  toHex(xchachaSeal(key, msg, aad, { nonce: iv, backend })),
                  toHex(blob),
                  `${label}, ${backend} seal`,
                );
              }
              counts.modifiedTag++;
            } else {
              assert.ok(vector.flags.includes('InvalidNonceSize'), label);
              assert.equal(iv.byteLength * 8, group.ivSize, label);
              for (const backend of BACKENDS) {
                assert.ok(
                  failsWith(() => xchachaSeal(key, msg, aad, { nonce: iv, backend }), 'INVALID_INPUT', '/nonce'),
                  `${label}, ${backend} seal`,
                );
                assert.ok(
                  failsWith(() => xchachaOpen(key, blob, aad, { backend }), 'DECRYPTION_FAILED'),
                  `${label}, ${backend} open`,
                );
              }
              counts.invalidNonceSize++;
            }
            counts.invalid++;
            break;
          }
          case 'acceptable':
            // This file has none; if a new version adds some, they need a decision, not a pass.
            assert.fail(
              `${label}: an "acceptable" XChaCha20-Poly1305 case; decide how it is handled before accepting the file`,
            );
            break;
          default:
            assert.fail(`${label}: unknown result ${JSON.stringify(vector.result)}`);
        }
      }
    });
  }

  test('every test was handled and counted', () => {
    assert.equal(counts.valid + counts.invalid + counts.acceptable, data.numberOfTests);
    assert.deepEqual(counts, { valid: 246, invalid: 69, acceptable: 0, modifiedTag: 60, invalidNonceSize: 9 });
  });
});
