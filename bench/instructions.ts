/**
 * Instructions per request, production against bare: the one-process comparison of bench/load.ts
 * counted by valgrind's callgrind instead of timed. A count does not move with the host's speed or
 * its neighbours (docs/performance.md: the same code reads 0.66× to 0.89× in req/s from one hour
 * to the next here), so it tells how much more work production does per request apart from how
 * fast the host runs that work. It does not tell time: an instruction that misses a cache costs
 * more than one that hits, and the kernel's instructions (the socket reads and writes, the same for
 * every server) are not counted.
 *
 *   npm run bench:instructions                 (valgrind: apt-get install valgrind)
 *   npm run bench:instructions -- --servers bare,production --rounds 1
 *   npm run bench:instructions -- --simulate     (also the misses of simulated caches and branches)
 *
 * Each server in turn (bare-1, the features inline in bare, production; as bench/features.ts) runs
 * under callgrind with counting off, takes the same load as bench/load.ts (autocannon, 10
 * connections, POST of a SHA-256 of 64 B) for --warmup seconds, so that V8 has compiled the hot
 * path (under valgrind a server answers 30 to 60 times slower, about 100 with --simulate, and V8
 * optimises after a number of calls, not of seconds), then counts through --duration seconds of the same load and through
 * --idle seconds of none. The idle rate (timers: production's event-loop-delay monitor wakes
 * 100 times a second; V8's compilations and garbage collection finishing in the idle stretch left
 * out) is taken off the load's count before dividing by the answers, since under valgrind a second
 * of the clock holds 30 to 100 times fewer requests than natively. Every round
 * launches every server afresh.
 *
 * Printed: per server the median instructions per answer (and the range over rounds), the ratio
 * bare ÷ server (comparable with bench/load.ts's production/bare req/s), the same without what V8's
 * optimising compilers ran in the window, where the instructions went by category of function
 * (lib/callgrind.ts), and with --simulate the simulated cache and branch misses per answer.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { checkOnce, failures, loadOnce, type Target } from './lib/alternate.ts';
import { callgrindAvailable, callgrindLauncher, COMPILERS, control, controlEnv, dumpedEvents, GARBAGE_COLLECTOR, instructionsByCategory } from './lib/callgrind.ts';
import { describeMachine } from './lib/machine.ts';
import { benchApiKey, freePort, HOST, productionEnv, startServer, type ServerProcess } from './lib/server-process.ts';
import { formatRatio, markdownTable, median, print } from './lib/stats.ts';

const { values: args } = parseArgs({
  options: {
    servers: { type: 'string', default: 'bare,features,production' },
    rounds: { type: 'string', default: '2' },
    warmup: { type: 'string', default: '120' },
    duration: { type: 'string', default: '60' },
    idle: { type: 'string', default: '10' },
    connections: { type: 'string', default: '10' },
    simulate: { type: 'boolean', default: false },
  },
});
const SERVER_NAMES = ['bare', 'features', 'production'] as const;
type ServerName = (typeof SERVER_NAMES)[number];
const SERVERS = args.servers.split(',').map((name) => name.trim()) as ServerName[];
for (const name of SERVERS) {
  if (!SERVER_NAMES.includes(name)) throw new Error(`--servers: unknown server '${name}' (known: ${SERVER_NAMES.join(', ')})`);
}
const ROUNDS = Number(args.rounds);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error(`--rounds must be a whole number ≥ 1 (got ${args.rounds})`);
const WARMUP = Number(args.warmup);
const DURATION = Number(args.duration);
const IDLE = Number(args.idle);
const CONNECTIONS = Number(args.connections);
const SIMULATE = args.simulate;
const LOG_LEVEL = 'warn';
for (const [option, value] of Object.entries({ warmup: WARMUP, duration: DURATION, idle: IDLE, connections: CONNECTIONS })) {
  if (!(value > 0)) throw new Error(`--${option} must be a number above 0 (got ${args[option as keyof typeof args]})`);
}

if (!callgrindAvailable()) {
  // As bench/profile.ts does without perf: a missing tool, said plainly, with exit status 2.
  print('valgrind is not installed (callgrind, callgrind_control and callgrind_annotate are needed): apt-get install valgrind, then run this again.');
  process.exit(2);
}

const apiKey = benchApiKey();
const body = JSON.stringify({ algorithm: 'sha256', data: 'The quick brown fox jumps over the lazy dog, 64 bytes of message' });
// valgrind names the files that callgrind_control finds it by after these two (lib/callgrind.ts).
const identity = { USER: process.env.USER ?? 'bench', HOST };

/** A server's script, environment and route, as bench/load.ts and bench/features.ts run them. */
function serverSpec(name: ServerName, port: number): { script: string; env: Record<string, string>; path: string; readyPath: string } {
  const production = { ...productionEnv({ port, apiKey, logLevel: LOG_LEVEL }), ...identity };
  switch (name) {
    case 'bare':
      return { script: 'bench/bare-server.ts', env: { PATH: process.env.PATH ?? '', PORT: String(port), BARE_WORKERS: '1', ...identity }, path: '/hash', readyPath: '/live' };
    case 'features':
      return { script: 'bench/features-server.ts', env: { ...production, FEATURES: 'all' }, path: '/hash', readyPath: '/live' };
    case 'production':
      return { script: 'packages/server/src/server.ts', env: production, path: '/v2/hash', readyPath: '/ready' };
  }
}

