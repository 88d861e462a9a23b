/**
 * Runs the /v1 OpenPGP jobs in a small pool of worker threads (worker.ts), behind a bounded queue.
 *
 * Why threads: OpenPGP.js derives passphrase keys (S2K) in synchronous JavaScript, and a
 * client-supplied key or symmetric message chooses its own cost; on the event loop that would
 * delay every other request. In a worker the event loop never waits on OpenPGP.js.
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
import { ApiError } from '../errors.ts';
import { WorkQueue } from '../work-queue.ts';
import { WorkerPool } from '../workers/pool.ts';
import type { ServerKeyInfo, V1Job, V1JobResults } from './openpgp-jobs.ts';
import { moduleUrl } from '../module-url.ts';

/** What each worker is given at start. */
export interface WorkerInit {
  /** The nice value the worker thread gives itself (HEAVY_WORK_NICE; thread-priority.ts). */
  nice?: number;
  serverKey?: { armored: string; passphrase: string | undefined; file: string };
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

const WORKER_SCRIPT = moduleUrl('./worker', import.meta.url);

export class OpenPgpPool {
  readonly queue: WorkQueue;
  readonly #workers: WorkerPool<V1Job, ServerKeyInfo>;

  constructor(options: OpenPgpPoolOptions) {
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
    const seconds = Math.round(options.jobTimeoutMs / 100) / 10;
    this.#workers = new WorkerPool({
      name: 'OpenPGP',
      script: WORKER_SCRIPT,
      workerData: options.init ?? {},
      jobTimeoutMs: options.jobTimeoutMs,
      timeoutError: () => {
        options.onTimeout?.();
        return new ApiError(
          'SERVICE_UNAVAILABLE',
          `the OpenPGP operation took longer than ${seconds} s and was stopped (V1_JOB_TIMEOUT_MS)`,
        );
      },
    });
  }

  /** Starts one worker now and waits until it is ready: loads and checks the server key, if any. */
  start(): Promise<ServerKeyInfo | undefined> {
    return this.#workers.start();
  }

  /** Runs a job through the queue (503 when it is full) on a worker. */
  run<J extends V1Job>(job: J): Promise<V1JobResults[J['op']]> {
    return this.queue.run(0, () => this.#workers.run(job)) as Promise<V1JobResults[J['op']]>;
  }

  /** Stops every worker; jobs still running fail, and so do waiting ones (the pool is closed). */
  close(): Promise<void> {
    return this.#workers.close();
  }
}
