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
 * Waiting jobs are served fairly: each client (JobTerms.client) has its own line, and the lines
 * take turns, one job each, so a client with many jobs waiting delays another client's job by at
 * most one of its own. The client whose turn it is waits at the head when its job does not fit
 * yet, and the others wait too, so that a large job is not starved by a stream of small ones.
 * With `smallJobLane`, one slot and part of the memory are kept for small jobs (at most the lane's
 * memory and work, a default password hash say): a client's short job then never waits behind
 * another client's long ones, only behind short ones. A client may have at most `clientCap.max`
 * jobs in flight in all the queues that share the cap (a 429 beyond). A job that cannot be
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
import type { ClientJobCap } from './client-job-cap.ts';

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
  /**
   * One of the `concurrency` slots, and `memoryBytes` of the budget, kept for small jobs: those of
   * at most `memoryBytes` and `work`. Only with a concurrency of 2 or more.
   */
  smallJobLane?: SmallJobLane | undefined;
  /** Counts every client's jobs in flight, shared with the other heavy queues. None: no cap. */
  clientCap?: ClientJobCap | undefined;
}

export interface SmallJobLane {
  /** The most memory a small job declares; the lane's share of the budget. */
  memoryBytes: number;
  /** The most heavy units (rate-limit/costs.ts) a small job costs. */
  work: number;
}

/** Who asked for a job and what it costs, beyond its memory. */
export interface JobTerms {
  /** Asked while the job waits; once false, the job is dropped unstarted (see run). */
  stillWanted?: (() => boolean) | undefined;
  /** The client (client-key.ts); jobs without one share one line and no cap. */
  client?: string | undefined;
  /** Heavy units of the job (rate-limit/costs.ts): whether it is small. Default 0. */
  work?: number | undefined;
}

export const MIB = 1024 * 1024;

/** The longest refusal delay a queue accepts (BUSY_REFUSAL_DELAY_MS stops at 1000). */
const MAX_REFUSAL_DELAY_MS = 60_000;

/**
 * Argon2id, for all four password routes. Sized for the project's 2-core machine: two jobs at once
 * keep both cores busy and leave two of libuv's four threads to everything else. 320 MiB holds one
 * job at the cap (m = 262144 KiB) beside a default one (64 MiB), so that a client's default hash
 * need not wait while another client's largest job runs (plugins/work-queues.ts keeps that room
 * as the small-job lane). 32 waiting jobs are about 4 s of work at the defaults.
 */
export const PASSWORD_QUEUE_DEFAULTS: Readonly<WorkQueueOptions> = {
  name: 'password',
  concurrency: 2,
  maxQueued: 32,
  memoryBudgetBytes: 320 * MIB,
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
  /** Called once for every job refused with a 429 because its client had its most jobs in flight. */
  onCapped?: (() => void) | undefined;
}

type Lane = 'main' | 'small';

interface Waiting {
  readonly cost: number;
  readonly small: boolean;
  /** False once nobody waits for the result (handler-timeout.ts: timed out, or the client left). */
  readonly wanted: () => boolean;
  /** Starts the job in `lane`. */
  readonly start: (lane: Lane) => void;
  /** Settles the caller's promise without running the job. */
  readonly drop: () => void;
}

const alwaysWanted = (): boolean => true;

/** The line of the jobs that name no client. */
const NO_CLIENT = '';

