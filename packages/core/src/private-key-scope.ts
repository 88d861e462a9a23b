/**
 * Imported private KeyObjects of one caller's batch, by algorithm and exact key bytes, so that
 * items signing with one key import it once: an import costs more than an Ed25519 signature.
 *
 * Unlike the public-key cache it is not shared: its owner makes one for one batch and drops it
 * with the batch, so it keeps no secret beyond the request that carried it, and the only caller
 * who could time its lookups is the one who sent every key in it.
 */
import type { KeyObject } from 'node:crypto';
import { asBuffer } from './bytes.ts';

export class PrivateKeyScope {
  readonly #entries = new Map<string, KeyObject>();

  /** The key for `algorithm` and `raw`, imported by `load` the first time. Throws what `load` throws. */
  get(algorithm: string, raw: Uint8Array, load: () => KeyObject): KeyObject {
    const cacheKey = `${algorithm}:${asBuffer(raw).toString('latin1')}`;
    let key = this.#entries.get(cacheKey);
    if (key === undefined) {
      key = load();
      this.#entries.set(cacheKey, key);
    }
    return key;
  }

  /** How many keys it holds (for tests). */
  get size(): number {
    return this.#entries.size;
  }
}

/** `load()`, through `scope` when there is one. */
export function scopedPrivateKey(
  scope: PrivateKeyScope | undefined,
  algorithm: string,
  raw: Uint8Array,
  load: () => KeyObject,
): KeyObject {
  return scope === undefined ? load() : scope.get(algorithm, raw, load);
}
