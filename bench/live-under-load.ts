/**
 * Does the liveness probe stay fast while the server's expensive work saturates every core?
 *
 *   node bench/live-under-load.ts                                 Argon2id, then SLH-DSA (about 4 minutes)
 *   node bench/live-under-load.ts --load slh-dsa --slh-variant sha2-192s
 *   node bench/live-under-load.ts --duration 30 --connections 16,48 --interval 50
 *   node bench/live-under-load.ts --heavy-work-nice 0     heavy work at the event loop's priority
 *   node bench/live-under-load.ts --refusal-delay 0       a full queue's 503s sent at once
 *   node bench/live-under-load.ts --summary FILE          also the figures as JSON (lib/summary.ts; bench/targets.ts reads them)
 *
 * Starts the production server (child process: NODE_ENV=production, CRYPTO_API_KEY set,
 * LOG_LEVEL=warn, RATE_LIMIT_MAX=10,000,000 per 1 s window, so the limiter runs but can never
 * refuse, even a flood of 25-unit SLH-DSA requests; queues at their defaults), then measures GET
 * /live latency from a separate probe process (bench/lib/live-probe.ts: one request every
 * --interval ms, each on a new connection):
 *
 * 1. idle: no load at all (the baseline);
 * 2. for each --load (argon2id, slh-dsa, or both one after the other) and each --connections level:
 *    autocannon floods the load's route on that many connections.
 *    - argon2id: POST /v2/password/hash with default parameters (m = 64 MiB, t = 3, p = 4), through
 *      the password queue (PASSWORD_CONCURRENCY=2 running, PASSWORD_QUEUE_LIMIT=32 waiting);
 *    - slh-dsa: POST /v2/pq/slh-dsa/sign (sha2-128s by default: ≈ 0.1–0.3 s per signature
 *      natively), through the post-quantum offload (2 running, 32 waiting).
 *    16 connections keep both running slots busy and 14 jobs waiting, always, with no refusals; 48
 *    connections exceed running + waiting (2 + 32), so the queue stays full and the surplus is
 *    refused with 503, each BUSY_REFUSAL_DELAY_MS (25 ms by default) after the decision; autocannon
 *    sends the next request the moment a refusal arrives, so the delay sets how many refusals the
 *    event loop has to answer (at once, 5.5–9 k a second);
 * 3. idle again, to see whether the baseline drifted while the machine was loaded.
 *
 * The server's own view is read from /metrics: prom-client's event-loop delay (sampled every 10 ms,
 * so an idle loop reads about 10 ms) and the load's queue of waiting jobs, sampled every 2 s.
 */
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { bytesToHex } from '../packages/core/src/codec.ts';
import { slhDsaKeygen } from '../packages/core/src/slh-dsa.ts';
import { runLoad, type LoadResult } from './lib/autocannon.ts';
import { describeMachine, loadAverage } from './lib/machine.ts';
import { scrapeMetrics } from './lib/metrics.ts';
import { benchApiKey, REPO_ROOT, startProductionServer, type ServerProcess } from './lib/server-process.ts';
import { formatCount, formatMs, latencySummary, markdownTable, median, print } from './lib/stats.ts';
import { LIVE_P99_MAX_MS } from './lib/issue-targets.ts';
import { commandLine, writeSummary } from './lib/summary.ts';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '20' },
    interval: { type: 'string', default: '50' },
    connections: { type: 'string', default: '16,48' },
    load: { type: 'string', default: 'both' },
    'slh-variant': { type: 'string', default: 'sha2-128s' },
    /** HEAVY_WORK_NICE for the server; unset: the server's default. 0 runs heavy work at the event loop's priority. */
    'heavy-work-nice': { type: 'string' },
    /** BUSY_REFUSAL_DELAY_MS for the server; unset: the server's default (25). 0 sends a full queue's refusals at once. */
    'refusal-delay': { type: 'string' },
    summary: { type: 'string' },
  },
});
const DURATION_S = Number(args.duration);
const INTERVAL_MS = Number(args.interval);
const LEVELS = args.connections.split(',').map(Number);
const SLH_VARIANT = args['slh-variant'];
/** Load runs this much longer than the probe on each side, so that the probe sees only steady load. */
const RAMP_S = 2;
const LOAD_NAMES = { argon2id: ['argon2id'], 'slh-dsa': ['slh-dsa'], both: ['argon2id', 'slh-dsa'] } as const;
if (!Object.hasOwn(LOAD_NAMES, args.load)) throw new Error(`--load must be argon2id, slh-dsa or both (got ${args.load})`);
const loadNames = LOAD_NAMES[args.load as keyof typeof LOAD_NAMES];