export class WorkQueue {
  /** As given, with the refusal delay's default filled in. */
  readonly options: Readonly<Required<Omit<WorkQueueOptions, 'smallJobLane' | 'clientCap'>>> &
    Pick<WorkQueueOptions, 'smallJobLane' | 'clientCap'>;
  readonly #hooks: WorkQueueHooks;
  /** The small-job lane, when there is one (a concurrency of 2 or more). */
  readonly #lane: SmallJobLane | undefined;
  readonly #running: Record<Lane, number> = { main: 0, small: 0 };
  readonly #memory: Record<Lane, number> = { main: 0, small: 0 };
  #rejected = 0;
  #dropped = 0;
  #capped = 0;
  /** Each client's waiting jobs; the map's order is the order of turns (served clients go last). */
  readonly #lines = new Map<string, Waiting[]>();
  #waiting = 0;

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
    const lane = options.smallJobLane;
    if (
      lane !== undefined &&
      (!Number.isSafeInteger(lane.memoryBytes) ||
        lane.memoryBytes < 0 ||
        lane.memoryBytes > options.memoryBudgetBytes ||
        !(lane.work >= 0))
    ) {
      throw new RangeError(`work queue ${options.name}: the small-job lane must fit in the memory budget`);
    }
    this.options = { ...options, refusalDelayMs };
    this.#hooks = hooks;
    this.#lane = options.concurrency >= 2 ? lane : undefined;
  }

  /** Jobs running now. */
  get running(): number {
    return this.#running.main + this.#running.small;
  }

  /** Jobs waiting for a turn. */
  get queued(): number {
    return this.#waiting;
  }

  /** Declared memory of the running jobs, in bytes. */
  get memoryInUse(): number {
    return this.#memory.main + this.#memory.small;
  }

  /** Jobs refused since the queue was made. */
  /** Jobs refused with a 429 since the queue was made, their client being at its cap. */
  get capped(): number {
    return this.#capped;
  }

  get rejected(): number {
    return this.#rejected;
  }

  /**
   * Runs `job` when a slot and `memoryBytes` of the budget are free, and settles as it does. Refuses
   * with a 503 ApiError when the job can never fit (at once) or the queue is full (after
   * `refusalDelayMs`), with a 429 when its client already has its most jobs in flight (after
   * `refusalDelayMs` too).
   *
   * `terms.stillWanted` (or `terms` itself, as a function), asked while the job waits: once it
   * answers false (the request timed out, or its client went away), the job is dropped without
   * running, its promise rejected with a 503, and its place goes to the next job. Expensive work
   * that nobody will read is the cheapest to skip.
   */
  run<T>(memoryBytes: number, job: () => Promise<T>, terms: JobTerms | (() => boolean) = {}): Promise<T> {
    const {
      stillWanted = alwaysWanted,
      client,
      work = 0,
    } = typeof terms === 'function' ? { stillWanted: terms } : terms;
    if (!Number.isSafeInteger(memoryBytes) || memoryBytes < 0) {
      // A programming error in the caller, not the client's fault: let it surface as a 500.
      return Promise.reject(
        new RangeError(`work queue ${this.options.name}: memory cost must be a non-negative integer`),
      );
    }
    const lane = this.#lane;
    const small = lane !== undefined && memoryBytes <= lane.memoryBytes && work <= lane.work;
    if (!small && memoryBytes > this.#mainBudget()) {
      return Promise.reject(this.#refuse('this operation needs more memory than the server allows for such work'));
    }
    const cap = client === undefined ? undefined : this.options.clientCap;
    if (cap !== undefined && client !== undefined) {
      const capped = cap.acquire(client);
      if (capped !== undefined) {
        // Held back like a full queue's refusal: a client retrying at once would flood the loop.
        this.#capped += 1;
        this.#hooks.onCapped?.();
        return this.#refuseWhenDue(capped);
      }
    }
    // The client's count comes back once, however the job ends.
    const release = cap === undefined || client === undefined ? () => {} : () => cap.release(client);
    // Jobs nobody waits for any more go first: they must not keep this one waiting, or refused.
    if (this.#waiting > 0) this.#drain();
    // With jobs waiting, the main slots are theirs; a free small-job lane is not (they have had it).
    const lane0 =
      this.#waiting === 0
        ? this.#laneFor(memoryBytes, small)
        : small && this.#smallLaneTakes(memoryBytes)
          ? 'small'
          : undefined;
    if (lane0 !== undefined) {
      return this.#start(lane0, memoryBytes, job).finally(release);
    }
    if (this.#waiting >= this.options.maxQueued) {
      release();
      return this.#refuseWhenDue(this.#refuse('too many expensive operations are in progress'));
    }
    const line = client ?? NO_CLIENT;
    return new Promise<T>((resolve, reject) => {
      const waiting: Waiting = {
        cost: memoryBytes,
        small,
        wanted: stillWanted,
        start: (where) => void this.#start(where, memoryBytes, job).finally(release).then(resolve, reject),
        drop: () => {
          release();
          reject(new ApiError('SERVICE_UNAVAILABLE', `the request ended before its turn came (${this.options.name})`));
        },
      };
      const jobs = this.#lines.get(line);
      if (jobs === undefined) this.#lines.set(line, [waiting]);
      else jobs.push(waiting);
      this.#waiting += 1;
    });
  }

  /** Jobs dropped unstarted since the queue was made (see run). */
  get dropped(): number {
    return this.#dropped;
  }

  /** The budget of the jobs outside the small-job lane. */
  #mainBudget(): number {
    return this.options.memoryBudgetBytes - (this.#lane?.memoryBytes ?? 0);
  }

  /** Where a job of `cost` would start now: the main slots first, the small-job lane for a small job. */
  #laneFor(cost: number, small: boolean): Lane | undefined {
    const mainSlots = this.options.concurrency - (this.#lane === undefined ? 0 : 1);
    if (this.#running.main < mainSlots && this.#memory.main + cost <= this.#mainBudget()) return 'main';
    return small && this.#smallLaneTakes(cost) ? 'small' : undefined;
  }

  /** Whether the small-job lane is free and has room for a small job of `cost`. */
  #smallLaneTakes(cost: number): boolean {
    const lane = this.#lane;
    return lane !== undefined && this.#running.small === 0 && this.#memory.small + cost <= lane.memoryBytes;
  }

  /** Removes every waiting job that nobody wants any more. */
  #dropUnwanted(): void {
    for (const [client, jobs] of this.#lines) {
      const unwanted = jobs.filter((waiting) => !waiting.wanted());
      if (unwanted.length === 0) continue;
      const wanted = jobs.filter((waiting) => !unwanted.includes(waiting));
      if (wanted.length === 0) this.#lines.delete(client);
      else this.#lines.set(client, wanted);
      this.#waiting -= unwanted.length;
      for (const waiting of unwanted) this.#drop(waiting);
    }
  }

  #drop(waiting: Waiting): void {
    this.#dropped += 1;
    this.#hooks.onDropped?.();
    waiting.drop();
  }

  #start<T>(lane: Lane, cost: number, job: () => Promise<T>): Promise<T> {
    this.#running[lane] += 1;
    this.#memory[lane] += cost;
    let work: Promise<T>;
    try {
      work = job();
    } catch (error) {
      work = Promise.reject(error);
    }
    // The slot and the memory come back whether the job succeeds or fails.
    return Promise.resolve(work).finally(() => {
      this.#running[lane] -= 1;
      this.#memory[lane] -= cost;
      this.#drain();
    });
  }

  /** Takes the first job of `client`'s line, which then goes to the back of the turns. */
  #take(client: string, jobs: Waiting[]): Waiting {
    const waiting = jobs.shift() as Waiting;
    this.#waiting -= 1;
    this.#lines.delete(client);
    if (jobs.length > 0) this.#lines.set(client, jobs);
    return waiting;
  }

  /**
   * Starts what fits: the job of the client whose turn it is, in the main slots, for as long as it
   * fits; then, while the small-job lane is free, the first small job in the order of turns.
   */
  #drain(): void {
    this.#dropUnwanted();
    for (;;) {
      const first = this.#lines.entries().next();
      if (first.done === true) return;
      const [client, jobs] = first.value;
      const head = jobs[0] as Waiting;
      const lane = this.#laneFor(head.cost, head.small);
      if (lane !== undefined) {
        this.#take(client, jobs).start(lane);
        continue;
      }
      if (!this.#startSmall()) return;
    }
  }

  /**
   * Starts the first small job, in the order of turns, that the small-job lane can take. Only the
   * lane: the main slots belong to the client whose turn it is, however long its job must wait.
   */
  #startSmall(): boolean {
    for (const [client, jobs] of this.#lines) {
      const head = jobs[0] as Waiting;
      if (head.small && this.#smallLaneTakes(head.cost)) {
        this.#take(client, jobs).start('small');
        return true;
      }
    }
    return false;
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
