/**
 * Anonymous public-key encryption: libsodium's crypto_box_seal, the format of `/v2/sealedbox/seal`
 * and `/open` (contract §6).
 *
 *   sealed = epk (32 B) ‖ crypto_box_easy(m, nonce, recipient pk, esk)
 *   crypto_box_easy = XSalsa20-Poly1305 with the tag first (tag 16 B ‖ ciphertext), keyed with
 *                     crypto_box_beforenm = HSalsa20(X25519(esk, pk), 16 zero bytes)
 *   nonce = BLAKE2b-192(epk ‖ recipient pk), unkeyed
 *
 * X25519 is node:crypto's (OpenSSL: constant-time, and 10–33× faster than @noble with cached keys,
 * about half that with the per-call raw-key import done here; see the shared node-crypto notes).
 * XSalsa20, HSalsa20 and BLAKE2b with a 24-byte output are not in OpenSSL, so they come from
 * @noble/ciphers and @noble/hashes.
 *
 * A low-order recipient key makes the X25519 output all zero, so the box key would be known to
 * everyone; libsodium refuses it (crypto_scalarmult returns -1), and so do we: INVALID_INPUT on
 * seal, the one DECRYPTION_FAILED on open.
 */
import { diffieHellman, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createPrivateKey, createPublicKey } from './node-crypto.ts';
import { hsalsa, xsalsa20poly1305 } from '@noble/ciphers/salsa.js';
import { blake2b } from '@noble/hashes/blake2.js';
import { checkLength } from './checks.ts';
import { wipe } from './ct.ts';
import { CryptoError, decryptionFailed, invalidInput, openOrFail, tryOrThrow } from './errors.ts';
import { PQ_SEALED_BOX } from './sealedbox-pq.ts';
import { x25519PublicKeyObject } from './x25519-public-key.ts';

/** The identifier of this module's box, the one `/v2/sealedbox/seal` answers with. */
export const X25519_SEALED_BOX = 'x25519-xsalsa20-poly1305' as const;
/**
 * The identifiers of `/v2/sealedbox/*`: this box (`seal` / `open`) and the post-quantum one of
 * sealedbox-pq.ts (`seal-pq` / `open-pq`, HPKE with X-Wing).
 */
export const SEALED_BOX_ALGORITHM_IDS = [X25519_SEALED_BOX, PQ_SEALED_BOX] as const;
export type SealedBoxAlgorithm = (typeof SEALED_BOX_ALGORITHM_IDS)[number];

export const SEALED_BOX_KEY_LENGTH = 32;
const BOX_TAG_LENGTH = 16;
/** Bytes that sealing adds to a message: the ephemeral public key and the Poly1305 tag. */
export const SEALED_BOX_OVERHEAD = SEALED_BOX_KEY_LENGTH + BOX_TAG_LENGTH;
const BOX_NONCE_LENGTH = 24;

// The DER wrapper that turns a raw 32-byte X25519 private key into PKCS#8 (public keys:
// x25519-public-key.ts). Node 22 has no 'raw-private' key format, and this works on both runtimes,
// so there is one code path.
const PKCS8_X25519_PREFIX = Uint8Array.from(Buffer.from('302e020100300506032b656e04220420', 'hex'));

// "expand 32-byte k" as four little-endian words: HSalsa20's constant, as in crypto_core_hsalsa20.
const SIGMA = new Uint32Array([0x61707865, 0x3320646e, 0x79622d32, 0x6b206574]);
const HSALSA_ZERO_NONCE = new Uint32Array(4);

function privateKeyObject(secretKey: Uint8Array): KeyObject {
  const der = new Uint8Array(PKCS8_X25519_PREFIX.byteLength + SEALED_BOX_KEY_LENGTH);
  der.set(PKCS8_X25519_PREFIX, 0);
  der.set(secretKey, PKCS8_X25519_PREFIX.byteLength);
  try {
    return createPrivateKey({ key: Buffer.from(der.buffer, der.byteOffset, der.byteLength), format: 'der', type: 'pkcs8' });
  } finally {
    // OpenSSL has parsed its own copy; ours holds the secret key and is not needed any more.
    wipe(der);
  }
}

/** The raw 32-byte public key: the tail of the SPKI encoding (no raw export on Node 22). */
function rawPublicKey(key: KeyObject): Uint8Array {
  const der = key.export({ format: 'der', type: 'spki' });
  return Uint8Array.from(der.subarray(der.byteLength - SEALED_BOX_KEY_LENGTH));
}

function isAllZero(bytes: Uint8Array): boolean {
  // Accumulate over every byte rather than stop at the first non-zero one: the value is secret.
  let accumulator = 0;
  for (const byte of bytes) accumulator |= byte;
  return accumulator === 0;
}

/**
 * X25519 through OpenSSL. OpenSSL refuses an all-zero result (a low-order public key) with
 * ERR_OSSL_FAILED_DURING_DERIVATION; that, and an all-zero result should another build return one,
 * become INVALID_INPUT naming `publicKeyField` (tryOrThrow: OpenSSL's error, discarded, costs no
 * stack). Any other failure is unexpected and propagates with the frames of this call.
 */
