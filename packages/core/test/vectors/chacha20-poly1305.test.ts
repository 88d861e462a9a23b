/**
 * Wycheproof chacha20_poly1305_test.json through node:crypto's `chacha20-poly1305`, called exactly
 * the way the native backend of packages/core/src/aead.ts calls it (createCipheriv with a 16-byte
 * tag, setAAD with plaintextLength, update, final, getAuthTag / setAuthTag). XChaCha20-Poly1305's
 * native path is this primitive under the HChaCha20 subkey, so this pins the part that OpenSSL
 * does. Every group and result kind is handled explicitly and counted:
 *
 * - valid: seal gives ct and tag; open gives msg;
 * - invalid, 96-bit nonce (ModifiedTag): open fails;
 * - invalid, other nonce sizes (InvalidNonceSize): node:crypto refuses the IV (ERR_CRYPTO_INVALID_IV)
 *   for both directions. aead.ts always passes a 12-byte IV (4 zero bytes ‖ nonce[16..24]).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createCipheriv, createDecipheriv } from 'node:crypto';
import { POLY1305_TAG_LENGTH } from '../../src/aead.ts';
import { fromHex, toHex, readVectorFile } from './vector-files.ts';

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

const FILE = 'wycheproof/chacha20_poly1305_test.json';

/** aead.ts's native seal, minus the HChaCha20 subkey and the nonce prefix. */
function nativeSeal(
  key: Uint8Array,
  iv: Uint8Array,
  aad: Uint8Array,
  plaintext: Uint8Array,
): { ct: Uint8Array; tag: Uint8Array } {
  const cipher = createCipheriv('chacha20-poly1305', key, iv, { authTagLength: POLY1305_TAG_LENGTH });
  cipher.setAAD(aad, { plaintextLength: plaintext.byteLength });
  const ct = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { ct, tag: cipher.getAuthTag() };
}

/** aead.ts's native open: the tag is set before the data, and final() checks it. */
function nativeOpen(key: Uint8Array, iv: Uint8Array, aad: Uint8Array, ct: Uint8Array, tag: Uint8Array): Uint8Array {
  const decipher = createDecipheriv('chacha20-poly1305', key, iv, { authTagLength: POLY1305_TAG_LENGTH });
  decipher.setAAD(aad, { plaintextLength: ct.byteLength });
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(ct), decipher.final()]);
}

function throwsCode(work: () => unknown, code?: string): boolean {
  try {
    work();
    return false;
  } catch (error) {
    return code === undefined || (error as { code?: unknown }).code === code;
  }
}

const data = readVectorFile<AeadFile>(FILE);

const counts = { valid: 0, invalid: 0, acceptable: 0, modifiedTag: 0, invalidNonceSize: 0 };

describe(`Wycheproof ${FILE}`, () => {
  test('is the ChaCha20-Poly1305 file', () => {
    assert.equal(data.algorithm, 'CHACHA20-POLY1305');
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
        const ct = fromHex(vector.ct);
        const tag = fromHex(vector.tag);
        switch (vector.result) {
          case 'valid': {
            assert.equal(group.ivSize, 96, label);
            const sealed = nativeSeal(key, iv, aad, msg);
            assert.equal(toHex(sealed.ct), vector.ct, `${label}: ciphertext`);
            assert.equal(toHex(sealed.tag), vector.tag, `${label}: tag`);
            assert.equal(toHex(nativeOpen(key, iv, aad, ct, tag)), vector.msg, `${label}: open`);
            counts.valid++;
            break;
          }
          case 'invalid': {
            if (group.ivSize === 96) {
              assert.ok(
                vector.flags.includes('ModifiedTag'),
                `${label}: an invalid case with a 96-bit nonce that is not a modified tag`,
              );
              assert.ok(
                throwsCode(() => nativeOpen(key, iv, aad, ct, tag)),
                `${label}: open`,
              );
              counts.modifiedTag++;
            } else {
              assert.ok(vector.flags.includes('InvalidNonceSize'), label);
              assert.ok(
                throwsCode(() => nativeSeal(key, iv, aad, msg), 'ERR_CRYPTO_INVALID_IV'),
                `${label}: seal`,
              );
              assert.ok(
                throwsCode(() => nativeOpen(key, iv, aad, ct, tag), 'ERR_CRYPTO_INVALID_IV'),
                `${label}: open`,
              );
              counts.invalidNonceSize++;
            }
            counts.invalid++;
            break;
          }
          case 'acceptable':
            assert.fail(
              `${label}: an "acceptable" ChaCha20-Poly1305 case; decide how it is handled before accepting the file`,
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
    assert.deepEqual(counts, { valid: 256, invalid: 69, acceptable: 0, modifiedTag: 60, invalidNonceSize: 9 });
  });
});
