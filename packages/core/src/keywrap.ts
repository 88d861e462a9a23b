/**
 * AES Key Wrap: AES-KW (RFC 3394, NIST SP 800-38F "KW") and AES-KWP, with padding (RFC 5649,
 * SP 800-38F "KWP"), the formats of `/v2/keys/wrap` and `/v2/keys/unwrap`.
 *
 * Backend: node:crypto (OpenSSL's `id-aes*-wrap` and `id-aes*-wrap-pad`). @noble/ciphers is faster
 * per call, but its AES is table-based, so its timing depends on the key; OpenSSL's AES uses
 * AES-NI where the CPU has it. The KEK is a long-lived secret, so native it is.
 */
import { createCipheriv, createDecipheriv } from './node-crypto.ts';
import { concatBytes } from './bytes.ts';
import { checkLength } from './checks.ts';
import { wipe } from './ct.ts';
import { decryptionFailed, invalidInput, openOrFail, unsupportedAlgorithm } from './errors.ts';

interface KeyWrapSpec {
  /** OpenSSL cipher name for a KEK of `bits`. */
  readonly cipher: (bits: 128 | 192 | 256) => string;
  /** The initial value: RFC 3394 §2.2.3.1's default IV, or RFC 5649 §3's alternative IV (its first half). */
  readonly iv: Uint8Array;
  /** Smallest key this mode wraps, in bytes. */
  readonly minimumKeyLength: number;
  /** AES-KW wraps whole 64-bit blocks only; AES-KWP pads. */
  readonly blockAligned: boolean;
  /** Smallest well-formed wrapped key: an integrity block and as many data blocks as the smallest key needs. */
  readonly minimumWrappedLength: number;
}

/**
 * The parameter table. AES-KW is listed first: it is the default of `/v2/keys/wrap`.
 *
 * AES-KW's smallest key is 16 bytes: RFC 3394 §2 requires n ≥ 2 blocks. Some implementations
 * (OpenSSL among them) also wrap a single 8-byte block as one AES block; that is not RFC 3394, and
 * Wycheproof calls it only "acceptable", so we neither produce it nor accept it: a 16-byte wrapped
 * key fails to unwrap like any other bad input. AES-KWP wraps from 1 byte (RFC 5649 §4.1).
 */
export const KEY_WRAP_ALGORITHMS = {
  'aes-kw': {
    cipher: (bits) => `id-aes${bits}-wrap`,
    iv: Uint8Array.from(Buffer.from('a6a6a6a6a6a6a6a6', 'hex')),
    minimumKeyLength: 16,
    blockAligned: true,
    minimumWrappedLength: 24,
  },
  'aes-kwp': {
    cipher: (bits) => `id-aes${bits}-wrap-pad`,
    iv: Uint8Array.from(Buffer.from('a65959a6', 'hex')),
    minimumKeyLength: 1,
    blockAligned: false,
    minimumWrappedLength: 16,
  },
} as const satisfies Record<string, KeyWrapSpec>;

export type KeyWrapAlgorithm = keyof typeof KEY_WRAP_ALGORITHMS;
export const KEY_WRAP_ALGORITHM_IDS = Object.keys(KEY_WRAP_ALGORITHMS) as KeyWrapAlgorithm[];
export const DEFAULT_KEY_WRAP_ALGORITHM: KeyWrapAlgorithm = 'aes-kw';

/** KEK lengths: AES-128, AES-192, AES-256. */
export const KEK_LENGTHS = [16, 24, 32] as const;

function specOf(algorithm: string): KeyWrapSpec {
  if (!Object.hasOwn(KEY_WRAP_ALGORITHMS, algorithm)) {
    throw unsupportedAlgorithm(`unsupported key-wrap algorithm '${algorithm}'`, '/algorithm');
  }
  return KEY_WRAP_ALGORITHMS[algorithm as KeyWrapAlgorithm];
}

function bitsOf(kek: Uint8Array): 128 | 192 | 256 {
  checkLength(kek, KEK_LENGTHS, 'kek');
  return (kek.byteLength * 8) as 128 | 192 | 256;
}

/** Wraps `keyToWrap` under `kek` with AES-KW or AES-KWP. */
export function wrapKey(algorithm: string, kek: Uint8Array, keyToWrap: Uint8Array): Uint8Array {
  const spec = specOf(algorithm);
  const bits = bitsOf(kek);
  if (keyToWrap.byteLength < spec.minimumKeyLength || (spec.blockAligned && keyToWrap.byteLength % 8 !== 0)) {
    const rule = spec.blockAligned
      ? 'aes-kw wraps keys of at least 16 bytes in whole 8-byte blocks; use aes-kwp for other lengths'
      : 'aes-kwp wraps keys of at least 1 byte';
    throw invalidInput(`keyToWrap: ${rule} (got ${keyToWrap.byteLength} bytes)`, '/keyToWrap');
  }
  const cipher = createCipheriv(spec.cipher(bits), kek, spec.iv);
  return concatBytes(cipher.update(keyToWrap), cipher.final());
}

/**
 * Unwraps and checks integrity. Every failure (wrong KEK, tampered, bad length, bad padding) throws
 * the same DECRYPTION_FAILED: no oracle. A malformed KEK is still an INVALID_INPUT: it says nothing
 * about the wrapped key.
 */
export function unwrapKey(algorithm: string, kek: Uint8Array, wrappedKey: Uint8Array): Uint8Array {
  const spec = specOf(algorithm);
  const bits = bitsOf(kek);
  if (wrappedKey.byteLength < spec.minimumWrappedLength || wrappedKey.byteLength % 8 !== 0) throw decryptionFailed();
  let head: Buffer | undefined;
  let tail: Buffer | undefined;
  try {
    return openOrFail(() => {
      const decipher = createDecipheriv(spec.cipher(bits), kek, spec.iv);
      head = decipher.update(wrappedKey);
      tail = decipher.final();
      return concatBytes(head, tail);
    });
  } finally {
    // The parts hold the unwrapped key; the caller gets its own copy.
    wipe(head, tail);
  }
}
