/**
 * A small bounded executor for expensive asynchronous jobs (Argon2id, scrypt, PBKDF2).
 *
 * Why: these jobs run on libuv's thread pool, which every asynchronous native call shares (4
 * threads by default: crypto, zlib compression of responses, fs, dns). Unbounded, a burst of
 * password hashes would occupy the whole pool, make everything else wait behind them, and
 * allocate memory without limit (64 MiB per default Argon2id hash, 128 MiB per default scrypt).
 *
 * What it bounds, each job declaring its memory cost up front:
 * - `concurrency`: jobs running at once;
 * - `memoryBudgetBytes`: the sum of the declared costs of the running jobs;
 * - `maxQueued`: jobs waiting for a turn.
 * Jobs start in arrival order; a job that does not fit yet waits at the head, and the jobs behind
 * it wait too, so that a large job is not starved by a stream of small ones. A job that cannot be
 * queued (the queue is full, or its cost exceeds the whole budget) fails with a 503
 * SERVICE_UNAVAILABLE problem and a Retry-After header: overload is answered cleanly and quickly,
 * never with a stall or an out-of-memory crash.
 *
 * A refusal because the queue is full goes out `refusalDelayMs` after the decision (0 here; the
 * app passes BUSY_REFUSAL_DELAY_MS, 25 ms by default). The queue is full only while the work
 * already takes the cores, and a client that retries the moment it is refused, ignoring
 * Retry-After, would otherwise send refusal after refusal through the whole pipeline, taking the
 * event loop and CPU from the work itself. Held back 25 ms, a connection that does not pipeline
 * can be refused at most 40 times a second (docs/performance.md, "Refusals"). A job that can never fit is
 * refused at once: that answer does not depend on the load. The queue's refusal counter counts a
 * refusal when it is decided; the HTTP metrics see it when it is sent, its latency included.
 *
 * Waiting is bounded too: at most `maxQueued / concurrency` rounds of jobs that each take a bounded
 * time (core's caps bound every job's cost).
 */
import { ApiError } from './errors.ts';

export interface WorkQueueOptions {
  /** Names the queue in messages and metrics. */
  name: string;
  /** Jobs running at once. */
  concurrency: number;
  /** Jobs waiting beyond those running; one more is refused with a 503. */
  maxQueued: number;
  /** Sum of the declared memory of the running jobs, in bytes. */
  memoryBudgetBytes: number;
  /** The Retry-After of a refusal, in seconds. */
  retryAfterSeconds: number;
  /** How long a refusal because the queue is full waits before it is sent, in ms. Default 0. */
  refusalDelayMs?: number;
}

export const MIB = 1024 * 1024;

/** The longest refusal delay a queue accepts (BUSY_REFUSAL_DELAY_MS stops at 1000). */
const MAX_REFUSAL_DELAY_MS = 60_000;

/**
 * Argon2id, for all four password routes. Sized for the project's 2-core machine: two jobs at once
 * keep both cores busy (a default hash is about 0.1 s of one core) and leave two of libuv's four
 * threads to everything else. 256 MiB holds two default jobs (64 MiB each) with room, or one job
 * at the cap (m = 262144 KiB). 32 waiting jobs are about 2 s of work at the defaults.
 */
export const PASSWORD_QUEUE_DEFAULTS: Readonly<WorkQueueOptions> = {
  name: 'password',
  concurrency: 2,
  maxQueued: 32,
  memoryBudgetBytes: 256 * MIB,
  retryAfterSeconds: 1,
};

/**
 * scrypt and PBKDF2 (`/v2/kdf`). One at a time: a default scrypt is 128 MiB and 0.35 s, and a
 * separate queue keeps a flood of KDF requests from delaying sign-ins. 256 MiB is one job at the
 * cap (128 · N · r = 256 MiB). 16 waiting jobs are about 6 s of default scrypt.
 */
export const KDF_QUEUE_DEFAULTS: Readonly<WorkQueueOptions> = {
  name: 'kdf',
  concurrency: 1,
  maxQueued: 16,
  memoryBudgetBytes: 256 * MIB,
  retryAfterSeconds: 1,
};

/** Observers of a queue (metrics). */
export interface WorkQueueHooks {
  /** Called once for every job refused with a 503. */
  onRefused?: (() => void) | undefined;
  /** Called once for every waiting job dropped because its request no longer wanted it. */
  onDropped?: (() => void) | undefined;
}

interface Waiting {
  readonly cost: number;
  /** False once nobody waits for the result (handler-timeout.ts: timed out, or the client left). */
  readonly wanted: () => boolean;
  /** Starts the job. */
  readonly start: () => void;
  /** Settles the caller's promise without running the job. */
  readonly drop: () => void;
}

const alwaysWanted = (): boolean => true;

export class WorkQueue {
  /** As given, with the refusal delay's default filled in. */
  readonly options: Readonly<Required<WorkQueueOptions>>;
  readonly #hooks: WorkQueueHooks;
  #running = 0;
  #memoryInUse = 0;
  #rejected = 0;
  #dropped = 0;
  readonly #waiting: Waiting[] = [];

