/**
 * Runs the /v1 OpenPGP jobs in a small pool of worker threads, behind a bounded queue.
 *
 * Why threads: OpenPGP.js derives passphrase keys (S2K) in synchronous JavaScript, 70 ms per locked
 * key packet at its own default cost and about 200 ms at GnuPG's usual one; a generated key with a
 * passphrase holds the event loop for two of those, and a client-supplied key or symmetric message
 * chooses its own cost. Measured on Node 24, generating a locked RSA-4096 key on the event loop
 * delayed timers by up to 650 ms. In a worker the event loop never waits on OpenPGP.js.
 *
 * Bounds:
 * - `workers` threads, one job each at a time; the WorkQueue (work-queue.ts) admits that many and
 *   lets `queueLimit` wait. One more is refused: a 503 with Retry-After, never a stall (sent
 *   `refusalDelayMs` after the decision, BUSY_REFUSAL_DELAY_MS; work-queue.ts says why).
 * - `jobTimeoutMs`: a job still running then (a hostile key or message: many S2K rounds, huge
 *   Argon2 passes) is stopped by terminating its worker, which is replaced on the next job; the
 *   request is answered 503.
 * Workers start on first use, except that start() starts one at once to check the server key.
 */
import { Worker } from 'node:worker_threads';
import { CryptoError, type CoreErrorCode } from '@crypto-service/core';
import { ApiError } from '../errors.ts';
import { WorkQueue } from '../work-queue.ts';
import type { ServerKeyInfo, V1Job, V1JobResults } from './openpgp-jobs.ts';

/** What each worker is given at start. */
export interface WorkerInit {
  /** The nice value the worker thread gives itself (HEAVY_WORK_NICE; thread-priority.ts). */
  nice?: number;
  serverKey?: { armored: string; passphrase: string | undefined; file: string };
}

export interface WorkerRequest {
  id: number;
  job: V1Job;
}

export type SerializedError = { kind: 'crypto'; code: CoreErrorCode; message: string; field?: string } | { kind: 'other'; message: string };

export type WorkerReply =
  | { type: 'ready'; serverKey?: ServerKeyInfo }
  | { type: 'init-failed'; variable?: string; message: string }
  | { type: 'result'; id: number; ok: true; result: unknown }
  | { type: 'result'; id: number; ok: false; error: SerializedError };

/** A worker could not start: the server key is unusable (`variable` names what to fix), or it crashed. */
export class WorkerStartError extends Error {
  readonly variable: string | undefined;
  constructor(message: string, variable?: string) {
    super(message);
    this.name = 'WorkerStartError';
    this.variable = variable;
  }
}

export interface OpenPgpPoolOptions {
  workers: number;
  queueLimit: number;
  /** How long a refusal because the queue is full waits before it is sent, in ms. Default 0. */
  refusalDelayMs?: number;
  jobTimeoutMs: number;
  init?: WorkerInit;
  /** Observers (metrics). */
  onRefused?: () => void;
  onTimeout?: () => void;
}

interface Pending {
  id: number;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
  timer: NodeJS.Timeout;
}

interface Slot {
  worker: Worker;
  ready: Promise<ServerKeyInfo | undefined>;
  pending: Pending | undefined;
}

const WORKER_SCRIPT = new URL('./worker.ts', import.meta.url);

/** Rebuilds a worker's error: a CryptoError stays one (a 400), anything else becomes a 500. */
function revive(error: SerializedError): Error {
  if (error.kind === 'crypto') return new CryptoError(error.code, error.message, error.field);
  return new Error(`OpenPGP worker: ${error.message}`);
}

export class OpenPgpPool {
  readonly queue: WorkQueue;
  readonly #options: OpenPgpPoolOptions;
  readonly #idle: Slot[] = [];
  readonly #slots = new Set<Slot>();
  #nextId = 0;
  #closed = false;

