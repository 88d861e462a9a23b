/**
 * Chooses where rate-limit counters live:
 *
 * - REDIS_URL set: Redis, shared by every process and replica (redis-store.ts), with the
 *   configured behaviour while Redis is unreachable (RATE_LIMIT_FAILURE_MODE).
 * - a cluster worker (WORKERS > 1) without Redis: the primary process keeps the counters, so that
 *   the processes of one host still enforce one limit (cluster/ipc-store.ts).
 * - otherwise: this process's memory.
 */
import cluster from 'node:cluster';
import type { FastifyBaseLogger } from 'fastify';
import type { RateLimitConfig } from '../config.ts';
import { MemoryStore, type RateLimitStore } from './store.ts';
import { createRedisStore } from './redis-store.ts';
import { IpcStore } from '../cluster/ipc-store.ts';

export function createRateLimitStore(config: RateLimitConfig, log: FastifyBaseLogger): RateLimitStore {
  if (config.redisUrl !== undefined) return createRedisStore(config, log);
  if (cluster.isWorker) return new IpcStore();
  return new MemoryStore(config.windowMs);
}
