/**
 * What the request pipeline costs: the production server against a bare Fastify doing the same
 * core call, driven alternately by autocannon in this process.
 *
 *   node bench/load.ts                                   hash, encrypt and sign (about 2.5 minutes)
 *   node bench/load.ts --scenarios hash --rounds 6
 *   node bench/load.ts --log-level info                  the production default LOG_LEVEL
 *   node bench/load.ts --cpu-prof /tmp/prof              one profiled run of each server, summarised
 *
 * Production: packages/server/src/server.ts as a child process with NODE_ENV=production,
 * CRYPTO_API_KEY set (every request sends x-api-key), LOG_LEVEL=warn unless --log-level says
 * otherwise (warn writes no per-request log line; info, the service's default, writes one JSON line
 * per completed request, here to a log file), and RATE_LIMIT_MAX=10,000,000 so that the limiter
 * runs but never refuses. Bare: bench/bare-server.ts, also a child process.
 *
 * Method: both servers stay up; for each scenario, each is warmed up, then they are driven in
 * alternating order (P B, B P, P B, …) with the same connections and duration, so that a slow
 * stretch of the shared machine hits both. The ratio is taken round by round and its median is
 * reported. Every figure includes the load generator competing for the same two cores.
 *
 * Besides requests/s, each run records the server process's CPU time per request (all threads,
 * from /proc): other processes on a shared box move throughput a lot and CPU per request little,
 * so the CPU ratio bare/production is the steadier measure of what the pipeline costs.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { alternate, checkOnce, failures, loadOnce, type RunResult, type Target } from './lib/alternate.ts';
import { summariseProfile } from './lib/cpu-profile.ts';
import { describeMachine, loadAverage } from './lib/machine.ts';
import { benchApiKey, freePort, productionEnv, startServer, type ServerProcess } from './lib/server-process.ts';
import { formatCount, formatMs, formatRatio, markdownTable, median } from './lib/stats.ts';

const { values: args } = parseArgs({
  options: {
    scenarios: { type: 'string', default: 'hash,encrypt,sign' },
    connections: { type: 'string', default: '10' },
    duration: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '4' },
    'log-level': { type: 'string', default: 'warn' },
    'cpu-prof': { type: 'string' },
  },
});
const CONNECTIONS = Number(args.connections);
const DURATION = Number(args.duration);
const WARMUP = Number(args.warmup);
const ROUNDS = Math.max(3, Number(args.rounds));
const LOG_LEVEL = args['log-level'];

interface Scenario {
  name: string;
  /** What a request does, for the table. */
  description: string;
  productionPath: string;
  barePath: string;
  body: Record<string, unknown>;
}

// Small inputs: the point is the per-request cost of the pipeline, not the cost of the primitive.
const MESSAGE = 'The quick brown fox jumps over the lazy dog, 64 bytes of message';
const SCENARIOS: Scenario[] = [
  { name: 'hash', description: 'SHA-256 of 64 B', productionPath: '/v2/hash', barePath: '/hash', body: { algorithm: 'sha256', data: MESSAGE } },
  {
    name: 'encrypt', description: 'XChaCha20-Poly1305 seal of 64 B', productionPath: '/v2/encrypt', barePath: '/encrypt',
    body: { key: randomBytes(32).toString('hex'), plaintext: MESSAGE },
  },
  {
    name: 'sign', description: 'Ed25519 sign of 64 B', productionPath: '/v2/sign', barePath: '/sign',
    body: { privateKey: randomBytes(32).toString('hex'), message: MESSAGE },
  },
];

function print(text: string): void {
  process.stdout.write(`${text}\n`);
}

const apiKey = benchApiKey();
const headers = { 'content-type': 'application/json', 'x-api-key': apiKey };
const scenarios = SCENARIOS.filter((scenario) => args.scenarios.split(',').includes(scenario.name));
const target = (server: ServerProcess, path: string, scenario: Scenario): Target =>
  ({ name: server.name, url: `${server.url}${path}`, headers, body: JSON.stringify(scenario.body), pid: server.child.pid });

print(`# Load: production pipeline vs bare Fastify\n\n${describeMachine()}`);
print(`- autocannon in this process, ${CONNECTIONS} connections, ${DURATION} s per run, ${WARMUP} s warm-up per server and scenario, ${ROUNDS} alternating rounds`);
print(`- production: NODE_ENV=production, CRYPTO_API_KEY set, LOG_LEVEL=${LOG_LEVEL}, RATE_LIMIT_MAX=10000000; bare: bench/bare-server.ts\n`);

const profileRoot = args['cpu-prof'] === undefined ? undefined : resolve(args['cpu-prof']);
/** With --cpu-prof, each server writes its profile into a directory of its own when it exits. */
function profileArgs(name: string): string[] {
  if (profileRoot === undefined) return [];
  const dir = join(profileRoot, name);
  mkdirSync(dir, { recursive: true });
  return ['--cpu-prof', `--cpu-prof-dir=${dir}`];
}