interface Count {
  answers: number;
  failures: number;
  /** Instructions per answer, the idle rate taken off. */
  perAnswer: number;
  idlePerSecond: number;
  /** Every event callgrind counted (lib/callgrind.ts, dumpedEvents) per answer, the idle rate taken off. */
  eventsPerAnswer: Map<string, number>;
  /** Instructions per answer by category, from the load's dump (idle not taken off). */
  categories: Map<string, number>;
  /** perAnswer less what V8's optimising compilers ran: the steady state, without the late tier-ups. */
  withoutCompilers: number;
}

async function countOne(name: ServerName, round: number): Promise<Count> {
  const dumps = mkdtempSync(join(tmpdir(), `crypto-service-callgrind-${name}-`));
  const outFile = join(dumps, 'callgrind.out');
  const port = await freePort();
  const spec = serverSpec(name, port);
  let server: ServerProcess | undefined;
  try {
    server = await startServer({
      name: `${name} under callgrind`, script: spec.script, env: spec.env, port, readyPath: spec.readyPath,
      launcher: callgrindLauncher(outFile, SIMULATE), readyTimeoutMs: 600_000,
    });
    const pid = server.child.pid as number;
    const target: Target = { name, url: `${server.url}${spec.path}`, headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body, pid };
    await checkOnce(target);
    await loadOnce(target, CONNECTIONS, WARMUP);
    const env = controlEnv(spec.env);
    // The stretches as counted: from one control command to the next.
    const countingFrom = performance.now();
    control(pid, ['-i', 'on'], env);
    const load = await loadOnce(target, CONNECTIONS, DURATION);
    if (load.answers === 0) throw new Error(`${name} answered nothing in the counted load`);
    control(pid, ['-d', 'load'], env);
    const idleFrom = performance.now();
    await sleep(IDLE * 1000);
    control(pid, ['-d', 'idle'], env);
    const idleSeconds = (performance.now() - idleFrom) / 1000;
    const loadSeconds = (idleFrom - countingFrom) / 1000;
    control(pid, ['-i', 'off'], env);
    const dumpNamed = (trigger: string) => {
      const file = readdirSync(dumps).map((entry) => join(dumps, entry)).find((path) => readFileSync(path, 'utf8').includes(`Trigger: dump ${trigger}`));
      if (file === undefined) throw new Error(`no '${trigger}' dump in ${dumps}`);
      return file;
    };
    const loadFile = dumpNamed('load');
    // The idle stretch's own compilations and collections (V8 finishing what the load left) are not
    // a timer's. The share is of instructions; applied to the misses too, as an approximation.
    const idleFile = dumpNamed('idle');
    const idle = dumpedEvents(idleFile);
    const idleCategories = instructionsByCategory(idleFile);
    const notTimers = (idleCategories.get(COMPILERS) ?? 0) + (idleCategories.get(GARBAGE_COLLECTOR) ?? 0);
    const idleShare = 1 - notTimers / Math.max(1, idle.get('Ir') ?? 0);
    const idleOver = (event: string) => ((idle.get(event) ?? 0) * idleShare * loadSeconds) / idleSeconds;
    const eventsPerAnswer = new Map([...dumpedEvents(loadFile)].map(([event, count]) => [event, (count - idleOver(event)) / load.answers]));
    const idlePerSecond = ((idle.get('Ir') ?? 0) * idleShare) / idleSeconds;
    const perAnswer = eventsPerAnswer.get('Ir') ?? Number.NaN;
    const categories = instructionsByCategory(loadFile);
    for (const [category, count] of categories) categories.set(category, count / load.answers);
    print(`round ${round + 1}, ${name}: ${load.answers} answers in ${load.durationSeconds.toFixed(1)} s, ${Math.round(perAnswer).toLocaleString('en')} instructions per answer (idle: ${Math.round(idlePerSecond).toLocaleString('en')} a second)`);
    const withoutCompilers = perAnswer - (categories.get(COMPILERS) ?? 0);
    return { answers: load.answers, failures: failures(load), perAnswer, idlePerSecond, eventsPerAnswer, categories, withoutCompilers };
  } finally {
    await server?.stop();
    rmSync(dumps, { recursive: true, force: true });
  }
}

