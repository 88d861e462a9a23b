/**
 * Does the liveness probe stay fast while the server is saturated with Argon2id?
 *
 *   node bench/live-under-load.ts                                 (about 2 minutes)
 *   node bench/live-under-load.ts --duration 30 --connections 16,48 --interval 50
 *
 * Starts the production server (child process: NODE_ENV=production, CRYPTO_API_KEY set,
 * LOG_LEVEL=warn, RATE_LIMIT_MAX=10,000,000, the default PASSWORD_CONCURRENCY=2 and
 * PASSWORD_QUEUE_LIMIT=32), then measures GET /live latency from a separate probe process
 * (bench/lib/live-probe.ts: one request every --interval ms, each on a new connection):
 *
 * 1. idle: no load at all (the baseline);
 * 2. for each --connections level: autocannon floods POST /v2/password/hash with default
 *    parameters (Argon2id m = 64 MiB, t = 3, p = 4) on that many connections. 16 connections keep
 *    both running slots busy and 14 jobs waiting, always, with no refusals; 48 connections exceed
 *    running + waiting (2 + 32), so the queue stays full and the surplus is refused with 503 at
 *    once, which adds a stream of cheap refusals to the event loop's work;
 * 3. idle again, to see whether the baseline drifted while the machine was loaded.
 *
 * The server's own view is read from /metrics: prom-client's event-loop delay (sampled every 10 ms,
 * so an idle loop reads about 10 ms) and the password queue's waiting jobs, sampled every 2 s.
 */
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { runLoad, type LoadResult } from './lib/autocannon.ts';
import { describeMachine, loadAverage } from './lib/machine.ts';
import { benchApiKey, freePort, productionEnv, REPO_ROOT, startServer, type ServerProcess } from './lib/server-process.ts';
import { formatCount, formatMs, latencySummary, markdownTable, median } from './lib/stats.ts';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '20' },
    interval: { type: 'string', default: '50' },
    connections: { type: 'string', default: '16,48' },
  },
});
const DURATION_S = Number(args.duration);
const INTERVAL_MS = Number(args.interval);
const LEVELS = args.connections.split(',').map(Number);
/** Load runs this much longer than the probe on each side, so that the probe sees only steady load. */
const RAMP_S = 2;

function print(text: string): void {
  process.stdout.write(`${text}\n`);
}

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

async function metrics(server: ServerProcess): Promise<Map<string, number>> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line === '') continue;
    const space = line.lastIndexOf(' ');
    values.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return values;
}

/** Samples the password queue's waiting jobs every 2 s until `stop` resolves. */
async function sampleQueue(server: ServerProcess, stop: Promise<unknown>): Promise<number[]> {
  const waiting: number[] = [];
  let done = false;
  void stop.finally(() => (done = true));
  while (!done) {
    await sleep(2000);
    if (done) break;
    waiting.push((await metrics(server)).get('crypto_work_queue_jobs{queue="password",state="waiting"}') ?? Number.NaN);
  }
  return waiting;
}

/**
 * Waits until the password queue is empty: jobs accepted before the load stopped keep running (up
 * to 2 + 32 of them), and the next phase must not measure their tail.
 */
async function drained(server: ServerProcess): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const values = await metrics(server);
    const busy = (values.get('crypto_work_queue_jobs{queue="password",state="running"}') ?? 0)
      + (values.get('crypto_work_queue_jobs{queue="password",state="waiting"}') ?? 0);
    if (busy === 0) return;
    await sleep(500);
  }
  throw new Error('the password queue did not drain within 120 s');
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

const apiKey = benchApiKey();
const port = await freePort();
const server = await startServer({
  name: 'live-under-load',
  script: 'packages/server/src/server.ts',
  port,
  env: productionEnv({ port, apiKey, logLevel: 'warn' }),
});
const hashRequest = {
  url: `${server.url}/v2/password/hash`,
  method: 'POST' as const,
  headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
  body: JSON.stringify({ password: 'correct horse battery staple' }),
};

