/**
 * HMAC (RFC 2104, FIPS 198-1) over SHA-2 and SHA-3: the MACs of `/v2/hmac` and `/v2/hmac/verify`.
 *
 * Backends: on Node 24, @noble/hashes for messages shorter than the algorithm's entry in
 * NOBLE_HMAC_BELOW, node:crypto (OpenSSL) from there on; on Node 22, node:crypto at every size.
 * Node 24's binding makes a native HMAC object expensive to set up whatever the message, and a
 * busy server's cold caches make it dearer than a loop shows, so for short messages @noble's whole
 * HMAC costs less. @noble's cost grows with the message much faster than OpenSSL's, SHA-3's
 * fastest of all, so each algorithm has its own crossover, measured in the server; each entry sits
 * below its crossover (docs/performance.md). SHA-384 follows SHA-512 (the same compression
 * function), and SHA3-384 and SHA3-512, whose blocks are smaller, get half of SHA3-256's entry. On
 * Node 22 native wins at every size, so nothing goes to @noble. Both backends give the same bytes:
 * RFC 4231's and NIST's vectors on each, and random inputs compared.
 *
 * Verification takes only a MAC of the algorithm's full output length. A truncated MAC is refused
 * (400) rather than compared on its prefix: accepting a 4-byte tag would let a forger succeed with
 * probability 2^-32 per try, and whoever chooses the length should not be the party being checked.
 */
import { createHmac } from './node-crypto.ts';
import { hmac as nobleHmac } from '@noble/hashes/hmac.js';
import { sha256, sha384, sha512 } from '@noble/hashes/sha2.js';
import { sha3_256, sha3_384, sha3_512 } from '@noble/hashes/sha3.js';
import { constantTimeEqual, wipe } from './ct.ts';
import { invalidInput, unsupportedAlgorithm } from './errors.ts';

interface MacSpec {
  /** OpenSSL's name of the hash. */
  readonly hash: string;
  /** Output length in bytes: the only MAC length that verification accepts. */
  readonly outputLength: number;
}

/**
 * The parameter table: every `algorithm` value of `/v2/hmac`, named as `/v2/keys/generate` names
 * the keys for them. The registry and the request schema are built from its keys.
 */
export const MAC_ALGORITHMS = {
  'hmac-sha256': { hash: 'sha256', outputLength: 32 },
  'hmac-sha384': { hash: 'sha384', outputLength: 48 },
  'hmac-sha512': { hash: 'sha512', outputLength: 64 },
  'hmac-sha3-256': { hash: 'sha3-256', outputLength: 32 },
  'hmac-sha3-384': { hash: 'sha3-384', outputLength: 48 },
  'hmac-sha3-512': { hash: 'sha3-512', outputLength: 64 },
} as const satisfies Record<string, MacSpec>;

export type MacAlgorithm = keyof typeof MAC_ALGORITHMS;
export const MAC_ALGORITHM_IDS = Object.keys(MAC_ALGORITHMS) as MacAlgorithm[];
/** The hash under each HMAC, by OpenSSL's name: what HKDF (kdf.ts) is keyed by too. */
export type HmacHash = (typeof MAC_ALGORITHMS)[MacAlgorithm]['hash'];

export function isMacAlgorithm(id: string): id is MacAlgorithm {
  return Object.hasOwn(MAC_ALGORITHMS, id);
}

/** Whether `hash` is one of the hashes under the MACs of this module (@noble/hashes has each). */
export function isHmacHash(hash: string): hash is HmacHash {
  return Object.hasOwn(NOBLE_HASHES, hash);
}

