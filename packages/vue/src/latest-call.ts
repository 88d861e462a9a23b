/**
 * The life of one composable's calls: a new run aborts the run in flight, so that only the latest run's
 * outcome is ever reported, and disposing (its scope ending) aborts it and silences it for good.
 */
export class LatestCall {
  #controller: AbortController | undefined;
  #disposed = false;

  /** Aborts the previous run and returns the signal of the new one. */
  start(): AbortSignal {
    this.cancel('superseded by a newer call');
    const controller = new AbortController();
    this.#controller = controller;
    return controller.signal;
  }

  /** Whether the run with this signal may still report its outcome. */
  isCurrent(signal: AbortSignal): boolean {
    return !this.#disposed && !signal.aborted && this.#controller?.signal === signal;
  }

  /** Aborts the run in flight, if any. */
  cancel(why = 'cancelled'): void {
    this.#controller?.abort(new DOMException(`crypto-service call ${why}`, 'AbortError'));
    this.#controller = undefined;
  }

  /** Aborts the run in flight and reports nothing more. */
  dispose(): void {
    this.cancel('cancelled: its scope ended');
    this.#disposed = true;
  }
}

/** What the error state holds: the client's errors as they are, anything else thrown as an Error. */
export function asError(thrown: unknown): Error {
  return thrown instanceof Error ? thrown : new Error(String(thrown));
}
