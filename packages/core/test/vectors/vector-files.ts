/**
 * What the Wycheproof test files share: reading a vector file from CRYPTO_VECTORS_DIR (failing
 * with a message that says how to run the suite when it is unset), hex coding, and checking that
 * a core call is refused with a given CryptoError code.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CryptoError } from '../../src/errors.ts';

export const fromHex = (hex: string) => Uint8Array.from(Buffer.from(hex, 'hex'));
export const toHex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

/** True when `work` throws a CryptoError with `code` (and, when given, naming `field`). */
export function failsWith(work: () => unknown, code: string, field?: string): boolean {
  try {
    work();
    return false;
  } catch (error) {
    return error instanceof CryptoError && error.code === code && (field === undefined || error.field === field);
  }
}

/**
 * The parsed vector file at `file` (relative to CRYPTO_VECTORS_DIR), or undefined after
 * registering a failing test that says why, when the directory is not set.
 */
export function readVectorFile<T>(file: string): T | undefined {
  const vectorsDir = process.env.CRYPTO_VECTORS_DIR;
  if (vectorsDir === undefined || vectorsDir === '') {
    test('CRYPTO_VECTORS_DIR names the test-vector directory', () => {
      assert.fail(
        `CRYPTO_VECTORS_DIR is not set, so ${file} cannot be checked. Run the vector suite with \`npm run test:vectors\` `
          + '(scripts/run-tests.ts finds ../shared/vectors), or set CRYPTO_VECTORS_DIR to the directory that holds SOURCES.md.',
      );
    });
    return undefined;
  }
  return JSON.parse(readFileSync(join(vectorsDir, file), 'utf8')) as T;
}
