/**
 * autocannon (CommonJS, untyped) behind a typed function, and the request check and failure count
 * the scripts share. Latency percentiles come from every response's own time, since autocannon's
 * histogram records whole milliseconds; throughput counts 2xx answers only, so that a server
 * answering fast with errors cannot look good.
 */
import { createRequire } from 'node:module';
import { latencySummary } from './common.ts';

export interface LoadOptions {
  /** Every load is a POST of `body` to `url`. */
  url: string;
  headers: Record<string, string>;
  body: string;
  connections: number;
  /** Seconds. */
  duration: number;
  /** Requests in flight per connection (HTTP/1.1 pipelining). */
  pipelining?: number;
}

export interface LoadResult {
  /** 2xx answers per second. */
  requestsPerSecond: number;
  /** Every answer, whatever its status. */
  answers: number;
  /** Of 2xx answers, in ms. */
  latency: { count: number; p50: number; p99: number; max: number };
  statusCounts: Record<string, number>;
  /** Connection errors and timeouts: no HTTP answer at all. */
  errors: number;
  /** CPU time of this process during the run, in µs: meaningful only when one load runs at a time. */
  generatorCpuUs: number;
}

interface Autocannon {
  on(event: 'response', listener: (client: unknown, status: number, bytes: number, ms: number) => void): void;
  then: PromiseLike<{ errors: number; timeouts: number }>['then'];
}
const autocannon = createRequire(import.meta.url)('autocannon') as (options: object) => Autocannon;

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const latencies: number[] = [];
  const statusCounts: Record<string, number> = {};
  let answers = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const instance = autocannon({ ...options, method: 'POST', pipelining: options.pipelining ?? 1, timeout: 30 });
  instance.on('response', (_client, status, _bytes, ms) => {
    answers += 1;
    statusCounts[status] = (statusCounts[status] ?? 0) + 1;
    if (status >= 200 && status < 300) latencies.push(ms);
  });
  const result = await instance;
  const cpu = process.cpuUsage(cpuBefore);
  return {
    requestsPerSecond: latencies.length / ((performance.now() - started) / 1000),
    answers,
    latency: latencySummary(latencies),
    statusCounts,
    errors: result.errors + result.timeouts,
    generatorCpuUs: cpu.user + cpu.system,
  };
}

/** Answers other than 2xx, and connection errors: a measured run should have none. */
export function failures(result: LoadResult): number {
  const counts = Object.entries(result.statusCounts).filter(([status]) => !status.startsWith('2'));
  return counts.reduce((sum, [, count]) => sum + count, result.errors);
}

/** One request, which must be answered 200 (a benchmark of 401s would be worthless); returns the body. */
export async function checkOnce(url: string, headers: Record<string, string>, body: string): Promise<string> {
  const response = await fetch(url, { method: 'POST', headers, body });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}: ${text}`);
  return text;
}
