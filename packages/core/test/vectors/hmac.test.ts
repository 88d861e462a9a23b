/**
 * Wycheproof HMAC vectors (C2SP/wycheproof testvectors_v1: hmac_sha256, hmac_sha384, hmac_sha512,
 * hmac_sha3_256, hmac_sha3_512), read from data/wycheproof.
 *
 * Each file has groups with the full tag size and groups with tags truncated to half. This service
 * verifies full-length MACs only (a truncated MAC is a 400, see mac.ts), so the two kinds are
 * handled explicitly:
 * - full length: a valid vector's tag is our MAC and verifies; an invalid one does not verify;
 * - truncated: verification refuses the tag as INVALID_INPUT, and the tag is checked against the
 *   prefix of our full MAC instead (equal for valid vectors, different for invalid ones).
 * Every vector is counted by kind, and the counts must add up to the file's numberOfTests.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { computeHmac, MAC_ALGORITHMS, verifyHmac, type MacAlgorithm } from '../../src/mac.ts';
import { CryptoError } from '../../src/errors.ts';
import { fromHex, readVectorFile, toHex } from './vector-files.ts';

interface MacVector {
  tcId: number;
  comment: string;
  key: string;
  msg: string;
  tag: string;
  result: 'valid' | 'invalid' | 'acceptable';
}
interface MacFile {
  numberOfTests: number;
  testGroups: { tagSize: number; keySize: number; tests: MacVector[] }[];
}

const FILES: [string, MacAlgorithm][] = [
  ['hmac_sha256_test.json', 'hmac-sha256'],
  ['hmac_sha384_test.json', 'hmac-sha384'],
  ['hmac_sha512_test.json', 'hmac-sha512'],
  ['hmac_sha3_256_test.json', 'hmac-sha3-256'],
  ['hmac_sha3_512_test.json', 'hmac-sha3-512'],
];

for (const [file, algorithm] of FILES) {
  test(`Wycheproof ${file} (HMAC ${algorithm})`, (t) => {
    const data = readVectorFile<MacFile>(`wycheproof/${file}`);
    const outputLength = MAC_ALGORITHMS[algorithm].outputLength;
    const counts = { fullValid: 0, fullInvalid: 0, truncatedValid: 0, truncatedInvalid: 0 };
    for (const group of data.testGroups) {
      for (const v of group.tests) {
        const label = `tcId ${v.tcId} (${v.comment})`;
        assert.notEqual(v.result, 'acceptable', `${label}: no "acceptable" results are expected in these files`);
        const key = fromHex(v.key);
        const msg = fromHex(v.msg);
        const tag = fromHex(v.tag);
        assert.equal(tag.byteLength * 8, group.tagSize, label);
        const mac = computeHmac(algorithm, key, msg);
        if (tag.byteLength === outputLength) {
          assert.equal(verifyHmac(algorithm, key, msg, tag), v.result === 'valid', label);
          if (v.result === 'valid') {
            assert.equal(toHex(mac), v.tag, label);
            counts.fullValid += 1;
          } else {
            counts.fullInvalid += 1;
          }
        } else {
          assert.throws(
            () => verifyHmac(algorithm, key, msg, tag),
            (error: unknown) =>
              error instanceof CryptoError && error.code === 'INVALID_INPUT' && error.field === '/mac',
            label,
          );
          assert.equal(toHex(mac.subarray(0, tag.byteLength)) === v.tag, v.result === 'valid', label);
          if (v.result === 'valid') counts.truncatedValid += 1;
          else counts.truncatedInvalid += 1;
        }
      }
    }
    t.diagnostic(`${file}: ${JSON.stringify(counts)}`);
    assert.equal(
      counts.fullValid + counts.fullInvalid + counts.truncatedValid + counts.truncatedInvalid,
      data.numberOfTests,
    );
    // Each kind is present, so a file change that dropped one would be noticed.
    for (const [kind, count] of Object.entries(counts)) assert.ok(count > 0, `${file}: no ${kind} vectors`);
  });
}
