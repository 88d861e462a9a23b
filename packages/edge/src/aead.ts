/**
 * XChaCha20-Poly1305, the AEAD of `/v2/encrypt` and `/v2/secretbox/seal`: the sealed form is
 * nonce (24 B) ‖ ciphertext ‖ tag (16 B), libsodium's crypto_aead_xchacha20poly1305_ietf with the
 * nonce prepended. Web Crypto has no ChaCha20, so the cipher is @noble/ciphers'.
 */
import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import {
  base64Field,
  bytesToBase64,
  checkEncoding,
  decodeText,
  encodeText,
  hexField,
  type BinaryInput,
  type TextEncoding,
} from './encoding.ts';
import { decryptionFailed, openOrFail, unsupportedAlgorithm } from './errors.ts';
import { randomBytes } from './random.ts';

export const AEAD_ALGORITHM = 'xchacha20-poly1305';
export type AeadAlgorithm = typeof AEAD_ALGORITHM;

const KEY_LENGTH = 32;
const NONCE_LENGTH = 24;
const TAG_LENGTH = 16;

/** The body of `POST /v2/encrypt` (and `/v2/secretbox/seal`). */
export interface EncryptInput {
  /** 32-byte key: hex, or bytes. */
  key: BinaryInput;
  /** The message, in `encoding` (utf8 by default), or bytes. */
  plaintext: BinaryInput;
  /** Additional authenticated data, in `encoding`, or bytes: the same on both sides. */
  aad?: BinaryInput;
  encoding?: TextEncoding;
  algorithm?: AeadAlgorithm;
}

/** The body of `POST /v2/decrypt` (and `/v2/secretbox/open`). */
export interface DecryptInput {
  key: BinaryInput;
  /** nonce ‖ ciphertext ‖ tag: base64, or bytes. */
  ciphertext: BinaryInput;
  aad?: BinaryInput;
  /** How `aad` is written and how the plaintext is returned. */
  encoding?: TextEncoding;
  algorithm?: AeadAlgorithm;
}

/** What `/v2/encrypt` answers in `data`. */
export interface Sealed<A extends string> {
  /** The sealed bytes as standard padded base64. */
  ciphertext: string;
  algorithm: A;
}

function checkAlgorithm(algorithm: string | undefined): void {
  if (algorithm !== undefined && algorithm !== AEAD_ALGORITHM) {
    throw unsupportedAlgorithm(`unsupported AEAD algorithm; use ${AEAD_ALGORITHM}`);
  }
}

/** Seals bytes: nonce ‖ ciphertext ‖ tag under a fresh random nonce. */
export function xchachaSealBytes(key: Uint8Array, plaintext: Uint8Array, aad?: Uint8Array): Uint8Array {
  const out = new Uint8Array(NONCE_LENGTH + plaintext.byteLength + TAG_LENGTH);
  const nonce = out.subarray(0, NONCE_LENGTH);
  nonce.set(randomBytes(NONCE_LENGTH));
  xchacha20poly1305(key, nonce, aad).encrypt(plaintext, out.subarray(NONCE_LENGTH));
  return out;
}

/** Opens nonce ‖ ciphertext ‖ tag; every failure is the one DECRYPTION_FAILED. */
export function xchachaOpenBytes(key: Uint8Array, sealed: Uint8Array, aad?: Uint8Array): Uint8Array {
  if (sealed.byteLength < NONCE_LENGTH + TAG_LENGTH) throw decryptionFailed();
  return openOrFail(() =>
    xchacha20poly1305(key, sealed.subarray(0, NONCE_LENGTH), aad).decrypt(sealed.subarray(NONCE_LENGTH)),
  );
}

/** `/v2/encrypt` without the network: the same `ciphertext` the service would return. */
export async function encrypt(input: EncryptInput): Promise<Sealed<AeadAlgorithm>> {
  checkAlgorithm(input.algorithm);
  const encoding = checkEncoding(input.encoding);
  const key = hexField(input.key, 'key', [KEY_LENGTH]);
  const plaintext = decodeText(input.plaintext, encoding, 'plaintext');
  const aad = input.aad === undefined ? undefined : decodeText(input.aad, encoding, 'aad');
  return { ciphertext: bytesToBase64(xchachaSealBytes(key, plaintext, aad)), algorithm: AEAD_ALGORITHM };
}

/** `/v2/decrypt` without the network: the plaintext in `encoding` (utf8 by default). */
export async function decrypt(input: DecryptInput): Promise<string> {
  checkAlgorithm(input.algorithm);
  const encoding = checkEncoding(input.encoding);
  const key = hexField(input.key, 'key', [KEY_LENGTH]);
  const sealed = base64Field(input.ciphertext, 'ciphertext');
  const aad = input.aad === undefined ? undefined : decodeText(input.aad, encoding, 'aad');
  return encodeText(xchachaOpenBytes(key, sealed, aad), encoding);
}

/** `/v2/secretbox/seal`: the service serves it with the same AEAD and format as `/v2/encrypt`. */
export const secretboxSeal: (input: EncryptInput) => Promise<Sealed<AeadAlgorithm>> = encrypt;
/** `/v2/secretbox/open`. */
export const secretboxOpen: (input: DecryptInput) => Promise<string> = decrypt;
