/**
 * Does resident memory stay flat under sustained full load? The production server (one process,
 * defaults) driven for --duration seconds by a mix of routes at once, its resident set (VmRSS) and
 * V8 heap sampled every second.
 *
 * It compares a window just after --warmup with the last window (60 s each, or a fifth of a short
 * run) by their floors, their lowest samples: each running Argon2id job holds 64 MiB, so the
 * resident set jumps between levels a job apart and a window's median lands on either by chance,
 * while the floor is what the server keeps between jobs, which is what a leak would raise.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { SERVER_V8_FLAGS } from '@crypto-service/server/v8-flags';
import { checkOnce, failures, runLoad, type LoadResult } from './lib/autocannon.ts';
import {
  describeMachine,
  formatCount,
  formatMiB,
  formatMs,
  loadAverage,
  markdownTable,
  median,
  options,
  print,
  scrapeMetrics,
} from './lib/common.ts';
import { benchApiKey, residentBytes, startProductionServer } from './lib/server-process.ts';

const opt = options({ duration: 300, warmup: 30 });
/** The reference window must leave most of the run after it: it starts at most a third of the way in. */
const WARMUP_S = Math.min(opt.warmup, opt.duration / 3);
/** Realistic sizes rather than the tiny inputs of bench/load.ts, and connections per route. */
const MIX = [
  {
    path: '/v2/hash',
    connections: 6,
    body: { algorithm: 'sha256', data: randomBytes(1024).toString('base64'), encoding: 'base64' },
  },
  {
    path: '/v2/encrypt',
    connections: 2,
    body: { key: randomBytes(32).toString('hex'), plaintext: randomBytes(768).toString('base64'), encoding: 'base64' },
  },
  {
    path: '/v2/sign',
    connections: 2,
    body: { privateKey: randomBytes(32).toString('hex'), message: randomBytes(256).toString('hex'), encoding: 'hex' },
  },
  { path: '/v2/password/hash', connections: 1, body: { password: 'correct horse battery staple' } },
];

const apiKey = benchApiKey();
const headers = { 'content-type': 'application/json', 'x-api-key': apiKey };
const server = await startProductionServer('soak', apiKey);
const pid = server.child.pid as number;

print(`# Soak: resident memory under ${opt.duration} s of full load\n\n${describeMachine()}`);
print(
  `- production server, one process (pid ${pid}), LOG_LEVEL=warn, V8 flags of npm start: ${SERVER_V8_FLAGS.join(' ')}`,
);
print(
  `- load: autocannon in this process, ${MIX.map(({ path, connections }) => `${path} × ${connections}`).join(', ')} connections`,
);
print(`- every second: VmRSS from /proc/${pid}/status, heap used from /metrics; reference after ${WARMUP_S} s\n`);

interface Sample {
  /** Seconds since the load started. */
  t: number;
  rss: number;
  heap: number;
}
async function sample(t: number): Promise<Sample> {
  // A scrape that fails under load leaves the heap figure out of this sample, not the run.
  const metrics = await scrapeMetrics(server.url).catch(() => new Map<string, number>());
  return { t, rss: residentBytes(pid), heap: metrics.get('nodejs_heap_size_used_bytes') ?? Number.NaN };
}
const report = ({ t, rss, heap }: Sample) =>
  print(
    `t=${t.toFixed(0).padStart(4)} s  RSS ${formatMiB(rss).padStart(10)}  heap used ${formatMiB(heap).padStart(10)}`,
  );

const samples: Sample[] = [];
let results: LoadResult[];
try {
  for (const { path, body } of MIX) await checkOnce(`${server.url}${path}`, headers, JSON.stringify(body));
  report(await sample(0));
  const started = performance.now();
  let running = true;
  const load = Promise.all(
    MIX.map(({ path, connections, body }) =>
      runLoad({
        url: `${server.url}${path}`,
        headers,
        body: JSON.stringify(body),
        connections,
        duration: opt.duration,
      }),
    ),
  ).finally(() => (running = false));
  // On a fixed schedule, one sample a second, one printed every 10.
  for (let next = 1; running; next += 1) {
    await Promise.race([sleep(Math.max(0, next * 1000 - (performance.now() - started))), load]);
    if (!running) break;
    samples.push(await sample((performance.now() - started) / 1000));
    if (next % 10 === 0) report(samples.at(-1) as Sample);
  }
  results = await load;
} finally {
  await server.stop();
}

const end = (samples.at(-1) as Sample | undefined)?.t ?? Number.NaN;
const WINDOW_S = Math.max(1, Math.min(60, opt.duration / 5));
// Half a second of slack on each bound: a timer may fire a little early or late.
const warmWindow = samples.filter(({ t }) => t >= WARMUP_S - 0.5 && t < WARMUP_S + WINDOW_S - 0.5);
const endWindow = samples.filter(({ t }) => t > end - WINDOW_S + 0.5);
const afterWarmup = samples.filter(({ t }) => t >= WARMUP_S - 0.5);
const finite = (values: number[]) => values.filter(Number.isFinite);
const floor = (values: number[]) => Math.min(...values);
const row = (name: string, read: (entry: Sample) => number, summary: (values: number[]) => number) => {
  const [warm, last] = [summary(finite(warmWindow.map(read))), summary(finite(endWindow.map(read)))];
  const growth = ((last - warm) / warm) * 100;
  return [
    name,
    formatMiB(warm),
    formatMiB(last),
    `${growth >= 0 ? '+' : ''}${growth.toFixed(1)} %`,
    formatMiB(Math.max(...afterWarmup.map(read))),
  ];
};

print(
  `\n## Memory (${WINDOW_S.toFixed(0)} s windows: ${warmWindow.length} samples after warm-up, ${endWindow.length} at the end)\n`,
);
print(
  markdownTable(
    ['', 'after warm-up', 'end', 'growth', 'max after warm-up'],
    [
      row('resident (VmRSS), floor: lowest sample of the window', (entry) => entry.rss, floor),
      row('heap used (V8), median of the window', (entry) => entry.heap, median),
    ],
  ),
);
print('\n- the maximum includes the 64 MiB of each Argon2id job running at the sample; the floors leave them out');

print('\n## Load\n');
const total = (pick: (result: LoadResult) => number) => results.reduce((sum, result) => sum + pick(result), 0);
const loadRows = MIX.map(({ path, connections }, i) => {
  const { latency, requestsPerSecond } = results[i] as LoadResult;
  const times = `${formatMs(latency.p50)} / ${formatMs(latency.p99)}`;
  return [
    path,
    String(connections),
    String(latency.count),
    formatCount(requestsPerSecond),
    times,
    String(failures(results[i] as LoadResult)),
  ];
});
print(markdownTable(['Route', 'connections', '2xx answers', '2xx/s', 'p50 / p99', 'failures'], loadRows));
print(`\n- all routes: ${formatCount(total((r) => r.latency.count))} 2xx answers, ${total(failures)} failures`);
print(`- load average (1/5/15 min) at the end: ${loadAverage()}`);
