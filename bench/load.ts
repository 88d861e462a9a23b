/**
 * What the request pipeline costs: the production server against a bare Fastify doing the same
 * core call (bench/bare-server.ts), both child processes, loaded in alternating rounds.
 *
 *   node bench/load.ts                                  every scenario, one process each
 *   node bench/load.ts --scenarios hash --rounds 8 --duration 4 --launches 3
 *   node bench/load.ts --workers 2 --generator light --pipelining 32 --scenarios hash
 *
 * Production runs with NODE_ENV=production, an API key, LOG_LEVEL=warn and a rate limit it never
 * reaches, so every stage of the pipeline runs and none refuses. Besides requests a second, each
 * run records the server's CPU time per request (its process and descendants, from /proc): on a
 * shared machine that moves far less than throughput, so its ratio is the steadier figure.
 *
 * With --workers N, four servers take part: production with WORKERS=1 and WORKERS=N, and the bare
 * server as one process and as N behind node:cluster. bare-N/bare-1 is what N processes of the
 * cheapest possible pipeline serve here, the ceiling any cluster can reach with this load
 * generator on the same cores.
 */
import { createHash, randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { hexToBytes, mlDsaKeygen, mlDsaVerify, mlKemDecapsulate, mlKemKeygen, utf8ToBytes } from '@crypto-service/core';
import {
  alternate,
  checkedGenerator,
  checkOnce,
  failures,
  meanOfLaunches,
  type RunResult,
  type Target,
} from './lib/alternate.ts';
import { describeMachine, loadAverage } from './lib/machine.ts';
import {
  benchApiKey,
  processTree,
  startBareServer,
  startProductionServer,
  type ServerProcess,
} from './lib/server-process.ts';
import { formatCount, formatMs, formatRatio, formatRatioRange, markdownTable, median, print } from './lib/stats.ts';

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
    generator: { type: 'string', default: 'autocannon' },
    launches: { type: 'string', default: '1' },
  },
});

function wholeNumber(name: string, text: string, min: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min)
    throw new Error(`--${name} must be a whole number ≥ ${min} (got ${text})`);
  return value;
}
const CONNECTIONS = wholeNumber('connections', args.connections, 1);
const PIPELINING = wholeNumber('pipelining', args.pipelining, 1);
const DURATION = Number(args.duration);
const WARMUP = Number(args.warmup);
const ROUNDS = Math.max(3, Number(args.rounds));
const WORKERS = wholeNumber('workers', args.workers, 1);
const LAUNCHES = wholeNumber('launches', args.launches, 1);
const CLUSTER = WORKERS > 1;
const GENERATOR = checkedGenerator(args.generator, CONNECTIONS, PIPELINING);

interface Scenario {
  name: string;
  description: string;
  productionPath: string;
  barePath: string;
  body: Record<string, unknown>;
  /** Checks one answer independently of the server: a server that skipped the work must not look fast. */
  check?: (data: unknown) => Promise<void>;
}

// Small inputs: the point is the per-request cost of the pipeline, not the cost of the primitive.
const MESSAGE = 'The quick brown fox jumps over the lazy dog, 64 bytes of message';
/** Keys derived from fixed labels, so that every run signs and encapsulates with the same keys. */
const fixedBytes = (label: string, length: number) =>
  new Uint8Array(createHash('shake256', { outputLength: length }).update(label).digest());
const ML_DSA_SEED = fixedBytes('crypto-service bench ml-dsa-65 seed', 32);
const ML_DSA_PUBLIC_KEY = (await mlDsaKeygen(65, { seed: ML_DSA_SEED })).publicKey;
const ML_KEM_SEED = fixedBytes('crypto-service bench ml-kem-768 seed', 64);
const ML_KEM_PUBLIC_KEY = (await mlKemKeygen(768, { seed: ML_KEM_SEED })).publicKey;

function expect(condition: boolean, what: string): void {
  if (!condition) throw new Error(`wrong answer: ${what}`);
}
const hexField = (data: unknown, name: string) => hexToBytes(String((data as Record<string, unknown>)[name]));

