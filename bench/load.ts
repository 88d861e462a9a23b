/**
 * What the request pipeline costs: the production server against a bare Fastify doing the same
 * core call, driven alternately by autocannon in this process.
 *
 *   node bench/load.ts                                   every scenario (about 4 minutes)
 *   node bench/load.ts --scenarios hash --rounds 6
 *   node bench/load.ts --scenarios mldsa-sign,mlkem-encaps
 *   node bench/load.ts --log-level info                  the production default LOG_LEVEL
 *   node bench/load.ts --workers 2 --scenarios hash      cluster: WORKERS=2 against WORKERS=1 and bare, one process and two
 *   node bench/load.ts --pipelining 10                   10 requests in flight per connection (Fastify's own benchmark setting)
 *   node bench/load.ts --cpu-prof /tmp/prof              one profiled run of each server, summarised
 *   node bench/load.ts --workers 2 --generator light --pipelining 32 --scenarios hash
 *                                                        the cluster, loaded by lib/light-load.ts
 *   node bench/load.ts --scenarios hash --launches 3     three processes of each server, averaged
 *   node bench/load.ts --summary FILE                    also the figures as JSON (lib/summary.ts; bench/targets.ts reads them)
 *
 * Production: packages/server/src/server.ts as a child process with NODE_ENV=production,
 * CRYPTO_API_KEY set (every request sends x-api-key), LOG_LEVEL=warn unless --log-level says
 * otherwise (warn writes no per-request log line; info, the service's default, writes one JSON line
 * per completed request, here to a log file), and RATE_LIMIT_MAX=10,000,000 so that the limiter
 * runs but never refuses. Bare: bench/bare-server.ts, also a child process.
 *
 * With --workers N (N ≥ 2), four servers take part: production with WORKERS=1 ("prod-1"),
 * production with WORKERS=N ("prod-N", a cluster: a primary and N worker processes), one bare
 * process ("bare-1") and the bare server as N processes behind node:cluster ("bare-N",
 * BARE_WORKERS=N); the tables then give prod-N/bare-1 (the issue's target), prod-N/prod-1,
 * prod-1/bare-1 and bare-N/bare-1: the last is what the machine allows a cluster whose requests
 * cost nothing but Fastify and the primitive, with this load generator on the same cores.
 *
 * --generator light drives the servers with lib/light-load.ts instead of autocannon: raw sockets
 * read once a millisecond, about 2 µs of CPU per request against autocannon's 7–12 µs. It needs
 * many requests in flight (connections × pipelining ≥ 200), so its latencies are mostly queueing;
 * it is there to show what the servers can do when the load generator takes little of the cores
 * they share, which is what the cluster comparison is about.
 *
 * Method: the servers stay up; for each scenario, each is warmed up, then they are driven in
 * alternating order (P B, B P, P B, …) with the same connections and duration, so that a slow
 * stretch of the shared machine hits both. Ratios are taken round by round and their median is
 * reported. Every figure includes the load generator competing for the same two cores.
 *
 * --launches N starts every server N times and drives all the copies in the same alternation; a
 * round's figure for a server is the mean over its copies. Two launches of the same code differ by
 * up to 11 % in CPU per request here (docs/performance-history.md, eighteenth pass; why was not
 * found), and a ratio from one launch of each server carries that difference. Each copy's own
 * medians are printed too.
 *
 * Besides requests/s, each run records the server's CPU time per request (every thread of the
 * process and of its descendants, from /proc, so a cluster's workers count): other processes on a
 * shared box move throughput a lot and CPU per request little, so the CPU ratio is the steadier
 * measure of what the pipeline costs.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { hexToBytes, utf8ToBytes } from '../packages/core/src/codec.ts';
import { mlDsaKeygen, mlDsaVerify } from '../packages/core/src/ml-dsa.ts';
import { mlKemDecapsulate, mlKemKeygen } from '../packages/core/src/ml-kem.ts';
import { alternate, checkedGenerator, checkOnce, failures, loadOnce, meanOfLaunches, type RunResult, type Target } from './lib/alternate.ts';
import { summariseProfile } from './lib/cpu-profile.ts';
import { describeMachine, loadAverage } from './lib/machine.ts';
import { benchApiKey, processTree, startBareServer, startProductionServer, type ServerProcess } from './lib/server-process.ts';
import { formatCount, formatMs, formatRatio, formatRatioRange, markdownTable, median, print } from './lib/stats.ts';
import { WORKERS_MIN_RATIO } from './lib/issue-targets.ts';
import { commandLine, spreadOf, writeSummary, type LoadSummary } from './lib/summary.ts';

const { values: args } = parseArgs({
  options: {
    scenarios: { type: 'string', default: 'hash,encrypt,sign,mldsa-sign,mlkem-encaps' },
    connections: { type: 'string', default: '10' },
    pipelining: { type: 'string', default: '1' },
    duration: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '4' },
    'log-level': { type: 'string', default: 'warn' },
    workers: { type: 'string', default: '1' },
    'cpu-prof': { type: 'string' },
    generator: { type: 'string', default: 'autocannon' },
    launches: { type: 'string', default: '1' },
    summary: { type: 'string' },
  },
});
const CONNECTIONS = Number(args.connections);
const PIPELINING = Number(args.pipelining);
if (!Number.isInteger(PIPELINING) || PIPELINING < 1) throw new Error(`--pipelining must be a whole number ≥ 1 (got ${args.pipelining})`);
const DURATION = Number(args.duration);
const WARMUP = Number(args.warmup);
const ROUNDS = Math.max(3, Number(args.rounds));
const LOG_LEVEL = args['log-level'];
const WORKERS = Number(args.workers);
if (!Number.isInteger(WORKERS) || WORKERS < 1) throw new Error(`--workers must be a whole number ≥ 1 (got ${args.workers})`);
const CLUSTER = WORKERS > 1;
const GENERATOR = checkedGenerator(args.generator, CONNECTIONS, PIPELINING);
const GENERATOR_NAME = GENERATOR === 'light' ? 'the light load generator (bench/lib/light-load.ts)' : 'autocannon';
if (CLUSTER && args['cpu-prof'] !== undefined) throw new Error('--cpu-prof profiles one production process and the bare one: leave out --workers');
const LAUNCHES = Number(args.launches);
if (!Number.isInteger(LAUNCHES) || LAUNCHES < 1) throw new Error(`--launches must be a whole number ≥ 1 (got ${args.launches})`);
if (LAUNCHES > 1 && args['cpu-prof'] !== undefined) throw new Error('--cpu-prof profiles one launch of each server: leave out --launches');
if (args.summary !== undefined && args['cpu-prof'] !== undefined) throw new Error('--cpu-prof measures no ratio to summarise: leave out --summary');

interface Scenario {
  name: string;
  /** What a request does, for the table. */
  description: string;
  productionPath: string;
  barePath: string;
  body: Record<string, unknown>;
  /**
   * Checks one answer's `data` independently of the server (throws if wrong): a benchmark of a
   * server that skipped the work would be worthless.
   */
  check?: (data: unknown) => Promise<void>;
}

