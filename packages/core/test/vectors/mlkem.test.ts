/**
 * ML-KEM (FIPS 203) against Wycheproof (C2SP/wycheproof testvectors_v1, pinned in data/SOURCES.md):
 *
 *   mlkem_{512,768,1024}_test.json   key generation from the 64-byte seed (ek), decapsulation (K),
 *                                     seeds and ciphertexts of the wrong length (invalid)
 *   mlkem_768_encaps_test.json       encapsulation with given randomness m (c, K), and encapsulation
 *                                     keys that fail the modulus check of FIPS 203 §7.2 (invalid)
 *   mlkem_768_keygen_seed_test.json  seed → ek and the expanded dk
 *
 * Every vector runs on every backend this runtime has (node:crypto on Node 24, @noble/post-quantum
 * everywhere), except deterministic encapsulation, which only noble can do (node:crypto takes no
 * randomness): on node:crypto those valid vectors check that the key is accepted and the
 * ciphertext has the right length. Each result kind (valid, invalid, acceptable) is handled and
 * counted; the counts must add up to the file's numberOfTests.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ml_kem768 } from '@noble/post-quantum/ml-kem.js';
import { CryptoError } from '../../src/errors.ts';
import {
  ML_KEM_PARAMETERS,
  mlKemDecapsulate,
  mlKemEncapsulate,
  mlKemKeyPairFromSeed,
  type MlKemAlgorithm,
} from '../../src/ml-kem.ts';
import { PQ_NATIVE_SUPPORT, type PqBackend } from '../../src/pq-common.ts';
import { fromHex, readVectorFile, toHex } from './vector-files.ts';

const BACKENDS: PqBackend[] = PQ_NATIVE_SUPPORT.mlKem ? ['native', 'noble'] : ['noble'];

interface WycheproofFile<T> {
  numberOfTests: number;
  testGroups: { parameterSet: string; type: string; tests: T[] }[];
}
interface DecapsTest {
  tcId: number;
  comment?: string;
  seed: string;
  ek?: string;
  c: string;
  K: string;
  result: string;
}
interface EncapsTest {
  tcId: number;
  comment?: string;
  m: string;
  ek: string;
  c: string;
  K: string;
  result: string;
}
interface KeygenTest {
  tcId: number;
  seed: string;
  ek: string;
  dk: string;
  result: string;
}

function algorithmOf(parameterSet: string): MlKemAlgorithm {
  const id = parameterSet.toLowerCase() as MlKemAlgorithm;
  assert.ok(Object.hasOwn(ML_KEM_PARAMETERS, id), `unknown parameter set ${parameterSet}`);
  return id;
}

/** Runs `work` and asserts that it fails as a client error (CryptoError INVALID_INPUT). */
async function assertRefused(work: () => unknown, label: string): Promise<void> {
  await assert.rejects(
    async () => work(),
    (error: unknown) => {
      assert.ok(error instanceof CryptoError, `${label}: expected a CryptoError, got ${String(error)}`);
      assert.equal(error.code, 'INVALID_INPUT', label);
      return true;
    },
  );
}

describe('Wycheproof ML-KEM: key generation from seeds and decapsulation', () => {
  for (const file of ['mlkem_512_test.json', 'mlkem_768_test.json', 'mlkem_1024_test.json']) {
    test(file, async (t) => {
      const data = readVectorFile<WycheproofFile<DecapsTest>>(`wycheproof/${file}`);
      const counts = { valid: 0, invalid: 0, acceptable: 0 };
      for (const group of data.testGroups) {
        assert.equal(group.type, 'MLKEMTest');
        const algorithm = algorithmOf(group.parameterSet);
        const noble = ML_KEM_PARAMETERS[algorithm].noble;
        for (const vector of group.tests) {
          const label = `${file} tcId ${vector.tcId} (${vector.comment ?? ''})`;
          const seed = fromHex(vector.seed);
          const ciphertext = fromHex(vector.c);
          switch (vector.result) {
            case 'valid': {
              counts.valid++;
              // The expanded dk that FIPS 203 KeyGen derives from the seed: decapsulation with it
              // exercises the other secret-key form (PKCS#8 import on node:crypto).
              const expanded = noble.keygen(seed).secretKey;
              for (const backend of BACKENDS) {
                const keys = mlKemKeyPairFromSeed(seed, algorithm, { backend });
                if (vector.ek !== undefined) assert.equal(toHex(keys.publicKey), vector.ek, `${label} ek (${backend})`);
                const fromSeed = await mlKemDecapsulate(seed, ciphertext, algorithm, { backend });
                assert.equal(toHex(fromSeed.sharedSecret), vector.K, `${label} K from the seed (${backend})`);
                const fromExpanded = await mlKemDecapsulate(expanded, ciphertext, undefined, { backend });
                assert.equal(
                  toHex(fromExpanded.sharedSecret),
                  vector.K,
                  `${label} K from the expanded key (${backend})`,
                );
              }
              break;
            }
            case 'invalid':
              counts.invalid++;
              // Seeds and ciphertexts of the wrong length: refused before any arithmetic.
              for (const backend of BACKENDS) {
                await assertRefused(
                  () => mlKemDecapsulate(seed, ciphertext, algorithm, { backend }),
                  `${label} (${backend})`,
                );
              }
              break;
            case 'acceptable':
              // None in these files today; if one appears, both backends must at least agree.
              counts.acceptable++;
              await assertBackendsAgree(
                BACKENDS.map((backend) => () => mlKemDecapsulate(seed, ciphertext, algorithm, { backend })),
                true,
              );
              break;
            default:
              assert.fail(`${label}: unknown result ${vector.result}`);
          }
        }
      }
      assert.equal(counts.valid + counts.invalid + counts.acceptable, data.numberOfTests, 'every vector was run');
      assert.ok(counts.valid > 0 && counts.invalid > 0);
      t.diagnostic(
        `${file}: ${counts.valid} valid, ${counts.invalid} invalid, ${counts.acceptable} acceptable; backends: ${BACKENDS.join(', ')}`,
      );
    });
  }
});