const productionPort = await freePort();
const production = await startServer({
  name: 'production',
  script: 'packages/server/src/server.ts',
  port: productionPort,
  env: productionEnv({ port: productionPort, apiKey, logLevel: LOG_LEVEL }),
  nodeArgs: profileArgs('production'),
});
const barePort = await freePort();
const bare = await startServer({
  name: 'bare',
  script: 'bench/bare-server.ts',
  port: barePort,
  env: { PATH: process.env.PATH ?? '', PORT: String(barePort) },
  nodeArgs: profileArgs('bare'),
});

if (profileRoot !== undefined) {
  // One profiled run of the first scenario on each server, one after the other, then a summary of
  // each profile. The profiler slows the servers: these runs give no throughput figures to quote.
  const scenario = scenarios[0] ?? (SCENARIOS[0] as Scenario);
  for (const [server, path] of [[production, scenario.productionPath], [bare, scenario.barePath]] as const) {
    const profiled = target(server, path, scenario);
    await checkOnce(profiled);
    const warm = await loadOnce(profiled, CONNECTIONS, WARMUP);
    const result = await loadOnce(profiled, CONNECTIONS, DURATION);
    const code = await server.stop();
    const dir = join(profileRoot, server.name);
    const newest = readdirSync(dir).filter((file) => file.endsWith('.cpuprofile')).sort().at(-1);
    if (code !== 0 || newest === undefined) throw new Error(`${server.name} exited with ${code} and wrote no profile to ${dir}`);
    print(`## ${server.name}, ${path}, profiled: ${formatCount(result.requestsPerSecond)} req/s, p50 ${formatMs(result.latency.p50)}, p99 ${formatMs(result.latency.p99)}\n`);
    print(`${summariseProfile(join(dir, newest), 25, warm.answers + result.answers + 1)}\n`);
  }
  process.exit(0);
}

interface Row {
  scenario: Scenario;
  production: RunResult[];
  bare: RunResult[];
  /** Per round: production req/s ÷ bare req/s. */
  ratios: number[];
  /** Per round: bare CPU per request ÷ production CPU per request. */
  cpuRatios: number[];
}
const rows: Row[] = [];

try {
  for (const scenario of scenarios) {
    const productionTarget = target(production, scenario.productionPath, scenario);
    const bareTarget = target(bare, scenario.barePath, scenario);
    if (scenario.name === 'hash' && (await checkOnce(productionTarget)) !== (await checkOnce(bareTarget))) {
      throw new Error('the two servers disagree on the SHA-256 digest');
    }
    const results = await alternate([productionTarget, bareTarget], {
      connections: CONNECTIONS,
      duration: DURATION,
      warmup: WARMUP,
      rounds: ROUNDS,
      onRun: (run, round, result) => print(`${scenario.name} round ${round + 1}, ${run.name}: ${formatCount(result.requestsPerSecond)} req/s, p50 ${formatMs(result.latency.p50)}, p99 ${formatMs(result.latency.p99)}, server CPU ${formatMs(result.serverCpuUsPerRequest / 1000)}/request${failures(result) > 0 ? `, ${failures(result)} non-2xx answers or errors!` : ''}`),
    });
    const p = results.get('production') ?? [];
    const b = results.get('bare') ?? [];
    rows.push({
      scenario,
      production: p,
      bare: b,
      ratios: p.map((result, i) => result.requestsPerSecond / (b[i] as RunResult).requestsPerSecond),
      cpuRatios: p.map((result, i) => (b[i] as RunResult).serverCpuUsPerRequest / result.serverCpuUsPerRequest),
    });
  }
} finally {
  await Promise.all([production.stop(), bare.stop()]);
}

const rps = (results: RunResult[]) => median(results.map((result) => result.requestsPerSecond));
const p50 = (results: RunResult[]) => median(results.map((result) => result.latency.p50));
const p99 = (results: RunResult[]) => median(results.map((result) => result.latency.p99));
const cpu = (results: RunResult[]) => formatMs(median(results.map((result) => result.serverCpuUsPerRequest)) / 1000);
const range = (ratios: number[]) => `${formatRatio(median(ratios))} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`;
print(`\n## Results (medians of ${ROUNDS} rounds; latency: median over rounds of each round's percentile)\n`);
print(markdownTable(
  ['Route', 'Production req/s', 'Bare req/s', 'Production/bare req/s (range)', 'Production p50 / p99', 'Bare p50 / p99', 'Non-2xx'],
  rows.map((row) => [
    `${row.scenario.productionPath} (${row.scenario.description})`,
    formatCount(rps(row.production)),
    formatCount(rps(row.bare)),
    range(row.ratios),
    `${formatMs(p50(row.production))} / ${formatMs(p99(row.production))}`,
    `${formatMs(p50(row.bare))} / ${formatMs(p99(row.bare))}`,
    String(row.production.concat(row.bare).reduce((sum, result) => sum + failures(result), 0)),
  ]),
));
print('\nServer CPU time per request (all threads of the server process):\n');
print(markdownTable(
  ['Route', 'Production CPU/request', 'Bare CPU/request', 'Bare/production CPU (range)'],
  rows.map((row) => [`${row.scenario.productionPath} (${row.scenario.description})`, cpu(row.production), cpu(row.bare), range(row.cpuRatios)]),
));
print(`\n- load average (1/5/15 min) at the end: ${loadAverage()}`);
