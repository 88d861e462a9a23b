/**
 * The digests of `/v2/hash`, by the service's identifiers: SHA-2 through Web Crypto where it has
 * the function (falling back to @noble/hashes without it), SHA-512/256, SHA-3, SHAKE, BLAKE2b and
 * BLAKE3 through @noble/hashes, which Web Crypto lacks.
 */
import { blake2b } from '@noble/hashes/blake2.js';
import { blake3 } from '@noble/hashes/blake3.js';
import { sha256, sha384, sha512, sha512_256 } from '@noble/hashes/sha2.js';
import { sha3_256, sha3_384, sha3_512, shake128, shake256 } from '@noble/hashes/sha3.js';
import { bytesToHex, checkEncoding, decodeText, type BinaryInput, type TextEncoding } from './encoding.ts';
import { invalidInput, unsupportedAlgorithm } from './errors.ts';
import { bufferSource, subtleCrypto } from './subtle.ts';

/** Largest XOF output, in bytes, as the service allows. */
export const MAX_XOF_LENGTH = 1024;

type Fixed = { kind: 'fixed'; length: number; webCrypto?: string; compute: (data: Uint8Array) => Uint8Array };
type Extendable = { kind: 'xof'; defaultLength: number; compute: (data: Uint8Array, length: number) => Uint8Array };

const blake2b512: Fixed = { kind: 'fixed', length: 64, compute: (data) => blake2b(data) };

const DIGESTS = {
  sha256: { kind: 'fixed', length: 32, webCrypto: 'SHA-256', compute: (data) => sha256(data) },
  sha384: { kind: 'fixed', length: 48, webCrypto: 'SHA-384', compute: (data) => sha384(data) },
  sha512: { kind: 'fixed', length: 64, webCrypto: 'SHA-512', compute: (data) => sha512(data) },
  'sha512-256': { kind: 'fixed', length: 32, compute: (data) => sha512_256(data) },
  'sha3-256': { kind: 'fixed', length: 32, compute: (data) => sha3_256(data) },
  'sha3-384': { kind: 'fixed', length: 48, compute: (data) => sha3_384(data) },
  'sha3-512': { kind: 'fixed', length: 64, compute: (data) => sha3_512(data) },
  shake128: { kind: 'xof', defaultLength: 32, compute: (data, dkLen) => shake128(data, { dkLen }) },
  shake256: { kind: 'xof', defaultLength: 64, compute: (data, dkLen) => shake256(data, { dkLen }) },
  'blake2b-256': { kind: 'fixed', length: 32, compute: (data) => blake2b(data, { dkLen: 32 }) },
  'blake2b-512': blake2b512,
  // The bare name is the 512-bit digest, as the service (and b2sum) has it.
  blake2b: blake2b512,
  blake3: { kind: 'xof', defaultLength: 32, compute: (data, dkLen) => blake3(data, { dkLen }) },
} as const satisfies Record<string, Fixed | Extendable>;

export type HashAlgorithm = keyof typeof DIGESTS;
export const HASH_ALGORITHMS = Object.keys(DIGESTS) as HashAlgorithm[];

/** The body of `POST /v2/hash`. */
export interface HashInput {
  algorithm: HashAlgorithm;
  /** The data, in `encoding` (utf8 by default), or bytes. */
  data: BinaryInput;
  encoding?: TextEncoding;
  /** Output length in bytes, for blake3, shake128 and shake256 only. */
  length?: number;
}

/** The digest as bytes; `length` only for the extendable-output functions. */
export async function digestBytes(algorithm: HashAlgorithm, data: Uint8Array, length?: number): Promise<Uint8Array> {
  if (!Object.hasOwn(DIGESTS, algorithm)) {
    throw unsupportedAlgorithm(`unsupported hash algorithm; use one of: ${HASH_ALGORITHMS.join(', ')}`);
  }
  const spec: Fixed | Extendable = DIGESTS[algorithm];
  if (spec.kind === 'xof') {
    const outputLength = length ?? spec.defaultLength;
    if (!Number.isInteger(outputLength) || outputLength < 1 || outputLength > MAX_XOF_LENGTH) {
      throw invalidInput(`length must be an integer from 1 to ${MAX_XOF_LENGTH} bytes`, 'length');
    }
    return spec.compute(data, outputLength);
  }
  if (length !== undefined && length !== spec.length) {
    throw invalidInput(
      `length applies only to extendable-output functions; ${algorithm} has a fixed ${spec.length}-byte digest`,
      'length',
    );
  }
  const subtle = subtleCrypto();
  if (spec.webCrypto !== undefined && subtle !== undefined) {
    return new Uint8Array(await subtle.digest(spec.webCrypto, bufferSource(data)));
  }
  return spec.compute(data);
}

/** `/v2/hash` without the network: the digest as lowercase hex. */
export async function hash(input: HashInput): Promise<string> {
  const encoding = checkEncoding(input.encoding);
  return bytesToHex(await digestBytes(input.algorithm, decodeText(input.data, encoding, 'data'), input.length));
}
