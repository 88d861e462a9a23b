/**
 * What `/ready` reports. Checks are named functions; the service is ready when every one passes.
 * Draining (a shutdown under way) is one of them, so readiness turns 503 before the server stops.
 */
export type CheckResult = 'pass' | 'fail';

export class Readiness {
  readonly #checks = new Map<string, () => boolean>();
  #draining = false;
  #disabled: () => string[] = () => [];

  constructor() {
    this.#checks.set('shutdown', () => !this.#draining);
  }

  addCheck(name: string, check: () => boolean): void {
    this.#checks.set(name, check);
  }

  /** Where `/ready` reads the algorithms out of service (failed start-up self-tests, plugins/self-tests.ts). */
  setDisabledAlgorithms(source: () => string[]): void {
    this.#disabled = source;
  }

  startDraining(): void {
    this.#draining = true;
  }

  get draining(): boolean {
    return this.#draining;
  }

  report(): { ready: boolean; checks: Record<string, CheckResult>; disabled: string[] } {
    const checks: Record<string, CheckResult> = {};
    let ready = true;
    for (const [name, check] of this.#checks) {
      let passed: boolean;
      try {
        passed = check();
      } catch {
        passed = false;
      }
      checks[name] = passed ? 'pass' : 'fail';
      ready &&= passed;
    }
    return { ready, checks, disabled: this.#disabled() };
  }
}