print(`# Instructions per request under callgrind: bare, bare with the features inline, production\n\n${describeMachine()}`);
print(`- autocannon in this process, ${CONNECTIONS} connections, POST /hash and /v2/hash (SHA-256 of 64 B); per server and round: a fresh launch under callgrind, ${WARMUP} s of load not counted, ${DURATION} s counted, ${IDLE} s idle counted; ${ROUNDS} round(s), servers in alternating order`);
print('- counted: user-space instructions of every thread of the server (not the kernel\'s), less the idle rate over the load\'s duration, per answer\n');

const counts = new Map<ServerName, Count[]>(SERVERS.map((name) => [name, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const name of round % 2 === 0 ? SERVERS : [...SERVERS].reverse()) counts.get(name)?.push(await countOne(name, round));
}

const medianOf = (name: ServerName, pick: (count: Count) => number) => median((counts.get(name) ?? []).map(pick));
const perAnswer = (count: Count) => count.perAnswer;
const withoutCompilers = (count: Count) => count.withoutCompilers;
const thousands = (value: number) => `${(value / 1000).toFixed(1)} k`;
/** The median of `pick` with its range over rounds, and bare's median ÷ this server's. */
const cells = (name: ServerName, pick: (count: Count) => number) => {
  const values = (counts.get(name) ?? []).map(pick);
  const range = `${thousands(medianOf(name, pick))} (${thousands(Math.min(...values))}–${thousands(Math.max(...values))})`;
  return [range, counts.has('bare') ? formatRatio(medianOf('bare', pick) / medianOf(name, pick)) : ''];
};
print(`\n## Results (medians of ${ROUNDS} round(s))\n`);
print(markdownTable(
  ['Server', 'instructions/answer (range)', 'bare ÷ server', 'without V8\'s compilers (range)', 'bare ÷ server', 'idle instructions/s', 'answers counted', 'non-2xx and errors'],
  SERVERS.map((name) => {
    const runs = counts.get(name) ?? [];
    return [
      name,
      ...cells(name, perAnswer),
      ...cells(name, withoutCompilers),
      thousands(medianOf(name, (count) => count.idlePerSecond)),
      String(runs.reduce((sum, count) => sum + count.answers, 0)),
      String(runs.reduce((sum, count) => sum + count.failures, 0)),
    ];
  }),
));
print('\n- "bare ÷ server" compares with bench/load.ts\'s production/bare req/s; "without V8\'s compilers" leaves out the optimisations V8 still ran in the counted window (under valgrind it tiers up later than natively), which a long native run has long finished\n');

if (SIMULATE) {
  // Misses of the simulated caches and branch predictor: how much more of the machine each
  // instruction of a server needs, which the count of instructions alone does not show.
  const MISSES: readonly (readonly [string, readonly string[]])[] = [
    ['first-level instruction cache misses', ['I1mr']],
    ['first-level data cache misses', ['D1mr', 'D1mw']],
    ['last-level cache misses', ['ILmr', 'DLmr', 'DLmw']],
    ['mispredicted branches', ['Bcm', 'Bim']],
  ];
  const missesPerAnswer = (name: ServerName, events: readonly string[]) =>
    medianOf(name, (count) => events.reduce((sum, event) => sum + (count.eventsPerAnswer.get(event) ?? 0), 0));
  print(`\n## Simulated misses per answer (medians of ${ROUNDS} round(s); in parentheses, server ÷ bare)\n`);
  print(markdownTable(
    ['Event', ...SERVERS],
    MISSES.map(([label, events]) => [
      label,
      ...SERVERS.map((name) => {
        const value = missesPerAnswer(name, events);
        return counts.has('bare') && name !== 'bare' ? `${Math.round(value)} (${formatRatio(value / missesPerAnswer('bare', events))})` : String(Math.round(value));
      }),
    ]),
  ));
}

print(`\n## Where they went (instructions per answer by category, medians of ${ROUNDS} round(s), idle included)\n`);
const categoryNames = [...(counts.get(SERVERS[0] as ServerName)?.at(-1)?.categories.keys() ?? [])];
const total = (count: Count) => [...count.categories.values()].reduce((sum, value) => sum + value, 0);
print(markdownTable(
  ['Category', ...SERVERS],
  [
    ...categoryNames.map((category) => [category, ...SERVERS.map((name) => thousands(medianOf(name, (count) => count.categories.get(category) ?? 0)))]),
    ['total', ...SERVERS.map((name) => thousands(medianOf(name, total)))],
  ],
));
print('\n- V8\'s compilers and the garbage collector work in bursts: a window that holds a major GC or a late optimisation counts it, the next may not; compare the other rows across rounds first');