  constructor(options: WorkQueueOptions, hooks: WorkQueueHooks = {}) {
    for (const key of [
      'concurrency',
      'maxQueued',
      'memoryBudgetBytes',
      'retryAfterSeconds',
      'refusalDelayMs',
    ] as const) {
      const value = options[key] ?? 0;
      const min = key === 'maxQueued' || key === 'refusalDelayMs' ? 0 : 1;
      if (!Number.isSafeInteger(value) || value < min) {
        throw new RangeError(`work queue ${options.name}: ${key} must be an integer of at least ${min} (got ${value})`);
      }
    }
    const refusalDelayMs = options.refusalDelayMs ?? 0;
    // Node turns a longer timer into 1 ms; no sensible delay comes near a minute.
    if (refusalDelayMs > MAX_REFUSAL_DELAY_MS) {
      throw new RangeError(
        `work queue ${options.name}: refusalDelayMs must be at most ${MAX_REFUSAL_DELAY_MS} (got ${refusalDelayMs})`,
      );
    }
    this.options = { ...options, refusalDelayMs };
    this.#hooks = hooks;
  }

  /** Jobs running now. */
  get running(): number {
    return this.#running;
  }

  /** Jobs waiting for a turn. */
  get queued(): number {
    return this.#waiting.length;
  }

  /** Declared memory of the running jobs, in bytes. */
  get memoryInUse(): number {
    return this.#memoryInUse;
  }

  /** Jobs refused since the queue was made. */
  get rejected(): number {
    return this.#rejected;
  }

  /**
   * Runs `job` when a slot and `memoryBytes` of the budget are free, and settles as it does. Refuses
   * with a 503 ApiError when the job can never fit (at once) or the queue is full (after
   * `refusalDelayMs`).
   *
   * `stillWanted`, asked while the job waits: once it answers false (the request timed out, or its
   * client went away), the job is dropped without running, its promise rejected with a 503, and its
   * place goes to the next job. Expensive work that nobody will read is the cheapest to skip.
   */
  run<T>(memoryBytes: number, job: () => Promise<T>, stillWanted: () => boolean = alwaysWanted): Promise<T> {
    if (!Number.isSafeInteger(memoryBytes) || memoryBytes < 0) {
      // A programming error in the caller, not the client's fault: let it surface as a 500.
      return Promise.reject(
        new RangeError(`work queue ${this.options.name}: memory cost must be a non-negative integer`),
      );
    }
    if (memoryBytes > this.options.memoryBudgetBytes) {
      return Promise.reject(this.#refuse('this operation needs more memory than the server allows for such work'));
    }
    // Jobs nobody waits for any more go first: they must not keep this one waiting, or refused.
    if (this.#waiting.length > 0) {
      this.#dropUnwanted();
      this.#drain();
    }
    if (this.#waiting.length === 0 && this.#fits(memoryBytes)) {
      return this.#start(memoryBytes, job);
    }
    if (this.#waiting.length >= this.options.maxQueued) {
      return this.#refuseWhenDue(this.#refuse('too many expensive operations are in progress'));
    }
    return new Promise<T>((resolve, reject) => {
      this.#waiting.push({
        cost: memoryBytes,
        wanted: stillWanted,
        start: () => void this.#start(memoryBytes, job).then(resolve, reject),
        drop: () =>
          reject(new ApiError('SERVICE_UNAVAILABLE', `the request ended before its turn came (${this.options.name})`)),
      });
    });
  }

  /** Jobs dropped unstarted since the queue was made (see run). */
  get dropped(): number {
    return this.#dropped;
  }

  /** Removes every waiting job that nobody wants any more. */
  #dropUnwanted(): void {
    const unwanted = this.#waiting.filter((waiting) => !waiting.wanted());
    for (const waiting of unwanted) {
      this.#waiting.splice(this.#waiting.indexOf(waiting), 1);
      this.#drop(waiting);
    }
  }

  #drop(waiting: Waiting): void {
    this.#dropped += 1;
    this.#hooks.onDropped?.();
    waiting.drop();
  }

  #fits(cost: number): boolean {
    return this.#running < this.options.concurrency && this.#memoryInUse + cost <= this.options.memoryBudgetBytes;
  }

  #start<T>(cost: number, job: () => Promise<T>): Promise<T> {
    this.#running += 1;
    this.#memoryInUse += cost;
    let work: Promise<T>;
    try {
      work = job();
    } catch (error) {
      work = Promise.reject(error);
    }
    // The slot and the memory come back whether the job succeeds or fails.
    return Promise.resolve(work).finally(() => {
      this.#running -= 1;
      this.#memoryInUse -= cost;
      this.#drain();
    });
  }

  #drain(): void {
    for (let head = this.#waiting[0]; head !== undefined; head = this.#waiting[0]) {
      if (!head.wanted()) {
        this.#waiting.shift();
        this.#drop(head);
      } else if (this.#fits(head.cost)) {
        this.#waiting.shift();
        head.start();
      } else {
        break;
      }
    }
  }

  /** Rejects with `refusal` once `refusalDelayMs` has passed (at once for 0; see the module's comment). */
  #refuseWhenDue<T>(refusal: ApiError): Promise<T> {
    const delayMs = this.options.refusalDelayMs;
    if (delayMs === 0) return Promise.reject(refusal);
    return new Promise<T>((_resolve, reject) => {
      setTimeout(reject, delayMs, refusal);
    });
  }

  #refuse(reason: string): ApiError {
    this.#rejected += 1;
    this.#hooks.onRefused?.();
    const seconds = this.options.retryAfterSeconds;
    return new ApiError(
      'SERVICE_UNAVAILABLE',
      `server busy: ${reason} (${this.options.name}); retry after ${seconds} s`,
      {
        headers: { 'retry-after': String(seconds) },
      },
    );
  }
}
