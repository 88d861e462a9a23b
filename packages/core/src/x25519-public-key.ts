/**
 * X25519 public keys as node:crypto KeyObjects, for the three modules that do X25519 through
 * OpenSSL (sealedbox.ts, hpke.ts, xwing.ts). A raw 32-byte key is imported in its SPKI framing
 * (RFC 8410), which Node 22 reads as well as Node 24 (Node 22 has no raw import).
 *
 * A recipient's key, the one a caller encrypts to, goes through a cache (public-key-cache.ts):
 * callers seal to the same few keys again and again, and an import cost 26 µs in a loop and
 * about 84 µs in the server on Node 24 (docs/performance.md; less since node-crypto.ts imports
 * without stack traces, 12 µs in a loop, but never nothing). The ephemeral keys inside
 * ciphertexts are new every time and are imported directly.
 */
import type { KeyObject } from 'node:crypto';
import { createPublicKey } from './node-crypto.ts';
import { PublicKeyCache } from './public-key-cache.ts';

/** The DER prefix of an X25519 SubjectPublicKeyInfo; the raw key follows it. */
export const X25519_SPKI_PREFIX = Uint8Array.from([0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x6e, 0x03, 0x21, 0x00]);

const recipientKeys = new PublicKeyCache(256);

function importX25519PublicKey(raw: Uint8Array): KeyObject {
  return createPublicKey({ key: Buffer.concat([X25519_SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
}

/**
 * The KeyObject of a raw X25519 public key: through the cache when it is a recipient's key the
 * caller sent, imported directly otherwise. Throws what createPublicKey throws.
 */
export function x25519PublicKeyObject(raw: Uint8Array, isRecipient: boolean): KeyObject {
  return isRecipient ? recipientKeys.get('x25519', raw, () => importX25519PublicKey(raw)) : importX25519PublicKey(raw);
}
