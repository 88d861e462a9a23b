/**
 * Random nonces, drawn from a pool of CSPRNG output (node:crypto's randomFillSync) that is refilled
 * 4 KiB at a time.
 *
 * Why a pool: every call of randomBytes has a fixed cost however few bytes it returns (OpenSSL's
 * DRBG goes through its provider, locks and reseed checks on each call), a noticeable share of a
 * small `POST /v2/encrypt`; a nonce copied from the pool costs a small fraction of that
 * (docs/performance.md).
 *
 * Only for values that are public once used: nonces. Never for keys, seeds or anything else secret.
 * The pool holds bytes that will be used later, and a memory disclosure (a core dump, a heap
 * snapshot) would show them in advance: for a nonce, which travels in clear beside its ciphertext,
 * that gives nothing away. What a nonce needs is never to repeat, and the pool hands out every byte
 * once: each nonce is copied out, and the bytes it was copied from are zeroed at once.
 *
 * Each process and each worker thread has a pool of its own (module state). node:cluster's workers
 * are new processes, not forks of the primary, so no two processes start with the same pool.
 */
import { randomFillSync } from 'node:crypto';

const POOL_BYTES = 4096;
/** Longer requests are filled directly: the pool is for the small nonces of the hot path. */
const LONGEST_POOLED = 256;

const pool = new Uint8Array(POOL_BYTES);
/** The next unused byte of the pool; POOL_BYTES when it is used up (and at start). */
let offset = POOL_BYTES;

/** `length` random bytes from the CSPRNG, for a nonce (see above: never for a secret). */
export function randomNonce(length: number): Uint8Array {
  // A negative or fractional length would move the pool's offset back and hand out used bytes.
  if (!Number.isSafeInteger(length) || length < 0)
    throw new RangeError(`a nonce length must be a whole number of bytes (got ${length})`);
  return fillNonce(new Uint8Array(length));
}

/** Fills `target` with random bytes from the CSPRNG, for a nonce written in place; returns it. */
export function fillNonce(target: Uint8Array): Uint8Array {
  const length = target.byteLength;
  if (length > LONGEST_POOLED) return randomFillSync(target);
  if (offset + length > POOL_BYTES) {
    randomFillSync(pool);
    offset = 0;
  }
  const end = offset + length;
  target.set(pool.subarray(offset, end));
  pool.fill(0, offset, end);
  offset = end;
  return target;
}