interface ProbeResult { samples: number[]; statuses: Record<string, number> }

function probeLive(server: ServerProcess, durationMs: number): Promise<ProbeResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bench/lib/live-probe.ts', `${server.url}/live`, String(INTERVAL_MS), String(durationMs)], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as ProbeResult) : reject(new Error(`live probe exited with ${code}`))));
  });
}

/** A saturating load: its request and the /metrics samples of the queue its jobs go through. */
interface Load {
  name: string;
  /** For the phase names and the table. */
  title: string;
  description: string;
  path: string;
  body: string;
  runningMetric: string;
  waitingMetric: string;
}

async function makeLoad(name: 'argon2id' | 'slh-dsa'): Promise<Load> {
  if (name === 'argon2id') {
    return {
      name,
      title: 'Argon2id',
      description: 'POST /v2/password/hash with default Argon2id parameters (m=65536, t=3, p=4), PASSWORD_CONCURRENCY=2, PASSWORD_QUEUE_LIMIT=32 (defaults)',
      path: '/v2/password/hash',
      body: JSON.stringify({ password: 'correct horse battery staple' }),
      runningMetric: 'crypto_work_queue_jobs{queue="password",state="running"}',
      waitingMetric: 'crypto_work_queue_jobs{queue="password",state="waiting"}',
    };
  }
  // One key for the whole run, made here (a few hundred ms for an s set), not by the server under test.
  const { secretKey } = await slhDsaKeygen(SLH_VARIANT);
  return {
    name,
    title: `SLH-DSA ${SLH_VARIANT}`,
    description: `POST /v2/pq/slh-dsa/sign, variant ${SLH_VARIANT}, 64-byte message, through the post-quantum offload (2 running, 32 waiting: the defaults)`,
    path: '/v2/pq/slh-dsa/sign',
    body: JSON.stringify({ variant: SLH_VARIANT, secretKey: bytesToHex(secretKey), message: 'The quick brown fox jumps over the lazy dog, 64 bytes of message' }),
    runningMetric: 'crypto_pq_queue_jobs{state="running"}',
    waitingMetric: 'crypto_pq_queue_jobs{state="waiting"}',
  };
}

/** Samples the load's waiting jobs every 2 s until `stop` resolves. */
async function sampleQueue(server: ServerProcess, load: Load, stop: Promise<unknown>): Promise<number[]> {
  const waiting: number[] = [];
  let done = false;
  void stop.finally(() => (done = true));
  while (!done) {
    await sleep(2000);
    if (done) break;
    waiting.push((await scrapeMetrics(server.url)).get(load.waitingMetric) ?? Number.NaN);
  }
  return waiting;
}

/**
 * Waits until the load's queue is empty: jobs accepted before the load stopped keep running (up
 * to 2 + 32 of them), and the next phase must not measure their tail.
 */
async function drained(server: ServerProcess, load: Load): Promise<void> {
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    const values = await scrapeMetrics(server.url);
    if ((values.get(load.runningMetric) ?? 0) + (values.get(load.waitingMetric) ?? 0) === 0) return;
    await sleep(500);
  }
  throw new Error(`the ${load.title} queue did not drain within 180 s`);
}

