/**
 * Keeps post-quantum work off the event loop, with a bounded queue.
 *
 * Node 24 (`inline` mode): node:crypto runs ML-KEM, ML-DSA and SLH-DSA in libuv's thread pool (the
 * core calls use the callback forms), so the calls are made here directly. One class still needs a
 * bound: SLH-DSA signing and key generation can hold a pool thread for seconds, and libuv has only
 * four threads for all asynchronous crypto and file I/O (Argon2id, scrypt, PBKDF2 share them).
 * At most `maxConcurrentHeavy` of them run at once; the others wait in the queue.
 *
 * Node 22 (`worker` mode): node:crypto lacks these schemes and @noble/post-quantum's work is
 * synchronous JavaScript, so ML-DSA and SLH-DSA run in a small pool of worker threads
 * (workers/pool.ts; one job per thread at a time). ML-KEM and X-Wing stay on the event loop: in
 * pure JavaScript they cost about what the worker round trip that would replace them costs.
 *
 * The queue is bounded (`maxQueued` jobs waiting beyond those running; the WorkQueue of the KDF and
 * password routes). When it is full, `run` rejects with a 503 problem with `Retry-After` (after
 * `refusalDelayMs`, BUSY_REFUSAL_DELAY_MS; work-queue.ts says why): a burst is refused cleanly
 * instead of growing an unbounded backlog whose every request would time out anyway.
 */
import { availableParallelism } from 'node:os';
import { PQ_NATIVE_SUPPORT, type PostQuantumRunner } from '@crypto-service/core';
import type { ClientJobCap } from './client-job-cap.ts';
import { DEFAULT_PASSWORD_HASH_UNITS } from './rate-limit/costs.ts';
import { WorkQueue, type JobTerms, type WorkQueueOptions } from './work-queue.ts';
import { runPqJob, type PqJob, type PqJobArgs, type PqJobName, type PqJobResult } from './workers/pq-jobs.ts';
import { WorkerPool } from './workers/pool.ts';
import { moduleUrl } from './module-url.ts';

export type PqOffloadMode = 'inline' | 'worker';

/**
 * `light`: always on the event loop. `cpu`: in a worker in worker mode, direct in inline mode.
 * `heavy`: in a worker in worker mode, through the concurrency bound in inline mode.
 */
type JobClass = 'light' | 'cpu' | 'heavy';

const JOB_CLASS: Record<PqJobName, JobClass> = {
  'ml-kem.keygen': 'light',
  'ml-kem.encapsulate': 'light',
  'ml-kem.decapsulate': 'light',
  'x-wing.keygen': 'light',
  'x-wing.encapsulate': 'light',
  'x-wing.encapsulate-parts': 'light',
  'x-wing.decapsulate': 'light',
  'x-wing.decapsulate-parts': 'light',
  'ml-dsa.keygen': 'cpu',
  'ml-dsa.sign': 'cpu',
  'ml-dsa.verify': 'cpu',
  'slh-dsa.verify': 'cpu',
  'slh-dsa.keygen': 'heavy',
  'slh-dsa.sign': 'heavy',
  'pq.private-key-from-pem': 'cpu',
};

export interface PqOffloadOptions {
  /** `inline` where node:crypto has ML-DSA and SLH-DSA, `worker` otherwise (the default choice). */
  mode?: PqOffloadMode;
  /** Worker mode: threads in the pool. Default: one fewer than the cores, 1 to 4. */
  workers?: number;
  /** Worker mode: the nice value each worker thread gives itself (HEAVY_WORK_NICE). Default 0. */
  threadNice?: number;
  /** Inline mode: SLH-DSA signatures and key generations running at once. Default 2 (of libuv's 4 threads). */
  maxConcurrentHeavy?: number;
  /** Jobs that may wait beyond those running before the queue refuses. Default 32. */
  maxQueued?: number;
  /** The `Retry-After` of the 503, in seconds. Default 1. */
  retryAfterSeconds?: number;
  /** How long a refusal because the queue is full waits before it is sent, in ms (work-queue.ts). Default 0. */
  refusalDelayMs?: number;
  /** The per-client cap shared with the other heavy queues (MAX_HEAVY_JOBS_PER_CLIENT); none: no cap. */
  clientCap?: ClientJobCap | undefined;
  /**
   * Inline mode: what runs a job (the job table by default). Tests substitute a function that
   * waits on a gate they open, so that a queue can be filled without any race.
   */
  execute?: (name: PqJobName, args: unknown[]) => Promise<unknown>;
}

export const DEFAULT_PQ_MAX_QUEUED = 32;
export const DEFAULT_PQ_MAX_CONCURRENT_HEAVY = 2;

export function defaultPqWorkers(): number {
  return Math.max(1, Math.min(4, availableParallelism() - 1));
}

const WORKER_SCRIPT = moduleUrl('./workers/pq-worker', import.meta.url);

const alwaysWanted = (): boolean => true;

export class PqOffload {
  readonly mode: PqOffloadMode;
  private readonly pool: WorkerPool<PqJob> | undefined;
  private readonly queue: WorkQueue;
  private readonly execute: (name: PqJobName, args: unknown[]) => Promise<unknown>;
  /**
   * Core's post-quantum functions, each run through this offload: what `/v2/sign`, `/v2/verify`
   * and `/v2/keys/generate` hand to core, so that their ML-DSA and SLH-DSA work is queued and kept
   * off the event loop exactly as on the `/v2/pq` routes.
   */
  readonly runner: PostQuantumRunner;

