/**
 * Does the liveness probe stay fast while the server's expensive work saturates every core?
 *
 *   node bench/live-under-load.ts                          Argon2id, then SLH-DSA-SHA2-128s
 *   node bench/live-under-load.ts --load slh-dsa --duration 10 --connections 16
 *   node bench/live-under-load.ts --heavy-work-nice 0      heavy work at the event loop's priority
 *
 * Starts the production server (rate limit out of reach, queues at their defaults) and probes
 * GET /live from a separate process (lib/live-probe.ts), one request every --interval ms on a new
 * connection, as an orchestrator does: first idle, then while autocannon floods the load's route
 * on each --connections level, then idle again. 16 connections keep both running slots of the
 * queue busy and 14 jobs waiting; 48 overflow the queue (2 running + 32 waiting), so the surplus
 * is refused with 503 after BUSY_REFUSAL_DELAY_MS and retried at once.
 *
 * The server's own view comes from /metrics: prom-client's event-loop delay, which samples every
 * 10 ms (so an idle loop reads about 10 ms), and the load's waiting jobs every 2 s.
 */
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { bytesToHex, slhDsaKeygen } from '@crypto-service/core';
import { runLoad, type LoadResult } from './lib/autocannon.ts';
import { describeMachine, loadAverage } from './lib/machine.ts';
import { scrapeMetrics } from './lib/metrics.ts';
import { benchApiKey, REPO_ROOT, startProductionServer, type ServerProcess } from './lib/server-process.ts';
import { formatCount, formatMs, latencySummary, markdownTable, median, print } from './lib/stats.ts';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '20' },
    interval: { type: 'string', default: '50' },
    connections: { type: 'string', default: '16,48' },
    load: { type: 'string', default: 'both' },
    /** HEAVY_WORK_NICE for the server; unset: the server's default. 0 runs heavy work at the event loop's priority. */
    'heavy-work-nice': { type: 'string' },
    /** BUSY_REFUSAL_DELAY_MS for the server; unset: the server's default (25). 0 sends a full queue's refusals at once. */
    'refusal-delay': { type: 'string' },
  },
});
const DURATION_S = Number(args.duration);
const INTERVAL_MS = Number(args.interval);
const LEVELS = args.connections.split(',').map(Number);
/** SLH-DSA's fast-to-verify, slow-to-sign set: a few signatures a second saturate the queue. */
const SLH_VARIANT = 'sha2-128s';
/** Load runs this much longer than the probe on each side, so that the probe sees only steady load. */
const RAMP_S = 2;
const LOAD_NAMES = { argon2id: ['argon2id'], 'slh-dsa': ['slh-dsa'], both: ['argon2id', 'slh-dsa'] } as const;
if (!Object.hasOwn(LOAD_NAMES, args.load))
  throw new Error(`--load must be argon2id, slh-dsa or both (got ${args.load})`);
const loadNames = LOAD_NAMES[args.load as keyof typeof LOAD_NAMES];

interface ProbeResult {
  samples: number[];
  statuses: Record<string, number>;
}

function probeLive(server: ServerProcess, durationMs: number): Promise<ProbeResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['bench/lib/live-probe.ts', `${server.url}/live`, String(INTERVAL_MS), String(durationMs)],
      {
        cwd: REPO_ROOT,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out) as ProbeResult) : reject(new Error(`live probe exited with ${code}`)),
    );
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
      description:
        'POST /v2/password/hash with default Argon2id parameters (m=65536, t=3, p=4), PASSWORD_CONCURRENCY=2, PASSWORD_QUEUE_LIMIT=32 (defaults)',
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
    body: JSON.stringify({
      variant: SLH_VARIANT,
      secretKey: bytesToHex(secretKey),
      message: 'The quick brown fox jumps over the lazy dog, 64 bytes of message',
    }),
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
  queueWaiting?: number[];
  /** prom-client's event-loop delay over the phase, in ms. */
  loopP99: number;
  loopMax: number;
}

