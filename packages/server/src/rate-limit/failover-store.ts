/**
 * A shared store (Redis) with a policy for when it fails (RATE_LIMIT_FAILURE_MODE): a request is
 * never kept waiting on the shared store longer than its time limit, and never answered 500
 * because of it.
 *
 * While the shared store answers, every request goes to it, bounded by `timeoutMs`. The first
 * failure or time-out marks it down: one warning is logged, and from then on requests no longer
 * touch it at all (so an outage adds no latency) but are decided by the failure mode:
 *
 * - `local`: counted in this process's own memory, so each process still enforces the limit on
 *   its own (a client may get up to the limit from each process during the outage);
 * - `open`: let through uncounted and without RateLimit headers (no header claims a quota that
 *   nothing enforces);
 * - `closed`: refused with a 503 problem (SERVICE_UNAVAILABLE) and `Retry-After`.
 *
 * Meanwhile a background probe, once every `probeIntervalMs`, makes the same call as a request
 * (zero units on a reserved key) with the same time limit; the first success marks the store up
 * again and logs one line. So logs carry one warning per outage and one line per recovery, never
 * one per request. Readiness is deliberately untouched: failing /ready during a Redis outage would
 * take every replica out of service at once.
 *
 * Metrics, registered by the rate-limit plugin once the app's registry exists:
 * `rate_limit_store_up` (1/0), `rate_limit_store_failures_total{reason}` (calls that failed or
 * timed out, probes included) and `rate_limit_store_fallbacks_total{mode}` (requests decided by the
 * failure mode).
 */
import type { FastifyBaseLogger } from 'fastify';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { RateLimitFailureMode } from '../config.ts';
import { ApiError } from '../errors.ts';
import { MemoryStore, type RateLimitStore, type WindowCount } from './store.ts';

/**
 * What `consume` answers in `open` mode during an outage: nothing was counted. The rate-limit
 * plugin compares against this very object and lets the request through without headers.
 */
/** Whether `error` is the refusal of RATE_LIMIT_FAILURE_MODE=closed while the shared store is down. */
export function isStoreRefusal(error: unknown): boolean {
  return error instanceof ApiError && error.code === 'SERVICE_UNAVAILABLE';
}

export const UNCOUNTED: WindowCount = Object.freeze({ used: 0, resetAt: 0 });

/** The key the recovery probe consumes zero units of; no client address can be spelt this way. */
export const PROBE_KEY = 'probe';

export interface FailoverOptions {
  /** Names the shared store in logs (`redis`). */
  name: string;
  /** Where it is, for logs; must hold no credential. */
  address?: string;
  mode: RateLimitFailureMode;
  /** Longest wait for one call to the shared store (REDIS_TIMEOUT_MS). */
  timeoutMs: number;
  /** Longest wait for the first check at start, which may include connecting. */
  startupTimeoutMs?: number;
  /** How often the shared store is tried again while it is down. */
  probeIntervalMs?: number;
  windowMs: number;
  log: FastifyBaseLogger;
}

type FailureReason = 'timeout' | 'error';

class StoreTimeout extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
    this.name = 'StoreTimeout';
  }
}

const OUTAGE_EFFECT: Record<RateLimitFailureMode, string> = {
  local: 'each process now enforces the limit on its own',
  open: 'requests now pass without a rate limit',
  closed: 'rate-limited requests are now refused with 503',
};

export class FailoverStore implements RateLimitStore {
  readonly #shared: RateLimitStore;
  readonly #local: MemoryStore | undefined;
  readonly #options: FailoverOptions;
  readonly #probeIntervalMs: number;
  readonly #started: Promise<void>;
  #up = true;
  #downSince = 0;
  #probeTimer: NodeJS.Timeout | undefined;
  #closed = false;

  readonly #upGauge: Gauge;
  readonly #failures: Counter<'reason'>;
  readonly #fallbacks: Counter<'mode'>;

