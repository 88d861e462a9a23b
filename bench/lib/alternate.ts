/**
 * Drives several servers with the same load (autocannon, or lib/light-load.ts) in alternating
 * rounds: forward order on even rounds, reverse order on odd ones (A B C, C B A, …), after a
 * warm-up of each. A slow stretch of the shared machine then lands on every target rather than on
 * one of them, and ratios can be taken round by round.
 *
 * Besides throughput and latency, each run records the server's CPU time per answered request
 * (when the target names the server's pid): the steadier figure when other processes share the
 * cores. It sums the process and its descendants, so a cluster's workers count with its primary.
 */
import { runLoad, type LoadResult } from './autocannon.ts';
import { runLightLoad } from './light-load.ts';
import { cpuSnapshot, cpuUsedMs, type ServerProcess } from './server-process.ts';
import { formatCount, formatRatioRange, print } from './stats.ts';

export interface Target {
  name: string;
  /** Full URL of the route. */
  url: string;
  headers: Record<string, string>;
  body: string;
  /** The server process (a cluster's primary), for its CPU time and that of its descendants. */
  pid?: number | undefined;
  /** The status every answer should have: 200 unless the load is meant to be refused (a flood of bad input). */
  expectedStatus?: number | undefined;
}

export interface RunResult extends LoadResult {
  /** Server CPU time (all threads of all its processes) per answered request, in µs; NaN without a pid. */
  serverCpuUsPerRequest: number;
  /** The same for the server process alone, without its descendants: a cluster's primary. */
  primaryCpuUsPerRequest: number;
  /** The load generator's CPU time (this process) per answered request, in µs. */
  generatorCpuUsPerRequest: number;
}

/**
 * Which load generator drives the servers: autocannon (the default, and what every figure without a
 * note was measured with) or lib/light-load.ts, which spends far less of the shared cores.
 */
export type Generator = 'autocannon' | 'light';

/**
 * A script's --generator, checked against its --connections and --pipelining. The light generator
 * reads its sockets once a millisecond, so at most connections × pipelining requests are answered
 * per millisecond: that must stay well above what any server here can serve.
 */
export function checkedGenerator(name: string, connections: number, pipelining: number): Generator {
  if (name !== 'autocannon' && name !== 'light') throw new Error(`--generator must be autocannon or light (got ${name})`);
  if (name === 'light' && connections * pipelining < 200) throw new Error(`--generator light needs connections × pipelining ≥ 200 (it reads once a millisecond); got ${connections} × ${pipelining}`);
  return name;
}

export interface AlternateOptions {
  connections: number;
  generator?: Generator;
  /** HTTP/1.1 pipelining depth per connection (lib/autocannon.ts); 1 by default. */
  pipelining?: number;
  /** Seconds per measured run. */
  duration: number;
  /** Seconds of warm-up per target (discarded). */
  warmup: number;
  rounds: number;
  /** Called after each measured run, for progress output. */
  onRun?: (target: Target, round: number, result: RunResult) => void;
}

export async function loadOnce(target: Target, connections: number, duration: number, pipelining = 1, generator: Generator = 'autocannon'): Promise<RunResult> {
  const cpuBefore = cpuSnapshot(target.pid);
  const run = generator === 'light' ? runLightLoad : runLoad;
  const result = await run({ url: target.url, method: 'POST', headers: target.headers, body: target.body, connections, duration, pipelining });
  const cpuAfter = cpuSnapshot(target.pid);
  const perRequest = (ms: number) => (ms * 1000) / result.answers;
  return {
    ...result,
    serverCpuUsPerRequest: perRequest(cpuUsedMs(cpuBefore, cpuAfter)),
    primaryCpuUsPerRequest: perRequest(target.pid === undefined ? Number.NaN : cpuUsedMs(cpuBefore, cpuAfter, target.pid)),
    generatorCpuUsPerRequest: result.generatorCpuUs / result.answers,
  };
}

/** One request first: a benchmark of 401s or 404s would be worthless. Returns the body. */
export async function checkOnce(target: Target): Promise<string> {
  const response = await fetch(target.url, { method: 'POST', headers: target.headers, body: target.body });
  const text = await response.text();
  const expected = target.expectedStatus ?? 200;
  if (response.status !== expected) throw new Error(`${target.name} ${target.url} answered ${response.status} (expected ${expected}): ${text}`);
  return text;
}

/**
 * Answers of another kind than expected (non-2xx, or with `expectedStatus` any other status) and
 * connection errors: every measured run should have none.
 */
