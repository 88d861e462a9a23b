/**
 * libsodium's crypto_box_seal, the format of `/v2/sealedbox/seal` and `/open`:
 *
 *   sealed = epk (32 B) ‖ tag (16 B) ‖ XSalsa20 ciphertext
 *   key    = HSalsa20(X25519(esk, pk), 16 zero bytes)      (crypto_box_beforenm)
 *   nonce  = BLAKE2b-192(epk ‖ recipient pk)
 *
 * Web Crypto's X25519 is not in every target browser, and XSalsa20 and BLAKE2b are in none, so all
 * of it is @noble's. A low-order key (an all-zero shared secret) is refused, as libsodium does.
 */
import { hsalsa, xsalsa20poly1305 } from '@noble/ciphers/salsa.js';
import { x25519 } from '@noble/curves/ed25519.js';
import { blake2b } from '@noble/hashes/blake2.js';
import type { Sealed } from './aead.ts';
import {
  base64Field,
  bytesToBase64,
  checkEncoding,
  concatBytes,
  decodeText,
  encodeText,
  hexField,
  type BinaryInput,
  type TextEncoding,
} from './encoding.ts';
import { decryptionFailed, invalidInput, openOrFail, unsupportedAlgorithm } from './errors.ts';
import { randomBytes } from './random.ts';

export const SEALED_BOX_ALGORITHM = 'x25519-xsalsa20-poly1305';
export type SealedBoxAlgorithm = typeof SEALED_BOX_ALGORITHM;

const KEY_LENGTH = 32;
const TAG_LENGTH = 16;
const NONCE_LENGTH = 24;
/** "expand 32-byte k" as little-endian words: HSalsa20's constant. */
const SIGMA = new Uint32Array([0x61707865, 0x3320646e, 0x79622d32, 0x6b206574]);

/** The body of `POST /v2/sealedbox/seal`. */
export interface SealedBoxSealInput {
  /** The recipient's 32-byte X25519 public key: hex, or bytes. */
  publicKey: BinaryInput;
  plaintext: BinaryInput;
  encoding?: TextEncoding;
  algorithm?: SealedBoxAlgorithm;
}

/** The body of `POST /v2/sealedbox/open`. */
export interface SealedBoxOpenInput {
  /** The recipient's 32-byte X25519 private key: hex, or bytes. */
  privateKey: BinaryInput;
  ciphertext: BinaryInput;
  encoding?: TextEncoding;
  algorithm?: SealedBoxAlgorithm;
}

function checkAlgorithm(algorithm: string | undefined): void {
  if (algorithm !== undefined && algorithm !== SEALED_BOX_ALGORITHM) {
    throw unsupportedAlgorithm(`unsupported sealed box algorithm; use ${SEALED_BOX_ALGORITHM}`);
  }
}

function littleEndianWords(bytes: Uint8Array): Uint32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return Uint32Array.from({ length: bytes.byteLength / 4 }, (_, index) => view.getUint32(4 * index, true));
}

/** crypto_box_beforenm's second half: HSalsa20 of the shared secret under a zero nonce. */
function boxKey(shared: Uint8Array): Uint8Array {
  const out = new Uint32Array(8);
  hsalsa(SIGMA, littleEndianWords(shared), new Uint32Array(4), out);
  const key = new Uint8Array(32);
  const view = new DataView(key.buffer);
  out.forEach((word, index) => view.setUint32(4 * index, word, true));
  out.fill(0);
  return key;
}

function sealNonce(ephemeralPublicKey: Uint8Array, recipientPublicKey: Uint8Array): Uint8Array {
  return blake2b(concatBytes(ephemeralPublicKey, recipientPublicKey), { dkLen: NONCE_LENGTH });
}

/** X25519 that refuses an all-zero result, as libsodium's crypto_scalarmult does. */
function sharedSecret(secretKey: Uint8Array, publicKey: Uint8Array): Uint8Array | undefined {
  try {
    return x25519.getSharedSecret(secretKey, publicKey);
  } catch {
    return undefined;
  }
}

/** Seals bytes to an X25519 public key: 48 bytes longer than the message. */
export function sealBoxBytes(recipientPublicKey: Uint8Array, plaintext: Uint8Array): Uint8Array {
  const ephemeralSecretKey = randomBytes(KEY_LENGTH);
  try {
    const ephemeralPublicKey = x25519.getPublicKey(ephemeralSecretKey);
    const shared = sharedSecret(ephemeralSecretKey, recipientPublicKey);
    if (shared === undefined) {
      throw invalidInput('publicKey is a low-order X25519 point: it gives an all-zero shared secret', 'publicKey');
    }
    const key = boxKey(shared);
    shared.fill(0);
    const box = xsalsa20poly1305(key, sealNonce(ephemeralPublicKey, recipientPublicKey)).encrypt(plaintext);
    key.fill(0);
    return concatBytes(ephemeralPublicKey, box);
  } finally {
    ephemeralSecretKey.fill(0);
  }
}

/** Opens a sealed box with the recipient's X25519 private key; every failure is DECRYPTION_FAILED. */
export function openBoxBytes(recipientPrivateKey: Uint8Array, sealed: Uint8Array): Uint8Array {
  if (sealed.byteLength < KEY_LENGTH + TAG_LENGTH) throw decryptionFailed();
  const recipientPublicKey = x25519.getPublicKey(recipientPrivateKey);
  const ephemeralPublicKey = sealed.subarray(0, KEY_LENGTH);
  const shared = sharedSecret(recipientPrivateKey, ephemeralPublicKey);
  if (shared === undefined) throw decryptionFailed();
  const key = boxKey(shared);
  shared.fill(0);
  try {
    return openOrFail(() =>
      xsalsa20poly1305(key, sealNonce(ephemeralPublicKey, recipientPublicKey)).decrypt(sealed.subarray(KEY_LENGTH)),
    );
  } finally {
    key.fill(0);
  }
}

/** `/v2/sealedbox/seal` without the network. */
export async function sealedBoxSeal(input: SealedBoxSealInput): Promise<Sealed<SealedBoxAlgorithm>> {
  checkAlgorithm(input.algorithm);
  const encoding = checkEncoding(input.encoding);
  const publicKey = hexField(input.publicKey, 'publicKey', [KEY_LENGTH]);
  const plaintext = decodeText(input.plaintext, encoding, 'plaintext');
  return { ciphertext: bytesToBase64(sealBoxBytes(publicKey, plaintext)), algorithm: SEALED_BOX_ALGORITHM };
}

/** `/v2/sealedbox/open` without the network: the plaintext in `encoding` (utf8 by default). */
export async function sealedBoxOpen(input: SealedBoxOpenInput): Promise<string> {
  checkAlgorithm(input.algorithm);
  const encoding = checkEncoding(input.encoding);
  const privateKey = hexField(input.privateKey, 'privateKey', [KEY_LENGTH]);
  const sealed = base64Field(input.ciphertext, 'ciphertext');
  return encodeText(openBoxBytes(privateKey, sealed), encoding);
}
