/**
 * Prometheus metrics: the default process metrics, request counts and latency by route and status,
 * and crypto operations by operation, algorithm and outcome. One registry per app instance, so
 * that tests can build many apps in one process.
 */
import fp from 'fastify-plugin';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { CryptoError } from '@crypto-service/core';
import { ApiError } from '../errors.ts';

export type Outcome = 'success' | 'rejected' | 'unavailable' | 'error';

export interface Operations {
  /**
   * Runs one crypto operation and counts it: `rejected` when the input was refused (a CryptoError,
   * the caller's fault), `unavailable` when the server turned it away (a full work queue: an
   * ApiError), `error` for anything else (a bug).
   */
  run<T>(operation: string, algorithm: string, work: () => T): T;
}

declare module 'fastify' {
  interface FastifyInstance {
    metricsRegistry: Registry;
    operations: Operations;
  }
}

const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export default fp(async function metrics(app) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by method, route template and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by method, route template and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const operations = new Counter({
    name: 'crypto_operations_total',
    help: 'Crypto operations by operation, algorithm and outcome (success, rejected, unavailable, error)',
    labelNames: ['operation', 'algorithm', 'outcome'] as const,
    registers: [registry],
  });

  const count = (operation: string, algorithm: string, outcome: Outcome) =>
    operations.inc({ operation, algorithm, outcome });
  const failure = (error: unknown): Outcome =>
    error instanceof CryptoError ? 'rejected' : error instanceof ApiError ? 'unavailable' : 'error';

  app.decorate('metricsRegistry', registry);
  app.decorate('operations', {
    run<T>(operation: string, algorithm: string, work: () => T): T {
      let result: T;
      try {
        result = work();
      } catch (error) {
        count(operation, algorithm, failure(error));
        throw error;
      }
      if (result instanceof Promise) {
        return result.then(
          (value) => (count(operation, algorithm, 'success'), value),
          (error: unknown) => {
            count(operation, algorithm, failure(error));
            throw error;
          },
        ) as T;
      }
      count(operation, algorithm, 'success');
      return result;
    },
  });

  app.addHook('onResponse', async (request, reply) => {
    // Route templates, never raw URLs: an attacker must not be able to mint label values.
    const route = request.is404 ? 'unmatched' : (request.routeOptions.url ?? 'unmatched');
    const labels = { method: request.method, route, status_code: String(reply.statusCode) };
    requests.inc(labels);
    latency.observe(labels, reply.elapsedTime / 1000);
  });
}, { name: 'metrics' });
