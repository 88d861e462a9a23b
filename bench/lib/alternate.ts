/**
 * Drives several servers with the same load in alternating rounds (A B C, C B A, …) after a
 * warm-up of each, so that a slow stretch of the shared machine lands on every server rather than
 * on one, and ratios can be taken round by round.
 */
import { runLoad, type LoadResult } from './autocannon.ts';
import { runLightLoad } from './light-load.ts';
import { cpuSnapshot, cpuUsedMs } from './server-process.ts';

export interface Target {
  name: string;
  /** Full URL of the route. */
  url: string;
  headers: Record<string, string>;
  body: string;
  /** The server process (a cluster's primary), for its CPU time and that of its descendants. */
  pid?: number | undefined;
}

export interface RunResult extends LoadResult {
  /** Server CPU time (every thread of every process of the server) per answered request, in µs. */
  serverCpuUsPerRequest: number;
  /** The same for the server process alone: a cluster's primary. */
  primaryCpuUsPerRequest: number;
  /** The load generator's CPU time (this process) per answered request, in µs. */
  generatorCpuUsPerRequest: number;
}

/** autocannon, or lib/light-load.ts, which takes far less of the cores the servers share. */
export type Generator = 'autocannon' | 'light';

/**
 * A script's --generator, checked: the light generator reads its sockets once a millisecond, so
 * connections × pipelining must stay well above what a server answers in a millisecond.
 */
export function checkedGenerator(name: string, connections: number, pipelining: number): Generator {
  if (name !== 'autocannon' && name !== 'light')
    throw new Error(`--generator must be autocannon or light (got ${name})`);
  if (name === 'light' && connections * pipelining < 200)
    throw new Error(`--generator light needs connections × pipelining ≥ 200; got ${connections} × ${pipelining}`);
  return name;
}

export interface AlternateOptions {
  connections: number;
  generator: Generator;
  pipelining: number;
  /** Seconds per measured run. */
  duration: number;
  /** Seconds of warm-up per target, not measured. */
  warmup: number;
  rounds: number;
  onRun?: (target: Target, round: number, result: RunResult) => void;
}

async function loadOnce(target: Target, options: AlternateOptions, duration: number): Promise<RunResult> {
  const cpuBefore = cpuSnapshot(target.pid);
  const run = options.generator === 'light' ? runLightLoad : runLoad;
  const result = await run({
    url: target.url,
    method: 'POST',
    headers: target.headers,
    body: target.body,
    connections: options.connections,
    duration,
    pipelining: options.pipelining,
  });
  const cpuAfter = cpuSnapshot(target.pid);
  const perRequest = (ms: number) => (ms * 1000) / result.answers;
  return {
    ...result,
    serverCpuUsPerRequest: perRequest(cpuUsedMs(cpuBefore, cpuAfter)),
    primaryCpuUsPerRequest: perRequest(
      target.pid === undefined ? Number.NaN : cpuUsedMs(cpuBefore, cpuAfter, target.pid),
    ),
    generatorCpuUsPerRequest: result.generatorCpuUs / result.answers,
  };
}

/** One request first, answered 200, since a benchmark of 401s or 404s would be worthless. Returns the body. */
export async function checkOnce(target: Target): Promise<string> {
  const response = await fetch(target.url, { method: 'POST', headers: target.headers, body: target.body });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${target.name} ${target.url} answered ${response.status}: ${text}`);
  return text;
}

/** Answers other than 2xx, and connection errors: a measured run should have none. */
export function failures(result: LoadResult): number {
  return (
    Object.entries(result.statusCounts)
      .filter(([status]) => !status.startsWith('2'))
      .reduce((sum, [, count]) => sum + count, 0) + result.errors
  );
}

export async function alternate(targets: Target[], options: AlternateOptions): Promise<Map<string, RunResult[]>> {
  const results = new Map<string, RunResult[]>(targets.map((target) => [target.name, []]));
  for (const target of targets) {
    await checkOnce(target);
    await loadOnce(target, options, options.warmup);
  }
  for (let round = 0; round < options.rounds; round++) {
    const order = round % 2 === 0 ? targets : [...targets].reverse();
    for (const target of order) {
      const result = await loadOnce(target, options, options.duration);
      results.get(target.name)?.push(result);
      options.onRun?.(target, round, result);
    }
  }
  return results;
}

/**
 * One round of a server launched several times, combined: rates, CPU per request and latency
 * percentiles are the launches' means, counts their sums. Launches of the same code differ by
 * several per cent in CPU per request, and averaging them keeps one launch from deciding a ratio.
 */
export function meanOfLaunches(runs: readonly RunResult[]): RunResult {
  const [first] = runs;
  if (first === undefined) throw new Error('no runs to combine');
  if (runs.length === 1) return first;
  const sum = (value: (run: RunResult) => number) => runs.reduce((total, run) => total + value(run), 0);
  const mean = (value: (run: RunResult) => number) => sum(value) / runs.length;
  const statusCounts: Record<string, number> = {};
  for (const run of runs) {
    for (const [status, count] of Object.entries(run.statusCounts))
      statusCounts[status] = (statusCounts[status] ?? 0) + count;
  }
  return {
    requestsPerSecond: mean((run) => run.requestsPerSecond),
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
    generatorCpuUs: sum((run) => run.generatorCpuUs),
    serverCpuUsPerRequest: mean((run) => run.serverCpuUsPerRequest),
    primaryCpuUsPerRequest: mean((run) => run.primaryCpuUsPerRequest),
    generatorCpuUsPerRequest: mean((run) => run.generatorCpuUsPerRequest),
  };
}