// Small inputs: the point is the per-request cost of the pipeline, not the cost of the primitive.
const MESSAGE = 'The quick brown fox jumps over the lazy dog, 64 bytes of message';
/** Fixed keys, the same on every run: a seed is any byte string of the right length. */
const fixedBytes = (label: string, length: number) => new Uint8Array(createHash('shake256', { outputLength: length }).update(label).digest());
const ML_DSA_SEED = fixedBytes('crypto-service bench ml-dsa-65 seed', 32);
const ML_DSA_PUBLIC_KEY = (await mlDsaKeygen(65, { seed: ML_DSA_SEED })).publicKey;
const ML_KEM_SEED = fixedBytes('crypto-service bench ml-kem-768 seed', 64);
const ML_KEM_PUBLIC_KEY = (await mlKemKeygen(768, { seed: ML_KEM_SEED })).publicKey;

function expect(condition: boolean, what: string): void {
  if (!condition) throw new Error(`wrong answer: ${what}`);
}
/** A hex field of an answer's `data` object, as bytes. */
const hexField = (data: unknown, name: string) => hexToBytes(String((data as Record<string, unknown>)[name]));

const SCENARIOS: Scenario[] = [
  {
    name: 'hash', description: 'SHA-256 of 64 B', productionPath: '/v2/hash', barePath: '/hash', body: { algorithm: 'sha256', data: MESSAGE },
    check: async (data) => expect(data === createHash('sha256').update(MESSAGE).digest('hex'), 'SHA-256 digest'),
  },
  {
    name: 'encrypt', description: 'XChaCha20-Poly1305 seal of 64 B', productionPath: '/v2/encrypt', barePath: '/encrypt',
    body: { key: randomBytes(32).toString('hex'), plaintext: MESSAGE },
  },
  {
    name: 'sign', description: 'Ed25519 sign of 64 B', productionPath: '/v2/sign', barePath: '/sign',
    body: { privateKey: randomBytes(32).toString('hex'), message: MESSAGE },
  },
  {
    name: 'mldsa-sign', description: 'ML-DSA-65 sign of 64 B, 32-byte seed key', productionPath: '/v2/pq/dsa/sign', barePath: '/pq/dsa/sign',
    body: { secretKey: Buffer.from(ML_DSA_SEED).toString('hex'), message: MESSAGE, level: 65 },
    check: async (data) => expect((await mlDsaVerify(ML_DSA_PUBLIC_KEY, utf8ToBytes(MESSAGE), hexField(data, 'signature'))).valid, 'ML-DSA-65 signature'),
  },
  {
    name: 'mlkem-encaps', description: 'ML-KEM-768 encapsulation, one fixed public key', productionPath: '/v2/pq/encapsulate', barePath: '/pq/encapsulate',
    body: { publicKey: Buffer.from(ML_KEM_PUBLIC_KEY).toString('hex') },
    check: async (data) => {
      const { sharedSecret } = await mlKemDecapsulate(ML_KEM_SEED, hexField(data, 'ciphertext'), 768);
      expect(Buffer.from(sharedSecret).equals(hexField(data, 'sharedSecret')), 'ML-KEM-768 shared secret');
    },
  },
];

