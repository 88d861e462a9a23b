/**
 * Wycheproof HKDF vectors (C2SP/wycheproof testvectors_v1: hkdf_sha256, hkdf_sha384,
 * hkdf_sha512), read from data/wycheproof.
 *
 * Valid vectors run through the public entry point (planKdf, deriveKey) when their sizes are within
 * this service's bounds (keyLength 16 … 255 · HashLen, salt and info at most 1024 bytes, a
 * non-empty input); a valid vector outside them must be refused by the public entry point and is
 * checked through hkdfRaw instead. Invalid vectors (an output longer than 255 · HashLen) must be
 * refused by the public entry point, and by node:crypto itself. Every vector is counted by kind,
 * and the counts must add up to the file's numberOfTests.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  deriveKey,
  hkdfRaw,
  HKDF_MAX_INFO_LENGTH,
  KDF_ALGORITHMS,
  KDF_MAX_SALT_LENGTH,
  KDF_MIN_KEY_LENGTH,
  planKdf,
  type HkdfAlgorithm,
} from '../../src/kdf.ts';
import { CryptoError } from '../../src/errors.ts';
import { fromHex, readVectorFile, toHex } from './vector-files.ts';

interface HkdfVector {
  tcId: number;
  comment: string;
  ikm: string;
  salt: string;
  info: string;
  size: number;
  okm: string;
  result: 'valid' | 'invalid' | 'acceptable';
}
interface HkdfFile {
  numberOfTests: number;
  testGroups: { tests: HkdfVector[] }[];
}

/** kdf.ts's two HKDF backends, each forced on every vector. */
const BACKENDS = ['native', 'noble'] as const;

const FILES: [string, HkdfAlgorithm][] = [
  ['hkdf_sha256_test.json', 'hkdf-sha256'],
  ['hkdf_sha384_test.json', 'hkdf-sha384'],
  ['hkdf_sha512_test.json', 'hkdf-sha512'],
];

for (const [file, algorithm] of FILES) {
  test(`Wycheproof ${file} (${algorithm})`, async (t) => {
    const data = readVectorFile<HkdfFile>(`wycheproof/${file}`);
    const { hash, hashLength } = KDF_ALGORITHMS[algorithm];
    const counts = { validPublic: 0, validOutsidePolicy: 0, invalidRefused: 0 };
    for (const group of data.testGroups) {
      for (const v of group.tests) {
        const label = `tcId ${v.tcId} (${v.comment})`;
        assert.notEqual(v.result, 'acceptable', `${label}: no "acceptable" results are expected in these files`);
        const input = {
          algorithm,
          password: fromHex(v.ikm),
          salt: fromHex(v.salt),
          keyLength: v.size,
          params: { info: fromHex(v.info) },
        };
        const withinPolicy =
          v.size >= KDF_MIN_KEY_LENGTH &&
          v.size <= 255 * hashLength &&
          input.password.byteLength > 0 &&
          input.salt.byteLength <= KDF_MAX_SALT_LENGTH &&
          input.params.info.byteLength <= HKDF_MAX_INFO_LENGTH;
        if (v.result === 'valid' && withinPolicy) {
          assert.equal(toHex(await deriveKey(planKdf(input))), v.okm, label);
          // The route's entry point picks a backend by size (kdf.ts); each, forced, must agree.
          for (const backend of BACKENDS) {
            assert.equal(
              toHex(hkdfRaw(hash, input.password, input.salt, input.params.info, v.size, { backend })),
              v.okm,
              `${label} (${backend})`,
            );
          }
          counts.validPublic += 1;
          continue;
        }
        assert.throws(
          () => planKdf(input),
          (error: unknown) => error instanceof CryptoError && error.code === 'INVALID_INPUT',
          label,
        );
        if (v.result === 'valid') {
          for (const backend of BACKENDS) {
            assert.equal(
              toHex(hkdfRaw(hash, input.password, input.salt, input.params.info, v.size, { backend })),
              v.okm,
              `${label} (${backend})`,
            );
          }
          counts.validOutsidePolicy += 1;
        } else {
          assert.ok(
            v.size > 255 * hashLength,
            `${label}: the only invalid HKDF vectors expected are oversized outputs`,
          );
          for (const backend of BACKENDS) {
            assert.throws(
              () => hkdfRaw(hash, input.password, input.salt, input.params.info, v.size, { backend }),
              `${label} (${backend})`,
            );
          }
          counts.invalidRefused += 1;
        }
      }
    }
    t.diagnostic(`${file}: ${JSON.stringify(counts)}`);
    assert.equal(counts.validPublic + counts.validOutsidePolicy + counts.invalidRefused, data.numberOfTests);
    assert.ok(counts.validPublic > 0 && counts.invalidRefused > 0, `${file}: a kind of vector is missing`);
  });
}
