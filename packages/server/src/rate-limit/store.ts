/**
 * Where rate-limit counters live. The in-memory store serves one process; a shared store (Redis)
 * implements the same interface so that every replica enforces one limit.
 */
export interface WindowCount {
  /** Units consumed in the current window, this request included. */
  used: number;
  /** When the current window ends, in ms since the epoch. */
  resetAt: number;
}

export interface RateLimitStore {
  /** Adds `cost` units to `key`'s current fixed window and returns the new total. */
  consume(key: string, cost: number, windowMs: number, now: number): Promise<WindowCount>;
  /**
   * The same as `consume`, answered synchronously when the store can (undefined when it cannot:
   * the caller then uses `consume`). Optional: the rate limiter tries it first, saving the promises
   * of an async hook on every request it answers. MemoryStore always answers; a cluster worker's
   * store answers from its lease; Redis leaves it out.
   */
  consumeSync?(key: string, cost: number, windowMs: number, now: number): WindowCount | undefined;
  close(): Promise<void>;
}

/** Fixed windows in a Map; expired windows are swept once a window so that memory stays bounded. */
export class MemoryStore implements RateLimitStore {
  readonly #windows = new Map<string, WindowCount>();
  readonly #sweeper: NodeJS.Timeout;

  constructor(windowMs: number) {
    this.#sweeper = setInterval(() => this.#sweep(Date.now()), windowMs);
    this.#sweeper.unref();
  }

  async consume(key: string, cost: number, windowMs: number, now: number): Promise<WindowCount> {
    return this.consumeSync(key, cost, windowMs, now);
  }

  consumeSync(key: string, cost: number, windowMs: number, now: number): WindowCount {
    let window = this.#windows.get(key);
    if (window === undefined || window.resetAt <= now) {
      window = { used: 0, resetAt: now + windowMs };
      this.#windows.set(key, window);
    }
    window.used += cost;
    return { used: window.used, resetAt: window.resetAt };
  }

  #sweep(now: number): void {
    for (const [key, window] of this.#windows) {
      if (window.resetAt <= now) this.#windows.delete(key);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    this.#windows.clear();
  }
}
