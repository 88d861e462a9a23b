/**
 * A bounded LRU of imported public KeyObjects, by algorithm and exact key bytes: what signature
 * verification, the post-quantum modules and X25519 (x25519.ts) keep so that a caller who uses one
 * public key again does not pay its import again, a large part of a verification or an
 * encapsulation.
 *
 * Safe: a public key is not secret; the cache key is the whole key (no hash, so no collision to
 * argue about) and the value a pure function of it, so a hit returns the very key the bytes
 * describe; only keys that imported successfully are kept; the size is bounded, so a caller can
 * only evict entries, which costs speed, never correctness. Private keys never go here: the
 * service keeps no secret beyond the request that carried it, and a lookup keyed by a secret
 * (a string comparison) would be a timing signal about it. What a hit's speed does show is that a
 * key was used recently: a caller who times a request can tell whether someone else verified
 * against, or encrypted to, that public key lately. That is metadata about public keys, not a
 * secret, and the trade is taken for the speed.
 */
import type { KeyObject } from 'node:crypto';
import { asBuffer } from './bytes.ts';

export class PublicKeyCache {
  readonly #entries = new Map<string, KeyObject>();
  readonly #capacity: number;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  /** The key for `algorithm` and `raw`, imported by `load` on a miss. Throws what `load` throws. */
  get(algorithm: string, raw: Uint8Array, load: () => KeyObject): KeyObject {
    const cacheKey = `${algorithm}:${asBuffer(raw).toString('latin1')}`;
    const hit = this.#entries.get(cacheKey);
    if (hit !== undefined) {
      // Map keeps insertion order: re-inserting marks the entry as the most recently used.
      this.#entries.delete(cacheKey);
      this.#entries.set(cacheKey, hit);
      return hit;
    }
    const key = load();
    this.#entries.set(cacheKey, key);
    if (this.#entries.size > this.#capacity) {
      const oldest = this.#entries.keys().next();
      if (oldest.done !== true) this.#entries.delete(oldest.value);
    }
    return key;
  }

  /** How many keys it holds now (for tests of its bound). */
  get size(): number {
    return this.#entries.size;
  }
}
