/**
 * The rendered /metrics text, reused for a second: rendering walks every series of the registry
 * (and, in cluster mode, asks every worker), so a scrape flood would otherwise buy a render per
 * request. Scrapes that arrive while a render is under way wait for that render instead of
 * starting their own.
 */
import type { Exposition } from './cluster/metrics.ts';

/** Prometheus scrapes every 15 s or more: a second-old answer misses nothing it would graph. */
export const SCRAPE_CACHE_MS = 1000;

export class ScrapeCache {
  readonly #render: () => Promise<Exposition>;
  readonly #maxAgeMs: number;
  readonly #now: () => number;
  #pending: Promise<Exposition> | undefined;
  #latest: { exposition: Exposition; renderedAt: number } | undefined;
  #renders = 0;

  constructor(render: () => Promise<Exposition>, maxAgeMs = SCRAPE_CACHE_MS, now = () => performance.now()) {
    this.#render = render;
    this.#maxAgeMs = maxAgeMs;
    this.#now = now;
  }

  /** How many times the text has been rendered (tests and the benchmark read it). */
  get renders(): number {
    return this.#renders;
  }

  get(): Promise<Exposition> {
    const latest = this.#latest;
    if (latest !== undefined && this.#now() - latest.renderedAt < this.#maxAgeMs) {
      return Promise.resolve(latest.exposition);
    }
    this.#pending ??= this.#renderOnce();
    return this.#pending;
  }

  async #renderOnce(): Promise<Exposition> {
    try {
      this.#renders += 1;
      const exposition = await this.#render();
      // Aged from the end of the render: a slow cluster collection is not re-run at once.
      this.#latest = { exposition, renderedAt: this.#now() };
      return exposition;
    } finally {
      this.#pending = undefined;
    }
  }
}