const SCENARIOS: Scenario[] = [
  {
    name: 'hash',
    description: 'SHA-256 of 64 B',
    productionPath: '/v2/hash',
    barePath: '/hash',
    body: { algorithm: 'sha256', data: MESSAGE },
    check: async (data) => expect(data === createHash('sha256').update(MESSAGE).digest('hex'), 'SHA-256 digest'),
  },
  {
    name: 'encrypt',
    description: 'XChaCha20-Poly1305 seal of 64 B',
    productionPath: '/v2/encrypt',
    barePath: '/encrypt',
    body: { key: randomBytes(32).toString('hex'), plaintext: MESSAGE },
  },
  {
    name: 'sign',
    description: 'Ed25519 sign of 64 B',
    productionPath: '/v2/sign',
    barePath: '/sign',
    body: { privateKey: randomBytes(32).toString('hex'), message: MESSAGE },
  },
  {
    name: 'mldsa-sign',
    description: 'ML-DSA-65 sign of 64 B',
    productionPath: '/v2/pq/dsa/sign',
    barePath: '/pq/dsa/sign',
    body: { secretKey: Buffer.from(ML_DSA_SEED).toString('hex'), message: MESSAGE, level: 65 },
    check: async (data) =>
      expect(
        (await mlDsaVerify(ML_DSA_PUBLIC_KEY, utf8ToBytes(MESSAGE), hexField(data, 'signature'))).valid,
        'ML-DSA-65 signature',
      ),
  },
  {
    name: 'mlkem-encaps',
    description: 'ML-KEM-768 encapsulation',
    productionPath: '/v2/pq/encapsulate',
    barePath: '/pq/encapsulate',
    body: { publicKey: Buffer.from(ML_KEM_PUBLIC_KEY).toString('hex') },
    check: async (data) => {
      const { sharedSecret } = await mlKemDecapsulate(ML_KEM_SEED, hexField(data, 'ciphertext'), 768);
      expect(Buffer.from(sharedSecret).equals(hexField(data, 'sharedSecret')), 'ML-KEM-768 shared secret');
    },
  },
];

const requested = args.scenarios.split(',');
const unknown = requested.filter((name) => !SCENARIOS.some((scenario) => scenario.name === name));
if (unknown.length > 0)
  throw new Error(
    `unknown scenario ${unknown.join(', ')}; choose from ${SCENARIOS.map((scenario) => scenario.name).join(', ')}`,
  );
const scenarios = SCENARIOS.filter((scenario) => requested.includes(scenario.name));

interface ServerSpec {
  name: string;
  bare: boolean;
  workers: number;
}
const SERVERS: ServerSpec[] = CLUSTER
  ? [
      { name: 'prod-1', bare: false, workers: 1 },
      { name: `prod-${WORKERS}`, bare: false, workers: WORKERS },
      { name: 'bare-1', bare: true, workers: 1 },
      { name: `bare-${WORKERS}`, bare: true, workers: WORKERS },
    ]
  : [
      { name: 'production', bare: false, workers: 1 },
      { name: 'bare', bare: true, workers: 1 },
    ];
/** The ratios to report, as [numerator, denominator] server names. */
const PAIRS: [string, string][] = CLUSTER
  ? [
      [`prod-${WORKERS}`, 'bare-1'],
      [`prod-${WORKERS}`, 'prod-1'],
      ['prod-1', 'bare-1'],
      [`bare-${WORKERS}`, 'bare-1'],
    ]
  : [['production', 'bare']];
const names = SERVERS.map((spec) => spec.name);
const clusterName = `prod-${WORKERS}`;

const apiKey = benchApiKey();
const headers = { 'content-type': 'application/json', 'x-api-key': apiKey };

