/**
 * Wycheproof ed25519_test.json (C2SP/wycheproof, testvectors_v1; pinned in data/SOURCES.md) through
 * verifySignature, the function behind POST /v2/verify. Each vector's expectation is asserted:
 * "valid" must verify; "invalid" must come back false, or, where the signature has the wrong
 * length (truncated, trailing garbage), be refused as INVALID_INPUT naming /signature, which the
 * route turns into a 400. The counts are asserted too, so that no vector is silently skipped.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { verifySignature } from '../../src/signature.ts';
import { CryptoError } from '../../src/errors.ts';
import { fromHex, readVectorFile } from './vector-files.ts';

interface EddsaVector {
  tcId: number;
  comment: string;
  flags: string[];
  msg: string;
  sig: string;
  result: 'valid' | 'invalid' | 'acceptable';
}

interface EddsaFile {
  algorithm: string;
  numberOfTests: number;
  testGroups: { type: string; publicKey: { curve: string; pk: string }; tests: EddsaVector[] }[];
}

const file = readVectorFile<EddsaFile>('wycheproof/ed25519_test.json');

test('Wycheproof ed25519_test.json: every vector gives its expected result', async () => {
  assert.equal(file.algorithm, 'EDDSA');
  const counts = { valid: 0, invalid: 0, acceptable: 0, refusedAsMalformed: 0 };
  let wrongLength = 0;
  for (const group of file.testGroups) {
    assert.equal(group.type, 'EddsaVerify');
    assert.equal(group.publicKey.curve, 'edwards25519');
    for (const vector of group.tests) {
      const label = `tcId ${vector.tcId} (${vector.comment || vector.flags.join(', ')})`;
      counts[vector.result] += 1;
      if (vector.sig.length !== 2 * 64) wrongLength += 1;
      let verdict: boolean;
      try {
        verdict = await verifySignature(
          'ed25519',
          fromHex(group.publicKey.pk),
          fromHex(vector.msg),
          fromHex(vector.sig),
        );
      } catch (error) {
        assert.ok(error instanceof CryptoError, `${label}: ${String(error)}`);
        assert.equal(error.code, 'INVALID_INPUT', label);
        assert.equal(error.field, '/signature', label);
        assert.notEqual(vector.sig.length, 128, `${label}: a 64-byte signature must be verified, not refused`);
        assert.notEqual(vector.result, 'valid', `${label}: a valid vector was refused`);
        counts.refusedAsMalformed += 1;
        continue;
      }
      if (vector.result === 'valid') assert.equal(verdict, true, label);
      if (vector.result === 'invalid') assert.equal(verdict, false, label);
    }
  }
  assert.equal(counts.valid + counts.invalid + counts.acceptable, file.numberOfTests);
  // The file's own tally: 88 valid, 63 invalid, none acceptable. Exactly the vectors whose
  // signature is not 64 bytes (12: truncated, trailing garbage, overlapping r and s) are refused.
  assert.equal(wrongLength, 12);
  assert.deepEqual(counts, { valid: 88, invalid: 63, acceptable: 0, refusedAsMalformed: wrongLength });
});