interface Phase {
  name: string;
  live: ProbeResult;
  load?: LoadResult;
  /** The load's title and connections, for the summary (absent when idle). */
  loadTitle?: string;
  connections?: number;
  queueWaiting?: number[];
  /** prom-client's event-loop delay over the phase, in ms. */
  loopP99: number;
  loopMax: number;
}

const loads = await Promise.all(loadNames.map(makeLoad));
const apiKey = benchApiKey();
const headers = { 'content-type': 'application/json', 'x-api-key': apiKey };
const server = await startProductionServer({ name: 'live-under-load', apiKey, logLevel: 'warn', extra: {
  RATE_LIMIT_WINDOW_MS: '1000',
  ...(args['heavy-work-nice'] === undefined ? {} : { HEAVY_WORK_NICE: args['heavy-work-nice'] }),
  ...(args['refusal-delay'] === undefined ? {} : { BUSY_REFUSAL_DELAY_MS: args['refusal-delay'] }),
} });

print(`# /live latency under ${loads.map((load) => load.title).join(' and ')} load\n\n${describeMachine()}`);
print(`- production server: NODE_ENV=production, LOG_LEVEL=warn, RATE_LIMIT_MAX=10000000 per RATE_LIMIT_WINDOW_MS=1000 (never refuses), HEAVY_WORK_NICE=${args['heavy-work-nice'] ?? 'default (10)'}, BUSY_REFUSAL_DELAY_MS=${args['refusal-delay'] ?? 'default (25)'}`);
for (const load of loads) print(`- ${load.title} load: autocannon in this process, ${load.description}`);
print(`- /live probed every ${INTERVAL_MS} ms on a new connection for ${DURATION_S} s per phase, from a separate process\n`);

const loopDelay = (values: Map<string, number>) => ({
  loopP99: (values.get('nodejs_eventloop_lag_p99_seconds') ?? Number.NaN) * 1000,
  loopMax: (values.get('nodejs_eventloop_lag_max_seconds') ?? Number.NaN) * 1000,
});

