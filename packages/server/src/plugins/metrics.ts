/**
 * Prometheus metrics: the default process metrics, request counts and latency by route and status,
 * and crypto operations by operation, algorithm and outcome. One registry per app instance, so
 * that tests can build many apps in one process.
 */
import fp from 'fastify-plugin';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Counter, Registry, collectDefaultMetrics } from 'prom-client';
import { CryptoError } from '@crypto-service/core';
import { ApiError } from '../errors.ts';
import { declareRouteConfigCache, routeConfigOf } from '../route-config.ts';
import { LatencyHistogram, type HistogramSeries } from '../latency-histogram.ts';
import { isUnderThreshold } from './compression.ts';

export type Outcome = 'success' | 'rejected' | 'unavailable' | 'error';

export interface Operations {
  /**
   * Runs one crypto operation of `request`'s route and counts it under the route's `operation`
   * label: `rejected` when the input was refused (a CryptoError, the caller's fault), `unavailable`
   * when the server turned it away (a full work queue: an ApiError), `error` for anything else (a
   * bug).
   */
  run<T>(request: FastifyRequest, algorithm: string, work: () => T): T;
}

declare module 'fastify' {
  interface FastifyInstance {
    metricsRegistry: Registry;
    operations: Operations;
  }
  interface FastifyRequest {
    /** performance.now() when the pipeline took the request up; 0 before, -1 once counted (or waiting for `finish`). */
    pipelineStartedAt: number;
  }
}

const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** One label set of a counter, counted in a plain number until the next scrape. */
interface Series<L> {
  readonly labels: L;
  pending: number;
}

/**
 * A counter's increments kept in plain numbers per label set, handed to prom-client when the
 * counter is collected (every scrape, and every read through the registry). prom-client hashes the
 * labels object into a string on every inc(), which would be once per request; here a request
 * adds 1 to a number found through a few Map lookups.
 */
class DeferredCounts<L extends Record<string, string>> {
  readonly #all: Series<L>[] = [];

  create(labels: L): Series<L> {
    const series = { labels, pending: 0 };
    this.#all.push(series);
    return series;
  }

  flush(counter: Counter<string>): void {
    for (const series of this.#all) {
      if (series.pending > 0) {
        counter.inc(series.labels, series.pending);
        series.pending = 0;
      }
    }
  }
}

/** A Map of Maps: the entry of `key` under `map`, created empty when missing. */
function inner<K, V>(map: Map<K, Map<unknown, V>>, key: K): Map<unknown, V> {
  let found = map.get(key);
  if (found === undefined) {
    found = new Map();
    map.set(key, found);
  }
  return found;
}

/** Methods an unknown path is labelled with as sent; Node parses some thirty more, all `other`. */
const COMMON_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']);
function unmatchedMethodLabel(method: string): string {
  return COMMON_METHODS.has(method) ? method : 'other';
}

type HttpLabels = { method: string; route: string; status_code: string };
/** A request's route, method and status: its count and its latency histogram series. */
type HttpSeries = { count: Series<HttpLabels>; latency: HistogramSeries };
type OperationLabels = { operation: string; algorithm: string; outcome: Outcome };

