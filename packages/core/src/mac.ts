/**
 * HMAC (RFC 2104, FIPS 198-1) over SHA-2 and SHA-3: the MACs of `/v2/hmac` and `/v2/hmac/verify`.
 *
 * Backend: node:crypto (OpenSSL) on both runtimes; every hash here is native on Node 22 and 24, so
 * outputs are identical by construction.
 *
 * Verification takes only a MAC of the algorithm's full output length. A truncated MAC is refused
 * (400) rather than compared on its prefix: accepting a 4-byte tag would let a forger succeed with
 * probability 2^-32 per try, and whoever chooses the length should not be the party being checked.
 */
import { createHmac } from 'node:crypto';
import { constantTimeEqual, wipe } from './ct.ts';
import { invalidInput, unsupportedAlgorithm } from './errors.ts';

interface MacSpec {
  /** OpenSSL's name of the hash. */
  readonly hash: string;
  /** Output length in bytes: the only MAC length that verification accepts. */
  readonly outputLength: number;
}

/**
 * The parameter table: every `algorithm` value of `/v2/hmac` (contract §5). The registry and the
 * request schema are built from its keys.
 */
export const MAC_ALGORITHMS = {
  sha256: { hash: 'sha256', outputLength: 32 },
  sha384: { hash: 'sha384', outputLength: 48 },
  sha512: { hash: 'sha512', outputLength: 64 },
  'sha3-256': { hash: 'sha3-256', outputLength: 32 },
  'sha3-384': { hash: 'sha3-384', outputLength: 48 },
  'sha3-512': { hash: 'sha3-512', outputLength: 64 },
} as const satisfies Record<string, MacSpec>;

export type MacAlgorithm = keyof typeof MAC_ALGORITHMS;
export const MAC_ALGORITHM_IDS = Object.keys(MAC_ALGORITHMS) as MacAlgorithm[];

export function isMacAlgorithm(id: string): id is MacAlgorithm {
  return Object.hasOwn(MAC_ALGORITHMS, id);
}

function specOf(algorithm: string): MacSpec {
  if (!isMacAlgorithm(algorithm)) {
    throw unsupportedAlgorithm(`unsupported HMAC algorithm '${algorithm}'`, '/algorithm');
  }
  return MAC_ALGORITHMS[algorithm];
}

function checkKey(key: Uint8Array): void {
  // HMAC is defined for an empty key, but a MAC under the empty key authenticates nothing: anyone
  // can compute it. An empty key is almost certainly a missing one.
  if (key.byteLength === 0) {
    throw invalidInput('key must not be empty', '/key');
  }
}

/** HMAC of `data` under `key`, the full output length of the algorithm. */
export function computeHmac(algorithm: string, key: Uint8Array, data: Uint8Array): Uint8Array {
  const spec = specOf(algorithm);
  checkKey(key);
  const mac = createHmac(spec.hash, key).update(data).digest();
  return new Uint8Array(mac.buffer, mac.byteOffset, mac.byteLength);
}

/**
 * True when `mac` is the HMAC of `data` under `key`. A MAC that does not match is `false`, not an
 * error; a MAC of the wrong length is an error (see the file comment). The comparison takes a time
 * that depends only on the (public) length.
 */
export function verifyHmac(algorithm: string, key: Uint8Array, data: Uint8Array, mac: Uint8Array): boolean {
  const spec = specOf(algorithm);
  checkKey(key);
  if (mac.byteLength !== spec.outputLength) {
    throw invalidInput(
      `mac must be ${spec.outputLength} bytes for ${algorithm} (got ${mac.byteLength}); truncated MACs are not accepted`,
      '/mac',
    );
  }
  const expected = computeHmac(algorithm, key, data);
  try {
    return constantTimeEqual(expected, mac);
  } finally {
    wipe(expected);
  }
}