const phases: Phase[] = [];
try {
  // Warm-up: compile the routes' code paths and let the first allocations happen.
  for (const load of loads) {
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${server.url}${load.path}`, { method: 'POST', headers, body: load.body });
      if (response.status !== 200) throw new Error(`POST ${load.path} answered ${response.status}: ${await response.text()}`);
      await response.arrayBuffer();
    }
  }
  await probeLive(server, 1000);

  async function idle(name: string): Promise<void> {
    await scrapeMetrics(server.url); // reading resets prom-client's event-loop histogram
    const live = await probeLive(server, DURATION_S * 1000);
    phases.push({ name, live, ...loopDelay(await scrapeMetrics(server.url)) });
    print(`${name}: done`);
  }

  await idle('idle (before)');
  for (const load of loads) {
    for (const connections of LEVELS) {
      const loadRun = runLoad({ url: `${server.url}${load.path}`, method: 'POST', headers, body: load.body, connections, duration: DURATION_S + 2 * RAMP_S });
      await sleep(RAMP_S * 1000);
      await scrapeMetrics(server.url);
      const queueSamples = sampleQueue(server, load, sleep(DURATION_S * 1000 - 500));
      const live = await probeLive(server, DURATION_S * 1000);
      const after = await scrapeMetrics(server.url);
      const [result, queueWaiting] = await Promise.all([loadRun, queueSamples]);
      phases.push({ name: `${load.title} load, ${connections} connections`, live, load: result, loadTitle: load.title, connections, queueWaiting, ...loopDelay(after) });
      print(`${load.title}, ${connections} connections: done`);
      await drained(server, load);
    }
  }
  await idle('idle (after)');
} finally {
  await server.stop();
}

const count = (load: LoadResult | undefined, predicate: (status: number) => boolean) =>
  load === undefined ? '' : String(Object.entries(load.statusCounts).filter(([status]) => predicate(Number(status))).reduce((sum, [, n]) => sum + n, 0));
const KNOWN = new Set([200, 429, 503]);
/** A phase's /live probes not answered 200, by status (another status, an error or a timeout): [status, count] pairs. */
const unansweredProbes = (phase: Phase) => Object.entries(phase.live.statuses).filter(([status]) => status !== '200');

print('\n## /live latency (client side, ms) and the load\n');
print(markdownTable(
  ['Phase', '/live n', 'p50', 'p90', 'p99', 'max', 'loop delay p99 / max', 'load 200', 'load 429', 'load 503', 'other', 'load 200/s', 'load p50 / p99', 'waiting jobs (median)'],
  phases.map((phase) => {
    const live = latencySummary(phase.live.samples);
    const failed = unansweredProbes(phase).map(([status, n]) => `${n}×${status}`).join(' ');
    return [
      phase.name,
      `${live.count}${failed === '' ? '' : ` (+${failed})`}`,
      formatMs(live.p50),
      formatMs(live.p90),
      formatMs(live.p99),
      formatMs(live.max),
      `${formatMs(phase.loopP99)} / ${formatMs(phase.loopMax)}`,
      count(phase.load, (status) => status === 200),
      count(phase.load, (status) => status === 429),
      count(phase.load, (status) => status === 503),
      phase.load === undefined ? '' : String(Number(count(phase.load, (status) => !KNOWN.has(status))) + phase.load.errors),
      phase.load === undefined ? '' : formatCount(phase.load.requestsPerSecond),
      phase.load === undefined ? '' : `${formatMs(phase.load.latency.p50)} / ${formatMs(phase.load.latency.p99)}`,
      phase.queueWaiting === undefined ? '' : phase.queueWaiting.length === 0 ? 'no sample' : `${median(phase.queueWaiting)} (${phase.queueWaiting.join(', ')})`,
    ];
  }),
));

const idleP99 = phases.filter((phase) => phase.load === undefined).map((phase) => formatMs(latencySummary(phase.live.samples).p99)).join(' / ');
print(`\n## /live p99 against the target (< ${LIVE_P99_MAX_MS} ms while the load saturates every core)\n`);
print(markdownTable(
  ['Load', 'idle p99 (before / after)', 'loaded p50', 'loaded p99', 'loaded max', `p99 < ${LIVE_P99_MAX_MS} ms`],
  phases.filter((phase) => phase.load !== undefined).map((phase) => {
    const live = latencySummary(phase.live.samples);
    return [phase.name, idleP99, formatMs(live.p50), formatMs(live.p99), formatMs(live.max), live.p99 < LIVE_P99_MAX_MS ? 'yes' : 'no'];
  }),
));
print(`\n- loop delay: prom-client's nodejs_eventloop_lag_p99/max_seconds over the phase; it samples every 10 ms, so an idle loop reads about 10 ms`);
print(`- other: answers other than 200/429/503, plus connection errors and timeouts`);
print(`- load average (1/5/15 min) at the end: ${loadAverage()}`);
writeSummary(args.summary, {
  kind: 'live',
  command: commandLine(),
  phases: phases.map((phase) => {
    const live = latencySummary(phase.live.samples);
    const probeFailures = unansweredProbes(phase).reduce((sum, [, n]) => sum + n, 0);
    const figures = { name: phase.name, p50Ms: live.p50, p99Ms: live.p99, maxMs: live.max, probes: live.count + probeFailures, probeFailures };
    if (phase.load === undefined || phase.loadTitle === undefined) return figures;
    return { ...figures, load: phase.loadTitle, connections: phase.connections, okPerSecond: phase.load.requestsPerSecond, refusals: Number(count(phase.load, (status) => status === 503)) };
  }),
  loadAverageAtEnd: loadAverage(),
});
