/**
 * What the request pipeline costs: the production server against a bare Fastify doing the same
 * core call (bench/bare-server.ts), both child processes, loaded in alternating rounds (A B, B A, …)
 * after a warm-up of each, so that a slow stretch of the shared machine lands on every server and
 * ratios can be taken round by round.
 *
 * Besides requests a second, each run records the server's CPU time per request (its process and
 * descendants, from /proc): on a shared machine that moves far less than throughput.
 *
 * With --workers N, four servers take part: production with WORKERS=1 and WORKERS=N, and the bare
 * server as one process and as N behind node:cluster; bare-N ÷ bare-1 is what N processes of the
 * cheapest possible pipeline serve here with the load generator on the same cores.
 */
import { createHash, randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { hexToBytes, mlDsaKeygen, mlDsaVerify, mlKemDecapsulate, mlKemKeygen, utf8ToBytes } from '@crypto-service/core';
import { checkOnce, failures, runLoad } from './lib/autocannon.ts';
import {
  describeMachine,
  formatCount,
  formatMs,
  formatRatio,
  formatRatioRange,
  loadAverage,
  markdownTable,
  median,
  options,
  print,
} from './lib/common.ts';
import { runLightLoad } from './lib/light-load.ts';
import {
  benchApiKey,
  cpuSnapshot,
  cpuUsedMs,
  startBareServer,
  startProductionServer,
  type ServerProcess,
} from './lib/server-process.ts';

const opt = options({
  scenarios: 'hash,encrypt,sign,mldsa-sign,mlkem-encaps',
  pipelining: 1,
  duration: 5,
  warmup: 2,
  rounds: 4,
  'log-level': 'warn',
  workers: 1,
  generator: 'autocannon',
  /** Every server started this many times and averaged, since two launches of the same code differ by several per cent. */
  launches: 1,
});
const CONNECTIONS = 10;
const CLUSTER = opt.workers > 1;
if (opt.generator !== 'autocannon' && opt.generator !== 'light') throw new Error('--generator: autocannon or light');
// The light generator reads its sockets once a millisecond: far more must be in flight than a server answers meanwhile.
if (opt.generator === 'light' && CONNECTIONS * opt.pipelining < 200)
  throw new Error(`--generator light needs ${CONNECTIONS} connections × --pipelining ≥ 200`);

// Small inputs: the point is the per-request cost of the pipeline, not the cost of the primitive.
const MESSAGE = 'The quick brown fox jumps over the lazy dog, 64 bytes of message';
/** Keys from fixed labels, so that every run signs and encapsulates with the same keys. */
const fixedBytes = (label: string, length: number) =>
  new Uint8Array(createHash('shake256', { outputLength: length }).update(label).digest());
const ML_DSA_SEED = fixedBytes('crypto-service bench ml-dsa-65 seed', 32);
const ML_DSA_PUBLIC_KEY = (await mlDsaKeygen('ml-dsa-65', { seed: ML_DSA_SEED })).publicKey;
const ML_KEM_SEED = fixedBytes('crypto-service bench ml-kem-768 seed', 64);
const ML_KEM_PUBLIC_KEY = (await mlKemKeygen('ml-kem-768', { seed: ML_KEM_SEED })).publicKey;
const hexField = (data: unknown, name: string) => hexToBytes(String((data as Record<string, unknown>)[name]));
const expect = (condition: boolean, what: string) => {
  if (!condition) throw new Error(`wrong answer: ${what}`);
};

interface Scenario {
  name: string;
  description: string;
  path: string;
  barePath: string;
  body: string;
  /** Checks one answer independently of the server: a server that skipped the work must not look fast. */
  check?: (data: unknown) => Promise<void>;
}
const SCENARIOS: Scenario[] = [
  {
    name: 'hash',
    description: 'SHA-256 of 64 B',
    path: '/v2/hash',
    barePath: '/hash',
    body: JSON.stringify({ algorithm: 'sha256', data: MESSAGE }),
    check: async (data) => expect(data === createHash('sha256').update(MESSAGE).digest('hex'), 'SHA-256 digest'),
  },
  {
    name: 'encrypt',
    description: 'XChaCha20-Poly1305 seal of 64 B',
    path: '/v2/encrypt',
    barePath: '/encrypt',
    body: JSON.stringify({ key: randomBytes(32).toString('hex'), plaintext: MESSAGE }),
  },
  {
    name: 'sign',
    description: 'Ed25519 sign of 64 B',
    path: '/v2/sign',
    barePath: '/sign',
    body: JSON.stringify({ privateKey: randomBytes(32).toString('hex'), message: MESSAGE }),
  },
  {
    name: 'mldsa-sign',
    description: 'ML-DSA-65 sign of 64 B',
    path: '/v2/pq/dsa/sign',
    barePath: '/pq/dsa/sign',
    body: JSON.stringify({
      privateKey: Buffer.from(ML_DSA_SEED).toString('hex'),
      message: MESSAGE,
      algorithm: 'ml-dsa-65',
    }),
    check: async (data) => {
      const { valid } = await mlDsaVerify(ML_DSA_PUBLIC_KEY, utf8ToBytes(MESSAGE), hexField(data, 'signature'));
      expect(valid, 'ML-DSA-65 signature');
    },
  },
  {
    name: 'mlkem-encaps',
    description: 'ML-KEM-768 encapsulation',
    path: '/v2/pq/encapsulate',
    barePath: '/pq/encapsulate',
    body: JSON.stringify({ publicKey: Buffer.from(ML_KEM_PUBLIC_KEY).toString('hex') }),
    check: async (data) => {
      const { sharedSecret } = await mlKemDecapsulate(ML_KEM_SEED, hexField(data, 'ciphertext'), 'ml-kem-768');
      expect(Buffer.from(sharedSecret).equals(hexField(data, 'sharedSecret')), 'ML-KEM-768 shared secret');
    },
  },
];
const requested = opt.scenarios.split(',');
const scenarios = SCENARIOS.filter((scenario) => requested.includes(scenario.name));
if (scenarios.length !== requested.length)
  throw new Error(`--scenarios: choose from ${SCENARIOS.map((scenario) => scenario.name).join(', ')}`);

const N = opt.workers;
/** prod-1 and bare-1, and with --workers N also prod-N and bare-N. */
const SPECS = [false, true].flatMap((bare) =>
  [...new Set([1, N])].map((workers) => ({ name: `${bare ? 'bare' : 'prod'}-${workers}`, bare, workers })),
);
/** The ratios reported, as numerator/denominator. */
const PAIRS = (
  CLUSTER ? [`prod-${N}/bare-1`, `prod-${N}/prod-1`, 'prod-1/bare-1', `bare-${N}/bare-1`] : ['prod-1/bare-1']
).map((pair) => pair.split('/') as [string, string]);
const names = SPECS.map((spec) => spec.name);
const clusterName = `prod-${N}`;

const apiKey = benchApiKey();
const headers = { 'content-type': 'application/json', 'x-api-key': apiKey };

print(`# Load: production pipeline vs bare Fastify${CLUSTER ? `, and WORKERS=${N}` : ''}\n\n${describeMachine()}`);
print(
  `- ${opt.generator} in this process, ${CONNECTIONS} connections × ${opt.pipelining} pipelined, ${opt.duration} s per run, ${opt.warmup} s warm-up, ${opt.rounds} alternating rounds, every server launched ${opt.launches} time(s) (a round's figure is their mean)`,
);
print(`- production: LOG_LEVEL=${opt['log-level']}, RATE_LIMIT_MAX=10000000; bare: bench/bare-server.ts\n`);

/** One run's figures; CPU in µs per answered request. */
interface Run {
  rps: number;
  p50: number;
  p99: number;
  failures: number;
  cpu: number;
  /** A cluster's primary alone. */
  primaryCpu: number;
  /** The load generator, which shares the cores. */
  generatorCpu: number;
}

async function loadOnce(server: ServerProcess, url: string, body: string, duration: number): Promise<Run> {
  const pid = server.child.pid as number;
  const before = cpuSnapshot(pid);
  const run = opt.generator === 'light' ? runLightLoad : runLoad;
  const result = await run({ url, headers, body, connections: CONNECTIONS, pipelining: opt.pipelining, duration });
  const after = cpuSnapshot(pid);
  return {
    rps: result.requestsPerSecond,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failures: failures(result),
    cpu: (cpuUsedMs(before, after) * 1000) / result.answers,
    primaryCpu: (cpuUsedMs(before, after, pid) * 1000) / result.answers,
    generatorCpu: result.generatorCpuUs / result.answers,
  };
}

/** A round of a server launched several times: the launches' means, failures summed. */
function meanOfLaunches(runs: Run[]): Run {
  const keys = Object.keys(runs[0] as Run) as (keyof Run)[];
  const sum = (key: keyof Run) => runs.reduce((total, run) => total + run[key], 0);
  return Object.fromEntries(
    keys.map((key) => [key, sum(key) / (key === 'failures' ? 1 : runs.length)]),
  ) as unknown as Run;
}

const launches = Array.from({ length: opt.launches }, (_, i) =>
  SPECS.map((spec) => ({ spec, name: opt.launches === 1 ? spec.name : `${spec.name}#${i + 1}` })),
).flat();
const servers = new Map<string, ServerProcess>();
/** Per scenario and server, one Run per round. */
const results: { scenario: Scenario; runs: Map<string, Run[]> }[] = [];
try {
  for (const { spec, name } of launches) {
    const server = spec.bare
      ? await startBareServer(name, spec.workers)
      : await startProductionServer(name, apiKey, { LOG_LEVEL: opt['log-level'], WORKERS: String(spec.workers) });
    servers.set(name, server);
  }
  for (const scenario of scenarios) {
    const targets = launches.map(({ spec, name }) => {
      const server = servers.get(name) as ServerProcess;
      return { spec, name, server, url: `${server.url}${spec.bare ? scenario.barePath : scenario.path}` };
    });
    for (const { server, url } of targets) {
      await scenario.check?.((JSON.parse(await checkOnce(url, headers, scenario.body)) as { data: unknown }).data);
      await loadOnce(server, url, scenario.body, opt.warmup);
    }
    const runs = new Map<string, Run[]>(names.map((name) => [name, []]));
    for (let round = 0; round < opt.rounds; round++) {
      const launchRuns = new Map<string, Run[]>();
      for (const { spec, name, server, url } of round % 2 === 0 ? targets : [...targets].reverse()) {
        const run = await loadOnce(server, url, scenario.body, opt.duration);
        launchRuns.set(spec.name, [...(launchRuns.get(spec.name) ?? []), run]);
        print(
          `${scenario.name} round ${round + 1}, ${name}: ${formatCount(run.rps)} req/s, server CPU ${formatMs(run.cpu / 1000)}/request${run.failures > 0 ? `, ${run.failures} failures` : ''}`,
        );
      }
      for (const name of names) runs.get(name)?.push(meanOfLaunches(launchRuns.get(name) ?? []));
    }
    results.push({ scenario, runs });
  }
} finally {
  await Promise.all([...servers.values()].map((server) => server.stop()));
}

type Row = (typeof results)[number];
const runsOf = (row: Row, name: string) => row.runs.get(name) ?? [];
const medianOf = (row: Row, name: string, pick: (run: Run) => number) => median(runsOf(row, name).map(pick));
/** Per round, a's value ÷ b's. */
const ratios = (row: Row, a: string, b: string, pick: (run: Run) => number) =>
  runsOf(row, a).map((run, i) => pick(run) / pick(runsOf(row, b)[i] as Run));
const route = (row: Row) => `${row.scenario.path} (${row.scenario.description})`;

print(`\n## Results (medians of ${opt.rounds} rounds; ranges are the lowest and highest round)\n`);
print(
  markdownTable(
    [
      'Route',
      ...names.map((name) => `${name} req/s`),
      ...PAIRS.map(([a, b]) => `${a}/${b} req/s`),
      ...names.map((name) => `${name} p50 / p99`),
      'Failures',
    ],
    results.map((row) => [
      route(row),
      ...names.map((name) => formatCount(medianOf(row, name, (run) => run.rps))),
      ...PAIRS.map(([a, b]) => formatRatioRange(ratios(row, a, b, (run) => run.rps))),
      ...names.map(
        (name) =>
          `${formatMs(medianOf(row, name, (run) => run.p50))} / ${formatMs(medianOf(row, name, (run) => run.p99))}`,
      ),
      String(names.reduce((sum, name) => sum + runsOf(row, name).reduce((n, run) => n + run.failures, 0), 0)),
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
    results.map((row) => [
      route(row),
      ...names.map((name) => formatMs(medianOf(row, name, (run) => run.cpu) / 1000)),
      ...(CLUSTER ? [formatMs(medianOf(row, clusterName, (run) => run.primaryCpu) / 1000)] : []),
      ...PAIRS.map(([a, b]) => formatRatioRange(ratios(row, b, a, (run) => run.cpu))),
    ]),
  ),
);

if (CLUSTER) {
  // A cluster that kept every core busy would serve cores ÷ (server + generator CPU per request),
  // since the generator shares the cores; ÷ bare-1's req/s, that is the highest prod-N/bare-1 the round allowed.
  const cores = availableParallelism();
  const ceiling = (run: Run) => (cores * 1e6) / (run.cpu + run.generatorCpu);
  const perRound = (row: Row, f: (cluster: Run, bare: Run) => number) =>
    median(runsOf(row, clusterName).map((cluster, i) => f(cluster, runsOf(row, 'bare-1')[i] as Run)));
  print(`\nWhat ${cores} cores allow a cluster, with the load generator on the same cores:\n`);
  print(
    markdownTable(
      ['Route', `${opt.generator} CPU/request`, 'ceiling ÷ bare-1 req/s', `${clusterName} req/s ÷ ceiling`],
      results.map((row) => [
        route(row),
        formatMs(medianOf(row, clusterName, (run) => run.generatorCpu) / 1000),
        formatRatio(perRound(row, (cluster, bare) => ceiling(cluster) / bare.rps)),
        formatRatio(perRound(row, (cluster) => cluster.rps / ceiling(cluster))),
      ]),
    ),
  );
}
print(`\n- load average (1/5/15 min) at the end: ${loadAverage()}`);
