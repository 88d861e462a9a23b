// PLACEHOLDER (being written this session): the Redis rate-limit store.
import type { FastifyBaseLogger } from 'fastify';
import type { RateLimitConfig } from '../config.ts';
import type { RateLimitStore } from './store.ts';

export function createRedisStore(_config: RateLimitConfig, _log: FastifyBaseLogger): RateLimitStore {
  throw new Error('REDIS_URL: the Redis store is not implemented yet');
}