const apiKey = benchApiKey();
const headers = { 'content-type': 'application/json', 'x-api-key': apiKey };
const requested = args.scenarios.split(',');
const unknown = requested.filter((name) => !SCENARIOS.some((scenario) => scenario.name === name));
if (unknown.length > 0) throw new Error(`unknown scenario ${unknown.join(', ')}; choose from ${SCENARIOS.map((scenario) => scenario.name).join(', ')}`);
const scenarios = SCENARIOS.filter((scenario) => requested.includes(scenario.name));

interface ServerSpec {
  name: string;
  bare: boolean;
  /** WORKERS of a production server (1 = no cluster). */
  workers: number;
}
const SERVERS: ServerSpec[] = CLUSTER
  ? [
    { name: 'prod-1', bare: false, workers: 1 },
    { name: `prod-${WORKERS}`, bare: false, workers: WORKERS },
    { name: 'bare-1', bare: true, workers: 1 },
    { name: `bare-${WORKERS}`, bare: true, workers: WORKERS },
  ]
  : [{ name: 'production', bare: false, workers: 1 }, { name: 'bare', bare: true, workers: 1 }];
/** The ratios to report, as [numerator, denominator] server names. */
const PAIRS: [string, string][] = CLUSTER
  ? [[`prod-${WORKERS}`, 'bare-1'], [`prod-${WORKERS}`, 'prod-1'], ['prod-1', 'bare-1'], [`bare-${WORKERS}`, 'bare-1']]
  : [['production', 'bare']];