export default fp(
  async function metrics(app) {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    const requestCounts = new DeferredCounts<HttpLabels>();
    const operationCounts = new DeferredCounts<OperationLabels>();
    new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests by method, route template and status code',
      labelNames: ['method', 'route', 'status_code'] as const,
      registers: [registry],
      collect() {
        requestCounts.flush(this);
      },
    });
    const latency = new LatencyHistogram(
      'http_request_duration_seconds',
      'HTTP request latency by method, route template and status code',
      LATENCY_BUCKETS,
    ).registerIn(registry);
    new Counter({
      name: 'crypto_operations_total',
      help: 'Crypto operations by operation, algorithm and outcome (success, rejected, unavailable, error)',
      labelNames: ['operation', 'algorithm', 'outcome'] as const,
      registers: [registry],
      collect() {
        operationCounts.flush(this);
      },
    });

    // operation → algorithm → outcome → series. Bounded: operations are the routes' fixed names,
    // algorithms those the schemas accept.
    const operationSeries = new Map<string, Map<unknown, Map<unknown, Series<OperationLabels>>>>();
    const count = (operation: string, algorithm: string, outcome: Outcome) => {
      const byOutcome = inner(
        inner(operationSeries, operation) as Map<string, Map<unknown, Series<OperationLabels>>>,
        algorithm,
      );
      let series = byOutcome.get(outcome);
      if (series === undefined) {
        series = operationCounts.create({ operation, algorithm, outcome });
        byOutcome.set(outcome, series);
      }
      series.pending++;
    };
    const failure = (error: unknown): Outcome =>
      error instanceof CryptoError ? 'rejected' : error instanceof ApiError ? 'unavailable' : 'error';

    app.decorate('metricsRegistry', registry);
    declareRouteConfigCache(app);
    app.decorate('operations', {
      run<T>(request: FastifyRequest, algorithm: string, work: () => T): T {
        const operation = routeConfigOf(request).operation;
        if (operation === undefined)
          throw new Error(`route ${request.method} ${routeConfigOf(request).url} declares no operation label`);
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

    // The series of a request, through its route's config object (one per route; the 404 handler's
    // for every unknown path), its method and its status: no labels object or string built per
    // request. Route labels are templates, never raw URLs: an attacker cannot mint label values.
    const httpSeries = new WeakMap<object, Map<string, Map<unknown, HttpSeries>>>();
    const seriesOf = (request: FastifyRequest, reply: FastifyReply): HttpSeries => {
      const config = routeConfigOf(request);
      let byMethod = httpSeries.get(config);
      if (byMethod === undefined) {
        byMethod = new Map();
        httpSeries.set(config, byMethod);
      }
      // A route answers only its own methods; an unknown path hears any, which are folded.
      const method = request.is404 ? unmatchedMethodLabel(request.method) : request.method;
      const status = reply.statusCode;
      const byStatus = inner(byMethod, method);
      let series = byStatus.get(status);
      if (series === undefined) {
        const route = request.is404 ? 'unmatched' : (config.url ?? 'unmatched');
        const labels = { method, route, status_code: String(status) };
        series = { count: requestCounts.create(labels), latency: latency.series(labels) };
        byStatus.set(status, series);
      }
      return series;
    };

    const observe = (request: FastifyRequest, reply: FastifyReply, startedAt: number) => {
      const series = seriesOf(request, reply);
      series.count.pending++;
      latency.observe(series.latency, (performance.now() - startedAt) / 1000);
    };
    // A function of its own, so that the hook below captures nothing: a closure there would make V8
    // allocate a context for its variables on every call, small answers included.
    const observeAtFinish = (request: FastifyRequest, reply: FastifyReply, startedAt: number) => {
      reply.raw.once('finish', () => observe(request, reply, startedAt));
    };

    // A request is timed from the first hook of the pipeline (app.ts registers this plugin first, so
    // a 401 or 429 from a later stage is timed too; only logging.ts's hook, which hands the request
    // its logger below LOG_LEVEL=info, runs before it) until its answer is out, and counted then,
    // once, under its final status. Not from Fastify's own timestamps: those exist only when Fastify
    // listens for the response's `finish`, which app.ts spares most requests (logging.ts,
    // appLogging). So the onSend hook, the first to see the answer, decides:
    // - a body under the compression threshold (nearly every answer of this API) is final here: no
    //   later onSend hook compresses, streams or fails it (the v1 deprecation hook only adds
    //   headers), and Node writes it at once. It is counted now, at no cost beyond this hook;
    // - a larger body or a stream is compressed or streamed after this hook, and could still fail:
    //   it is counted when the response finishes (one `finish` listener, on those responses only),
    //   so its latency includes compression and streaming, and a response cut off mid-stream is not
    //   counted, as Fastify's own accounting would not count it.
    // A malformed URL is answered before routing (app.ts, frameworkErrors) with no hook at all: it is
    // not counted, as it has no route.
    app.decorateRequest('pipelineStartedAt', 0);
    app.addHook('onRequest', (request, _reply, done) => {
      request.pipelineStartedAt = performance.now();
      done();
    });
    app.addHook('onSend', (request, reply, payload, done) => {
      const startedAt = request.pipelineStartedAt;
      // 0: the onRequest hook never ran (nothing answers before it today); -1: already counted or
      // waiting for `finish` (an onSend hook after this one failed, and its error answer comes
      // through again: the `finish` listener will see that answer's status).
      if (startedAt > 0) {
        request.pipelineStartedAt = -1;
        if (isUnderThreshold(payload)) {
          observe(request, reply, startedAt);
        } else {
          observeAtFinish(request, reply, startedAt);
        }
      }
      done(null, payload);
    });
  },
  { name: 'metrics' },
);
