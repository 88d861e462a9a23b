/**
 * The per-client cap on heavy jobs in flight (MAX_HEAVY_JOBS_PER_CLIENT), shared by every heavy
 * work queue of the process: Argon2id, scrypt and PBKDF2, post-quantum signing. Without it one
 * client could fill a shared queue, within its rate limit, and every other client would be refused
 * with 503 until its jobs had run.
 */
import { ApiError } from './errors.ts';

export const CLIENT_CAP_SETTING = 'MAX_HEAVY_JOBS_PER_CLIENT';

export class ClientJobCap {
  readonly max: number;
  readonly #inFlight = new Map<string, number>();

  constructor(max: number) {
    if (!Number.isSafeInteger(max) || max < 1) {
      throw new RangeError(`${CLIENT_CAP_SETTING} must be an integer of at least 1 (got ${max})`);
    }
    this.max = max;
  }

  /** Jobs of `client` running or waiting now, in every queue. */
  inFlight(client: string): number {
    return this.#inFlight.get(client) ?? 0;
  }

  /**
   * Counts one more job of `client`, or returns the 429 to answer instead when it already has the
   * most it may. A job counted here must be released exactly once, however it ends.
   */
  acquire(client: string): ApiError | undefined {
    const count = this.inFlight(client);
    if (count >= this.max) {
      return new ApiError(
        'RATE_LIMITED',
        `too many expensive operations in progress for this client: at most ${this.max} at once (${CLIENT_CAP_SETTING}); retry after 1 s`,
        { headers: { 'retry-after': '1' } },
      );
    }
    this.#inFlight.set(client, count + 1);
    return undefined;
  }

  release(client: string): void {
    const count = this.inFlight(client);
    // Deleted at zero, so that the map holds only the clients with work in flight.
    if (count <= 1) this.#inFlight.delete(client);
    else this.#inFlight.set(client, count - 1);
  }
}
