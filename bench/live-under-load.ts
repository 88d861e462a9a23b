/**
 * Does the liveness probe stay fast while the server's expensive work saturates every core?
 *
 * Starts the production server (queues at their defaults) and probes GET /live from a separate
 * process (this script again) every 50 ms on a new connection, as an orchestrator does: first idle,
 * then while autocannon floods Argon2id and then SLH-DSA signing at each --connections level, then
 * idle again. 16 connections keep both running slots of a queue busy and 14 jobs waiting; 48
 * overflow it (2 running + 32 waiting), so the surplus is refused with 503 after
 * BUSY_REFUSAL_DELAY_MS and retried at once.
 */
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { bytesToHex, slhDsaKeygen } from '@crypto-service/core';
import { checkOnce, runLoad, type LoadResult } from './lib/autocannon.ts';
import {
  describeMachine,
  formatCount,
  formatMs,
  latencySummary,
  loadAverage,
  markdownTable,
  options,
  print,
  scrapeMetrics,
} from './lib/common.ts';
import { benchApiKey, startProductionServer, type ServerProcess } from './lib/server-process.ts';

const opt = options({
  duration: 20,
  connections: '16,48',
  /** The server's HEAVY_WORK_NICE; 0 runs heavy work at the event loop's priority. */
  'heavy-work-nice': undefined,
  /** The server's BUSY_REFUSAL_DELAY_MS; 0 sends a full queue's refusals at once. */
  'refusal-delay': undefined,
});
const LEVELS = opt.connections.split(',').map(Number);
const INTERVAL_MS = 50;
/** The load runs this much longer than the probe on each side, so that the probe sees only steady load. */
const RAMP_S = 2;
/** SLH-DSA's slow-to-sign set: a few signatures a second saturate the queue. */
const SLH_ALGORITHM = 'slh-dsa-sha2-128s';

interface Probe {
  samples: number[];
  statuses: Record<string, number>;
}

/** GET `url` on a new connection: the status, 0 if none. */
const probeOnce = (url: string) =>
  new Promise<number>((resolve) => {
    const req = request(url, { agent: false, timeout: 5000 }, (res) => {
      res.resume().on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy()).on('error', () => resolve(0));
    req.end();
  });

// The probe runs in a process of its own, so that the load generator's busy event loop cannot delay its timers.
if (process.env.LIVE_PROBE !== undefined) {
  const [url = '', seconds = ''] = process.env.LIVE_PROBE.split(' ');
  const probe: Probe = { samples: [], statuses: {} };
  for (const end = performance.now() + Number(seconds) * 1000; performance.now() < end;) {
    const started = performance.now();
    const status = await probeOnce(url);
    probe.statuses[status] = (probe.statuses[status] ?? 0) + 1;
    if (status === 200) probe.samples.push(performance.now() - started);
    await sleep(Math.max(0, INTERVAL_MS - (performance.now() - started)));
  }
  // Exit only once the figures are out: the parent reads them from this pipe.
  await new Promise<void>((resolve) => process.stdout.write(JSON.stringify(probe), () => resolve()));
  process.exit(0);
}

function probeLive(server: ServerProcess, seconds: number): Promise<Probe> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, LIVE_PROBE: `${server.url}/live ${seconds}` };
    const child = spawn(process.execPath, [import.meta.filename], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out) as Probe) : reject(new Error(`probe exited with ${code}`)),
    );
  });
}

/** A saturating load: its request and the /metrics samples of the queue its jobs go through. */
interface Load {
  title: string;
  path: string;
  body: string;
  queue: string;
}
// One SLH-DSA key for the whole run, made here (a few hundred ms), not by the server under test.
const { secretKey } = await slhDsaKeygen(SLH_ALGORITHM);
const LOADS: Load[] = [
  {
    title: 'Argon2id',
    path: '/v2/password/hash',
    body: JSON.stringify({ password: 'correct horse battery staple' }),
    queue: 'crypto_work_queue_jobs{queue="password",state=',
  },
  {
    title: SLH_ALGORITHM,
    path: '/v2/pq/slh-dsa/sign',
    body: JSON.stringify({ algorithm: SLH_ALGORITHM, privateKey: bytesToHex(secretKey), message: 'x'.repeat(64) }),
    queue: 'crypto_pq_queue_jobs{state=',
  },
];

