/**
 * Every constant-time comparison and every wipe of secret bytes lives in this file, so that a
 * reviewer finds them in one place.
 *
 * Limits, stated honestly (see also the README): JavaScript cannot promise that a secret is gone
 * from memory. Strings are immutable and may be copied by the engine; the garbage collector may
 * have moved a buffer before it was wiped. Wiping narrows the window; it does not close it.
 */
import { timingSafeEqual } from 'node:crypto';
import { oneShotDigest } from './hash.ts';

/**
 * Compares two byte strings in time that depends only on their length. Use it where the length is
 * public (a MAC or tag of a known algorithm); a length mismatch returns false at once.
 */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) {
    return false;
  }
  return timingSafeEqual(a, b);
}

/**
 * SHA-256 of a secret, kept instead of the secret for later comparison with `matchesSecret`.
 * Through oneShotDigest (hash.ts): no Hash object and no Buffer, each of which would cost about
 * a µs, and every API-key request computes one fingerprint.
 */
export function secretFingerprint(secret: Uint8Array): Uint8Array {
  return oneShotDigest('sha256', secret);
}

/**
 * Compares a candidate with a secret whose length must not leak either (an API key): both sides
 * are fixed-length digests, so the comparison takes the same time for every candidate.
 */
export function matchesSecret(candidate: Uint8Array, expectedFingerprint: Uint8Array): boolean {
  return timingSafeEqual(secretFingerprint(candidate), expectedFingerprint);
}

/** Overwrites secret bytes with zeros. Call it in a `finally` once a key is no longer needed. */
export function wipe(...buffers: (Uint8Array | undefined)[]): void {
  for (const buffer of buffers) {
    buffer?.fill(0);
  }
}