const loads = await Promise.all(loadNames.map(makeLoad));
const apiKey = benchApiKey();
const headers = { 'content-type': 'application/json', 'x-api-key': apiKey };
const server = await startProductionServer({
  name: 'live-under-load',
  apiKey,
  logLevel: 'warn',
  extra: {
    RATE_LIMIT_WINDOW_MS: '1000',
    ...(args['heavy-work-nice'] === undefined ? {} : { HEAVY_WORK_NICE: args['heavy-work-nice'] }),
    ...(args['refusal-delay'] === undefined ? {} : { BUSY_REFUSAL_DELAY_MS: args['refusal-delay'] }),
  },
});

print(`# /live latency under ${loads.map((load) => load.title).join(' and ')} load\n\n${describeMachine()}`);
print(
  `- production server: NODE_ENV=production, LOG_LEVEL=warn, RATE_LIMIT_MAX=10000000 per RATE_LIMIT_WINDOW_MS=1000 (never refuses), HEAVY_WORK_NICE=${args['heavy-work-nice'] ?? 'default (10)'}, BUSY_REFUSAL_DELAY_MS=${args['refusal-delay'] ?? 'default (25)'}`,
);
for (const load of loads) print(`- ${load.title} load: autocannon in this process, ${load.description}`);
print(
  `- /live probed every ${INTERVAL_MS} ms on a new connection for ${DURATION_S} s per phase, from a separate process\n`,
);

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
      if (response.status !== 200)
        throw new Error(`POST ${load.path} answered ${response.status}: ${await response.text()}`);
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
      const loadRun = runLoad({
        url: `${server.url}${load.path}`,
        method: 'POST',
        headers,
        body: load.body,
        connections,
        duration: DURATION_S + 2 * RAMP_S,
      });
      await sleep(RAMP_S * 1000);
      await scrapeMetrics(server.url);
      const queueSamples = sampleQueue(server, load, sleep(DURATION_S * 1000 - 500));
      const live = await probeLive(server, DURATION_S * 1000);
      const after = await scrapeMetrics(server.url);
      const [result, queueWaiting] = await Promise.all([loadRun, queueSamples]);
      phases.push({
        name: `${load.title} load, ${connections} connections`,
        live,
        load: result,
        queueWaiting,
        ...loopDelay(after),
      });
      print(`${load.title}, ${connections} connections: done`);
      await drained(server, load);
    }
  }
  await idle('idle (after)');
} finally {
  await server.stop();
}

const count = (load: LoadResult | undefined, predicate: (status: number) => boolean) =>
  load === undefined
    ? ''
    : String(
        Object.entries(load.statusCounts)
          .filter(([status]) => predicate(Number(status)))
          .reduce((sum, [, n]) => sum + n, 0),
      );
const KNOWN = new Set([200, 429, 503]);
/** A phase's /live probes not answered 200, by status (another status, an error or a timeout): [status, count] pairs. */
const unansweredProbes = (phase: Phase) => Object.entries(phase.live.statuses).filter(([status]) => status !== '200');

print('\n## /live latency (client side, ms) and the load\n');
print(
  markdownTable(
    [
      'Phase',
      '/live n',
      'p50',
      'p90',
      'p99',
      'max',
      'loop delay p99 / max',
      'load 200',
      'load 429',
      'load 503',
      'other',
      'load 200/s',
      'load p50 / p99',
      'waiting jobs (median)',
    ],
    phases.map((phase) => {
      const live = latencySummary(phase.live.samples);
      const failed = unansweredProbes(phase)
        .map(([status, n]) => `${n}×${status}`)
        .join(' ');
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
        phase.load === undefined
          ? ''
          : String(Number(count(phase.load, (status) => !KNOWN.has(status))) + phase.load.errors),
        phase.load === undefined ? '' : formatCount(phase.load.requestsPerSecond),
        phase.load === undefined ? '' : `${formatMs(phase.load.latency.p50)} / ${formatMs(phase.load.latency.p99)}`,
        phase.queueWaiting === undefined
          ? ''
          : phase.queueWaiting.length === 0
            ? 'no sample'
            : `${median(phase.queueWaiting)} (${phase.queueWaiting.join(', ')})`,
      ];
    }),
  ),
);

print("\n- loop delay: prom-client's nodejs_eventloop_lag_p99/max_seconds over the phase");
print('- other: answers other than 200/429/503, plus connection errors and timeouts');
print(`- load average (1/5/15 min) at the end: ${loadAverage()}`);