export function failures(result: LoadResult, expectedStatus?: number): number {
  const unexpected = expectedStatus === undefined ? (status: string) => !status.startsWith('2') : (status: string) => status !== String(expectedStatus);
  return Object.entries(result.statusCounts).filter(([status]) => unexpected(status)).reduce((sum, [, count]) => sum + count, 0) + result.errors;
}

export async function alternate(targets: Target[], options: AlternateOptions): Promise<Map<string, RunResult[]>> {
  const results = new Map<string, RunResult[]>(targets.map((target) => [target.name, []]));
  for (const target of targets) {
    await checkOnce(target);
    await loadOnce(target, options.connections, options.warmup, options.pipelining, options.generator);
  }
  for (let round = 0; round < options.rounds; round++) {
    const order = round % 2 === 0 ? targets : [...targets].reverse();
    for (const target of order) {
      const result = await loadOnce(target, options.connections, options.duration, options.pipelining, options.generator);
      results.get(target.name)?.push(result);
      options.onRun?.(target, round, result);
    }
  }
  return results;
}

/**
 * One round of a server launched several times (bench/load.ts --launches): every launch's run of
 * that round combined as one. Rates, CPU per request and latency percentiles are the launches'
 * means; counts are summed; the maximum latency is the largest.
 */
export function meanOfLaunches(runs: readonly RunResult[]): RunResult {
  const [first] = runs;
  if (first === undefined) throw new Error('no runs to combine');
  if (runs.length === 1) return first;
  const sum = (value: (run: RunResult) => number) => runs.reduce((total, run) => total + value(run), 0);
  const mean = (value: (run: RunResult) => number) => sum(value) / runs.length;
  const statusCounts: Record<string, number> = {};
  for (const run of runs) {
    for (const [status, count] of Object.entries(run.statusCounts)) statusCounts[status] = (statusCounts[status] ?? 0) + count;
  }
  return {
    requestsPerSecond: mean((run) => run.requestsPerSecond),
    answersPerSecond: mean((run) => run.answersPerSecond),
    answers: sum((run) => run.answers),
    latency: {
      count: sum((run) => run.latency.count),
      p50: mean((run) => run.latency.p50),
      p90: mean((run) => run.latency.p90),
      p99: mean((run) => run.latency.p99),
      max: Math.max(...runs.map((run) => run.latency.max)),
    },
    statusCounts,
    errors: sum((run) => run.errors),
    timeouts: sum((run) => run.timeouts),
    durationSeconds: mean((run) => run.durationSeconds),
    generatorCpuUs: sum((run) => run.generatorCpuUs),
    serverCpuUsPerRequest: mean((run) => run.serverCpuUsPerRequest),
    primaryCpuUsPerRequest: mean((run) => run.primaryCpuUsPerRequest),
    generatorCpuUsPerRequest: mean((run) => run.generatorCpuUsPerRequest),
  };
}

/**
 * The median of the round-by-round ratios of `pick` between two servers of one `alternate` run
 * (numerator ÷ denominator), with their range: "0.72× (0.68–0.78)".
 */
export function roundByRoundRatio(results: Map<string, RunResult[]>, numerator: string, denominator: string, pick: (run: RunResult) => number): string {
  const top = results.get(numerator) ?? [];
  const bottom = results.get(denominator) ?? [];
  const ratios = top.map((run, round) => pick(run) / pick(bottom[round] as RunResult));
  return formatRatioRange(ratios);
}

/**
 * A server started by lib/server-process.ts, the path of the route to load (its hash route unless
 * said otherwise) and, when it differs from the others', its own request body.
 */
export interface HashServer {
  server: ServerProcess;
  path: string;
  body?: string;
  /** Target.expectedStatus. */
  expectedStatus?: number;
}

/** One target per server: its route, its body or `body`, with the JSON and API-key headers, its pid. */
export function hashTargets(servers: readonly HashServer[], apiKey: string, body: string): Target[] {
  return servers.map((entry) => ({
    name: entry.server.name,
    url: `${entry.server.url}${entry.path}`,
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: entry.body ?? body,
    pid: entry.server.child.pid,
    expectedStatus: entry.expectedStatus,
  }));
}

/** The progress line of one measured run (AlternateOptions.onRun). */
export function printRun(target: Target, round: number, result: RunResult): void {
  const failed = failures(result, target.expectedStatus);
  // A flood meant to be refused is counted in answers, whatever their status.
  const perSecond = target.expectedStatus === undefined ? `${formatCount(result.requestsPerSecond)} req/s` : `${formatCount(result.answersPerSecond)} answers/s`;
  print(`round ${round + 1}, ${target.name}: ${perSecond}, server CPU ${result.serverCpuUsPerRequest.toFixed(2)} µs/request${failed > 0 ? `, ${failed} failures` : ''}`);
}
