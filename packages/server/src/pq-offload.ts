/**
 * Keeps post-quantum work off the event loop, with a bounded queue.
 *
 * Node 24 (`inline` mode): node:crypto runs ML-KEM, ML-DSA and SLH-DSA in libuv's thread pool (the
 * core calls use the callback forms), so the calls are made here directly. One class still needs a
 * bound: SLH-DSA signing and key generation hold a pool thread for 12 ms to 2.3 s, and libuv has
 * only four threads for all asynchronous crypto and file I/O (Argon2id, scrypt, PBKDF2 share them).
 * At most `maxConcurrentHeavy` of them run at once; the others wait in the queue.
 *
 * Node 22 (`worker` mode): node:crypto lacks these schemes and @noble/post-quantum's work is
 * synchronous JavaScript, so ML-DSA (2–20 ms per call) and SLH-DSA (8 ms to tens of seconds) run in
 * a small pool of worker threads (node:worker_threads; one job per thread at a time). ML-KEM and
 * X-Wing stay on the event loop: 0.4–1.6 ms per call in pure JavaScript, about the cost of the
 * worker round trip that would replace it.
 *
 * The queue is bounded (`maxQueued` jobs waiting beyond those running; the WorkQueue of the KDF and
 * password routes). When it is full, `run` rejects with a 503 problem with `Retry-After` (after
 * `refusalDelayMs`, BUSY_REFUSAL_DELAY_MS; work-queue.ts says why): a burst is refused cleanly
 * instead of growing an unbounded backlog whose every request would time out anyway.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { CryptoError, type CoreErrorCode, type PostQuantumRunner } from '@crypto-service/core';
import { PQ_NATIVE_SUPPORT } from '@crypto-service/core';
import { WorkQueue, type WorkQueueOptions } from './work-queue.ts';
import {
  runPqJob,
  type PqJobArgs,
  type PqJobName,
  type PqJobResult,
  type PqWorkerReply,
  type PqWorkerRequest,
} from './workers/pq-jobs.ts';

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

interface Pending {
  request: PqWorkerRequest;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

const WORKER_SCRIPT = new URL('./workers/pq-worker.ts', import.meta.url);

/** Rebuilds the error a worker serialized: a CryptoError stays one (a 400), anything else a 500. */
function revive(error: { kind: string; code?: string; message: string; field?: string }): Error {
  if (error.kind === 'crypto' && error.code !== undefined) {
    return new CryptoError(error.code as CoreErrorCode, error.message, error.field);
  }
  return new Error(`post-quantum worker: ${error.message}`);
}

/** A fixed number of worker threads, each running one job at a time, started on first use. */
class WorkerPool {
  private readonly idle: Worker[] = [];
  private readonly busy = new Map<Worker, Pending>();
  private closed = false;
  private readonly size: number;
  private readonly threadNice: number;

  constructor(size: number, threadNice: number) {
    this.size = size;
    this.threadNice = threadNice;
  }

  get capacity(): number {
    return this.size;
  }

  /** Runs a job on an idle worker; the offload calls it only when fewer than `size` are busy. */
  exec(request: PqWorkerRequest): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error('the post-quantum worker pool is closed'));
    const worker = this.idle.pop() ?? this.spawn();
    return new Promise((resolve, reject) => {
      this.busy.set(worker, { request, resolve, reject });
      // A busy worker keeps the process alive (its caller waits for it); an idle one does not.
      worker.ref();
      worker.postMessage(request);
    });
  }

  private spawn(): Worker {
    const worker = new Worker(WORKER_SCRIPT, { workerData: { nice: this.threadNice } });
    worker.on('message', (reply: PqWorkerReply) => {
      const pending = this.busy.get(worker);
      this.busy.delete(worker);
      worker.unref();
      this.idle.push(worker);
      if (pending === undefined) return;
      if (reply.ok) pending.resolve(reply.result);
      else pending.reject(revive(reply.error));
    });
    // A worker that fails outside a job (it cannot load, or it crashed) is dropped; its job fails
    // with a 500 and the next job starts a new worker.
    worker.on('error', (error) => this.drop(worker, error));
    worker.on('exit', (code) => this.drop(worker, new Error(`post-quantum worker exited with code ${code}`)));
    return worker;
  }

  private drop(worker: Worker, error: Error): void {
    const index = this.idle.indexOf(worker);
    if (index !== -1) this.idle.splice(index, 1);
    const pending = this.busy.get(worker);
    this.busy.delete(worker);
    pending?.reject(error);
  }

  async close(): Promise<void> {
    this.closed = true;
    const workers = [...this.idle, ...this.busy.keys()];
    for (const pending of this.busy.values()) pending.reject(new Error('the post-quantum worker pool was closed'));
    this.busy.clear();
    this.idle.length = 0;
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
}

const alwaysWanted = (): boolean => true;

export class PqOffload {
  readonly mode: PqOffloadMode;
  private readonly pool: WorkerPool | undefined;
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
      this.pool = new WorkerPool(options.workers ?? defaultPqWorkers(), options.threadNice ?? 0);
      // The queue admits at most one job per worker, so an admitted job always finds one idle.
      concurrency = this.pool.capacity;
    } else {
      concurrency = options.maxConcurrentHeavy ?? DEFAULT_PQ_MAX_CONCURRENT_HEAVY;
    }
    // The work-queue of the KDF and password routes, shared code: a job here holds a few hundred
    // kilobytes at most, so it declares no memory cost and only the counts bound it.
    this.queue = new WorkQueue({
      name: 'post-quantum',
      concurrency,
      maxQueued: options.maxQueued ?? DEFAULT_PQ_MAX_QUEUED,
      memoryBudgetBytes: 1,
      retryAfterSeconds: options.retryAfterSeconds ?? 1,
      refusalDelayMs: options.refusalDelayMs,
    });
    this.runner = this.runnerWhile(alwaysWanted);
  }

  /**
   * Core's post-quantum functions for one request: as `runner`, but a queued job is dropped once
   * `stillWanted` says its request has ended (see runWhile).
   */
  runnerWhile(stillWanted: () => boolean): PostQuantumRunner {
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
   * without running (an SLH-DSA signature is up to seconds of a core).
   */
  runWhile<N extends PqJobName>(stillWanted: () => boolean, name: N, ...args: PqJobArgs<N>): Promise<PqJobResult<N>> {
    const jobClass = JOB_CLASS[name];
    const inline = () => this.execute(name, args) as Promise<PqJobResult<N>>;
    if (jobClass === 'light' || (jobClass === 'cpu' && this.mode === 'inline')) return inline();
    const pool = this.pool;
    return this.queue.run(0, pool === undefined ? inline : () => pool.exec({ name, args }) as Promise<PqJobResult<N>>, stillWanted);
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
