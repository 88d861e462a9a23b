/**
 * X25519 (RFC 7748) through node:crypto (OpenSSL: constant time, and far faster than pure
 * JavaScript), for the sealed box, HPKE's DHKEM(X25519) and X-Wing.
 *
 * The one rule for low-order points: a public key of small order makes the shared secret all zero,
 * a value everyone knows, so `x25519` refuses it, whether OpenSSL fails the derivation (as it does)
 * or a build hands back the zeros. The refusal depends only on the public key, never on a secret.
 * That is libsodium's crypto_scalarmult, RFC 9180 §7.1.4 and X-Wing alike; what a refusal means
 * is the caller's to say: an INVALID_INPUT naming the key's field when the caller sent the key, the
 * one DECRYPTION_FAILED when the key came inside a ciphertext.
 *
 * A recipient's public key, the one a caller encrypts to, is imported through a cache
 * (public-key-cache.ts): callers seal to the same few keys again and again, and an import is a
 * large part of a seal. The ephemeral keys inside ciphertexts are new every time, so they are
 * imported directly.
 */
import { diffieHellman, type KeyObject } from 'node:crypto';
import { asBytes, isAllZero } from './bytes.ts';
import { wipe } from './ct.ts';
import { tryOrThrow } from './errors.ts';
import { okpPrivateKeyObject, okpPublicKeyObject, okpRawPublicKey, X25519_CURVE } from './okp.ts';
import { PublicKeyCache } from './public-key-cache.ts';

export const X25519_KEY_LENGTH = X25519_CURVE.privateKeyLength;

const recipientKeys = new PublicKeyCache(256);

/** A private KeyObject from a raw 32-byte X25519 private key. */
export function x25519PrivateKeyObject(privateKey: Uint8Array): KeyObject {
  return okpPrivateKeyObject(X25519_CURVE, privateKey);
}

/**
 * A public KeyObject from a raw 32-byte X25519 public key: through the cache when it is a
 * recipient's key the caller sent, imported directly otherwise.
 */
export function x25519PublicKeyObject(publicKey: Uint8Array, isRecipient: boolean): KeyObject {
  const load = () => okpPublicKeyObject(X25519_CURVE, publicKey);
  return isRecipient ? recipientKeys.get('x25519', publicKey, load) : load();
}

/** The raw public key of an X25519 KeyObject, public or private. */
export function x25519PublicKeyBytes(key: KeyObject): Uint8Array {
  return okpRawPublicKey(X25519_CURVE, key);
}

/** X25519(k, 9): the public key of a raw 32-byte private key (RFC 7748 §6.1). */
export function x25519PublicKeyOf(privateKey: Uint8Array): Uint8Array {
  return x25519PublicKeyBytes(x25519PrivateKeyObject(privateKey));
}

export interface X25519Options {
  /** The public key is a recipient's key that the caller sent: imported through the cache. */
  readonly isRecipient?: boolean;
}

/**
 * X25519(privateKey, publicKey), the 32-byte shared secret. A low-order public key is refused by
 * throwing `refusal()` (see the top of this file); any other failure is unexpected and propagates
 * with the frames of this call. The caller wipes the result.
 */
export function x25519(
  privateKey: KeyObject,
  publicKey: Uint8Array,
  refusal: () => Error,
  options: X25519Options = {},
): Uint8Array {
  const shared = tryOrThrow(
    () =>
      asBytes(diffieHellman({ privateKey, publicKey: x25519PublicKeyObject(publicKey, options.isRecipient === true) })),
    // OpenSSL's refusal of an all-zero result; the caller's error replaces it (tryOrThrow: no stack).
    (error) => ((error as { code?: unknown }).code === 'ERR_OSSL_FAILED_DURING_DERIVATION' ? refusal() : error),
  );
  if (isAllZero(shared)) {
    wipe(shared);
    throw refusal();
  }
  return shared;
}
