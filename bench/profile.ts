/**
 * Where production's extra CPU time per request goes, seen by Linux `perf` rather than V8's own
 * profiler: every thread and every layer (JIT-compiled JavaScript, V8's builtins and runtime, the
 * collector's threads, Node's C++, llhttp, libc, the kernel), for bare-1 and the production server
 * under the same load, each in µs of samples per answered request, and their difference.
 *
 *   node bench/profile.ts                      (about 1 minute; needs perf: apt-get install linux-perf)
 *   node bench/profile.ts --workers 2 --top 40
 *
 * Printed: the time per request by binary (DSO); the symbols whose time per request differs most;
 * V8's slow paths (its runtime functions, megamorphic inline caches, object migrations), which in
 * steady state should cost next to nothing, and which JavaScript functions the megamorphic caches
 * were entered from; and each JavaScript function's inclusive time (itself and everything it
 * called, as far as perf's call chains show it). Read the inclusive table by differences: Fastify
 * runs a stage's hooks as a chain of callbacks, each hook calling the next through its `done`, so
 * a hook's inclusive time holds every hook after it and what they lead to (the response's write,
 * for an onSend hook); one hook's own share is its figure less the next one's.
 *
 * Profiles like these found two slow paths in docs/performance-history.md: the async-context swap
 * (thirteenth pass) and process.nextTick building its tick objects through V8's runtime, in a bare
 * server that had loaded production's modules (fifteenth).
 *
 * Why not bench/load.ts --cpu-prof: V8's profiler sees the main thread's JavaScript and names the
 * rest "(program)" or "(garbage collector)"; half of a small request's time is outside JavaScript.
 *
 * Limits: one run of each server, so the totals move with the host as any single run does (quote
 * them beside bench:load's medians, not instead). JIT-compiled functions are named from the
 * `--perf-basic-prof-only-functions` map, which keeps every name V8 ever gave to an address:
 * code freed and replaced at the same address can carry an old name. Symbols in the `node` binary
 * and the kernel are exact. `cpu-clock` samples, since the benchmark VM offers no hardware counters.
 * That flag is not free under every load: with many connections and no pipelining (200 × 1) it
 * slows production's scavenges tenfold (likely because V8 then reports every object they move),
 * and the profile shows 7.5–10 µs per request of `Scavenger` that the server without the flag
 * does not spend; at the default 10 × 32 it changes nothing measurable (docs/performance-history.md,
 * twentieth pass).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { checkedGenerator, checkOnce, loadOnce, type Target } from './lib/alternate.ts';
import { describeMachine, loadAverage } from './lib/machine.ts';
import { benchApiKey, processTree, startBareServer, startProductionServer, type ServerProcess } from './lib/server-process.ts';
import { formatCount, markdownTable, print } from './lib/stats.ts';

const { values: args } = parseArgs({
  options: {
    workers: { type: 'string', default: '1' },
    connections: { type: 'string', default: '10' },
    pipelining: { type: 'string', default: '32' },
    duration: { type: 'string', default: '6' },
    warmup: { type: 'string', default: '3' },
    frequency: { type: 'string', default: '4999' },
    top: { type: 'string', default: '25' },
  },
});
const WORKERS = Number(args.workers);
if (!Number.isInteger(WORKERS) || WORKERS < 1) throw new Error(`--workers takes a whole number ≥ 1 (got ${args.workers})`);
const CONNECTIONS = Number(args.connections);
const PIPELINING = Number(args.pipelining);
const GENERATOR = checkedGenerator('light', CONNECTIONS, PIPELINING);
const FREQUENCY = Number(args.frequency);
const DURATION = Number(args.duration);
const TOP = Number(args.top);

/** V8's slow paths: the runtime (C++ called from generated code), generic ICs, migrations. */
const SLOW_PATH = /Runtime_|Megamorphic|MigrateToMap|FeedbackNexus|TransitionsAccessor|LookupIterator|UpdateDescriptorForValue|Deoptimiz/;
const MEGAMORPHIC_IC = /Builtins_(Keyed)?(Load|Store)IC_Megamorphic/;
/** The widest name a table row shows. */
const MAX_LABEL = 110;

function requirePerf(): void {
  try {
    execFileSync('perf', ['--version'], { stdio: 'ignore' });
  } catch {
    print('perf is not installed: apt-get install linux-perf (Debian), then run this again.');
    process.exit(2);
  }
}

/** µs of samples per request, by "binary\tsymbol". */
type Profile = Map<string, number>;