function specOf(algorithm: string): (typeof MAC_ALGORITHMS)[MacAlgorithm] {
  if (!isMacAlgorithm(algorithm)) {
    throw unsupportedAlgorithm(
      `unsupported HMAC algorithm '${algorithm}'; use one of: ${MAC_ALGORITHM_IDS.join(', ')}`,
      '/algorithm',
    );
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

/**
 * Whether node:crypto's HMAC object is slow to set up (Node 24's binding; see the top of this file).
 * By version rather than by a feature test: both runtimes have the same function, and only its cost
 * differs.
 */
const NATIVE_HMAC_SETUP_IS_SLOW = Number(process.versions.node.split('.')[0]) >= 24;

/** Messages shorter than this many bytes go to @noble/hashes under `auto` (0: never). */
export const NOBLE_HMAC_BELOW: Readonly<Record<HmacHash, number>> = Object.freeze(
  NATIVE_HMAC_SETUP_IS_SLOW
    ? { sha256: 8192, sha384: 2048, sha512: 2048, 'sha3-256': 512, 'sha3-384': 256, 'sha3-512': 256 }
    : { sha256: 0, sha384: 0, sha512: 0, 'sha3-256': 0, 'sha3-384': 0, 'sha3-512': 0 },
);

/** `auto`: the faster backend for the algorithm and the message's length; the others force one. */
export type MacBackend = 'auto' | 'native' | 'noble';

/** @noble/hashes' function for each algorithm, for the `noble` backend (and HKDF's, kdf.ts). */
export const NOBLE_HASHES: Readonly<Record<HmacHash, Parameters<typeof nobleHmac>[0]>> = {
  sha256,
  sha384,
  sha512,
  'sha3-256': sha3_256,
  'sha3-384': sha3_384,
  'sha3-512': sha3_512,
};

/**
 * @noble's HMAC, which zeroes its padded key block and both hash states once the digest is out,
 * but not the digest it makes of a key longer than the hash's block (RFC 2104: such a key is
 * replaced by its hash). That digest works as the key, so it is made here and wiped after.
 */
function nobleMac(hash: (typeof NOBLE_HASHES)[HmacHash], key: Uint8Array, data: Uint8Array): Uint8Array {
  if (key.byteLength <= hash.blockLen) return nobleHmac(hash, key, data);
  const hashedKey = hash.create().update(key).digest();
  try {
    return nobleHmac(hash, hashedKey, data);
  } finally {
    wipe(hashedKey);
  }
}

/** Which backend `auto` uses for a message of `length` bytes. */
export function macBackendFor(algorithm: MacAlgorithm, length: number): 'native' | 'noble' {
  return length < NOBLE_HMAC_BELOW[MAC_ALGORITHMS[algorithm].hash] ? 'noble' : 'native';
}

/** HMAC of `data` under `key`, the full output length of the algorithm. */
export function computeHmac(
  algorithm: string,
  key: Uint8Array,
  data: Uint8Array,
  options: { backend?: MacBackend } = {},
): Uint8Array {
  const spec = specOf(algorithm);
  checkKey(key);
  const id = algorithm as MacAlgorithm;
  const backend =
    options.backend === undefined || options.backend === 'auto' ? macBackendFor(id, data.byteLength) : options.backend;
  if (backend === 'noble') return nobleMac(NOBLE_HASHES[spec.hash], key, data);
  const mac = createHmac(spec.hash, key).update(data).digest();
  return new Uint8Array(mac.buffer, mac.byteOffset, mac.byteLength);
}

/**
 * True when `mac` is the HMAC of `data` under `key`. A MAC that does not match is `false`, not an
 * error; a MAC of the wrong length is an error (see the file comment). The comparison takes a time
 * that depends only on the (public) length.
 */
export function verifyHmac(
  algorithm: string,
  key: Uint8Array,
  data: Uint8Array,
  mac: Uint8Array,
  options: { backend?: MacBackend } = {},
): boolean {
  const spec = specOf(algorithm);
  checkKey(key);
  if (mac.byteLength !== spec.outputLength) {
    throw invalidInput(
      `mac must be ${spec.outputLength} bytes for ${algorithm} (got ${mac.byteLength}); truncated MACs are not accepted`,
      '/mac',
    );
  }
  const expected = computeHmac(algorithm, key, data, options);
  try {
    return constantTimeEqual(expected, mac);
  } finally {
    wipe(expected);
  }
}
