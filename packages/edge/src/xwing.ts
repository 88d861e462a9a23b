/**
 * X-Wing (draft-connolly-cfrg-xwing-kem), the hybrid KEM of the post-quantum sealed box:
 * ML-KEM-768 and X25519 joined by a SHA3-256 combiner. Keys and ciphertexts:
 *
 *   public key  ML-KEM-768 pk (1184 B) ‖ X25519 pk (32 B)
 *   private key the 32-byte seed; SHAKE256(seed, 96) = ML-KEM seed (64 B) ‖ X25519 sk (32 B)
 *   ciphertext  ML-KEM-768 ct (1088 B) ‖ X25519 ephemeral pk (32 B)
 *   secret      SHA3-256(ss_M ‖ ss_X ‖ ct_X ‖ pk_X ‖ "\.//^\")
 *
 * ML-KEM, X25519 and SHA-3 are @noble's: Web Crypto has none of them in every target runtime.
 */
import { x25519 } from '@noble/curves/ed25519.js';
import { sha3_256, shake256 } from '@noble/hashes/sha3.js';
import { ml_kem768 } from '@noble/post-quantum/ml-kem.js';
import { concatBytes, constantTimeEqual } from './encoding.ts';
import { decryptionFailed, invalidInput } from './errors.ts';
import { randomBytes } from './random.ts';

export const XWING_HPKE_KEM_ID = 0x647a;
export const XWING_SEED_LENGTH = 32;
export const XWING_CIPHERTEXT_LENGTH = 1120;
export const ML_KEM_768_PUBLIC_KEY_LENGTH = 1184;
export const ML_KEM_768_SEED_LENGTH = 64;
export const ML_KEM_768_EXPANDED_KEY_LENGTH = 2400;
export const X25519_KEY_LENGTH = 32;

const ML_KEM_768_CIPHERTEXT_LENGTH = 1088;
/** dk = dk_PKE (1152 B) ‖ ek ‖ H(ek) ‖ z (FIPS 203 Algorithm 16). */
const ML_KEM_768_DK_PKE_LENGTH = 1152;
const LABEL = Uint8Array.of(0x5c, 0x2e, 0x2f, 0x2f, 0x5e, 0x5c);

/** An X-Wing private key ready to decapsulate: the ML-KEM-768 key and the X25519 key. */
export interface XWingPrivateKey {
  mlKemSecretKey: Uint8Array;
  x25519PrivateKey: Uint8Array;
  x25519PublicKey: Uint8Array;
}

function combiner(ssM: Uint8Array, ssX: Uint8Array, ctX: Uint8Array, pkX: Uint8Array): Uint8Array {
  return sha3_256(concatBytes(ssM, ssX, ctX, pkX, LABEL));
}

/** X25519 that treats an all-zero result (a low-order point) as a failure, as the service does. */
function x25519Shared(secretKey: Uint8Array, publicKey: Uint8Array): Uint8Array | undefined {
  try {
    return x25519.getSharedSecret(secretKey, publicKey);
  } catch {
    return undefined;
  }
}

/** Encapsulate(pk) with the public key as its two parts; `field` names the key in errors. */
export function xwingEncapsulate(
  mlKemPublicKey: Uint8Array,
  x25519PublicKey: Uint8Array,
  field: { mlKem: string; x25519: string },
): { ciphertext: Uint8Array; sharedSecret: Uint8Array } {
  let mlKem;
  try {
    mlKem = ml_kem768.encapsulate(mlKemPublicKey);
  } catch {
    throw invalidInput(
      `${field.mlKem} is not a valid ML-KEM-768 encapsulation key: a coefficient is not reduced modulo q (FIPS 203 §7.2)`,
      field.mlKem,
    );
  }
  const ephemeral = randomBytes(X25519_KEY_LENGTH);
  try {
    const ctX = x25519.getPublicKey(ephemeral);
    const ssX = x25519Shared(ephemeral, x25519PublicKey);
    if (ssX === undefined) {
      throw invalidInput(
        `${field.x25519} has a low-order X25519 point: it gives an all-zero shared secret`,
        field.x25519,
      );
    }
    const sharedSecret = combiner(mlKem.sharedSecret, ssX, ctX, x25519PublicKey);
    ssX.fill(0);
    mlKem.sharedSecret.fill(0);
    return { ciphertext: concatBytes(mlKem.cipherText, ctX), sharedSecret };
  } finally {
    ephemeral.fill(0);
  }
}