print(`# /live latency under Argon2id load\n\n${describeMachine()}`);
print(`- production server: NODE_ENV=production, LOG_LEVEL=warn, RATE_LIMIT_MAX=10000000, PASSWORD_CONCURRENCY=2, PASSWORD_QUEUE_LIMIT=32 (defaults)`);
print(`- /live probed every ${INTERVAL_MS} ms on a new connection for ${DURATION_S} s per phase, from a separate process; load: autocannon in this process, POST /v2/password/hash with default Argon2id parameters (m=65536, t=3, p=4)\n`);

const phases: Phase[] = [];
try {
  // Warm-up: compile the routes' code paths and let the first Argon2 allocations happen.
  for (let i = 0; i < 3; i++) {
    const response = await fetch(hashRequest.url, { method: 'POST', headers: hashRequest.headers, body: hashRequest.body });
    if (response.status !== 200) throw new Error(`POST /v2/password/hash answered ${response.status}: ${await response.text()}`);
    await response.arrayBuffer();
  }
  await probeLive(server, 1000);

  async function idle(name: string): Promise<void> {
    await metrics(server); // reading resets prom-client's event-loop histogram
    const live = await probeLive(server, DURATION_S * 1000);
    const after = await metrics(server);
    phases.push({ name, live, loopP99: (after.get('nodejs_eventloop_lag_p99_seconds') ?? Number.NaN) * 1000, loopMax: (after.get('nodejs_eventloop_lag_max_seconds') ?? Number.NaN) * 1000 });
    print(`${name}: done`);
  }

  await idle('idle (before)');
  for (const connections of LEVELS) {
    const loadRun = runLoad({ ...hashRequest, connections, duration: DURATION_S + 2 * RAMP_S });
    await sleep(RAMP_S * 1000);
    await metrics(server);
    const queueSamples = sampleQueue(server, sleep(DURATION_S * 1000 - 500));
    const live = await probeLive(server, DURATION_S * 1000);
    const after = await metrics(server);
    const [load, queueWaiting] = await Promise.all([loadRun, queueSamples]);
    phases.push({
      name: `Argon2id load, ${connections} connections`,
      live,
      load,
      queueWaiting,
      loopP99: (after.get('nodejs_eventloop_lag_p99_seconds') ?? Number.NaN) * 1000,
      loopMax: (after.get('nodejs_eventloop_lag_max_seconds') ?? Number.NaN) * 1000,
    });
    print(`${connections} connections: done`);
    await drained(server);
  }
  await idle('idle (after)');
} finally {
  await server.stop();
}

const count = (load: LoadResult | undefined, predicate: (status: number) => boolean) =>
  load === undefined ? '' : String(Object.entries(load.statusCounts).filter(([status]) => predicate(Number(status))).reduce((sum, [, n]) => sum + n, 0));

print('\n## /live latency (client side, ms) and the load\n');
print(markdownTable(
  ['Phase', '/live n', 'p50', 'p90', 'p99', 'max', 'loop delay p99 / max', 'hash 200', 'hash 503', 'other', 'hash/s', 'hash p50 / p99', 'waiting jobs (median)'],
  phases.map((phase) => {
    const live = latencySummary(phase.live.samples);
    const failed = Object.entries(phase.live.statuses).filter(([status]) => status !== '200').map(([status, n]) => `${n}×${status}`).join(' ');
    return [
      phase.name,
      `${live.count}${failed === '' ? '' : ` (+${failed})`}`,
      formatMs(live.p50),
      formatMs(live.p90),
      formatMs(live.p99),
      formatMs(live.max),
      `${formatMs(phase.loopP99)} / ${formatMs(phase.loopMax)}`,
      count(phase.load, (status) => status === 200),
      count(phase.load, (status) => status === 503),
      phase.load === undefined ? '' : String(Number(count(phase.load, (status) => status !== 200 && status !== 503)) + phase.load.errors),
      phase.load === undefined ? '' : formatCount(phase.load.requestsPerSecond),
      phase.load === undefined ? '' : `${formatMs(phase.load.latency.p50)} / ${formatMs(phase.load.latency.p99)}`,
      phase.queueWaiting === undefined ? '' : `${median(phase.queueWaiting)} (${phase.queueWaiting.join(', ')})`,
    ];
  }),
));
print(`\n- loop delay: prom-client's nodejs_eventloop_lag_p99/max_seconds over the phase; it samples every 10 ms, so an idle loop reads about 10 ms`);
print(`- load average (1/5/15 min) at the end: ${loadAverage()}`);
