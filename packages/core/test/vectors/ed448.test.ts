/**
 * Wycheproof ed448_test.json (C2SP/wycheproof, testvectors_v1; pinned in data/SOURCES.md), through
 * both Ed448 backends:
 * - verifySignature, the function behind POST /v2/verify (OpenSSL). "valid" must verify;
 *   "invalid" must be false, or, where the signature is not 114 bytes, be refused as
 *   INVALID_INPUT naming /signature (a 400 on the wire).
 * - ed448Noble, the @noble/curves fallback used for an Ed448 context on runtimes whose own Ed448
 *   ignores contexts (Node 22). The vectors have the empty context, which is the same
 *   signature scheme, so the fallback must reach the same verdict on every one of them.
 * The counts are asserted, so that no vector is silently skipped.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ed448Noble } from '../../src/eddsa.ts';
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

const EMPTY = new Uint8Array(0);
const file = readVectorFile<EddsaFile>('wycheproof/ed448_test.json');

test('Wycheproof ed448_test.json through verifySignature (OpenSSL): every vector gives its expected result', async () => {
  assert.equal(file.algorithm, 'EDDSA');
  const counts = { valid: 0, invalid: 0, acceptable: 0, refusedAsMalformed: 0 };
  let wrongLength = 0;
  for (const group of file.testGroups) {
    assert.equal(group.type, 'EddsaVerify');
    assert.equal(group.publicKey.curve, 'edwards448');
    for (const vector of group.tests) {
      const label = `tcId ${vector.tcId} (${vector.comment || vector.flags.join(', ')})`;
      counts[vector.result] += 1;
      if (vector.sig.length !== 2 * 114) wrongLength += 1;
      let verdict: boolean;
      try {
        verdict = await verifySignature('ed448', fromHex(group.publicKey.pk), fromHex(vector.msg), fromHex(vector.sig));
      } catch (error) {
        assert.ok(error instanceof CryptoError, `${label}: ${String(error)}`);
        assert.equal(error.code, 'INVALID_INPUT', label);
        assert.equal(error.field, '/signature', label);
        assert.notEqual(vector.sig.length, 2 * 114, `${label}: a 114-byte signature must be verified, not refused`);
        assert.notEqual(vector.result, 'valid', `${label}: a valid vector was refused`);
        counts.refusedAsMalformed += 1;
        continue;
      }
      if (vector.result === 'valid') assert.equal(verdict, true, label);
      if (vector.result === 'invalid') assert.equal(verdict, false, label);
    }
  }
  assert.equal(counts.valid + counts.invalid + counts.acceptable, file.numberOfTests);
  // The file's tally: 17 valid, 70 invalid, none acceptable; 12 signatures are not 114 bytes.
  assert.equal(wrongLength, 12);
  assert.deepEqual(counts, { valid: 17, invalid: 70, acceptable: 0, refusedAsMalformed: wrongLength });
});

test('Wycheproof ed448_test.json through the @noble/curves fallback (empty context): the same verdicts', () => {
  const counts = { valid: 0, invalid: 0, acceptable: 0 };
  for (const group of file.testGroups) {
    for (const vector of group.tests) {
      const label = `tcId ${vector.tcId} (${vector.comment || vector.flags.join(', ')})`;
      counts[vector.result] += 1;
      const verdict = ed448Noble.verify(fromHex(group.publicKey.pk), fromHex(vector.msg), fromHex(vector.sig), EMPTY);
      if (vector.result === 'valid') assert.equal(verdict, true, label);
      if (vector.result === 'invalid') assert.equal(verdict, false, label);
    }
  }
  assert.deepEqual(counts, { valid: 17, invalid: 70, acceptable: 0 });
});