/** The private key of a 32-byte X-Wing seed. */
export function xwingPrivateKeyFromSeed(seed: Uint8Array): XWingPrivateKey {
  const expanded = shake256(seed, { dkLen: 96 });
  try {
    return xwingPrivateKeyFromParts(expanded.slice(64, 96), expanded.subarray(0, 64));
  } finally {
    expanded.fill(0);
  }
}

/**
 * The private key of its two parts: the X25519 private key and the ML-KEM-768 seed (64 B) or its
 * expanded key (2400 B), whose embedded H(ek) is checked (FIPS 203 §7.3).
 */
export function xwingPrivateKeyFromParts(x25519PrivateKey: Uint8Array, mlKemPrivateKey: Uint8Array): XWingPrivateKey {
  let mlKemSecretKey: Uint8Array;
  if (mlKemPrivateKey.byteLength === ML_KEM_768_SEED_LENGTH) {
    mlKemSecretKey = ml_kem768.keygen(mlKemPrivateKey).secretKey;
  } else {
    const ek = mlKemPrivateKey.subarray(
      ML_KEM_768_DK_PKE_LENGTH,
      ML_KEM_768_DK_PKE_LENGTH + ML_KEM_768_PUBLIC_KEY_LENGTH,
    );
    const stored = mlKemPrivateKey.subarray(
      ML_KEM_768_DK_PKE_LENGTH + ML_KEM_768_PUBLIC_KEY_LENGTH,
      ML_KEM_768_DK_PKE_LENGTH + ML_KEM_768_PUBLIC_KEY_LENGTH + 32,
    );
    if (!constantTimeEqual(sha3_256(ek), stored)) {
      throw invalidInput(
        'mlKemPrivateKey is not a valid ml-kem-768 decapsulation key: its embedded H(ek) does not match (FIPS 203 §7.3)',
        'mlKemPrivateKey',
      );
    }
    mlKemSecretKey = mlKemPrivateKey.slice();
  }
  return {
    mlKemSecretKey,
    x25519PrivateKey: x25519PrivateKey.slice(),
    x25519PublicKey: x25519.getPublicKey(x25519PrivateKey),
  };
}

/** Decapsulate(ct, sk); a low-order ephemeral key is DECRYPTION_FAILED (a fault of the box). */
export function xwingDecapsulate(key: XWingPrivateKey, ciphertext: Uint8Array): Uint8Array {
  if (ciphertext.byteLength !== XWING_CIPHERTEXT_LENGTH) throw decryptionFailed();
  const ctM = ciphertext.subarray(0, ML_KEM_768_CIPHERTEXT_LENGTH);
  const ctX = ciphertext.subarray(ML_KEM_768_CIPHERTEXT_LENGTH);
  const ssM = ml_kem768.decapsulate(ctM, key.mlKemSecretKey);
  const ssX = x25519Shared(key.x25519PrivateKey, ctX);
  if (ssX === undefined) {
    ssM.fill(0);
    throw decryptionFailed();
  }
  try {
    return combiner(ssM, ssX, ctX, key.x25519PublicKey);
  } finally {
    ssM.fill(0);
    ssX.fill(0);
  }
}

export function wipeXWingPrivateKey(key: XWingPrivateKey): void {
  key.mlKemSecretKey.fill(0);
  key.x25519PrivateKey.fill(0);
}
