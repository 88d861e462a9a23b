/**
 * A pool of worker threads, each running one job at a time, started on first use. The caller
 * bounds how many jobs run at once (a WorkQueue), so a job always finds an idle worker or room
 * for a new one. A worker that crashes, or whose job outlives `jobTimeoutMs`, is terminated and
 * its job failed; the next job starts a new worker.
 */
import { Worker } from 'node:worker_threads';
import { reviveError, type JobRequest, type WorkerReply } from './protocol.ts';

/** A worker could not start: `variable` names the configuration to fix, when there is one. */
export class WorkerStartError extends Error {
  readonly variable: string | undefined;
  constructor(message: string, variable?: string) {
    super(message);
    this.name = 'WorkerStartError';
    this.variable = variable;
  }
}

export interface WorkerPoolOptions {
  /** Names the pool in its error messages (`the OpenPGP worker pool is closed`). */
  name: string;
  script: URL;
  /** Given to every worker at start. */
  workerData?: unknown;
  /** A job still running after this long has its worker terminated; unset: no limit. */
  jobTimeoutMs?: number;
  /** The error a timed-out job fails with. */
  timeoutError?: () => Error;
}

interface Pending {
  id: number;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
  timer: NodeJS.Timeout | undefined;
}

interface Slot<Ready> {
  worker: Worker;
  ready: Promise<Ready | undefined>;
  /** Fails `ready` (a no-op once it has settled). */
  notReady: (error: Error) => void;
  pending: Pending | undefined;
}

export class WorkerPool<Job, Ready = undefined> {
  readonly #options: WorkerPoolOptions;
  readonly #idle: Slot<Ready>[] = [];
  readonly #slots = new Set<Slot<Ready>>();
  #nextId = 0;
  #closed = false;

  constructor(options: WorkerPoolOptions) {
    this.#options = options;
  }

  /** Starts one worker now and waits until it is ready; what it reported at start. */
  async start(): Promise<Ready | undefined> {
    const slot = this.#spawn();
    try {
      const info = await slot.ready;
      this.#idle.push(slot);
      return info;
    } catch (error) {
      this.#discard(slot);
      throw error;
    }
  }

  /** Runs a job on an idle worker, or on a new one. */
  async run(job: Job): Promise<unknown> {
    if (this.#closed) throw new Error(`the ${this.#options.name} worker pool is closed`);
    const slot = this.#idle.pop() ?? this.#spawn();
    try {
      await slot.ready;
    } catch (error) {
      this.#discard(slot);
      throw error;
    }
    return new Promise((resolve, reject) => {
      const id = ++this.#nextId;
      const timeoutMs = this.#options.jobTimeoutMs;
      const timer = timeoutMs === undefined ? undefined : setTimeout(() => this.#timeOut(slot), timeoutMs);
      slot.pending = { id, resolve, reject, timer };
      // A busy worker keeps the process alive (its caller waits for it); an idle one does not.
      slot.worker.ref();
      slot.worker.postMessage({ id, job } satisfies JobRequest<Job>);
    });
  }

  #spawn(): Slot<Ready> {
    const worker = new Worker(this.#options.script, { workerData: this.#options.workerData ?? {} });
    let settleReady!: { resolve: (info: Ready | undefined) => void; reject: (error: Error) => void };
    const ready = new Promise<Ready | undefined>((resolve, reject) => {
      settleReady = { resolve, reject };
    });
    // Observed here so that a worker that fails before anyone waits is not an unhandled rejection.
    ready.catch(() => undefined);
    const slot: Slot<Ready> = { worker, ready, notReady: settleReady.reject, pending: undefined };
    this.#slots.add(slot);
    worker.on('message', (reply: WorkerReply<Ready>) => {
      if (reply.type === 'ready') {
        worker.unref();
        settleReady.resolve(reply.info);
      } else if (reply.type === 'init-failed') {
        settleReady.reject(new WorkerStartError(reply.message, reply.variable));
      } else {
        const pending = slot.pending;
        if (pending === undefined || pending.id !== reply.id) return;
        clearTimeout(pending.timer);
        slot.pending = undefined;
        worker.unref();
        this.#idle.push(slot);
        if (reply.ok) pending.resolve(reply.result);
        else pending.reject(reviveError(reply.error, this.#options.name));
      }
    });
    // A worker that fails outside a job's normal flow (it cannot load, it crashed) is dropped; its
    // job fails with a 500 and the next job starts a new worker.
    const lost = (error: Error) => {
      settleReady.reject(new WorkerStartError(error.message));
      this.#discard(slot, error);
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`${this.#options.name} worker exited with code ${code}`)));
    return slot;
  }

  #timeOut(slot: Slot<Ready>): void {
    if (slot.pending === undefined) return;
    this.#discard(slot, this.#options.timeoutError?.() ?? new Error(`${this.#options.name} job timed out`));
  }

  /** Forgets a worker (terminating it), failing its job, if any, with `error`. */
  #discard(slot: Slot<Ready>, error: Error = new Error(`${this.#options.name} worker discarded`)): void {
    if (!this.#slots.delete(slot)) return;
    const index = this.#idle.indexOf(slot);
    if (index !== -1) this.#idle.splice(index, 1);
    slot.notReady(error);
    const pending = slot.pending;
    slot.pending = undefined;
    if (pending !== undefined) {
      clearTimeout(pending.timer);
      pending.reject(error);
    }
    void slot.worker.terminate();
  }

  /** Stops every worker; jobs still running fail, and so do later ones (the pool is closed). */
  async close(): Promise<void> {
    this.#closed = true;
    const slots = [...this.#slots];
    for (const slot of slots) this.#discard(slot, new Error(`the ${this.#options.name} worker pool was closed`));
    await Promise.all(slots.map((slot) => slot.worker.terminate()));
  }
}
