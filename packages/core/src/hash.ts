/**
 * Message digests: SHA-2, SHA-3, SHAKE, BLAKE2b and BLAKE3.
 *
 * Backends: node:crypto (OpenSSL) where it has the function; @noble/hashes where it does not
 * (BLAKE2b-256 is not a truncation of BLAKE2b-512, its parameter block differs, and OpenSSL has no
 * BLAKE3). Outputs are identical on Node 22 and 24: both use the same code paths.
 */
import { hash as nodeHash, createHash } from 'node:crypto';
import { blake2b } from '@noble/hashes/blake2.js';
import { blake3 } from '@noble/hashes/blake3.js';
import { invalidInput, unsupportedAlgorithm } from './errors.ts';
import { asBytes } from './bytes.ts';

interface FixedDigest {
  readonly kind: 'fixed';
  readonly outputLength: number;
  readonly compute: (data: Uint8Array) => Uint8Array;
}

/** An extendable-output function: the caller picks the length, within bounds. */
interface ExtendableDigest {
  readonly kind: 'xof';
  readonly defaultLength: number;
  readonly compute: (data: Uint8Array, length: number) => Uint8Array;
}

type DigestSpec = FixedDigest | ExtendableDigest;

/** Largest XOF output a request may ask for, in bytes: 8192 bits is ample for a digest. */
export const MAX_XOF_LENGTH = 1024;

/**
 * node:crypto's one-shot `hash()` (no Hash object: cheaper for small inputs), as bytes of their
 * own. Asked for a `'buffer'`, Node 24 spends more per call than for a string, more than the digest
 * of a small input itself costs (bench/micro.ts); a latin1 ('binary') string holds one byte per
 * character, so the bytes are read straight back out of it.
 */
export function oneShotDigest(algorithm: string, data: Uint8Array): Uint8Array {
  const text = nodeHash(algorithm, data, 'binary');
  const bytes = new Uint8Array(text.length);
  for (let index = 0; index < text.length; index++) bytes[index] = text.charCodeAt(index);
  return bytes;
}

function openssl(name: string, outputLength: number): FixedDigest {
  return { kind: 'fixed', outputLength, compute: (data) => oneShotDigest(name, data) };
}

function shake(name: 'shake128' | 'shake256', defaultLength: number): ExtendableDigest {
  return {
    kind: 'xof',
    defaultLength,
    compute: (data, length) => asBytes(createHash(name, { outputLength: length }).update(data).digest()),
  };
}

const blake2b512 = openssl('blake2b512', 64);

/**
 * The parameter table: every hash identifier this service accepts. The algorithm registry and
 * the request schemas are built from its keys, so they cannot disagree with it.
 */
export const HASH_ALGORITHMS = {
  sha256: openssl('sha256', 32),
  sha384: openssl('sha384', 48),
  sha512: openssl('sha512', 64),
  'sha512-256': openssl('sha512-256', 32),
  'sha3-256': openssl('sha3-256', 32),
  'sha3-384': openssl('sha3-384', 48),
  'sha3-512': openssl('sha3-512', 64),
  shake128: shake('shake128', 32),
  shake256: shake('shake256', 64),
  'blake2b-256': { kind: 'fixed', outputLength: 32, compute: (data) => blake2b(data, { dkLen: 32 }) },
  'blake2b-512': blake2b512,
  // The bare name is an alias of the 512-bit digest, BLAKE2b's natural size (as in b2sum).
  blake2b: blake2b512,
  blake3: { kind: 'xof', defaultLength: 32, compute: (data, length) => blake3(data, { dkLen: length }) },
} as const satisfies Record<string, DigestSpec>;

export type HashAlgorithm = keyof typeof HASH_ALGORITHMS;
export const HASH_ALGORITHM_IDS = Object.keys(HASH_ALGORITHMS) as HashAlgorithm[];

/**
 * Algorithms that are broken or too weak to offer, anywhere in the service: named so that a
 * refusal can say "insecure" rather than merely "unsupported".
 */
export const INSECURE_ALGORITHMS: ReadonlySet<string> = new Set([
  'md4',
  'md5',
  'sha1',
  'sha-1',
  'sha224',
  'ripemd160',
  'des',
  '3des',
  'rc4',
]);

export function isHashAlgorithm(id: string): id is HashAlgorithm {
  return Object.hasOwn(HASH_ALGORITHMS, id);
}

export function isExtendable(algorithm: HashAlgorithm): boolean {
  return HASH_ALGORITHMS[algorithm].kind === 'xof';
}

/**
 * Digest of `data`. `length` (bytes) is only for the extendable-output functions (BLAKE3, SHAKE);
 * asking a fixed-size digest for a length is an error rather than a silent truncation.
 */
export function digest(algorithm: string, data: Uint8Array, length?: number): Uint8Array {
  if (!isHashAlgorithm(algorithm)) {
    throw unsupportedAlgorithm(`unsupported hash algorithm '${algorithm}'`, '/algorithm');
  }
  const spec: DigestSpec = HASH_ALGORITHMS[algorithm];
  if (spec.kind === 'fixed') {
    if (length !== undefined && length !== spec.outputLength) {
      throw invalidInput(
        `length applies only to extendable-output functions; ${algorithm} has a fixed ${spec.outputLength}-byte digest`,
        '/length',
      );
    }
    return spec.compute(data);
  }
  const outputLength = length ?? spec.defaultLength;
  if (!Number.isInteger(outputLength) || outputLength < 1 || outputLength > MAX_XOF_LENGTH) {
    throw invalidInput(`length must be an integer from 1 to ${MAX_XOF_LENGTH} bytes`, '/length');
  }
  return spec.compute(data, outputLength);
}
