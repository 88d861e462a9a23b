/**
 * Does resident memory stay flat under sustained full load? The production server (one process,
 * defaults) driven for --duration seconds by a mix of routes at once, its resident set (VmRSS) and
 * V8 heap sampled every --sample seconds.
 *
 *   node bench/soak.ts                                  5 minutes
 *   node bench/soak.ts --duration 20 --warmup 5         a quick check that it runs
 *   node bench/soak.ts --mix hash=8,encrypt=2,sign=2,argon2id=1
 *
 * It compares a window just after --warmup with the last window (60 s each, or a fifth of a short
 * run) by their floors, their lowest samples: each running Argon2id job holds 64 MiB, so the
 * resident set jumps between levels a job apart and a window's median lands on either by chance,
 * while the floor is what the server keeps between jobs, which is what a leak would raise.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { checkOnce, failures } from './lib/alternate.ts';
import { runLoad, type LoadResult } from './lib/autocannon.ts';
import { describeMachine, loadAverage } from './lib/machine.ts';
import { scrapeMetrics } from './lib/metrics.ts';
import { benchApiKey, residentBytes, startProductionServer } from './lib/server-process.ts';
import { formatCount, formatMiB, formatMs, formatPercent, markdownTable, median, print, slope } from './lib/stats.ts';
import { SERVER_V8_FLAGS } from '@crypto-service/server/v8-flags';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '300' },
    warmup: { type: 'string', default: '30' },
    sample: { type: 'string', default: '1' },
    mix: { type: 'string', default: 'hash=6,encrypt=2,sign=2,argon2id=1' },
    'log-level': { type: 'string', default: 'warn' },
  },
});
const DURATION_S = Number(args.duration);
const SAMPLE_S = Number(args.sample);
/** The reference point must leave most of the run after it: at most a third of a short run. */
const WARMUP_S = Math.min(Number(args.warmup), DURATION_S / 3);
/** Printed progress: one sample per this many seconds. */
const PRINT_S = 10;
/** Idle time before the last sample, after the load stopped. */
const SETTLE_S = 5;
/** Realistic sizes rather than the tiny inputs of bench/load.ts: a memory soak should move real data. */
const ROUTES: Record<string, { path: string; body: Record<string, unknown> }> = {
  hash: {
    path: '/v2/hash',
    body: { algorithm: 'sha256', data: randomBytes(1024).toString('base64'), encoding: 'base64' },
  },
  encrypt: {
    path: '/v2/encrypt',
    body: { key: randomBytes(32).toString('hex'), plaintext: randomBytes(768).toString('base64'), encoding: 'base64' },
  },
  sign: {
    path: '/v2/sign',
    body: { privateKey: randomBytes(32).toString('hex'), message: randomBytes(256).toString('hex'), encoding: 'hex' },
  },
  argon2id: { path: '/v2/password/hash', body: { password: 'correct horse battery staple' } },
};

const mix = args.mix.split(',').map((entry) => {
  const [route = '', connections = ''] = entry.split('=');
  if (!Object.hasOwn(ROUTES, route) || !(Number(connections) >= 1)) {
    throw new Error(`--mix takes route=connections pairs, routes ${Object.keys(ROUTES).join(', ')} (got '${entry}')`);
  }
  return { route, connections: Number(connections) };
});

interface Sample {
  /** Seconds since the load started (negative: before it). */
  t: number;
  rss: number;
  heapUsed: number;
}

const apiKey = benchApiKey();
const headers = { 'content-type': 'application/json', 'x-api-key': apiKey };
const server = await startProductionServer({ name: 'soak', apiKey, logLevel: args['log-level'] });
const pid = server.child.pid;

print(`# Soak: resident memory under ${DURATION_S} s of full load\n\n${describeMachine()}`);
print(
  `- production server: NODE_ENV=production, LOG_LEVEL=${args['log-level']}, RATE_LIMIT_MAX=10000000, one process (pid ${pid})`,
);
print(
  `- load: autocannon in this process, ${mix.map(({ route, connections }) => `${ROUTES[route]?.path} on ${connections} connection${connections === 1 ? '' : 's'}`).join(', ')}, all at once`,
);
print(`- server's V8 flags (those of npm start): ${SERVER_V8_FLAGS.join(' ')}`);
print(
  `- samples every ${SAMPLE_S} s: VmRSS from /proc/${pid}/status, heap used from /metrics; reference after ${WARMUP_S} s of warm-up\n`,
);

async function sample(t: number): Promise<Sample> {
  const rss = residentBytes(pid);
  let heapUsed = Number.NaN;
  try {
    heapUsed = (await scrapeMetrics(server.url)).get('nodejs_heap_size_used_bytes') ?? Number.NaN;
  } catch {
    // A scrape that fails under load leaves the heap figure out of this sample, not the run.
  }
  return { t, rss, heapUsed };
}

function report(entry: Sample, note = ''): void {
  print(
    `t=${entry.t.toFixed(0).padStart(4)} s  RSS ${formatMiB(entry.rss).padStart(10)}  heap used ${formatMiB(entry.heapUsed).padStart(10)}${note}`,
  );
}

