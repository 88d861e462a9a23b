/**
 * Key files of /v1: the server's own key read from CRYPTO_KEY_DIR, and the keys that /v1/generate
 * writes into CRYPTO_KEY_OUT_DIR.
 */
import { open, readFile, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '../config.ts';
import type { GeneratedKey } from './openpgp-jobs.ts';

/** The server's key in CRYPTO_KEY_DIR: one ASCII-armored private key (the public key is derived). */
export const SERVER_KEY_FILE = 'private.asc';
/** An armored private key is a few kilobytes; anything this large is not one. */
const MAX_KEY_FILE_BYTES = 1024 * 1024;

export interface ServerKeyFile {
  file: string;
  armored: string;
  /** Group or others may read it: worth a warning. */
  tooOpen: boolean;
}

/** Reads CRYPTO_KEY_DIR/private.asc; any failure is a ConfigError naming CRYPTO_KEY_DIR. */
export async function readServerKeyFile(dir: string): Promise<ServerKeyFile> {
  const file = join(dir, SERVER_KEY_FILE);
  const fix = `put the server's ASCII-armored OpenPGP private key there, or unset CRYPTO_KEY_DIR`;
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new ConfigError('CRYPTO_KEY_DIR', `${file} is not a file; ${fix}`);
    if (info.size > MAX_KEY_FILE_BYTES)
      throw new ConfigError('CRYPTO_KEY_DIR', `${file} is larger than 1 MiB, so it is not a key; ${fix}`);
    return { file, armored: await readFile(file, 'utf8'), tooOpen: (info.mode & 0o077) !== 0 };
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigError('CRYPTO_KEY_DIR', `cannot read ${file} (${code}); ${fix}`);
  }
}

/** The three files of a generated key, named by its fingerprint. */
export function keyFileNames(fingerprint: string): {
  publicKey: string;
  privateKey: string;
  revocationCertificate: string;
} {
  // The fingerprint comes from OpenPGP.js, but it becomes a path: make sure it is only hex.
  if (!/^[0-9a-f]{32,64}$/.test(fingerprint)) throw new Error('unexpected fingerprint format');
  return {
    publicKey: `${fingerprint}.public.asc`,
    privateKey: `${fingerprint}.private.asc`,
    revocationCertificate: `${fingerprint}.revocation.asc`,
  };
}

/**
 * Writes a generated key into `dir`: the private key with mode 0600 (set at creation, so it is
 * never readable by others, not even for a moment), the public key and the revocation certificate
 * with 0644 (less the umask). Every file is created exclusively (O_EXCL): an existing file is never
 * overwritten, and the write fails instead. On any failure the files this call created are removed,
 * so the directory never holds half a key set. Returns the paths written.
 */
export async function writeKeyFiles(dir: string, key: GeneratedKey): Promise<string[]> {
  const names = keyFileNames(key.fingerprint);
  const files: [string, string, number][] = [
    [join(dir, names.privateKey), key.privateKey, 0o600],
    [join(dir, names.publicKey), key.publicKey, 0o644],
    [join(dir, names.revocationCertificate), key.revocationCertificate, 0o644],
  ];
  const written: string[] = [];
  try {
    for (const [path, content, mode] of files) {
      const handle = await open(path, 'wx', mode);
      written.push(path);
      try {
        await handle.writeFile(content, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
    }
    return written;
  } catch (error) {
    await Promise.all(written.map((path) => unlink(path).catch(() => undefined)));
    throw error;
  }
}
