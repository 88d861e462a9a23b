/**
 * What the vector test files (Wycheproof, X-Wing) share: reading a vector file from data/ (see
 * data/SOURCES.md), hex coding, and checking that a core call is refused with a given CryptoError
 * code.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { CryptoError } from '../../src/errors.ts';

/** The folder that holds SOURCES.md and the vector files, each stored as `<name>.gz`. */
export const VECTORS_DATA_DIR = join(import.meta.dirname, 'data');

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
 * The uncompressed bytes of the vector file `file` (a path relative to data/, as SOURCES.md names
 * it), read from its gzip-compressed copy `<file>.gz`.
 */
export function readVectorBytes(file: string): Buffer {
  return gunzipSync(readFileSync(join(VECTORS_DATA_DIR, `${file}.gz`)));
}

/** The parsed JSON vector file `file` (a path relative to data/, as SOURCES.md names it). */
export function readVectorFile<T>(file: string): T {
  return JSON.parse(readVectorBytes(file).toString('utf8')) as T;
}
