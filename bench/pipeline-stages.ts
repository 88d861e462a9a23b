/**
 * Which pipeline stage costs what, for small POST /v2/hash requests: the full pipeline rebuilt by
 * bench/stages-server.ts, the same with one stage left out at a time, the route alone, and the
 * real production server and the bare Fastify of bench/load.ts as references. Every variant is
 * driven in alternating rounds like bench/load.ts does; the table gives each variant's req/s
 * relative to "full" (above 1: leaving the stage out is faster by that factor), and the server's
 * CPU time per request, whose difference from "full" is the stage's cost in µs (the steadier
 * figure when other processes share the cores).
 *
 *   node bench/pipeline-stages.ts                 (about 4 minutes)
 *   node bench/pipeline-stages.ts --rounds 5 --duration 5
 *
 * Same conditions as bench/load.ts: child processes, LOG_LEVEL=warn, an API key on every request,
 * the rate limit far out of reach, autocannon in this process on the same two cores.
 *
 * (An in-process variant with Fastify's inject() was tried and dropped: eleven apps in one process
 * share the plugins' code, and its per-round figures swung by ±100 µs, far more than the stages
 * being measured.)
 */
import { parseArgs } from 'node:util';
import { alternate, failures, type RunResult, type Target } from './lib/alternate.ts';
import { describeMachine, loadAverage } from './lib/machine.ts';
import { ALL_STAGES } from './lib/stages-app.ts';
import { benchApiKey, freePort, startBareServer, startProductionServer, startServer, type ServerProcess } from './lib/server-process.ts';
import { formatCount, formatMs, formatRatioRange, markdownTable, median, print } from './lib/stats.ts';

const { values: args } = parseArgs({
  options: {
    connections: { type: 'string', default: '10' },
    duration: { type: 'string', default: '4' },
    warmup: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '4' },
  },
});

const ALL: string[] = [...ALL_STAGES];
const VARIANTS: { name: string; stages: string[] }[] = [
  { name: 'full', stages: ALL },
  ...ALL.map((stage) => ({ name: `full − ${stage}`, stages: ALL.filter((other) => other !== stage) })),
  { name: 'full, handler timeout on every route', stages: [...ALL, 'timeout-all'] },
  { name: 'route only (schema, no stage)', stages: [] },
];

const apiKey = benchApiKey();
const headers = { 'content-type': 'application/json', 'x-api-key': apiKey };
const body = JSON.stringify({ algorithm: 'sha256', data: 'The quick brown fox jumps over the lazy dog, 64 bytes of message' });

print(`# Pipeline stages: POST /v2/hash with one stage left out at a time\n\n${describeMachine()}`);


print(`- autocannon in this process, ${args.connections} connections, ${args.duration} s per run, ${args.warmup} s warm-up, ${args.rounds} alternating rounds\n`);

const servers: ServerProcess[] = [];
const targets: Target[] = [];
try {
  const production = await startProductionServer({ name: 'production server', apiKey, logLevel: 'warn' });
  servers.push(production);
  targets.push({ name: production.name, url: `${production.url}/v2/hash`, headers, body, pid: production.child.pid });
  for (const variant of VARIANTS) {
    const port = await freePort();
    const server = await startServer({
      name: variant.name,
      script: 'bench/stages-server.ts',
      port,
      env: { PATH: process.env.PATH ?? '', PORT: String(port), CRYPTO_API_KEY: apiKey, STAGES: variant.stages.join(',') },
    });
    servers.push(server);
    targets.push({ name: variant.name, url: `${server.url}/v2/hash`, headers, body, pid: server.child.pid });
  }
  const bare = await startBareServer({ name: 'bare Fastify (bench/bare-server.ts)' });
  servers.push(bare);
  targets.push({ name: bare.name, url: `${bare.url}/hash`, headers, body, pid: bare.child.pid });

  const results = await alternate(targets, {
    connections: Number(args.connections),
    duration: Number(args.duration),
    warmup: Number(args.warmup),
    rounds: Math.max(3, Number(args.rounds)),
    onRun: (target, round, result) => print(`round ${round + 1}, ${target.name}: ${formatCount(result.requestsPerSecond)} req/s, server CPU ${formatMs(result.serverCpuUsPerRequest / 1000)}/request${failures(result) > 0 ? `, ${failures(result)} non-2xx answers or errors!` : ''}`),
  });

  const full = results.get('full') ?? [];
  const rows = targets.map((target) => {
    const runs = results.get(target.name) ?? [];
    // Per round against "full" of the same round, then the median: req/s ratio, and CPU µs saved.
    const ratios = runs.map((run, i) => run.requestsPerSecond / (full[i] as RunResult).requestsPerSecond);
    const saved = runs.map((run, i) => (full[i] as RunResult).serverCpuUsPerRequest - run.serverCpuUsPerRequest);
    return [
      target.name,
      formatCount(median(runs.map((run) => run.requestsPerSecond))),
      formatRatioRange(ratios),
      formatMs(median(runs.map((run) => run.serverCpuUsPerRequest)) / 1000),
      `${median(saved).toFixed(0)} µs (${Math.min(...saved).toFixed(0)} to ${Math.max(...saved).toFixed(0)})`,
      `${formatMs(median(runs.map((run) => run.latency.p50)))} / ${formatMs(median(runs.map((run) => run.latency.p99)))}`,
      String(runs.reduce((sum, run) => sum + failures(run), 0)),
    ];
  });
  print(`\n## Results (medians of ${args.rounds} rounds)\n`);
  print(markdownTable(['Variant', 'req/s', 'req/s vs full (range)', 'server CPU/request', 'CPU saved vs full (range)', 'p50 / p99', 'Non-2xx'], rows));
  print('\n"CPU saved vs full" is what leaving the stage out saves per request: the stage\'s cost.');
  print(`\n- load average (1/5/15 min) at the end: ${loadAverage()}`);
} finally {
  await Promise.all(servers.map((server) => server.stop()));
}
