/**
 * A typed wrapper around autocannon (a CommonJS dev dependency without type definitions).
 *
 * Latency percentiles are computed here from every response's own time rather than taken from
 * autocannon's histogram, which records whole milliseconds: at sub-millisecond latencies its p50
 * would read 0 or 1 ms. Throughput counts 2xx answers only, so a server that answered fast with
 * errors could not look good.
 */
import { createRequire } from 'node:module';
import { latencySummary } from './stats.ts';

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  /** Seconds. */
  duration: number;
  /** Requests in flight per connection (HTTP/1.1 pipelining); 1, as most clients send, by default. */
  pipelining?: number;
}

export interface LoadResult {
  /** 2xx answers per second over the run. */
  requestsPerSecond: number;
  /** Every answer, whatever its status. */
  answers: number;
  /** Latency of 2xx answers, in ms. */
  latency: { count: number; p50: number; p90: number; p99: number; max: number };
  statusCounts: Record<string, number>;
  /** Connection errors and timeouts (no HTTP answer at all). */
  errors: number;
  timeouts: number;
  /** CPU time this process spent during the run, in µs: meaningful only when one load runs at a time. */
  generatorCpuUs: number;
}

interface AutocannonResult {
  errors: number;
  timeouts: number;
  duration: number;
}

interface AutocannonInstance extends PromiseLike<AutocannonResult> {
  on(
    event: 'response',
    listener: (client: unknown, statusCode: number, bytes: number, responseTimeMs: number) => void,
  ): void;
}

type Autocannon = (options: Record<string, unknown>) => AutocannonInstance;

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const latencies: number[] = [];
  const statusCounts: Record<string, number> = {};
  let answers = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const instance = autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    headers: options.headers ?? {},
    ...(options.body === undefined ? {} : { body: options.body }),
    connections: options.connections,
    duration: options.duration,
    pipelining: options.pipelining ?? 1,
    timeout: 30,
  });
  instance.on('response', (_client, statusCode, _bytes, responseTimeMs) => {
    answers += 1;
    statusCounts[statusCode] = (statusCounts[statusCode] ?? 0) + 1;
    if (statusCode >= 200 && statusCode < 300) latencies.push(responseTimeMs);
  });
  const result = await instance;
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  return {
    requestsPerSecond: latencies.length / seconds,
    answers,
    latency: latencySummary(latencies),
    statusCounts,
    errors: result.errors,
    timeouts: result.timeouts,
    generatorCpuUs: cpu.user + cpu.system,
  };
}