print(`# Load: production pipeline vs bare Fastify${CLUSTER ? `, and a WORKERS=${WORKERS} cluster` : ''}\n\n${describeMachine()}`);
print(`- ${GENERATOR_NAME} in this process, ${CONNECTIONS} connections${PIPELINING > 1 ? ` with ${PIPELINING} requests pipelined on each` : ''}, ${DURATION} s per run, ${WARMUP} s warm-up per server and scenario, ${ROUNDS} alternating rounds${LAUNCHES > 1 ? `; every server launched ${LAUNCHES} times (name#1…#${LAUNCHES}), a round's figure the mean over the launches` : ''}`);
print(`- production: NODE_ENV=production, CRYPTO_API_KEY set, LOG_LEVEL=${LOG_LEVEL}, RATE_LIMIT_MAX=10000000${CLUSTER ? `, WORKERS=1 (prod-1) and WORKERS=${WORKERS} (prod-${WORKERS})` : ''}; bare: bench/bare-server.ts${CLUSTER ? `, one process (bare-1) and BARE_WORKERS=${WORKERS} (bare-${WORKERS})` : ''}\n`);

const profileRoot = args['cpu-prof'] === undefined ? undefined : resolve(args['cpu-prof']);
/** With --cpu-prof, each server writes its profile into a directory of its own when it exits. */
function profileArgs(name: string): string[] {
  if (profileRoot === undefined) return [];
  const dir = join(profileRoot, name);
  mkdirSync(dir, { recursive: true });
  return ['--cpu-prof', `--cpu-prof-dir=${dir}`];
}

/** The names of a server's launches: its own name alone, or name#1, name#2, … with --launches. */
const launchesOf = (spec: ServerSpec): string[] => (LAUNCHES === 1 ? [spec.name] : Array.from({ length: LAUNCHES }, (_, i) => `${spec.name}#${i + 1}`));

async function start(spec: ServerSpec, name: string): Promise<ServerProcess> {
  if (!spec.bare) {
    return startProductionServer({ name, apiKey, logLevel: LOG_LEVEL, extra: { WORKERS: String(spec.workers) }, nodeArgs: profileArgs(name) });
  }
  return startBareServer({ name, workers: spec.workers, nodeArgs: profileArgs(name) });
}

/**
 * A cluster's primary may answer /live before every worker is up: wait (at most 15 s) until the
 * process tree holds the primary and its workers, and say how many processes there are, so that a
 * WORKERS setting that did not take effect shows in the output.
 */
async function describeProcesses(server: ServerProcess, spec: ServerSpec): Promise<string> {
  const name = server.name;
  const pid = server.child.pid as number;
  const deadline = Date.now() + 15_000;
  while (spec.workers > 1 && processTree(pid).length < spec.workers + 1 && Date.now() < deadline) await sleep(200);
  const count = processTree(pid).length;
  const note = spec.workers > 1 && count < spec.workers + 1 ? ` — fewer than a primary and ${spec.workers} workers: WORKERS=${spec.workers} did not take effect, so ${name} measures what did start` : '';
  return `- ${name}: ${count} process${count === 1 ? '' : 'es'} (pid ${pid}${count > 1 ? ` and its children ${processTree(pid).slice(1).join(', ')}` : ''})${note}`;
}

/** Every launch of every server, by launch name; launched in turns (each server's first, then each one's second, …). */
const servers = new Map<string, ServerProcess>();
try {
  for (let launch = 0; launch < LAUNCHES; launch++) {
    for (const spec of SERVERS) {
      const name = launchesOf(spec)[launch] as string;
      servers.set(name, await start(spec, name));
    }
  }
} catch (error) {
  await Promise.all([...servers.values()].map((server) => server.stop()));
  throw error;
}
if (CLUSTER) {
  for (const spec of SERVERS) {
    for (const name of launchesOf(spec)) print(await describeProcesses(servers.get(name) as ServerProcess, spec));
  }
  print('');
}

const target = (spec: ServerSpec, scenario: Scenario, name = spec.name): Target => {
  const server = servers.get(name) as ServerProcess;
  return { name, url: `${server.url}${spec.bare ? scenario.barePath : scenario.productionPath}`, headers, body: JSON.stringify(scenario.body), pid: server.child.pid };
};

if (profileRoot !== undefined) {
  // One profiled run of the first scenario on each server, one after the other, then a summary of
  // each profile. The profiler slows the servers: these runs give no throughput figures to quote.
  const scenario = scenarios[0] ?? (SCENARIOS[0] as Scenario);
  for (const spec of SERVERS) {
    const server = servers.get(spec.name) as ServerProcess;
    const profiled = target(spec, scenario);
    await checkOnce(profiled);
    const warm = await loadOnce(profiled, CONNECTIONS, WARMUP, PIPELINING, GENERATOR);
    const result = await loadOnce(profiled, CONNECTIONS, DURATION, PIPELINING, GENERATOR);
    const code = await server.stop();
    const dir = join(profileRoot, server.name);
    const newest = readdirSync(dir).filter((file) => file.endsWith('.cpuprofile')).sort().at(-1);
    if (code !== 0 || newest === undefined) throw new Error(`${server.name} exited with ${code} and wrote no profile to ${dir}`);
    print(`## ${server.name}, ${new URL(profiled.url).pathname}, profiled: ${formatCount(result.requestsPerSecond)} req/s, p50 ${formatMs(result.latency.p50)}, p99 ${formatMs(result.latency.p99)}\n`);
    print(`${summariseProfile(join(dir, newest), 25, warm.answers + result.answers + 1)}\n`);
  }
  process.exit(0);
}

interface Row {
  scenario: Scenario;
  /** Per server name, one result per round (with --launches, the mean over the launches). */
  results: Map<string, RunResult[]>;
  /** Per launch name, one result per round. */
  launches: Map<string, RunResult[]>;
}
const rows: Row[] = [];

try {
  for (const scenario of scenarios) {
    // Launches in turns, as they were started (P#1 B#1 P#2 B#2 …): each copy of one server runs
    // beside a copy of the other.
    const targets = Array.from({ length: LAUNCHES }, (_, launch) => SERVERS.map((spec) => target(spec, scenario, launchesOf(spec)[launch]))).flat();
    for (const each of targets) {
      const answer = JSON.parse(await checkOnce(each)) as { data: unknown };
      await scenario.check?.(answer.data);
    }
    const results = await alternate(targets, {
      connections: CONNECTIONS,
      pipelining: PIPELINING,
      generator: GENERATOR,
      duration: DURATION,
      warmup: WARMUP,
      rounds: ROUNDS,
      onRun: (run, round, result) => print(`${scenario.name} round ${round + 1}, ${run.name}: ${formatCount(result.requestsPerSecond)} req/s, p50 ${formatMs(result.latency.p50)}, p99 ${formatMs(result.latency.p99)}, server CPU ${formatMs(result.serverCpuUsPerRequest / 1000)}/request${failures(result) > 0 ? `, ${failures(result)} non-2xx answers or errors!` : ''}`),
    });
    const perServer = new Map(SERVERS.map((spec) => {
      const launchRuns = launchesOf(spec).map((name) => results.get(name) ?? []);
      return [spec.name, Array.from({ length: ROUNDS }, (_, round) => meanOfLaunches(launchRuns.map((runs) => runs[round] as RunResult)))];
    }));
    rows.push({ scenario, results: perServer, launches: results });
  }
} finally {
  await Promise.all([...servers.values()].map((server) => server.stop()));
}

const runs = (row: Row, name: string) => row.results.get(name) ?? [];
const rps = (results: RunResult[]) => median(results.map((result) => result.requestsPerSecond));
const p50 = (results: RunResult[]) => median(results.map((result) => result.latency.p50));
const p99 = (results: RunResult[]) => median(results.map((result) => result.latency.p99));
const cpu = (results: RunResult[]) => formatMs(median(results.map((result) => result.serverCpuUsPerRequest)) / 1000);
const range = formatRatioRange;
/** Per round: a's req/s ÷ b's req/s (above 1: a serves more). */
const rpsRatios = (row: Row, [a, b]: [string, string]) => runs(row, a).map((result, i) => result.requestsPerSecond / (runs(row, b)[i] as RunResult).requestsPerSecond);
/** Per round: b's CPU per request ÷ a's (above 1: a spends less CPU per request). */
const cpuRatios = (row: Row, [a, b]: [string, string]) => runs(row, a).map((result, i) => (runs(row, b)[i] as RunResult).serverCpuUsPerRequest / result.serverCpuUsPerRequest);
const route = (row: Row) => `${row.scenario.productionPath} (${row.scenario.description})`;
const names = SERVERS.map((spec) => spec.name);

print(`\n## Results (medians of ${ROUNDS} rounds; latency: median over rounds of each round's percentile)\n`);
print(markdownTable(
  ['Route', ...names.map((name) => `${name} req/s`), ...PAIRS.map(([a, b]) => `${a}/${b} req/s (range)`), ...names.map((name) => `${name} p50 / p99`), 'Non-2xx'],
  rows.map((row) => [
    route(row),
    ...names.map((name) => formatCount(rps(runs(row, name)))),
    ...PAIRS.map((pair) => range(rpsRatios(row, pair))),
    ...names.map((name) => `${formatMs(p50(runs(row, name)))} / ${formatMs(p99(runs(row, name)))}`),
    String(names.reduce((sum, name) => sum + runs(row, name).reduce((count, result) => count + failures(result), 0), 0)),
  ]),
));
const clusterName = `prod-${WORKERS}`;
print(`\nServer CPU time per request (all threads of the server process${CLUSTER ? ' and its worker processes' : ''}):\n`);
print(markdownTable(
  ['Route', ...names.map((name) => `${name} CPU/request`), ...(CLUSTER ? [`of which ${clusterName}'s primary`] : []), ...PAIRS.map(([a, b]) => `${b}/${a} CPU (range)`)],
  rows.map((row) => [
    route(row),
    ...names.map((name) => cpu(runs(row, name))),
    ...(CLUSTER ? [formatMs(median(runs(row, clusterName).map((result) => result.primaryCpuUsPerRequest)) / 1000)] : []),
    ...PAIRS.map((pair) => range(cpuRatios(row, pair))),
  ]),
));
if (LAUNCHES > 1) {
  // How far the copies of one server differ: the spread that averaging over launches takes out of the ratios.
  const launchNames = SERVERS.flatMap(launchesOf);
  print(`\nEach launch on its own (medians of its ${ROUNDS} rounds: req/s, CPU per request):\n`);
  print(markdownTable(
    ['Route', ...launchNames],
    rows.map((row) => [route(row), ...launchNames.map((name) => `${formatCount(rps(row.launches.get(name) ?? []))}, ${cpu(row.launches.get(name) ?? [])}`)]),
  ));
}
if (CLUSTER) {
  print(`\n- the issue's target: prod-${WORKERS} serves at least ${WORKERS_MIN_RATIO}× bare-1 on a 2-core machine (first ratio column); here the load generator shares the cores`);
  print(`- bare-${WORKERS}/bare-1 (last ratio column) is what ${WORKERS} processes of the same cost could serve here: the measured ceiling, for a pipeline that cost nothing`);
  printCeilings();
}
print(`\n- load average (1/5/15 min) at the end: ${loadAverage()}`);
writeSummary(args.summary, summarise());

function summarise(): LoadSummary {
  return {
    kind: 'load',
    command: commandLine(),
    rounds: ROUNDS,
    launches: LAUNCHES,
    scenarios: rows.map((row) => {
      const allowed = CLUSTER ? ceilings(row) : undefined;
      return {
        name: row.scenario.name,
        path: row.scenario.productionPath,
        servers: Object.fromEntries(names.map((name) => {
          const results = runs(row, name);
          return [name, { requestsPerSecond: rps(results), cpuUsPerRequest: median(results.map((result) => result.serverCpuUsPerRequest)), p50Ms: p50(results), p99Ms: p99(results) }];
        })),
        ratios: PAIRS.map(([of, to]) => ({ of, to, requestsPerSecond: spreadOf(rpsRatios(row, [of, to])), cpu: spreadOf(cpuRatios(row, [of, to])) })),
        failures: names.reduce((sum, name) => sum + runs(row, name).reduce((count, result) => count + failures(result), 0), 0),
        ...(allowed === undefined ? {} : { ceiling: { overBare: allowed.overBare, clusterShare: allowed.clusterShare } }),
      };
    }),
    loadAverageAtEnd: loadAverage(),
  };
}

/**
 * What the machine's cores allow a cluster, from the CPU each request cost in the same round. A
 * cluster that keeps every core busy serves at most cores ÷ (server CPU + load generator CPU per
 * request), since the load generator runs on the same cores; bare-1 is held to one event loop. Dividing
 * that by bare-1's measured req/s gives the highest prod-N/bare-1 the round could have shown with
 * the pipeline as it is, and the same with the pipeline free (prod-N costing what bare-1 does).
 * Each a median over the rounds.
 */
function ceilings(row: Row): { clusterShare: number; overBare: number; overBareFree: number } {
  const cores = availableParallelism();
  const perRound = (f: (cluster: RunResult, bare: RunResult) => number) =>
    median(runs(row, clusterName).map((cluster, i) => f(cluster, runs(row, 'bare-1')[i] as RunResult)));
  const ceiling = (cluster: RunResult, serverCpuUs: number) => (cores * 1e6) / (serverCpuUs + cluster.generatorCpuUsPerRequest);
  return {
    clusterShare: perRound((cluster) => cluster.requestsPerSecond / ceiling(cluster, cluster.serverCpuUsPerRequest)),
    overBare: perRound((cluster, bare) => ceiling(cluster, cluster.serverCpuUsPerRequest) / bare.requestsPerSecond),
    overBareFree: perRound((cluster, bare) => ceiling(cluster, bare.serverCpuUsPerRequest) / bare.requestsPerSecond),
  };
}

function printCeilings(): void {
  print(`\nWhat ${availableParallelism()} cores allow (per round, then the median): a cluster serves at most cores ÷ (server CPU + load generator CPU per request):\n`);
  print(markdownTable(
    ['Route', ...names.map((name) => `${GENERATOR} CPU/request, ${name}`), `${clusterName} req/s ÷ that ceiling`, `ceiling ÷ bare-1 req/s`, `the same with ${clusterName} at bare-1's CPU/request`],
    rows.map((row) => {
      const allowed = ceilings(row);
      return [
        route(row),
        ...names.map((name) => formatMs(median(runs(row, name).map((result) => result.generatorCpuUsPerRequest)) / 1000)),
        formatRatio(allowed.clusterShare),
        formatRatio(allowed.overBare),
        formatRatio(allowed.overBareFree),
      ];
    }),
  ));
  print(`\n- a ceiling below the target means the target cannot be met on this machine with this load generator, whatever the cluster does`);
}
