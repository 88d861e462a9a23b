/**
 * Anonymous public-key encryption: libsodium's crypto_box_seal, the format of `/v2/sealedbox/seal`
 * and `/open`.
 *
 *   sealed = epk (32 B) ‖ crypto_box_easy(m, nonce, recipient pk, esk)
 *   crypto_box_easy = XSalsa20-Poly1305 with the tag first (tag 16 B ‖ ciphertext), keyed with
 *                     crypto_box_beforenm = HSalsa20(X25519(esk, pk), 16 zero bytes)
 *   nonce = BLAKE2b-192(epk ‖ recipient pk), unkeyed
 *
 * X25519 is x25519.ts's (node:crypto). XSalsa20, HSalsa20 and BLAKE2b with a 24-byte output are
 * not in OpenSSL, so they come from @noble/ciphers and @noble/hashes.
 *
 * A low-order recipient key makes the X25519 output all zero, so the box key would be known to
 * everyone; libsodium refuses it (crypto_scalarmult returns -1), and so do we (x25519.ts's rule):
 * INVALID_INPUT on seal, the one DECRYPTION_FAILED on open.
 */
import { generateKeyPairSync } from 'node:crypto';
import { xsalsa20poly1305 } from '@noble/ciphers/salsa.js';
import { blake2b } from '@noble/hashes/blake2.js';
import { concatBytes } from './bytes.ts';
import { checkLength } from './checks.ts';
import { wipe } from './ct.ts';
import { decryptionFailed, invalidInput, openOrFail } from './errors.ts';
import { hsalsa20 } from './hchacha-hsalsa.ts';
import { x25519, x25519PrivateKeyObject, x25519PublicKeyBytes, X25519_KEY_LENGTH } from './x25519.ts';

/** The identifier of this module's box, the one `/v2/sealedbox/seal` answers with. */
export const X25519_SEALED_BOX = 'x25519-xsalsa20-poly1305' as const;
/** The identifiers of `/v2/sealedbox/seal|open` (the post-quantum box has its own family, sealedbox-pq.ts). */
export const SEALED_BOX_ALGORITHM_IDS = [X25519_SEALED_BOX] as const;
export type SealedBoxAlgorithm = (typeof SEALED_BOX_ALGORITHM_IDS)[number];

export const SEALED_BOX_KEY_LENGTH = X25519_KEY_LENGTH;
const BOX_TAG_LENGTH = 16;
/** Bytes that sealing adds to a message: the ephemeral public key and the Poly1305 tag. */
export const SEALED_BOX_OVERHEAD = SEALED_BOX_KEY_LENGTH + BOX_TAG_LENGTH;
const BOX_NONCE_LENGTH = 24;

const HSALSA_ZERO_NONCE = new Uint8Array(16);

function lowOrderPoint(publicKeyField: string): Error {
  return invalidInput(
    `${publicKeyField.replace(/^\//, '')} is a low-order X25519 point: it gives an all-zero shared secret`,
    publicKeyField,
  );
}

/**
 * X25519(secretKey, publicKey) (RFC 7748), the function the sealed box uses. An all-zero result is
 * refused with INVALID_INPUT naming `publicKeyField`. Exported for the Wycheproof suite.
 */
export function sealedBoxX25519(
  secretKey: Uint8Array,
  publicKey: Uint8Array,
  publicKeyField = '/publicKey',
): Uint8Array {
  checkLength(secretKey, SEALED_BOX_KEY_LENGTH, 'secretKey');
  checkLength(publicKey, SEALED_BOX_KEY_LENGTH, publicKeyField.replace(/^\//, ''));
  return x25519(x25519PrivateKeyObject(secretKey), publicKey, () => lowOrderPoint(publicKeyField));
}

/** crypto_box_beforenm's second half: HSalsa20 of the shared secret with a zero nonce. */
function boxKey(shared: Uint8Array): Uint8Array {
  return hsalsa20(shared, HSALSA_ZERO_NONCE);
}

/** crypto_box_seal_nonce: BLAKE2b with a 24-byte output of epk ‖ recipient pk. */
function sealNonce(ephemeralPublicKey: Uint8Array, recipientPublicKey: Uint8Array): Uint8Array {
  return blake2b.create({ dkLen: BOX_NONCE_LENGTH }).update(ephemeralPublicKey).update(recipientPublicKey).digest();
}

/** Seals `plaintext` to an X25519 public key; the result is `SEALED_BOX_OVERHEAD` bytes longer. */
export function sealBox(recipientPublicKey: Uint8Array, plaintext: Uint8Array): Uint8Array {
  checkLength(recipientPublicKey, SEALED_BOX_KEY_LENGTH, 'publicKey');
  // OpenSSL draws the ephemeral secret and keeps it: it never enters the JavaScript heap, and the
  // KeyObject is dropped when this call returns.
  const ephemeral = generateKeyPairSync('x25519');
  const ephemeralPublicKey = x25519PublicKeyBytes(ephemeral.publicKey);
  const shared = x25519(ephemeral.privateKey, recipientPublicKey, () => lowOrderPoint('/publicKey'), {
    isRecipient: true,
  });
  const key = boxKey(shared);
  try {
    const box = xsalsa20poly1305(key, sealNonce(ephemeralPublicKey, recipientPublicKey)).encrypt(plaintext);
    return concatBytes(ephemeralPublicKey, box);
  } finally {
    wipe(shared, key);
  }
}

/**
 * Opens a sealed box with the recipient's X25519 private key. Every failure (too short, low-order
 * ephemeral key, wrong key, tampered) throws the same DECRYPTION_FAILED: no oracle.
 */
export function openBox(recipientPrivateKey: Uint8Array, sealed: Uint8Array): Uint8Array {
  checkLength(recipientPrivateKey, SEALED_BOX_KEY_LENGTH, 'privateKey');
  if (sealed.byteLength < SEALED_BOX_OVERHEAD) throw decryptionFailed();
  const privateKey = x25519PrivateKeyObject(recipientPrivateKey);
  const recipientPublicKey = x25519PublicKeyBytes(privateKey);
  const ephemeralPublicKey = sealed.subarray(0, SEALED_BOX_KEY_LENGTH);
  const shared = x25519(privateKey, ephemeralPublicKey, decryptionFailed);
  const key = boxKey(shared);
  try {
    return openOrFail(() =>
      xsalsa20poly1305(key, sealNonce(ephemeralPublicKey, recipientPublicKey)).decrypt(
        sealed.subarray(SEALED_BOX_KEY_LENGTH),
      ),
    );
  } finally {
    wipe(shared, key);
  }
}
