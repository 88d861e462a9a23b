/**
 * The primary's half of the shared rate limit (the worker's half is ipc-store.ts): the host's
 * window counts for every client, and the leases that spare the workers a round trip per request.
 *
 * For each consume the primary adds the units to the client's fixed window (refused requests count
 * too, as in the single-process store) and, when the worker asks for a lease and the client is
 * within its limit, grants it units in advance, counted here at once, that the worker then hands
 * out locally: at most what the worker asked for (it never holds more than
 * leaseCap(RATE_LIMIT_MAX)), and at most 1/(LEASE_HEADROOM_SHARE · WORKERS) of the client's
 * remaining headroom. So leases shrink as the client nears its limit and stop altogether for its
 * last units, which are granted one request at a time: the host never admits more than
 * RATE_LIMIT_MAX units per client per window.
 *
 * The counting is synchronous (no await between reading a count and granting from it), so batches
 * from several workers can never interleave within one decision.
 */
import { MessageType, isMessage } from './role.ts';

/** The smallest and largest lease cap (see leaseCap). */
export const MIN_LEASE_CAP = 64;
export const MAX_LEASE_CAP = 4096;

/**
 * The most a worker holds for one client (leased, not yet used, or on its way): 1/64 of
 * RATE_LIMIT_MAX, at least MIN_LEASE_CAP, at most MAX_LEASE_CAP units. Units a client leaves
 * unused at another worker are lost for the window, so the cap bounds that loss to about 1/64 of
 * its limit per other worker; a high limit gets larger leases, so that its busy clients cost the
 * primary a message per leaseCap / 2 requests rather than per 32 (each message costs both
 * processes CPU, wake-ups included).
 */
export function leaseCap(max: number): number {
  return Math.min(MAX_LEASE_CAP, Math.max(MIN_LEASE_CAP, Math.floor(max / 64)));
}
/** A lease is at most 1/(this · workers) of the client's remaining headroom. */
export const LEASE_HEADROOM_SHARE = 4;
/** Fields per consume in a batch: key, units, windowMs, now, units of lease wanted (0: none). */
export const CONSUME_FIELDS = 5;
/** Fields per answer: used (leases included), resetAt, units leased. */
export const COUNT_FIELDS = 3;

export interface WorkerEndpoint {
  send(message: unknown): void;
}

export interface RateLimitHostOptions {
  max: number;
  windowMs: number;
  workers: number;
}

interface Window {
  used: number;
  resetAt: number;
}

export class RateLimitHost {
  readonly #max: number;
  readonly #leaseCap: number;
  readonly #leaseDivisor: number;
  readonly #windows = new Map<string, Window>();
  readonly #sweeper: NodeJS.Timeout;

  constructor({ max, windowMs, workers }: RateLimitHostOptions) {
    this.#max = max;
    this.#leaseCap = leaseCap(max);
    this.#leaseDivisor = LEASE_HEADROOM_SHARE * workers;
    // Expired windows are dropped once a window, so that memory stays bounded (as in MemoryStore).
    this.#sweeper = setInterval(() => this.#sweep(Date.now()), windowMs);
    this.#sweeper.unref();
  }

  /**
   * Adds `units` to `key`'s window, then leases up to `leaseWanted` more if the client can afford
   * them. Returns [used, resetAt, leased], `used` counting the lease.
   */
  consume(key: string, units: number, windowMs: number, now: number, leaseWanted: number): [number, number, number] {
    let window = this.#windows.get(key);
    if (window === undefined || window.resetAt <= now) {
      window = { used: 0, resetAt: now + windowMs };
      this.#windows.set(key, window);
    }
    window.used += units;
    let leased = 0;
    if (leaseWanted > 0 && window.used < this.#max) {
      leased = Math.min(leaseWanted, this.#leaseCap, Math.floor((this.#max - window.used) / this.#leaseDivisor));
      window.used += leased;
    }
    return [window.used, window.resetAt, leased];
  }

  /** Answers `message` if it is a batch of consumes; returns whether it was one. */
  handle(worker: WorkerEndpoint, message: unknown): boolean {
    if (!isMessage(message, MessageType.rateLimitConsume)) return false;
    const ops = message.ops;
    // Not ours to repair: the worker times out and counts locally.
    if (!Array.isArray(ops) || ops.length % CONSUME_FIELDS !== 0) return true;
    const counts: number[] = [];
    for (let index = 0; index < ops.length; index += CONSUME_FIELDS) {
      counts.push(
        ...this.consume(
          String(ops[index]),
          Number(ops[index + 1]),
          Number(ops[index + 2]),
          Number(ops[index + 3]),
          Number(ops[index + 4]),
        ),
      );
    }
    worker.send({ type: MessageType.rateLimitCounts, id: message.id, counts });
    return true;
  }

  #sweep(now: number): void {
    for (const [key, window] of this.#windows) {
      if (window.resetAt <= now) this.#windows.delete(key);
    }
  }

  close(): void {
    clearInterval(this.#sweeper);
    this.#windows.clear();
  }
}