function agree(privateKey: KeyObject, publicKey: Uint8Array, publicKeyField: string, isRecipient = false): Uint8Array {
  const lowOrder = () => invalidInput(`${publicKeyField.replace(/^\//, '')} is a low-order X25519 point: it gives an all-zero shared secret`, publicKeyField);
  const shared = tryOrThrow(() => {
    const buffer = diffieHellman({ privateKey, publicKey: x25519PublicKeyObject(publicKey, isRecipient) });
    return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  }, (error) => ((error as { code?: unknown }).code === 'ERR_OSSL_FAILED_DURING_DERIVATION' ? lowOrder() : error));
  if (isAllZero(shared)) throw lowOrder();
  return shared;
}

/**
 * X25519(secretKey, publicKey) (RFC 7748), the function the sealed box uses. An all-zero result is
 * refused with INVALID_INPUT naming `publicKeyField`. Exported for the Wycheproof suite.
 */
export function sealedBoxX25519(secretKey: Uint8Array, publicKey: Uint8Array, publicKeyField = '/publicKey'): Uint8Array {
  checkLength(secretKey, SEALED_BOX_KEY_LENGTH, 'secretKey');
  checkLength(publicKey, SEALED_BOX_KEY_LENGTH, publicKeyField.replace(/^\//, ''));
  return agree(privateKeyObject(secretKey), publicKey, publicKeyField);
}

function littleEndianWords(bytes: Uint8Array): Uint32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const words = new Uint32Array(bytes.byteLength / 4);
  for (let i = 0; i < words.length; i++) words[i] = view.getUint32(i * 4, true);
  return words;
}

/** crypto_box_beforenm's second half: HSalsa20 of the shared secret with a zero nonce. */
function boxKey(shared: Uint8Array): Uint8Array {
  const keyWords = littleEndianWords(shared);
  const out = new Uint32Array(8);
  hsalsa(SIGMA, keyWords, HSALSA_ZERO_NONCE, out);
  const key = new Uint8Array(32);
  const view = new DataView(key.buffer);
  for (let i = 0; i < 8; i++) view.setUint32(i * 4, out[i] ?? 0, true);
  keyWords.fill(0);
  out.fill(0);
  return key;
}

/** crypto_box_seal_nonce: BLAKE2b with a 24-byte output of epk ‖ recipient pk. */
function sealNonce(ephemeralPublicKey: Uint8Array, recipientPublicKey: Uint8Array): Uint8Array {
  return blake2b.create({ dkLen: BOX_NONCE_LENGTH }).update(ephemeralPublicKey).update(recipientPublicKey).digest();
}

/** Seals `plaintext` to an X25519 public key; the result is `SEALED_BOX_OVERHEAD` bytes longer. */
export function sealBox(recipientPublicKey: Uint8Array, plaintext: Uint8Array): Uint8Array {
  checkLength(recipientPublicKey, SEALED_BOX_KEY_LENGTH, 'recipientPublicKey');
  // OpenSSL draws the ephemeral secret and keeps it: it never enters the JavaScript heap, and the
  // KeyObject is dropped when this call returns.
  const ephemeral = generateKeyPairSync('x25519');
  const ephemeralPublicKey = rawPublicKey(ephemeral.publicKey);
  const shared = agree(ephemeral.privateKey, recipientPublicKey, '/recipientPublicKey', true);
  const key = boxKey(shared);
  try {
    const box = xsalsa20poly1305(key, sealNonce(ephemeralPublicKey, recipientPublicKey)).encrypt(plaintext);
    const out = new Uint8Array(SEALED_BOX_KEY_LENGTH + box.byteLength);
    out.set(ephemeralPublicKey, 0);
    out.set(box, SEALED_BOX_KEY_LENGTH);
    return out;
  } finally {
    wipe(shared, key);
  }
}

/**
 * Opens a sealed box with the recipient's X25519 secret key. Every failure (too short, low-order
 * ephemeral key, wrong key, tampered) throws the same DECRYPTION_FAILED: no oracle.
 */
export function openBox(recipientSecretKey: Uint8Array, sealed: Uint8Array): Uint8Array {
  checkLength(recipientSecretKey, SEALED_BOX_KEY_LENGTH, 'recipientSecretKey');
  if (sealed.byteLength < SEALED_BOX_OVERHEAD) throw decryptionFailed();
  const privateKey = privateKeyObject(recipientSecretKey);
  const recipientPublicKey = rawPublicKey(createPublicKey(privateKey));
  const ephemeralPublicKey = sealed.subarray(0, SEALED_BOX_KEY_LENGTH);
  let shared: Uint8Array;
  try {
    shared = agree(privateKey, ephemeralPublicKey, '/sealed');
  } catch (error) {
    if (error instanceof CryptoError) throw decryptionFailed();
    throw error;
  }
  const key = boxKey(shared);
  try {
    return openOrFail(() => xsalsa20poly1305(key, sealNonce(ephemeralPublicKey, recipientPublicKey)).decrypt(sealed.subarray(SEALED_BOX_KEY_LENGTH)));
  } finally {
    wipe(shared, key);
  }
}
