/**
 * Every constant-time comparison and every wipe of secret bytes lives in this file, so that a
 * reviewer finds them in one place.
 *
 * Limits, stated honestly (see also the README): JavaScript cannot promise that a secret is gone
 * from memory. Strings are immutable and may be copied by the engine; the garbage collector may
 * have moved a buffer before it was wiped. Wiping narrows the window; it does not close it.
 */
import { timingSafeEqual } from 'node:crypto';

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

/** The smallest room a SecretSet leaves for a secret: an API key of 32 random bytes is 43–64 characters. */
export const SECRET_SET_MINIMUM_BYTES = 256;
/** Each padded secret starts with its length, big-endian. */
const LENGTH_BYTES = 4;
/** The most bytes of UTF-8 one character takes: the slack that tells a whole candidate from a cut one. */
const MAX_UTF8_CHARACTER_BYTES = 4;

/**
 * Secrets (API keys) to check a candidate against, so that the time taken depends neither on any
 * secret's content nor on its length, nor on which secret matched.
 *
 * Every secret is kept padded to one fixed size: its length, its bytes, zeros. A candidate is
 * written the same way into a scratch buffer of that size and compared with every padded secret by
 * `timingSafeEqual`, without stopping at the first match; the scratch is zeroed again afterwards.
 * The size is SECRET_SET_MINIMUM_BYTES, more only when a secret is longer (then the next power of
 * two), so it reveals nothing of the secrets' lengths below that, and above it only the power of
 * two. The time does depend on the candidate's own length, which whoever sent it knows.
 *
 * Why not a digest of each side, compared in constant time: it keeps the same properties at about
 * twice the cost, a SHA-256 per request.
 */
export class SecretSet {
  readonly #padded: Buffer[];
  /** Where a candidate is padded; zeros between two calls. */
  readonly #scratch: Buffer;
  /** The longest candidate that can still match: any longer is not written whole. */
  readonly #room: number;

  constructor(secrets: readonly Uint8Array[]) {
    // The room is public: a candidate longer than it is refused sooner. Rounded up to a power of
    // two, it says of a secret longer than the minimum only that it is (257–512 bytes, say).
    let room = SECRET_SET_MINIMUM_BYTES;
    while (secrets.some((secret) => secret.byteLength > room)) room *= 2;
    this.#room = room;
    const size = LENGTH_BYTES + room + MAX_UTF8_CHARACTER_BYTES;
    this.#scratch = Buffer.alloc(size);
    this.#padded = secrets.map((secret) => {
      // An empty key would let in an empty header: no credential at all.
      if (secret.byteLength === 0) throw new RangeError('a secret must not be empty');
      const padded = Buffer.alloc(size);
      padded.writeUInt32BE(secret.byteLength, 0);
      padded.set(secret, LENGTH_BYTES);
      return padded;
    });
  }

  /** The size every secret is padded to: the same for every set of secrets that fit the minimum. */
  get paddedBytes(): number {
    return this.#scratch.byteLength;
  }

  /** How many secrets there are. */
  get count(): number {
    return this.#padded.length;
  }

  /** Whether `candidate`, encoded as UTF-8, is one of the secrets. */
  matches(candidate: string): boolean {
    // A string has at least as many UTF-8 bytes as UTF-16 units: one this long cannot fit.
    if (candidate.length > this.#room) return false;
    const scratch = this.#scratch;
    // Bytes past what the candidate wrote are still zero from the last call: only these are wiped.
    let written = scratch.byteLength - LENGTH_BYTES;
    try {
      // Buffer.write stops before a character that does not fit. The room leaves space for one more
      // character of any size, so a candidate that fits the room is always written whole, and one
      // written past the room is longer than every secret.
      written = scratch.write(candidate, LENGTH_BYTES, 'utf8');
      if (written > this.#room) return false;
      scratch.writeUInt32BE(written, 0);
      // Every comparison runs and is combined without a branch on its result.
      let matched = 0;
      for (const padded of this.#padded) {
        matched |= Number(timingSafeEqual(scratch, padded));
      }
      return matched === 1;
    } finally {
      scratch.fill(0, 0, LENGTH_BYTES + written);
    }
  }
}

/** Overwrites secret bytes with zeros. Call it in a `finally` once a key is no longer needed. */
export function wipe(...buffers: (Uint8Array | undefined)[]): void {
  for (const buffer of buffers) {
    buffer?.fill(0);
  }
}