test('Wycheproof mlkem_768_encaps_test.json: encapsulation and the FIPS 203 §7.2 modulus check', async (t) => {
  const file = 'mlkem_768_encaps_test.json';
  const data = readVectorFile<WycheproofFile<EncapsTest>>(`wycheproof/${file}`);
  const counts = { valid: 0, invalid: 0, acceptable: 0 };
  for (const group of data.testGroups) {
    assert.equal(group.type, 'MLKEMEncapsTest');
    assert.equal(algorithmOf(group.parameterSet), 'ml-kem-768');
    for (const vector of group.tests) {
      const label = `${file} tcId ${vector.tcId} (${vector.comment ?? ''})`;
      const publicKey = fromHex(vector.ek);
      switch (vector.result) {
        case 'valid': {
          counts.valid++;
          // Deterministic encapsulation (m given): noble only.
          const result = await mlKemEncapsulate(publicKey, { backend: 'noble', randomness: fromHex(vector.m) });
          assert.equal(toHex(result.ciphertext), vector.c, `${label} c`);
          assert.equal(toHex(result.sharedSecret), vector.K, `${label} K`);
          for (const backend of BACKENDS) {
            const fresh = await mlKemEncapsulate(publicKey, { backend });
            assert.equal(fresh.ciphertext.byteLength, 1088, `${label} (${backend})`);
            assert.equal(fresh.sharedSecret.byteLength, 32, `${label} (${backend})`);
          }
          break;
        }
        case 'invalid':
          counts.invalid++;
          for (const backend of BACKENDS) {
            await assertRefused(() => mlKemEncapsulate(publicKey, { backend }), `${label} (${backend})`);
          }
          break;
        case 'acceptable':
          counts.acceptable++;
          // Encapsulation is randomized on node:crypto: compare only acceptance.
          await assertBackendsAgree(
            BACKENDS.map((backend) => () => mlKemEncapsulate(publicKey, { backend })),
            false,
          );
          break;
        default:
          assert.fail(`${label}: unknown result ${vector.result}`);
      }
    }
  }
  assert.equal(counts.valid + counts.invalid + counts.acceptable, data.numberOfTests, 'every vector was run');
  assert.ok(counts.valid > 0 && counts.invalid > 0);
  t.diagnostic(
    `${file}: ${counts.valid} valid, ${counts.invalid} invalid, ${counts.acceptable} acceptable; backends: ${BACKENDS.join(', ')}`,
  );
});

test('Wycheproof mlkem_768_keygen_seed_test.json: seed → ek, and the expanded dk decapsulates alike', async (t) => {
  const file = 'mlkem_768_keygen_seed_test.json';
  const data = readVectorFile<WycheproofFile<KeygenTest>>(`wycheproof/${file}`);
  const counts = { valid: 0, invalid: 0, acceptable: 0 };
  for (const group of data.testGroups) {
    assert.equal(group.type, 'MLKEMKeyGen');
    for (const vector of group.tests) {
      const label = `${file} tcId ${vector.tcId}`;
      assert.equal(vector.result, 'valid', `${label}: only valid key generations are expected in this file`);
      counts.valid++;
      const seed = fromHex(vector.seed);
      const dk = fromHex(vector.dk);
      // A ciphertext to the vector's ek from the independent implementation, then decapsulated
      // with the vector's expanded dk and with the seed, on every backend.
      const { cipherText, sharedSecret } = ml_kem768.encapsulate(fromHex(vector.ek));
      for (const backend of BACKENDS) {
        assert.equal(
          toHex(mlKemKeyPairFromSeed(seed, 'ml-kem-768', { backend }).publicKey),
          vector.ek,
          `${label} ek (${backend})`,
        );
        const withDk = await mlKemDecapsulate(dk, cipherText, undefined, { backend });
        const withSeed = await mlKemDecapsulate(seed, cipherText, 'ml-kem-768', { backend });
        assert.equal(toHex(withDk.sharedSecret), toHex(sharedSecret), `${label} dk (${backend})`);
        assert.equal(toHex(withSeed.sharedSecret), toHex(sharedSecret), `${label} seed (${backend})`);
      }
    }
  }
  assert.equal(counts.valid, data.numberOfTests, 'every vector was run');
  t.diagnostic(`${file}: ${counts.valid} valid; backends: ${BACKENDS.join(', ')}`);
});

/**
 * For an `acceptable` vector: the outcome (the value when `compareValues`, else only whether it was
 * accepted) must be the same on every backend. Either outcome is allowed, but the service must not
 * depend on the runtime.
 */
async function assertBackendsAgree(works: (() => Promise<unknown>)[], compareValues: boolean): Promise<void> {
  const outcome = async (work: () => Promise<unknown>) => {
    try {
      const value = await work();
      return compareValues
        ? JSON.stringify(value, (_, item: unknown) => (item instanceof Uint8Array ? toHex(item) : item))
        : 'accepted';
    } catch (error) {
      return error instanceof CryptoError ? `refused: ${error.code}` : `error: ${String(error)}`;
    }
  };
  const outcomes = await Promise.all(works.map(outcome));
  assert.ok(
    outcomes.every((value) => value === outcomes[0]),
    `backends disagree: ${outcomes.join(' / ')}`,
  );
  assert.ok(!outcomes[0]?.startsWith('error'), `an acceptable vector must not cause an internal error: ${outcomes[0]}`);
}
