/**
 * How many times the primary may replace a worker that died before it concludes that something is
 * wrong with every worker (a bad deployment, a resource that is gone) and stops, rather than fork
 * in a loop: at most `max` replacements within any `windowMs`.
 */
export class RestartBudget {
  readonly max: number;
  readonly windowMs: number;
  readonly #restarts: number[] = [];

  constructor(max: number, windowMs: number) {
    this.max = max;
    this.windowMs = windowMs;
  }

  /** Records a restart at `now`; false when it would exceed the budget (and is not recorded). */
  tryRestart(now: number): boolean {
    while (this.#restarts.length > 0 && this.#restarts[0]! <= now - this.windowMs) this.#restarts.shift();
    if (this.#restarts.length >= this.max) return false;
    this.#restarts.push(now);
    return true;
  }
}