interface Measured {
  name: string;
  requestsPerSecond: number;
  serverCpuUsPerRequest: number;
  profile: Profile;
  /** µs per request spent in megamorphic inline caches, by the JavaScript function that entered them. */
  megamorphicCallers: Profile;
  /** µs per request spent in each JavaScript function and everything it called (its callbacks included). */
  inclusive: Profile;
}

/**
 * A frame's binary and symbol without what varies between processes and runs: JIT code's map file
 * (perf-<pid>.map) becomes "JIT", and V8's tier marker (`*`, `+`, `~`, `^`, `'`) goes.
 */
function normalise(binary: string, symbol: string): string {
  return `${/^perf-\d+\.map$/.test(binary) ? 'JIT' : binary}\t${symbol.replace(/^JS:[*+~^]?'?/, 'JS:').trim()}`;
}

function add(map: Profile, key: string, value: number): void {
  map.set(key, (map.get(key) ?? 0) + value);
}

/**
 * Reads `perf script` output: one block per sample, the leaf frame first. Each sample counts
 * `weight`: its µs of CPU (1e6 / frequency) divided by the requests answered while recording.
 */
function readSamples(dataFile: string, weight: number): { profile: Profile; megamorphicCallers: Profile; inclusive: Profile } {
  const script = execFileSync('perf', ['script', '-i', dataFile, '-F', 'ip,sym,dso'], { encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'ignore'] });
  const profile: Profile = new Map();
  const megamorphicCallers: Profile = new Map();
  const inclusive: Profile = new Map();
  for (const block of script.split('\n\n')) {
    const frames = block
      .split('\n')
      .map((line) => /^\s*[0-9a-f]+ (.*?)(?:\+0x[0-9a-f]+)? \((.*)\)$/.exec(line))
      .filter((match): match is RegExpExecArray => match !== null)
      .map((match) => ({ symbol: match[1] ?? '[unknown]', binary: (match[2] ?? '').replace(/^.*\//, '') }));
    const leaf = frames[0];
    if (leaf === undefined) continue;
    add(profile, normalise(leaf.binary, leaf.symbol), weight);
    if (MEGAMORPHIC_IC.test(leaf.symbol)) {
      const caller = frames.find((frame) => frame.symbol.startsWith('JS:'));
      add(megamorphicCallers, caller === undefined ? '(no JavaScript caller)' : normalise('', caller.symbol).trim(), weight);
    }
    // A function that recurses (or appears twice through a callback) counts once per sample.
    const onStack = new Set(frames.filter((frame) => frame.symbol.startsWith('JS:')).map((frame) => normalise('', frame.symbol).trim()));
    for (const name of onStack) add(inclusive, name, weight);
  }
  return { profile, megamorphicCallers, inclusive };
}

async function measure(server: ServerProcess, target: Target, workDirectory: string): Promise<Measured> {
  await checkOnce(target);
  await loadOnce(target, CONNECTIONS, Number(args.warmup), PIPELINING, GENERATOR);
  const dataFile = join(workDirectory, `${server.name}.data`);
  const pids = processTree(server.child.pid ?? 0);
  const recorder = spawn('perf', ['record', '-q', '-e', 'cpu-clock', '-F', String(FREQUENCY), '-g', '-p', pids.join(','), '-o', dataFile, '--', 'sleep', String(DURATION)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let complaint = '';
  recorder.stderr.setEncoding('utf8').on('data', (text: string) => (complaint += text));
  const recorded = new Promise<number | null>((resolve) => recorder.once('exit', resolve));
  // The load runs as long as perf records; both start now, so the sampled window and the counted
  // answers cover the same stretch within a few milliseconds.
  const result = await loadOnce(target, CONNECTIONS, DURATION, PIPELINING, GENERATOR);
  // perf refuses to sample another process when kernel.perf_event_paranoid forbids it (not as root).
  if ((await recorded) !== 0) throw new Error(`perf record failed for ${server.name}: ${complaint.trim() || 'no message'}`);
  const { profile, megamorphicCallers, inclusive } = readSamples(dataFile, 1e6 / FREQUENCY / result.answers);
  return { name: server.name, requestsPerSecond: result.requestsPerSecond, serverCpuUsPerRequest: result.serverCpuUsPerRequest, profile, megamorphicCallers, inclusive };
}

function sumBy(profile: Profile, keyOf: (key: string) => string): Profile {
  const sums: Profile = new Map();
  for (const [key, value] of profile) add(sums, keyOf(key), value);
  return sums;
}

function comparison(title: string, bare: Profile, production: Profile, rows: number, filter: (key: string) => boolean = () => true): string {
  const difference = (key: string) => (production.get(key) ?? 0) - (bare.get(key) ?? 0);
  const keys = [...new Set([...bare.keys(), ...production.keys()])].filter(filter).sort((a, b) => difference(b) - difference(a));
  const us = (value: number | undefined) => (value ?? 0).toFixed(3);
  // Some C++ symbols (V8's templates) run to hundreds of characters and would widen the whole table.
  const label = (key: string) => {
    const text = key.replace('\t', '  ');
    return text.length > MAX_LABEL ? `${text.slice(0, MAX_LABEL - 1)}…` : text;
  };
  return markdownTable(
    [title, 'bare µs/request', 'production µs/request', 'difference'],
    keys.slice(0, rows).map((key) => [label(key), us(bare.get(key)), us(production.get(key)), `${difference(key) >= 0 ? '+' : ''}${us(difference(key))}`]),
  );
}

requirePerf();
const apiKey = benchApiKey();
const body = JSON.stringify({ algorithm: 'sha256', data: 'The quick brown fox jumps over the lazy dog, 64 bytes of message' });
const workDirectory = mkdtempSync(join(tmpdir(), 'crypto-service-profile-'));
// --perf-basic-prof-only-functions writes /tmp/perf-<pid>.map for perf to name JIT code, and makes
// V8 open its log file too: kept out of the repository and removed at the end.
const nodeArgs = ['--perf-basic-prof-only-functions', '--no-logfile-per-isolate', `--logfile=${join(workDirectory, 'v8.log')}`];

print(`# Profile: production against bare Fastify, per request, by perf\n\n${describeMachine()}`);
print(`- the light load generator, ${CONNECTIONS} connections × ${PIPELINING} pipelined, ${args.warmup} s warm-up, ${DURATION} s recorded per server; POST /v2/hash (SHA-256 of 64 B); ${WORKERS === 1 ? 'one process each' : `WORKERS=${WORKERS} and bare-${WORKERS}`}`);
print(`- perf record -e cpu-clock -F ${FREQUENCY} -g on the server's processes (a cluster's primary and workers together)\n`);

const servers: ServerProcess[] = [];
const measured: Measured[] = [];
try {
  const bare = await startBareServer({ name: `bare-${WORKERS}`, workers: WORKERS, nodeArgs });
  servers.push(bare);
  measured.push(await measure(bare, { name: bare.name, url: `${bare.url}/hash`, headers: { 'content-type': 'application/json' }, body, pid: bare.child.pid }, workDirectory));
  const production = await startProductionServer({ name: `production-${WORKERS}`, apiKey, logLevel: 'warn', extra: { WORKERS: String(WORKERS) }, nodeArgs });
  servers.push(production);
  measured.push(await measure(production, { name: production.name, url: `${production.url}/v2/hash`, headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body, pid: production.child.pid }, workDirectory));
} finally {
  const pids = servers.flatMap((server) => processTree(server.child.pid ?? 0));
  for (const server of servers) await server.stop();
  for (const pid of pids) rmSync(join('/tmp', `perf-${pid}.map`), { force: true });
  rmSync(workDirectory, { recursive: true, force: true });
}

const [bareRun, productionRun] = measured as [Measured, Measured];
const total = (profile: Profile) => [...profile.values()].reduce((sum, value) => sum + value, 0);
print(markdownTable(
  ['Server', 'req/s', 'CPU per request (/proc)', 'samples per request (perf)'],
  measured.map((run) => [run.name, formatCount(run.requestsPerSecond), `${run.serverCpuUsPerRequest.toFixed(2)} µs`, `${total(run.profile).toFixed(2)} µs`]),
));
print(`\nProduction's extra: ${(total(productionRun.profile) - total(bareRun.profile)).toFixed(2)} µs of samples per request.\n`);
const binaryOf = (key: string) => key.split('\t')[0] ?? '';
print(`${comparison('Binary', sumBy(bareRun.profile, binaryOf), sumBy(productionRun.profile, binaryOf), 12)}\n`);
print(`${comparison(`Symbol (the ${TOP} that differ most)`, bareRun.profile, productionRun.profile, TOP)}\n`);
print(`${comparison("V8's slow paths", bareRun.profile, productionRun.profile, TOP, (key) => SLOW_PATH.test(key))}\n`);
print(`${comparison('Megamorphic inline caches, by the JavaScript function that entered them', bareRun.megamorphicCallers, productionRun.megamorphicCallers, TOP)}\n`);
print(`${comparison('JavaScript function, inclusive (itself and all it called; callees V8 inlined count as its own)', bareRun.inclusive, productionRun.inclusive, TOP)}\n`);
print("- a hook's inclusive time holds the hooks after it, which it calls through `done`: a hook's own share is the difference from the next");
print(`- load average (1/5/15 min) at the end: ${loadAverage()}`);