  constructor(shared: RateLimitStore, options: FailoverOptions) {
    this.#shared = shared;
    this.#options = options;
    this.#probeIntervalMs = options.probeIntervalMs ?? 1000;
    this.#local = options.mode === 'local' ? new MemoryStore(options.windowMs) : undefined;
    // Not registered anywhere yet: the app's registry does not exist when the store is built.
    this.#upGauge = new Gauge({
      name: 'rate_limit_store_up',
      help: `1 while the shared rate-limit store (${options.name}) answers, 0 during an outage`,
      registers: [],
    });
    this.#failures = new Counter({
      name: 'rate_limit_store_failures_total',
      help: 'Calls to the shared rate-limit store that failed (error) or took longer than REDIS_TIMEOUT_MS (timeout)',
      labelNames: ['reason'] as const,
      registers: [],
    });
    this.#fallbacks = new Counter({
      name: 'rate_limit_store_fallbacks_total',
      help: 'Requests decided by RATE_LIMIT_FAILURE_MODE because the shared rate-limit store was down',
      labelNames: ['mode'] as const,
      registers: [],
    });
    this.#upGauge.set(1);
    this.#started = this.#checkAtStart();
  }

  /** Resolves once the first check of the shared store is done, whatever its outcome. */
  ready(): Promise<void> {
    return this.#started;
  }

  get up(): boolean {
    return this.#up;
  }

  registerMetrics(registry: Registry): void {
    registry.registerMetric(this.#upGauge);
    registry.registerMetric(this.#failures);
    registry.registerMetric(this.#fallbacks);
  }

  async consume(key: string, cost: number, windowMs: number, now: number): Promise<WindowCount> {
    if (this.#up) {
      try {
        return await this.#call(key, cost, windowMs, now, this.#options.timeoutMs);
      } catch (error) {
        this.#failed(error);
      }
    }
    return this.#fallback(key, cost, windowMs, now);
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#probeTimer);
    await this.#local?.close();
    await this.#shared.close();
  }

  #call(key: string, cost: number, windowMs: number, now: number, timeoutMs: number): Promise<WindowCount> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new StoreTimeout(timeoutMs)), timeoutMs);
    });
    return Promise.race([this.#shared.consume(key, cost, windowMs, now), timeout]).finally(() => clearTimeout(timer));
  }

  #fallback(key: string, cost: number, windowMs: number, now: number): Promise<WindowCount> {
    this.#fallbacks.inc({ mode: this.#options.mode });
    switch (this.#options.mode) {
      case 'local':
        return (this.#local as MemoryStore).consume(key, cost, windowMs, now);
      case 'open':
        return Promise.resolve(UNCOUNTED);
      case 'closed': {
        const seconds = Math.max(1, Math.ceil(this.#probeIntervalMs / 1000));
        throw new ApiError(
          'SERVICE_UNAVAILABLE',
          `the rate limiter's shared store is unavailable; retry after ${seconds} s`,
          {
            headers: { 'retry-after': String(seconds) },
          },
        );
      }
    }
  }

  #failed(error: unknown): void {
    const reason: FailureReason = error instanceof StoreTimeout ? 'timeout' : 'error';
    this.#failures.inc({ reason });
    if (!this.#up) return;
    this.#up = false;
    this.#downSince = Date.now();
    this.#upGauge.set(0);
    // The message only: an error object may carry more (a client library's command arguments).
    this.#options.log.warn(
      {
        store: this.#options.name,
        address: this.#options.address,
        failureMode: this.#options.mode,
        reason: messageOf(error),
      },
      `rate-limit store unavailable: ${OUTAGE_EFFECT[this.#options.mode]} until it answers again`,
    );
    this.#scheduleProbe();
  }

  #recovered(): void {
    if (this.#up) return;
    this.#up = true;
    this.#upGauge.set(1);
    this.#options.log.info(
      { store: this.#options.name, address: this.#options.address, outageMs: Date.now() - this.#downSince },
      'rate-limit store available again: the shared limit applies',
    );
  }

  async #checkAtStart(): Promise<void> {
    try {
      await this.#call(
        PROBE_KEY,
        0,
        this.#options.windowMs,
        Date.now(),
        this.#options.startupTimeoutMs ?? this.#options.timeoutMs,
      );
      if (this.#closed) return;
      if (this.#up) {
        this.#options.log.info(
          { store: this.#options.name, address: this.#options.address, failureMode: this.#options.mode },
          `rate-limit counters are shared through ${this.#options.name}`,
        );
      } else {
        // A request gave up on the store (its time limit is shorter) while this slower check
        // was still connecting: the store answers now.
        this.#recovered();
      }
    } catch (error) {
      if (!this.#closed) this.#failed(error);
    }
  }

  #scheduleProbe(): void {
    if (this.#closed) return;
    this.#probeTimer = setTimeout(() => void this.#probe(), this.#probeIntervalMs);
    // The probe must never be what keeps a process alive.
    this.#probeTimer.unref();
  }

  async #probe(): Promise<void> {
    try {
      await this.#call(PROBE_KEY, 0, this.#options.windowMs, Date.now(), this.#options.timeoutMs);
      if (!this.#closed) this.#recovered();
    } catch (error) {
      if (this.#closed) return;
      this.#failures.inc({ reason: error instanceof StoreTimeout ? 'timeout' : 'error' });
      this.#scheduleProbe();
    }
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : 'unknown failure';
}
