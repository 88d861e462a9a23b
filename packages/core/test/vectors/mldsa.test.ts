/**
 * ML-DSA (FIPS 204) against Wycheproof (C2SP/wycheproof testvectors_v1, pinned in data/SOURCES.md):
 *
 *   mldsa_{44,65,87}_verify_test.json     verification: valid signatures, and invalid ones (modified
 *                                          signatures, bad hint encodings, infinity-norm violations,
 *                                          contexts over 255 bytes, keys and signatures of the
 *                                          wrong length)
 *   mldsa_{44,65,87}_sign_seed_test.json  key generation from the 32-byte seed, and signing:
 *                                          deterministic (rnd = 0^32, FIPS 204 §3.4) unless the
 *                                          vector gives rnd; invalid seeds and contexts
 *
 * Backends. Verification and key generation run on every backend this runtime has. Signing to an
 * exact expected signature needs a chosen rnd, which only @noble/post-quantum accepts (node:crypto
 * signs hedged only): on node:crypto each signing vector instead checks that the expected
 * signature verifies, and that a fresh node:crypto signature of the same message verifies on both
 * backends.
 *
 * Vectors that give only μ (the "external μ" interface of FIPS 204, flagged Internal) have no
 * message: this service does not offer that interface, so they cannot run through it. They are
 * counted separately, and the test asserts that every one of them is such a vector.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CryptoError } from '../../src/errors.ts';
import { ML_DSA_PARAMETERS, mlDsaKeygen, mlDsaSign, mlDsaVerify, type MlDsaAlgorithm } from '../../src/ml-dsa.ts';
import { PQ_NATIVE_SUPPORT, type PqBackend } from '../../src/pq-common.ts';
import { fromHex, readVectorFile, toHex } from './vector-files.ts';

const BACKENDS: PqBackend[] = PQ_NATIVE_SUPPORT.mlDsa ? ['native', 'noble'] : ['noble'];
const ZERO_RND = new Uint8Array(32);

interface VerifyTest {
  tcId: number;
  comment?: string;
  msg: string;
  ctx?: string;
  sig: string;
  result: string;
  flags?: string[];
}
interface SignTest {
  tcId: number;
  comment?: string;
  msg?: string;
  mu?: string;
  ctx?: string;
  rnd?: string;
  sig: string;
  result: string;
  flags?: string[];
}
interface VerifyGroup {
  type: string;
  publicKey: string;
  tests: VerifyTest[];
}
interface SignGroup {
  type: string;
  privateSeed: string;
  publicKey: string;
  tests: SignTest[];
}
interface WycheproofFile<G> {
  algorithm: string;
  numberOfTests: number;
  testGroups: G[];
}

function algorithmOf(name: string): MlDsaAlgorithm {
  const id = name.toLowerCase() as MlDsaAlgorithm;
  assert.ok(Object.hasOwn(ML_DSA_PARAMETERS, id), `unknown algorithm ${name}`);
  return id;
}

/** `valid: false`, or a refusal as INVALID_INPUT: the two ways an invalid signature may be rejected. */
async function rejection(work: () => Promise<{ valid: boolean }>, label: string): Promise<'false' | 'refused'> {
  try {
    const { valid } = await work();
    assert.equal(valid, false, `${label}: an invalid signature verified`);
    return 'false';
  } catch (error) {
    assert.ok(
      error instanceof CryptoError && error.code === 'INVALID_INPUT',
      `${label}: expected false or INVALID_INPUT, got ${String(error)}`,
    );
    return 'refused';
  }
}

describe('Wycheproof ML-DSA verification', () => {
  for (const level of [44, 65, 87]) {
    const file = `mldsa_${level}_verify_test.json`;
    test(file, async (t) => {
      const data = readVectorFile<WycheproofFile<VerifyGroup>>(`wycheproof/${file}`);
      const algorithm = algorithmOf(data.algorithm);
      const counts = { valid: 0, invalid: 0, acceptable: 0, invalidAsFalse: 0, invalidRefused: 0 };
      for (const group of data.testGroups) {
        assert.equal(group.type, 'MlDsaVerify');
        const publicKey = fromHex(group.publicKey);
        for (const vector of group.tests) {
          const label = `${file} tcId ${vector.tcId} (${vector.comment ?? ''})`;
          const message = fromHex(vector.msg);
          const signature = fromHex(vector.sig);
          const options = vector.ctx === undefined ? {} : { context: fromHex(vector.ctx) };
          switch (vector.result) {
            case 'valid':
              counts.valid++;
              for (const backend of BACKENDS) {
                const result = await mlDsaVerify(publicKey, message, signature, { ...options, backend });
                assert.deepEqual(result, { algorithm, valid: true }, `${label} (${backend})`);
              }
              break;
            case 'invalid': {
              counts.invalid++;
              const outcomes = new Set<string>();
              for (const backend of BACKENDS) {
                outcomes.add(
                  await rejection(
                    () => mlDsaVerify(publicKey, message, signature, { ...options, backend }),
                    `${label} (${backend})`,
                  ),
                );
              }
              // Both backends reject the same way: a length or context fault is refused before
              // any backend runs, a well-formed bad signature is false on both.
              assert.equal(outcomes.size, 1, `${label}: backends disagree`);
              if (outcomes.has('false')) counts.invalidAsFalse++;
              else counts.invalidRefused++;
              break;
            }
            case 'acceptable': {
              counts.acceptable++;
              const results = new Set<string>();
              for (const backend of BACKENDS) {
                results.add(
                  await mlDsaVerify(publicKey, message, signature, { ...options, backend }).then(
                    (r) => String(r.valid),
                    () => 'refused',
                  ),
                );
              }
              assert.equal(results.size, 1, `${label}: backends disagree on an acceptable vector`);
              break;
            }
            default:
              assert.fail(`${label}: unknown result ${vector.result}`);
          }
        }
      }
      assert.equal(counts.valid + counts.invalid + counts.acceptable, data.numberOfTests, 'every vector was run');
      assert.ok(counts.valid > 0 && counts.invalidAsFalse > 0 && counts.invalidRefused > 0);
      t.diagnostic(
        `${file}: ${counts.valid} valid, ${counts.invalid} invalid (${counts.invalidAsFalse} valid: false, ${counts.invalidRefused} refused as INVALID_INPUT), ` +
          `${counts.acceptable} acceptable; backends: ${BACKENDS.join(', ')}`,
      );
    });
  }
});

