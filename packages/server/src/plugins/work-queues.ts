/**
 * The bounded work queues of the expensive key derivations (work-queue.ts) as shared
 * infrastructure: `app.workQueues`, one queue for Argon2id, shared by the four password routes so
 * that their memory has one server-wide budget, and one for scrypt and PBKDF2, so that a flood of
 * KDF requests cannot delay sign-ins. Routes declare it as a dependency.
 *
 * Each queue keeps a small-job lane (work-queue.ts) when its budget holds its largest job and a
 * default password hash's memory beside it: a default hash then never waits for another client's
 * largest job.
 */
import fp from 'fastify-plugin';
import { Counter, Gauge, type Registry } from 'prom-client';
import { ARGON2_DEFAULTS, ARGON2_MAX, SCRYPT_MAX_MEMORY_BYTES, argon2MemoryBytes } from '@crypto-service/core';
import type { ClientJobCap } from '../client-job-cap.ts';
import { DEFAULT_PASSWORD_HASH_UNITS } from '../rate-limit/costs.ts';
import {
  KDF_QUEUE_DEFAULTS,
  PASSWORD_QUEUE_DEFAULTS,
  WorkQueue,
  type SmallJobLane,
  type WorkQueueOptions,
} from '../work-queue.ts';

export interface WorkQueues {
  /** Argon2id: password hash, verify, encrypt, decrypt. */
  password: WorkQueue;
  /** scrypt and PBKDF2. */
  kdf: WorkQueue;
}

export interface WorkQueuesOptions {
  /** Overrides of PASSWORD_QUEUE_DEFAULTS (for example from the environment). */
  password?: Partial<WorkQueueOptions>;
  /** Overrides of KDF_QUEUE_DEFAULTS. */
  kdf?: Partial<WorkQueueOptions>;
  /** The per-client cap shared with the other heavy queues (MAX_HEAVY_JOBS_PER_CLIENT); none: no cap. */
  clientCap?: ClientJobCap;
}

/**
 * The lane for jobs no larger than a default password hash, when the budget has room for it beside
 * the queue's largest job; otherwise none, and all the slots serve every job.
 */
export function smallJobLane(budgetBytes: number, largestJobBytes: number): SmallJobLane | undefined {
  const memoryBytes = argon2MemoryBytes(ARGON2_DEFAULTS);
  if (budgetBytes - largestJobBytes < memoryBytes) return undefined;
  return { memoryBytes, work: DEFAULT_PASSWORD_HASH_UNITS };
}

declare module 'fastify' {
  interface FastifyInstance {
    workQueues: WorkQueues;
  }
}

/** Queue gauges, read at scrape time; the refusal and drop counters are fed by the queues' hooks. */
function registerQueueGauges(registry: Registry, queues: WorkQueues): void {
  const all = Object.values(queues);
  new Gauge({
    name: 'crypto_work_queue_jobs',
    help: 'Expensive jobs (Argon2id, scrypt, PBKDF2) by queue and state (running, waiting)',
    labelNames: ['queue', 'state'] as const,
    registers: [registry],
    collect() {
      for (const queue of all) {
        this.set({ queue: queue.options.name, state: 'running' }, queue.running);
        this.set({ queue: queue.options.name, state: 'waiting' }, queue.queued);
      }
    },
  });
  new Gauge({
    name: 'crypto_work_queue_memory_bytes',
    help: 'Declared memory of the running expensive jobs, by queue',
    labelNames: ['queue'] as const,
    registers: [registry],
    collect() {
      for (const queue of all) this.set({ queue: queue.options.name }, queue.memoryInUse);
    },
  });
}

export default fp<WorkQueuesOptions>(
  async function workQueues(app, options) {
    const registry = app.metricsRegistry;
    const refused = new Counter({
      name: 'crypto_work_queue_rejected_total',
      help: 'Expensive jobs refused with 503 because their queue was full, by queue',
      labelNames: ['queue'] as const,
      registers: [registry],
    });
    const dropped = new Counter({
      name: 'crypto_work_queue_dropped_total',
      help: 'Queued jobs dropped before they started because their request had ended (HANDLER_TIMEOUT_MS, or the client left), by queue',
      labelNames: ['queue'] as const,
      registers: [registry],
    });
    const capped = new Counter({
      name: 'crypto_work_queue_client_capped_total',
      help: 'Expensive jobs refused with 429 because their client had MAX_HEAVY_JOBS_PER_CLIENT in flight, by queue',
      labelNames: ['queue'] as const,
      registers: [registry],
    });
    const queue = (
      defaults: Readonly<WorkQueueOptions>,
      overrides: Partial<WorkQueueOptions> | undefined,
      largestJobBytes: number,
    ) => {
      const budget = overrides?.memoryBudgetBytes ?? defaults.memoryBudgetBytes;
      const settings = {
        smallJobLane: smallJobLane(budget, largestJobBytes),
        clientCap: options.clientCap,
        ...defaults,
        ...overrides,
      };
      // Present at 0 from the start, so that a dashboard sees the series before the first refusal.
      refused.inc({ queue: settings.name }, 0);
      dropped.inc({ queue: settings.name }, 0);
      capped.inc({ queue: settings.name }, 0);
      return new WorkQueue(settings, {
        onRefused: () => refused.inc({ queue: settings.name }),
        onDropped: () => dropped.inc({ queue: settings.name }),
        onCapped: () => capped.inc({ queue: settings.name }),
      });
    };
    const queues: WorkQueues = {
      password: queue(PASSWORD_QUEUE_DEFAULTS, options.password, argon2MemoryBytes(ARGON2_MAX)),
      kdf: queue(KDF_QUEUE_DEFAULTS, options.kdf, SCRYPT_MAX_MEMORY_BYTES),
    };
    app.decorate('workQueues', queues);
    registerQueueGauges(registry, queues);
  },
  { name: 'work-queues', dependencies: ['metrics'] },
);