print(
  `# Load: production pipeline vs bare Fastify${CLUSTER ? `, and a WORKERS=${WORKERS} cluster` : ''}\n\n${describeMachine()}`,
);
print(
  `- ${GENERATOR} in this process, ${CONNECTIONS} connections${PIPELINING > 1 ? ` × ${PIPELINING} pipelined` : ''}, ${DURATION} s per run, ${WARMUP} s warm-up, ${ROUNDS} alternating rounds${LAUNCHES > 1 ? `, every server launched ${LAUNCHES} times (a round's figure is the mean over the launches)` : ''}`,
);
print(`- production: LOG_LEVEL=${args['log-level']}, RATE_LIMIT_MAX=10000000; bare: bench/bare-server.ts\n`);

/** A server's launches: its own name alone, or name#1, name#2, … with --launches. */
const launchesOf = (spec: ServerSpec): string[] =>
  LAUNCHES === 1 ? [spec.name] : Array.from({ length: LAUNCHES }, (_, i) => `${spec.name}#${i + 1}`);

function start(spec: ServerSpec, name: string): Promise<ServerProcess> {
  return spec.bare
    ? startBareServer({ name, workers: spec.workers })
    : startProductionServer({ name, apiKey, logLevel: args['log-level'], extra: { WORKERS: String(spec.workers) } });
}

/** The process count of a cluster, once its workers are up: a WORKERS setting that did not take effect must show. */
async function describeProcesses(server: ServerProcess, spec: ServerSpec): Promise<string> {
  const pid = server.child.pid as number;
  const expected = spec.workers > 1 ? spec.workers + 1 : 1;
  const deadline = Date.now() + 15_000;
  while (processTree(pid).length < expected && Date.now() < deadline) await sleep(200);
  const count = processTree(pid).length;
  return `- ${server.name}: ${count} process${count === 1 ? '' : 'es'}${count < expected ? ` (expected ${expected})` : ''}`;
}

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
  for (const spec of SERVERS)
    for (const name of launchesOf(spec)) print(await describeProcesses(servers.get(name) as ServerProcess, spec));
  print('');
}

const target = (spec: ServerSpec, scenario: Scenario, name: string): Target => {
  const server = servers.get(name) as ServerProcess;
  return {
    name,
    url: `${server.url}${spec.bare ? scenario.barePath : scenario.productionPath}`,
    headers,
    body: JSON.stringify(scenario.body),
    pid: server.child.pid,
  };
};

interface Row {
  scenario: Scenario;
  /** Per server, one result per round (with --launches, the mean over the launches). */
  results: Map<string, RunResult[]>;
}
const rows: Row[] = [];

try {
  for (const scenario of scenarios) {
    const targets = Array.from({ length: LAUNCHES }, (_, launch) =>
      SERVERS.map((spec) => target(spec, scenario, launchesOf(spec)[launch] as string)),
    ).flat();
    for (const each of targets) await scenario.check?.((JSON.parse(await checkOnce(each)) as { data: unknown }).data);
    const results = await alternate(targets, {
      connections: CONNECTIONS,
      pipelining: PIPELINING,
      generator: GENERATOR,
      duration: DURATION,
      warmup: WARMUP,
      rounds: ROUNDS,
      onRun: (run, round, result) =>
        print(
          `${scenario.name} round ${round + 1}, ${run.name}: ${formatCount(result.requestsPerSecond)} req/s, server CPU ${formatMs(result.serverCpuUsPerRequest / 1000)}/request${failures(result) > 0 ? `, ${failures(result)} failures` : ''}`,
        ),
    });
    rows.push({
      scenario,
      results: new Map(
        SERVERS.map((spec) => {
          const launchRuns = launchesOf(spec).map((name) => results.get(name) ?? []);
          return [
            spec.name,
            Array.from({ length: ROUNDS }, (_, round) =>
              meanOfLaunches(launchRuns.map((runs) => runs[round] as RunResult)),
            ),
          ];
        }),
      ),
    });
  }
} finally {
  await Promise.all([...servers.values()].map((server) => server.stop()));
}