describe('Wycheproof ML-DSA key generation from seeds and signing', () => {
  for (const level of [44, 65, 87]) {
    const file = `mldsa_${level}_sign_seed_test.json`;
    test(file, async (t) => {
      const data = readVectorFile<WycheproofFile<SignGroup>>(`wycheproof/${file}`);
      const algorithm = algorithmOf(data.algorithm);
      const counts = { valid: 0, invalid: 0, acceptable: 0, externalMu: 0 };
      for (const group of data.testGroups) {
        assert.equal(group.type, 'MlDsaSign');
        const seed = fromHex(group.privateSeed);
        let checkedGroup = false;
        for (const vector of group.tests) {
          const label = `${file} tcId ${vector.tcId} (${vector.comment ?? ''})`;
          const context = vector.ctx === undefined ? undefined : fromHex(vector.ctx);
          const withContext = context === undefined ? {} : { context };
          if (vector.msg === undefined) {
            // μ only: the external-μ interface, which this service does not offer.
            assert.ok(
              vector.mu !== undefined && vector.result === 'valid',
              `${label}: a vector without a message must be an external-μ one`,
            );
            counts.externalMu++;
            continue;
          }
          const message = fromHex(vector.msg);
          switch (vector.result) {
            case 'valid': {
              counts.valid++;
              const publicKey = fromHex(group.publicKey);
              for (const backend of BACKENDS) {
                const expected = await mlDsaVerify(publicKey, message, fromHex(vector.sig), {
                  ...withContext,
                  backend,
                });
                assert.equal(expected.valid, true, `${label} the expected signature verifies (${backend})`);
              }
              if (!checkedGroup) {
                // Once per key: key generation from the seed, and a fresh hedged signature from
                // each backend verified on each backend.
                checkedGroup = true;
                for (const backend of BACKENDS) {
                  const keys = await mlDsaKeygen(algorithm, { seed, backend });
                  assert.equal(toHex(keys.publicKey), group.publicKey, `${label} public key (${backend})`);
                  const fresh = await mlDsaSign(seed, message, { algorithm, ...withContext, backend });
                  for (const verifier of BACKENDS) {
                    const check = await mlDsaVerify(publicKey, message, fresh.signature, {
                      ...withContext,
                      backend: verifier,
                    });
                    assert.equal(check.valid, true, `${label} signed on ${backend}, verified on ${verifier}`);
                  }
                }
              }
              const randomness = vector.rnd === undefined ? ZERO_RND : fromHex(vector.rnd);
              const exact = await mlDsaSign(seed, message, { algorithm, ...withContext, randomness });
              assert.equal(exact.algorithm, algorithm);
              assert.equal(
                toHex(exact.signature),
                vector.sig,
                `${label} exact signature (noble, rnd ${vector.rnd === undefined ? '0^32' : 'given'})`,
              );
              break;
            }
            case 'invalid':
              // Seeds of the wrong length, contexts over 255 bytes: refused on every backend.
              counts.invalid++;
              for (const backend of BACKENDS) {
                await assert.rejects(
                  mlDsaSign(seed, message, { algorithm, ...withContext, backend }),
                  (error: unknown) => {
                    assert.ok(
                      error instanceof CryptoError && error.code === 'INVALID_INPUT',
                      `${label} (${backend}): ${String(error)}`,
                    );
                    return true;
                  },
                );
              }
              break;
            case 'acceptable': {
              counts.acceptable++;
              const outcomes = new Set<string>();
              for (const backend of BACKENDS) {
                outcomes.add(
                  await mlDsaSign(seed, message, { algorithm, ...withContext, backend }).then(
                    () => 'signed',
                    () => 'refused',
                  ),
                );
              }
              assert.equal(outcomes.size, 1, `${label}: backends disagree on an acceptable vector`);
              break;
            }
            default:
              assert.fail(`${label}: unknown result ${vector.result}`);
          }
        }
      }
      assert.equal(
        counts.valid + counts.invalid + counts.acceptable + counts.externalMu,
        data.numberOfTests,
        'every vector was accounted for',
      );
      assert.ok(counts.valid > 0 && counts.invalid > 0);
      t.diagnostic(
        `${file}: ${counts.valid} valid, ${counts.invalid} invalid, ${counts.acceptable} acceptable, ` +
          `${counts.externalMu} external-μ only (interface not offered); backends: ${BACKENDS.join(', ')}`,
      );
    });
  }
});