const samples: Sample[] = [];
let results: LoadResult[];
let settled: Sample;
try {
  for (const { route } of mix) {
    const spec = ROUTES[route] as (typeof ROUTES)[string];
    await checkOnce({ name: route, url: `${server.url}${spec.path}`, headers, body: JSON.stringify(spec.body) });
  }
  const before = await sample(0);
  report(before, '  (before the load)');

  const started = performance.now();
  const elapsed = () => (performance.now() - started) / 1000;
  let running = true;
  const load = Promise.all(
    mix.map(({ route, connections }) => {
      const spec = ROUTES[route] as (typeof ROUTES)[string];
      return runLoad({
        url: `${server.url}${spec.path}`,
        method: 'POST',
        headers,
        body: JSON.stringify(spec.body),
        connections,
        duration: DURATION_S,
      });
    }),
  ).finally(() => (running = false));
  for (let next = SAMPLE_S; running; next += SAMPLE_S) {
    await Promise.race([sleep(Math.max(0, (next - elapsed()) * 1000)), load]);
    if (!running) break;
    const entry = await sample(elapsed());
    samples.push(entry);
    // By the schedule, not the sample's own time, which drifts: one line per PRINT_S, none skipped.
    if (Math.floor(next / PRINT_S) > Math.floor((next - SAMPLE_S) / PRINT_S)) report(entry);
  }
  results = await load;
  await sleep(SETTLE_S * 1000);
  settled = await sample(elapsed());
  report(settled, `  (${SETTLE_S} s after the load stopped)`);
} finally {
  await server.stop();
}

const end = samples.at(-1);
if (end === undefined)
  throw new Error(`no sample during the load: --duration ${DURATION_S} is shorter than --sample ${SAMPLE_S}`);
/** Windows at each end: 60 s, or a fifth of a short run, never shorter than one sample. */
const WINDOW_S = Math.max(SAMPLE_S, Math.min(60, DURATION_S / 5));
// Half a sample of slack on each bound: a timer may fire a little early or late.
const slack = SAMPLE_S / 2;
const warmWindow = samples.filter((entry) => entry.t >= WARMUP_S - slack && entry.t < WARMUP_S + WINDOW_S - slack);
const endWindow = samples.filter((entry) => entry.t > end.t - WINDOW_S + slack);
const afterWarmup = samples.filter((entry) => entry.t >= WARMUP_S - slack);
const finite = (values: number[]) => values.filter(Number.isFinite);
const minOf = (values: number[]) => (finite(values).length === 0 ? Number.NaN : Math.min(...finite(values)));
const maxOf = (values: number[]) => (finite(values).length === 0 ? Number.NaN : Math.max(...finite(values)));
const medianOf = (values: number[]) => median(finite(values));
const percent = (from: number, to: number) => ((to - from) / from) * 100;

interface Figures {
  warm: number;
  end: number;
  max: number;
  trend: number;
  settled: number;
}
function figures(read: (entry: Sample) => number, summary: (values: number[]) => number): Figures {
  return {
    warm: summary(warmWindow.map(read)),
    end: summary(endWindow.map(read)),
    max: maxOf(afterWarmup.map(read)),
    trend: slope(
      afterWarmup.map((entry) => entry.t / 60),
      afterWarmup.map(read),
    ),
    settled: read(settled),
  };
}
const rssFloor = figures((entry) => entry.rss, minOf);
const rssMedian = figures((entry) => entry.rss, medianOf);
const heap = figures((entry) => entry.heapUsed, medianOf);
const row = (name: string, f: Figures) => [
  name,
  formatMiB(f.warm),
  formatMiB(f.end),
  formatPercent(percent(f.warm, f.end)),
  formatMiB(f.max),
  `${formatMiB(f.trend)}/min`,
  formatMiB(f.settled),
];
const span = (window: Sample[]) =>
  window.length === 0
    ? 'no sample'
    : `${window.length} sample${window.length === 1 ? '' : 's'}, t=${window[0]?.t.toFixed(0)}–${window.at(-1)?.t.toFixed(0)} s`;

print(`\n## Memory (${WINDOW_S.toFixed(0)} s windows: after warm-up ${span(warmWindow)}; end ${span(endWindow)})\n`);
print(
  markdownTable(
    [
      '',
      'after warm-up',
      'end',
      'growth',
      'max after warm-up',
      'trend after warm-up (least squares)',
      `${SETTLE_S} s after the load`,
    ],
    [
      row('resident (VmRSS), floor: lowest sample of the window', rssFloor),
      row('resident (VmRSS), median of the window', rssMedian),
      row('heap used (V8), median of the window', heap),
    ],
  ),
);
print(`\n- growth of the floor: ${formatPercent(percent(rssFloor.warm, rssFloor.end))}`);
print(
  '- each running Argon2id job holds 64 MiB, so the medians jump by that much with the jobs in flight at each sample; the floors leave them out, "max" includes them',
);

print('\n## Load\n');
const statusList = (result: LoadResult) =>
  Object.entries(result.statusCounts)
    .filter(([status]) => !status.startsWith('2'))
    .map(([status, n]) => `${n}×${status}`)
    .join(' ');
print(
  markdownTable(
    ['Route', 'connections', '2xx answers', '2xx/s', 'p50 / p99', 'non-2xx', 'connection errors / timeouts'],
    [
      ...mix.map(({ route, connections }, i) => {
        const result = results[i] as LoadResult;
        const ok = result.latency.count;
        return [
          ROUTES[route]?.path ?? route,
          String(connections),
          String(ok),
          formatCount(result.requestsPerSecond),
          `${formatMs(result.latency.p50)} / ${formatMs(result.latency.p99)}`,
          statusList(result) || '0',
          `${result.errors} / ${result.timeouts}`,
        ];
      }),
      [
        'all',
        String(mix.reduce((sum, { connections }) => sum + connections, 0)),
        String(results.reduce((sum, result) => sum + result.latency.count, 0)),
        formatCount(results.reduce((sum, result) => sum + result.requestsPerSecond, 0)),
        '',
        String(results.reduce((sum, result) => sum + failures(result) - result.errors, 0)),
        `${results.reduce((sum, result) => sum + result.errors, 0)} / ${results.reduce((sum, result) => sum + result.timeouts, 0)}`,
      ],
    ],
  ),
);
print(`\n- load average (1/5/15 min) at the end: ${loadAverage()}`);