  constructor(options: OpenPgpPoolOptions) {
    this.#options = options;
    // Jobs hold a few megabytes at most (Argon2 S2K is capped at 256 MiB per worker by the job
    // module), so only the counts bound them: no memory cost is declared.
    this.queue = new WorkQueue(
      {
        name: 'openpgp',
        concurrency: options.workers,
        maxQueued: options.queueLimit,
        memoryBudgetBytes: 1,
        retryAfterSeconds: 1,
        refusalDelayMs: options.refusalDelayMs,
      },
      { onRefused: options.onRefused },
    );
  }

  /** Starts one worker now and waits until it is ready: loads and checks the server key, if any. */
  async start(): Promise<ServerKeyInfo | undefined> {
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

  /** Runs a job through the queue (503 when it is full) on a worker. */
  run<J extends V1Job>(job: J): Promise<V1JobResults[J['op']]> {
    return this.queue.run(0, () => this.#exec(job)) as Promise<V1JobResults[J['op']]>;
  }

  async #exec(job: V1Job): Promise<unknown> {
    if (this.#closed) throw new Error('the OpenPGP worker pool is closed');
    // The queue admits at most `workers` jobs, so there is always an idle worker or room for one.
    const slot = this.#idle.pop() ?? this.#spawn();
    try {
      await slot.ready;
    } catch (error) {
      this.#discard(slot);
      throw error;
    }
    return new Promise((resolve, reject) => {
      const id = ++this.#nextId;
      const timer = setTimeout(() => this.#timeOut(slot), this.#options.jobTimeoutMs);
      slot.pending = { id, resolve, reject, timer };
      // A busy worker keeps the process alive (its caller waits for it); an idle one does not.
      slot.worker.ref();
      slot.worker.postMessage({ id, job } satisfies WorkerRequest);
    });
  }

  #spawn(): Slot {
    const worker = new Worker(WORKER_SCRIPT, { workerData: this.#options.init ?? {} });
    let settleReady!: { resolve: (info: ServerKeyInfo | undefined) => void; reject: (error: Error) => void };
    const ready = new Promise<ServerKeyInfo | undefined>((resolve, reject) => {
      settleReady = { resolve, reject };
    });
    // Observed here so that a worker that fails before anyone waits is not an unhandled rejection.
    ready.catch(() => undefined);
    const slot: Slot = { worker, ready, pending: undefined };
    this.#slots.add(slot);
    worker.on('message', (reply: WorkerReply) => {
      if (reply.type === 'ready') {
        worker.unref();
        settleReady.resolve(reply.serverKey);
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
        else pending.reject(revive(reply.error));
      }
    });
    // A worker that fails outside a job's normal flow (it cannot load, it crashed) is dropped; its
    // job fails with a 500 and the next job starts a new worker.
    const lost = (error: Error) => {
      settleReady.reject(new WorkerStartError(error.message));
      this.#discard(slot, error);
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`OpenPGP worker exited with code ${code}`)));
    return slot;
  }

  #timeOut(slot: Slot): void {
    const pending = slot.pending;
    if (pending === undefined) return;
    this.#options.onTimeout?.();
    const seconds = Math.round(this.#options.jobTimeoutMs / 100) / 10;
    this.#discard(slot, new ApiError('SERVICE_UNAVAILABLE', `the OpenPGP operation took longer than ${seconds} s and was stopped (V1_JOB_TIMEOUT_MS)`));
  }

  /** Forgets a worker (terminating it), failing its job, if any, with `error`. */
  #discard(slot: Slot, error: Error = new Error('OpenPGP worker discarded')): void {
    if (!this.#slots.delete(slot)) return;
    const index = this.#idle.indexOf(slot);
    if (index !== -1) this.#idle.splice(index, 1);
    const pending = slot.pending;
    slot.pending = undefined;
    if (pending !== undefined) {
      clearTimeout(pending.timer);
      pending.reject(error);
    }
    void slot.worker.terminate();
  }

  /** Stops every worker; jobs still running fail, and so do waiting ones (the pool is closed). */
  async close(): Promise<void> {
    this.#closed = true;
    const workers = [...this.#slots].map((slot) => slot.worker);
    for (const slot of [...this.#slots]) this.#discard(slot, new Error('the OpenPGP worker pool was closed'));
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
}