const runs = (row: Row, name: string) => row.results.get(name) ?? [];
const medianOf = (row: Row, name: string, pick: (result: RunResult) => number) => median(runs(row, name).map(pick));
/** Per round: a's req/s ÷ b's (above 1: a serves more). */
const rpsRatios = (row: Row, [a, b]: [string, string]) =>
  runs(row, a).map((result, i) => result.requestsPerSecond / (runs(row, b)[i] as RunResult).requestsPerSecond);
/** Per round: b's CPU per request ÷ a's (above 1: a costs less). */
const cpuRatios = (row: Row, [a, b]: [string, string]) =>
  runs(row, a).map((result, i) => (runs(row, b)[i] as RunResult).serverCpuUsPerRequest / result.serverCpuUsPerRequest);
const route = (row: Row) => `${row.scenario.productionPath} (${row.scenario.description})`;
const failed = (row: Row) =>
  names.reduce((sum, name) => sum + runs(row, name).reduce((count, result) => count + failures(result), 0), 0);

print(`\n## Results (medians of ${ROUNDS} rounds; ranges are the lowest and highest round)\n`);
print(
  markdownTable(
    [
      'Route',
      ...names.map((name) => `${name} req/s`),
      ...PAIRS.map(([a, b]) => `${a}/${b} req/s`),
      ...names.map((name) => `${name} p50 / p99`),
      'Failures',
    ],
    rows.map((row) => [
      route(row),
      ...names.map((name) => formatCount(medianOf(row, name, (result) => result.requestsPerSecond))),
      ...PAIRS.map((pair) => formatRatioRange(rpsRatios(row, pair))),
      ...names.map(
        (name) =>
          `${formatMs(medianOf(row, name, (result) => result.latency.p50))} / ${formatMs(medianOf(row, name, (result) => result.latency.p99))}`,
      ),
      String(failed(row)),
    ]),
  ),
);
print('\nServer CPU time per request (every thread of the server and of its worker processes):\n');
print(
  markdownTable(
    [
      'Route',
      ...names.map((name) => `${name} CPU`),
      ...(CLUSTER ? [`${clusterName}'s primary`] : []),
      ...PAIRS.map(([a, b]) => `${b}/${a} CPU`),
    ],
    rows.map((row) => [
      route(row),
      ...names.map((name) => formatMs(medianOf(row, name, (result) => result.serverCpuUsPerRequest) / 1000)),
      ...(CLUSTER ? [formatMs(medianOf(row, clusterName, (result) => result.primaryCpuUsPerRequest) / 1000)] : []),
      ...PAIRS.map((pair) => formatRatioRange(cpuRatios(row, pair))),
    ]),
  ),
);
if (CLUSTER) printCeilings();
print(`\n- load average (1/5/15 min) at the end: ${loadAverage()}`);

/**
 * A cluster that kept every core busy would serve cores ÷ (server CPU + load generator CPU) per
 * request, since the generator shares the cores; divided by bare-1's req/s, that is the highest
 * prod-N/bare-1 the round allowed. Medians over the rounds.
 */
function printCeilings(): void {
  const cores = availableParallelism();
  const ceiling = (cluster: RunResult) =>
    (cores * 1e6) / (cluster.serverCpuUsPerRequest + cluster.generatorCpuUsPerRequest);
  const perRound = (row: Row, f: (cluster: RunResult, bare: RunResult) => number) =>
    median(runs(row, clusterName).map((cluster, i) => f(cluster, runs(row, 'bare-1')[i] as RunResult)));
  print(`\nWhat ${cores} cores allow a cluster, with the load generator on the same cores:\n`);
  print(
    markdownTable(
      ['Route', `${GENERATOR} CPU/request`, `ceiling ÷ bare-1 req/s`, `${clusterName} req/s ÷ ceiling`],
      rows.map((row) => [
        route(row),
        formatMs(medianOf(row, clusterName, (result) => result.generatorCpuUsPerRequest) / 1000),
        formatRatio(perRound(row, (cluster, bare) => ceiling(cluster) / bare.requestsPerSecond)),
        formatRatio(perRound(row, (cluster) => cluster.requestsPerSecond / ceiling(cluster))),
      ]),
    ),
  );
}