  constructor(options: PqOffloadOptions = {}) {
    this.mode = options.mode ?? (PQ_NATIVE_SUPPORT.mlDsa && PQ_NATIVE_SUPPORT.slhDsa ? 'inline' : 'worker');
    this.execute = options.execute ?? ((name, args) => runPqJob(name, args as never));
    let concurrency: number;
    if (this.mode === 'worker') {
      this.pool = new WorkerPool({
        name: 'post-quantum',
        script: WORKER_SCRIPT,
        workerData: { nice: options.threadNice ?? 0 },
      });
      // The queue admits at most one job per worker, so an admitted job always finds one idle.
      concurrency = options.workers ?? defaultPqWorkers();
    } else {
      concurrency = options.maxConcurrentHeavy ?? DEFAULT_PQ_MAX_CONCURRENT_HEAVY;
    }
    // The work-queue of the KDF and password routes, shared code: a job here holds a few hundred
    // kilobytes at most, so it declares no memory cost and only the counts bound it. Its small-job
    // lane keeps a slot for signatures no longer than a default password hash (the 'f' sets).
    this.queue = new WorkQueue({
      name: 'post-quantum',
      concurrency,
      maxQueued: options.maxQueued ?? DEFAULT_PQ_MAX_QUEUED,
      memoryBudgetBytes: 1,
      retryAfterSeconds: options.retryAfterSeconds ?? 1,
      refusalDelayMs: options.refusalDelayMs,
      smallJobLane: { memoryBytes: 0, work: DEFAULT_PASSWORD_HASH_UNITS },
      clientCap: options.clientCap,
    });
    this.runner = this.runnerWhile(alwaysWanted);
  }

  /**
   * Core's post-quantum functions for one request: as `runner`, but a queued job is dropped once
   * `stillWanted` says its request has ended, and waits its client's turn (see runWhile).
   */
  runnerWhile(stillWanted: JobTerms | (() => boolean)): PostQuantumRunner {
    return Object.freeze({
      mlKemKeygen: (...args) => this.runWhile(stillWanted, 'ml-kem.keygen', ...args),
      xwingKeygen: (...args) => this.runWhile(stillWanted, 'x-wing.keygen', ...args),
      mlDsaKeygen: (...args) => this.runWhile(stillWanted, 'ml-dsa.keygen', ...args),
      slhDsaKeygen: (...args) => this.runWhile(stillWanted, 'slh-dsa.keygen', ...args),
      mlDsaSign: (...args) => this.runWhile(stillWanted, 'ml-dsa.sign', ...args),
      mlDsaVerify: (...args) => this.runWhile(stillWanted, 'ml-dsa.verify', ...args),
      slhDsaSign: (...args) => this.runWhile(stillWanted, 'slh-dsa.sign', ...args),
      slhDsaVerify: (...args) => this.runWhile(stillWanted, 'slh-dsa.verify', ...args),
      privateKeyFromPem: (...args) => this.runWhile(stillWanted, 'pq.private-key-from-pem', ...args),
    } satisfies PostQuantumRunner);
  }

  /** Jobs running in the bounded class (workers, or native SLH-DSA signing and key generation). */
  get running(): number {
    return this.queue.running;
  }

  /** Jobs waiting for a slot. */
  get queued(): number {
    return this.queue.queued;
  }

  /** Jobs refused with a 503 since the offload was made. */
  get rejected(): number {
    return this.queue.rejected;
  }

  /** Jobs refused with a 429 since the offload was made, their client being at MAX_HEAVY_JOBS_PER_CLIENT. */
  get capped(): number {
    return this.queue.capped;
  }

  /** The queue's settings: running and waiting jobs, Retry-After, the refusal delay. */
  get queueOptions(): Readonly<WorkQueueOptions> {
    return this.queue.options;
  }

  /**
   * Runs a job. When the bounded queue is full the promise rejects, after `refusalDelayMs`, with an
   * ApiError SERVICE_UNAVAILABLE (a 503 with Retry-After, counted as `unavailable` by the
   * metrics); a CryptoError (bad input, a 400) rejects as it would inline.
   */
  run<N extends PqJobName>(name: N, ...args: PqJobArgs<N>): Promise<PqJobResult<N>> {
    return this.runWhile(alwaysWanted, name, ...args);
  }

  /**
   * As `run`, for a route: while the job waits in the queue, `stillWanted` is asked whether its
   * request still waits for the answer (handler-timeout.ts); once it says no, the job is dropped
   * without running (an SLH-DSA signature is up to seconds of a core). Given as JobTerms, it also
   * names the client, whose jobs take turns with other clients' and count towards its cap.
   */
  runWhile<N extends PqJobName>(
    stillWanted: JobTerms | (() => boolean),
    name: N,
    ...args: PqJobArgs<N>
  ): Promise<PqJobResult<N>> {
    const jobClass = JOB_CLASS[name];
    const inline = () => this.execute(name, args) as Promise<PqJobResult<N>>;
    if (jobClass === 'light' || (jobClass === 'cpu' && this.mode === 'inline')) return inline();
    const pool = this.pool;
    return this.queue.run(
      0,
      pool === undefined ? inline : () => pool.run({ name, args }) as Promise<PqJobResult<N>>,
      stillWanted,
    );
  }

  /** Jobs dropped before they started, their request having ended. */
  get dropped(): number {
    return this.queue.dropped;
  }

  /**
   * Stops the workers. In worker mode the jobs still running fail, and so do the waiting ones (each
   * starts on the closed pool and fails at once). In inline mode nothing is cancelled: node:crypto
   * cannot stop a running call, and the server waits for its in-flight requests on close anyway.
   */
  async close(): Promise<void> {
    await this.pool?.close();
  }
}
