/**
 * Chooses where rate-limit counters live:
 *
 * - REDIS_URL set: Redis, shared by every process and replica (redis-store.ts), with the
 *   configured behaviour while Redis is unreachable (RATE_LIMIT_FAILURE_MODE).
 * - one of our cluster workers (WORKERS > 1) without Redis: the primary keeps the counters, so that
 *   the processes of one host still enforce one limit (cluster/ipc-store.ts).
 * - otherwise: this process's memory.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { RateLimitConfig } from '../config.ts';
import { MemoryStore, type RateLimitStore } from './store.ts';
import { createRedisStore } from './redis-store.ts';
import { IpcStore } from '../cluster/ipc-store.ts';
import { isClusterWorker } from '../cluster/role.ts';
import { leaseCap } from '../cluster/rate-limit-host.ts';

export function createRateLimitStore(config: RateLimitConfig, log: FastifyBaseLogger): RateLimitStore {
  if (config.redisUrl !== undefined) return createRedisStore(config, log);
  // Only a worker forked by our own primary (not, say, a pm2 cluster worker) has one to ask.
  if (isClusterWorker()) return new IpcStore({ log, leaseCap: leaseCap(config.max) });
  return new MemoryStore(config.windowMs);
}
