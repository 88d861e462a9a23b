/**
 * XChaCha20-Poly1305 (draft-irtf-cfrg-xchacha), the AEAD of `/v2/encrypt` and `/v2/secretbox`.
 * Wire format: nonce (24 B) ‖ ciphertext ‖ tag (16 B), identical to libsodium's
 * crypto_aead_xchacha20poly1305_ietf with the nonce prepended.
 *
 * Two backends with identical output: @noble/ciphers for small messages, because a native cipher
 * object costs more to set up in a busy server than pure JavaScript spends on a short message, and
 * node:crypto's chacha20-poly1305 keyed with the HChaCha20 subkey for larger ones, where OpenSSL's
 * speed per byte wins (docs/performance.md).
 */
import { createCipheriv, createDecipheriv } from './node-crypto.ts';
import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { concatBytes } from './bytes.ts';
import { checkLength } from './checks.ts';
import { wipe } from './ct.ts';
import { decryptionFailed, openOrFail } from './errors.ts';
import { hchacha20 } from './hchacha-hsalsa.ts';
import { fillNonce } from './nonces.ts';

export const XCHACHA_KEY_LENGTH = 32;
export const XCHACHA_NONCE_LENGTH = 24;
export const POLY1305_TAG_LENGTH = 16;
export const XCHACHA_OVERHEAD = XCHACHA_NONCE_LENGTH + POLY1305_TAG_LENGTH;

/** Messages at least this long go to the native backend: the crossover that bench/micro.ts measures. */
export const NATIVE_AEAD_THRESHOLD = 2048;

export type AeadBackend = 'auto' | 'native' | 'noble';

const EMPTY = new Uint8Array(0);

function nativeIv(nonce: Uint8Array): Uint8Array {
  const iv = new Uint8Array(12);
  iv.set(nonce.subarray(16, 24), 4);
  return iv;
}

/** The backend that seals or opens `length` bytes: the one asked for, else by NATIVE_AEAD_THRESHOLD. */
export function aeadBackendFor(backend: AeadBackend, length: number): 'native' | 'noble' {
  if (backend !== 'auto') return backend;
  return length >= NATIVE_AEAD_THRESHOLD ? 'native' : 'noble';
}

/**
 * ChaCha20-Poly1305 (RFC 8439) open through node:crypto: `sealed` is ciphertext ‖ tag under a
 * 12-byte nonce. Every failure is decryptionFailed() (openOrFail). xchachaOpen calls it with the
 * HChaCha20 subkey, HPKE with its own key and nonce.
 */
export function nativeChaCha20Poly1305Open(
  key: Uint8Array,
  nonce: Uint8Array,
  aad: Uint8Array,
  sealed: Uint8Array,
): Uint8Array {
  const length = sealed.byteLength - POLY1305_TAG_LENGTH;
  let unverified: Uint8Array | undefined;
  try {
    return openOrFail(() => {
      const decipher = createDecipheriv('chacha20-poly1305', key, nonce, { authTagLength: POLY1305_TAG_LENGTH });
      decipher.setAAD(aad, { plaintextLength: length });
      decipher.setAuthTag(sealed.subarray(length));
      // OpenSSL hands out plaintext before the tag is checked: wiped below in every case (the caller gets a copy).
      unverified = decipher.update(sealed.subarray(0, length));
      return concatBytes(unverified, decipher.final());
    });
  } finally {
    wipe(unverified);
  }
}

/** Encrypts and returns nonce ‖ ciphertext ‖ tag. The nonce is random unless a test supplies one. */
export function xchachaSeal(
  key: Uint8Array,
  plaintext: Uint8Array,
  aad: Uint8Array = EMPTY,
  options: { nonce?: Uint8Array; backend?: AeadBackend } = {},
): Uint8Array {
  checkLength(key, XCHACHA_KEY_LENGTH, 'key');
  if (options.nonce !== undefined) checkLength(options.nonce, XCHACHA_NONCE_LENGTH, 'nonce');
  // Nonce, ciphertext and tag are written in place, into views of the one output array: no array
  // of their own and no copy (a small array of its own would also need a backing store of its own
  // when a cipher first views it as 32-bit words, see codec.ts).
  const out = new Uint8Array(XCHACHA_OVERHEAD + plaintext.byteLength);
  const nonce = out.subarray(0, XCHACHA_NONCE_LENGTH);
  if (options.nonce === undefined) fillNonce(nonce);
  else nonce.set(options.nonce);
  if (aeadBackendFor(options.backend ?? 'auto', plaintext.byteLength) === 'noble') {
    xchacha20poly1305(key, nonce, aad).encrypt(plaintext, out.subarray(XCHACHA_NONCE_LENGTH));
    return out;
  }
  const subkey = hchacha20(key, nonce.subarray(0, 16));
  try {
    const cipher = createCipheriv('chacha20-poly1305', subkey, nativeIv(nonce), { authTagLength: POLY1305_TAG_LENGTH });
    cipher.setAAD(aad, { plaintextLength: plaintext.byteLength });
    const body = cipher.update(plaintext);
    out.set(body, XCHACHA_NONCE_LENGTH);
    const final = cipher.final();
    out.set(final, XCHACHA_NONCE_LENGTH + body.byteLength);
    out.set(cipher.getAuthTag(), XCHACHA_NONCE_LENGTH + plaintext.byteLength);
    return out;
  } finally {
    wipe(subkey);
  }
}

/**
 * Decrypts nonce ‖ ciphertext ‖ tag. Every failure (too short, wrong key, tampered, wrong AAD)
 * throws the same DECRYPTION_FAILED error: no oracle.
 */
export function xchachaOpen(
  key: Uint8Array,
  sealed: Uint8Array,
  aad: Uint8Array = EMPTY,
  options: { backend?: AeadBackend } = {},
): Uint8Array {
  checkLength(key, XCHACHA_KEY_LENGTH, 'key');
  if (sealed.byteLength < XCHACHA_OVERHEAD) throw decryptionFailed();
  const nonce = sealed.subarray(0, XCHACHA_NONCE_LENGTH);
  const body = sealed.subarray(XCHACHA_NONCE_LENGTH);
  if (aeadBackendFor(options.backend ?? 'auto', body.byteLength - POLY1305_TAG_LENGTH) === 'noble') {
    return openOrFail(() => xchacha20poly1305(key, nonce, aad).decrypt(body));
  }
  const subkey = hchacha20(key, nonce.subarray(0, 16));
  try {
    return nativeChaCha20Poly1305Open(subkey, nativeIv(nonce), aad, body);
  } finally {
    wipe(subkey);
  }
}

/** The AEAD identifiers that `/v2/encrypt` and `/v2/secretbox` accept. */
export const AEAD_ALGORITHM_IDS = ['xchacha20-poly1305'] as const;
