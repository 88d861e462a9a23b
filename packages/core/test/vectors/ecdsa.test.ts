/**
 * Wycheproof ecdsa_secp256r1_sha256_test.json and ecdsa_secp384r1_sha384_test.json
 * (C2SP/wycheproof, testvectors_v1; pinned in data/SOURCES.md).
 *
 * The files carry DER signatures. Every vector goes through verifyEcdsaDer, which imports the
 * key exactly as verifySignature does and hands the DER to OpenSSL; its expectation is asserted
 * (valid → true, invalid → false; the files have no "acceptable" ones, which is asserted too).
 *
 * The wire format of this service is r ‖ s (IEEE P1363), so the vectors also run through
 * verifySignature itself: every signature that is strict DER with r and s fitting the field is
 * converted (by the small parser below, independent of the code under test) and must give the
 * same verdict; every valid one must be convertible. Valid vectors are then verified once more
 * with the public key in SEC1 compressed form.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { verifyEcdsaDer } from '../../src/ecdsa.ts';
import { verifySignature } from '../../src/signature.ts';
import { fromHex, readVectorFile } from './vector-files.ts';

interface EcdsaVector {
  tcId: number;
  comment: string;
  flags: string[];
  msg: string;
  sig: string;
  result: 'valid' | 'invalid' | 'acceptable';
}

interface EcdsaFile {
  algorithm: string;
  numberOfTests: number;
  testGroups: { type: string; sha: string; publicKey: { curve: string; uncompressed: string }; tests: EcdsaVector[] }[];
}

/**
 * Strict DER `SEQUENCE { INTEGER r, INTEGER s }` → r ‖ s of `size` bytes each, or undefined when
 * the encoding is not strict DER (long or indefinite lengths where short ones fit, non-minimal
 * or negative integers, trailing bytes) or a value does not fit in `size` bytes.
 */
function derToP1363(der: Uint8Array, size: number): Uint8Array | undefined {
  let offset = 0;
  const readLength = (): number | undefined => {
    const first = der[offset++];
    if (first === undefined) return undefined;
    if (first < 0x80) return first;
    if (first !== 0x81) return undefined;
    const value = der[offset++];
    return value === undefined || value < 0x80 ? undefined : value;
  };
  if (der[offset++] !== 0x30) return undefined;
  const sequenceLength = readLength();
  if (sequenceLength === undefined || offset + sequenceLength !== der.byteLength) return undefined;
  const out = new Uint8Array(2 * size);
  for (let index = 0; index < 2; index += 1) {
    if (der[offset++] !== 0x02) return undefined;
    const length = readLength();
    if (length === undefined || length === 0 || offset + length > der.byteLength) return undefined;
    let value = der.subarray(offset, offset + length);
    offset += length;
    const lead = value[0] ?? 0;
    if ((lead & 0x80) !== 0) return undefined;
    if (length > 1 && lead === 0 && ((value[1] ?? 0) & 0x80) === 0) return undefined;
    if (length > 1 && lead === 0) value = value.subarray(1);
    if (value.byteLength > size) return undefined;
    out.set(value, index * size + size - value.byteLength);
  }
  return offset === der.byteLength ? out : undefined;
}

function compressed(uncompressed: Uint8Array, size: number): Uint8Array {
  const out = new Uint8Array(size + 1);
  out[0] = 0x02 | ((uncompressed[2 * size] ?? 0) & 1);
  out.set(uncompressed.subarray(1, 1 + size), 1);
  return out;
}

const SUITES = [
  {
    file: 'ecdsa_secp256r1_sha256_test.json',
    algorithm: 'ecdsa-p256',
    curve: 'secp256r1',
    sha: 'SHA-256',
    size: 32,
    valid: 174,
    invalid: 310,
    strictDer: 249,
  },
  {
    file: 'ecdsa_secp384r1_sha384_test.json',
    algorithm: 'ecdsa-p384',
    curve: 'secp384r1',
    sha: 'SHA-384',
    size: 48,
    valid: 194,
    invalid: 310,
    strictDer: 269,
  },
] as const;

for (const suite of SUITES) {
  test(`Wycheproof ${suite.file}: every vector gives its expected result, in DER and as r ‖ s`, async () => {
    const file = readVectorFile<EcdsaFile>(`wycheproof/${suite.file}`);
    assert.equal(file.algorithm, 'ECDSA');
    const counts = { valid: 0, invalid: 0, acceptable: 0 };
    let converted = 0;
    let compressedChecked = 0;
    for (const group of file.testGroups) {
      assert.equal(group.type, 'EcdsaVerify');
      assert.equal(group.publicKey.curve, suite.curve);
      assert.equal(group.sha, suite.sha);
      const publicKey = fromHex(group.publicKey.uncompressed);
      const compressedKey = compressed(publicKey, suite.size);
      for (const vector of group.tests) {
        const label = `${suite.algorithm} tcId ${vector.tcId} (${vector.comment || vector.flags.join(', ')})`;
        counts[vector.result] += 1;
        const message = fromHex(vector.msg);
        const der = fromHex(vector.sig);
        const expected = vector.result === 'valid';
        assert.notEqual(vector.result, 'acceptable', label);
        assert.equal(await verifyEcdsaDer(suite.algorithm, publicKey, message, der), expected, `${label}, DER`);

        const fixed = derToP1363(der, suite.size);
        if (expected) assert.ok(fixed !== undefined, `${label}: a valid signature must be strict DER`);
        if (fixed === undefined) continue;
        converted += 1;
        assert.equal(await verifySignature(suite.algorithm, publicKey, message, fixed), expected, `${label}, r ‖ s`);
        if (expected) {
          assert.equal(
            await verifySignature(suite.algorithm, compressedKey, message, fixed),
            true,
            `${label}, compressed key`,
          );
          compressedChecked += 1;
        }
      }
    }
    assert.equal(counts.valid + counts.invalid + counts.acceptable, file.numberOfTests);
    // The file's own tally.
    assert.deepEqual(counts, { valid: suite.valid, invalid: suite.invalid, acceptable: 0 });
    assert.equal(compressedChecked, suite.valid);
    // Besides the valid ones, 75 invalid vectors are strict DER with r, s that fit (r = 0,
    // s = n, modified integers, arithmetic edge cases), so the r ‖ s path sees more than the
    // happy case.
    assert.equal(converted, suite.strictDer);
  });
}
