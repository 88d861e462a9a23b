/**
 * The long fuzz run: the properties of the CI fuzz test (packages/server/test/fuzz/) with bigger
 * budgets and the full cost ranges (Argon2id up to 256 MiB and t = 10, scrypt up to N = 2^20,
 * PBKDF2 up to 2 000 000 iterations, every SLH-DSA set, RSA-4096), nesting up to 100 000 deep.
 *
 *   node scripts/fuzz.ts [--runs N] [--seed N] [--route TEXT] [--path P] [--cheap] [--verbose]
 *
 *   --runs N      cases per route (default 500)
 *   --seed N      the seed (default: a fresh one, printed first so that the run can be replayed)
 *   --route TEXT  only the routes whose path contains TEXT ("bursts": only the concurrent bursts)
 *   --path P      replay one failure: the fast-check path printed with it (with its --seed and --runs)
 *   --cheap       clamp the cost parameters as the CI test does (a quick local check)
 *   --verbose     one line per case: status, time, and the start of the request
 *
 * After the routes, bursts of up to 16 cases of random routes are sent at once (runs / 5 of them).
 * Prints the seed, then for each route its case count, status histogram and mutation kinds;
 * every failure with the command that replays it. Exits 1 if any route failed, 2 on bad usage.
 * Runs on whatever Node runs it (`node_modules/.bin/node` for Node 24, CI's Node 22 binary for
 * the pure-JavaScript fallbacks).
 */
import { parseArgs } from 'node:util';
import { randomInt } from 'node:crypto';
import { testApp } from '../packages/server/test/helpers.ts';
import {
  FUZZ_APP_ENV,
  FuzzStats,
  fuzzBursts,
  fuzzRoute,
  prepareInjectRun,
  type FuzzSettings,
} from '../packages/server/test/fuzz/harness.ts';

const USAGE = 'usage: node scripts/fuzz.ts [--runs N] [--seed N] [--route TEXT] [--path P] [--cheap] [--verbose]';

function parse(): FuzzSettings {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string' },
      seed: { type: 'string' },
      route: { type: 'string' },
      path: { type: 'string' },
      cheap: { type: 'boolean', default: false },
      verbose: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const integer = (name: string, text: string | undefined, fallback: number) => {
    if (text === undefined) return fallback;
    if (!/^-?\d+$/.test(text)) throw new Error(`--${name} must be an integer`);
    return Number(text);
  };
  return {
    mode: 'long',
    seed: integer('seed', values.seed, randomInt(2 ** 31)),
    runs: integer('runs', values.runs, 500),
    cheap: values.cheap,
    maxDepth: 100_000,
    maxShrinks: 1000,
    // Full-cost work (SLH-DSA-256s in pure JavaScript on Node 22, Argon2id at 256 MiB) takes seconds to tens of seconds.
    requestTimeoutMs: 300_000,
    route: values.route,
    path: values.path,
    trace: values.verbose ? (line) => process.stdout.write(`  ${line}\n`) : undefined,
  };
}

function histogram(counts: Map<string | number, number>): string {
  return [...counts.entries()]
    .sort(([a], [b]) => String(a).localeCompare(String(b)))
    .map(([key, count]) => `${key}:${count}`)
    .join(' ');
}

async function main(): Promise<number> {
  let settings: FuzzSettings;
  try {
    settings = parse();
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  process.stdout.write(
    `fuzz: seed ${settings.seed}, ${settings.runs} runs per route, ${settings.cheap ? 'cheap' : 'full'} cost ranges, node ${process.version}\n`,
  );
  // No rate limit to hit; handlers and /v1 jobs may take as long as the full cost ranges need.
  const app = await testApp({ ...FUZZ_APP_ENV, HANDLER_TIMEOUT_MS: '600000', V1_JOB_TIMEOUT_MS: '600000' });
  const started = performance.now();
  const failures: string[] = [];
  const stats = new FuzzStats();
  try {
    const { target, all, routes, onlyBursts, fuzzerFor } = await prepareInjectRun(app, settings);
    if (routes.length === 0 && !onlyBursts) {
      process.stderr.write(`no route matches --route ${settings.route}\n`);
      return 2;
    }
    for (const route of routes) {
      const routeStarted = performance.now();
      let outcome = 'ok';
      try {
        await fuzzRoute(fuzzerFor(route), target, settings, stats);
      } catch (error) {
        outcome = 'FAILED';
        failures.push((error as Error).message);
      }
      const routeStats = stats.routes.get(route.path);
      process.stdout.write(
        `${outcome.padEnd(6)} ${route.path.padEnd(30)} ${String(routeStats?.cases ?? 0).padStart(6)} cases ${((performance.now() - routeStarted) / 1000).toFixed(1).padStart(6)} s  ` +
          `status ${histogram(routeStats?.statuses ?? new Map())}\n         kinds ${histogram(routeStats?.kinds ?? new Map())}\n`,
      );
    }
    if (settings.route === undefined || onlyBursts) {
      const bursts = Math.max(1, Math.round(settings.runs / 5));
      const burstsStarted = performance.now();
      let outcome = 'ok';
      try {
        await fuzzBursts(all.map(fuzzerFor), target, settings, stats, bursts, 16);
      } catch (error) {
        outcome = 'FAILED';
        failures.push((error as Error).message);
      }
      process.stdout.write(
        `${outcome.padEnd(6)} ${'concurrent bursts'.padEnd(30)} ${String(bursts).padStart(6)} bursts ${((performance.now() - burstsStarted) / 1000).toFixed(1).padStart(5)} s\n`,
      );
    }
  } finally {
    await app.close();
  }
  const total = [...stats.routes.values()].reduce((sum, route) => sum + route.cases, 0);
  process.stdout.write(
    `\n${total} cases in ${((performance.now() - started) / 1000).toFixed(1)} s, ${stats.successes} answered 200, seed ${settings.seed}\n`,
  );
  for (const failure of failures) process.stdout.write(`\n${failure}\n`);
  process.stdout.write(failures.length === 0 ? 'no failures\n' : `${failures.length} route(s) failed\n`);
  return failures.length === 0 ? 0 : 1;
}

process.exitCode = await main();
