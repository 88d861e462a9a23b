/**
 * What the vector test files (Wycheproof, X-Wing) share: reading a vector file from
 * CRYPTO_VECTORS_DIR (failing with a message that says how to run the suite when it is unset), hex
 * coding, and checking that a core call is refused with a given CryptoError code.
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
 * CRYPTO_VECTORS_DIR, or undefined after registering a failing test that says why, when it is not
 * set; `what` names what then cannot be checked. A test file that reads several vector files calls
 * this once and passes the directory to readVectorFile, so that it registers that test only once.
 */
export function vectorsDirectory(what: string): string | undefined {
  const vectorsDir = process.env.CRYPTO_VECTORS_DIR;
  if (vectorsDir === undefined || vectorsDir === '') {
    test('CRYPTO_VECTORS_DIR names the test-vector directory', () => {
      assert.fail(
        `CRYPTO_VECTORS_DIR is not set, so ${what} cannot be checked. Run the vector suite with \`npm run test:vectors\` `
          + '(scripts/run-tests.ts finds ../shared/vectors), or set CRYPTO_VECTORS_DIR to the directory that holds SOURCES.md.',
      );
    });
    return undefined;
  }
  return vectorsDir;
}

/**
 * The parsed vector file at `file` (relative to CRYPTO_VECTORS_DIR), or undefined after
 * registering a failing test that says why, when the directory is not set. With `directory` (what
 * vectorsDirectory returned), the file is read from there and nothing is registered.
 */
export function readVectorFile<T>(file: string): T | undefined;
export function readVectorFile<T>(file: string, directory: string): T;
export function readVectorFile<T>(file: string, directory?: string): T | undefined {
  const vectorsDir = directory ?? vectorsDirectory(file);
  return vectorsDir === undefined ? undefined : JSON.parse(readFileSync(join(vectorsDir, file), 'utf8')) as T;
}
