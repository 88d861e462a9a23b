/**
 * Wycheproof PBKDF2-HMAC-SHA256 vectors (C2SP/wycheproof testvectors_v1: pbkdf2_hmacsha256),
 * read from data/wycheproof.
 *
 * The file's iteration counts (1 to 80,000) are all below this service's floor of 100,000, and
 * some salts (4 bytes) and output lengths (65 bytes) are outside its bounds too. So each vector is
 * handled explicitly: when it breaks the policy, the public entry point (planKdf) must refuse it
 * with INVALID_INPUT on one of the fields at fault, and the derivation itself is checked through
 * pbkdf2Raw; a vector within the policy would run through the public path. Every vector is counted
 * by kind, and the counts must add up to the file's numberOfTests.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  deriveKey,
  KDF_MAX_SALT_LENGTH,
  KDF_MIN_KEY_LENGTH,
  KDF_MIN_SALT_LENGTH,
  PBKDF2_MAX_ITERATIONS,
  PBKDF2_MAX_KEY_LENGTH,
  PBKDF2_MIN_ITERATIONS,
  pbkdf2Raw,
  planKdf,
} from '../../src/kdf.ts';
import { CryptoError } from '../../src/errors.ts';
import { fromHex, readVectorFile, toHex } from './vector-files.ts';

interface PbkdfVector {
  tcId: number;
  comment: string;
  password: string;
  salt: string;
  iterationCount: number;
  dkLen: number;
  dk: string;
  result: 'valid' | 'invalid' | 'acceptable';
}
interface PbkdfFile {
  numberOfTests: number;
  testGroups: { tests: PbkdfVector[] }[];
}

/** The request fields on which a vector breaks this service's policy (empty: within it). */
function violations(v: PbkdfVector): string[] {
  const fields: string[] = [];
  if (v.password.length === 0) fields.push('/password');
  if (v.iterationCount < PBKDF2_MIN_ITERATIONS || v.iterationCount > PBKDF2_MAX_ITERATIONS)
    fields.push('/params/iterations');
  const saltLength = v.salt.length / 2;
  if (saltLength < KDF_MIN_SALT_LENGTH || saltLength > KDF_MAX_SALT_LENGTH) fields.push('/salt');
  if (v.dkLen < KDF_MIN_KEY_LENGTH || v.dkLen > PBKDF2_MAX_KEY_LENGTH) fields.push('/keyLength');
  return fields;
}

const data = readVectorFile<PbkdfFile>('wycheproof/pbkdf2_hmacsha256_test.json');

test('Wycheproof pbkdf2_hmacsha256_test.json', async (t) => {
  const counts = { validPublic: 0, validOutsidePolicy: 0, invalid: 0 };
  const refusedOn = new Map<string, number>();
  for (const group of data.testGroups) {
    for (const v of group.tests) {
      const label = `tcId ${v.tcId} (${v.comment})`;
      assert.notEqual(v.result, 'acceptable', `${label}: no "acceptable" results are expected in this file`);
      const input = {
        algorithm: 'pbkdf2-sha256',
        password: fromHex(v.password),
        salt: fromHex(v.salt),
        keyLength: v.dkLen,
        params: { iterations: v.iterationCount },
      };
      const faults = violations(v);
      if (faults.length === 0) {
        const derived = toHex(await deriveKey(planKdf(input)));
        assert.equal(derived === v.dk, v.result === 'valid', label);
        if (v.result === 'valid') counts.validPublic += 1;
        else counts.invalid += 1;
        continue;
      }
      assert.throws(
        () => planKdf(input),
        (error: unknown) => {
          assert.ok(error instanceof CryptoError && error.code === 'INVALID_INPUT', label);
          assert.ok(
            error.field !== undefined && faults.includes(error.field),
            `${label}: refused on ${error.field}, expected one of ${faults.join(', ')}`,
          );
          refusedOn.set(error.field, (refusedOn.get(error.field) ?? 0) + 1);
          return true;
        },
      );
      const derived = toHex(await pbkdf2Raw('sha256', input.password, input.salt, v.iterationCount, v.dkLen));
      assert.equal(derived === v.dk, v.result === 'valid', label);
      if (v.result === 'valid') counts.validOutsidePolicy += 1;
      else counts.invalid += 1;
    }
  }
  t.diagnostic(
    `counts: ${JSON.stringify(counts)}; public refusals by field: ${JSON.stringify(Object.fromEntries(refusedOn))}`,
  );
  assert.equal(counts.validPublic + counts.validOutsidePolicy + counts.invalid, data.numberOfTests);
  assert.ok(counts.validOutsidePolicy > 0, "the file's vectors are expected to sit below the iteration floor");
});