/** Jobs accepted before the load stopped keep running (up to 2 + 32), and the next phase must not measure their tail. */
async function drained(server: ServerProcess, load: Load): Promise<void> {
  for (const deadline = Date.now() + 180_000; Date.now() < deadline; await sleep(500)) {
    const values = await scrapeMetrics(server.url);
    if ((values.get(`${load.queue}"running"}`) ?? 0) + (values.get(`${load.queue}"waiting"}`) ?? 0) === 0) return;
  }
  throw new Error(`the ${load.title} queue did not drain within 180 s`);
}

const apiKey = benchApiKey();
const headers = { 'content-type': 'application/json', 'x-api-key': apiKey };
// One load generator plays every client: neither the rate limit nor the per-client cap may cut it off.
const env: Record<string, string> = { RATE_LIMIT_WINDOW_MS: '1000', MAX_HEAVY_JOBS_PER_CLIENT: '10000' };
if (opt['heavy-work-nice'] !== undefined) env.HEAVY_WORK_NICE = opt['heavy-work-nice'];
if (opt['refusal-delay'] !== undefined) env.BUSY_REFUSAL_DELAY_MS = opt['refusal-delay'];
const server = await startProductionServer('live-under-load', apiKey, env);

print(`# /live latency under Argon2id and SLH-DSA load\n\n${describeMachine()}`);
print(
  `- production server: LOG_LEVEL=warn, rate limit and per-client cap never reached, HEAVY_WORK_NICE=${env.HEAVY_WORK_NICE ?? 'default'}, BUSY_REFUSAL_DELAY_MS=${env.BUSY_REFUSAL_DELAY_MS ?? 'default'}`,
);
print(
  `- loads: POST /v2/password/hash (default Argon2id parameters) and /v2/pq/slh-dsa/sign (${SLH_ALGORITHM}), autocannon in this process`,
);
print(
  `- /live probed every ${INTERVAL_MS} ms on a new connection for ${opt.duration} s per phase, from a separate process\n`,
);

const phases: { name: string; live: Probe; load?: LoadResult }[] = [];
try {
  // Warm-up: compile the routes' code paths and let the first allocations happen.
  for (const load of LOADS)
    for (let i = 0; i < 3; i++) await checkOnce(`${server.url}${load.path}`, headers, load.body);
  await probeLive(server, 1);
  phases.push({ name: 'idle (before)', live: await probeLive(server, opt.duration) });
  for (const load of LOADS) {
    for (const connections of LEVELS) {
      const url = `${server.url}${load.path}`;
      const loadRun = runLoad({ url, headers, body: load.body, connections, duration: opt.duration + 2 * RAMP_S });
      await sleep(RAMP_S * 1000);
      const live = await probeLive(server, opt.duration);
      phases.push({ name: `${load.title} load, ${connections} connections`, live, load: await loadRun });
      print(`${load.title}, ${connections} connections: done`);
      await drained(server, load);
    }
  }
  phases.push({ name: 'idle (after)', live: await probeLive(server, opt.duration) });
} finally {
  await server.stop();
}

const count = (load: LoadResult | undefined, statuses: (status: number) => boolean) =>
  load === undefined
    ? ''
    : String(
        Object.entries(load.statusCounts).reduce((sum, [status, n]) => sum + (statuses(Number(status)) ? n : 0), 0),
      );
const known = (status: number) => status === 200 || status === 429 || status === 503;

print('\n## /live latency (client side) and the load\n');
print(
  markdownTable(
    ['Phase', '/live n', 'p50', 'p99', 'max', 'load 200', 'load 429', 'load 503', 'other', 'load 200/s'],
    phases.map(({ name, live, load }) => {
      const summary = latencySummary(live.samples);
      const unanswered = Object.entries(live.statuses).filter(([status]) => status !== '200');
      return [
        name,
        `${summary.count}${unanswered.map(([status, n]) => ` +${n}×${status}`).join('')}`,
        formatMs(summary.p50),
        formatMs(summary.p99),
        formatMs(summary.max),
        count(load, (status) => status === 200),
        count(load, (status) => status === 429),
        count(load, (status) => status === 503),
        load === undefined ? '' : String(Number(count(load, (status) => !known(status))) + load.errors),
        load === undefined ? '' : formatCount(load.requestsPerSecond),
      ];
    }),
  ),
);
print('\n- other: answers other than 200/429/503, plus connection errors and timeouts');
print(`- load average (1/5/15 min) at the end: ${loadAverage()}`);
