/**
 * Runs the project's tests with node:test on the runtime that runs this script (Node 24 through
 * npm; CI also runs it directly with Node 22). Child processes that tests start use the same
 * runtime (process.execPath).
 *
 *   node scripts/run-tests.ts                 every test file except the statistical timing tests
 *   node scripts/run-tests.ts --timing        only the statistical timing tests
 *   node scripts/run-tests.ts --vectors-only  only the test-vector suite (packages/*\/test/vectors)
 *
 * The timing tests run on their own because their verdict depends on how noisy the host is, and
 * the default suite must give the same answer on every machine.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, globSync } from 'node:fs';
import { resolve } from 'node:path';

/** Statistical timing tests: run by `npm run test:timing`, never by `npm test`. */
const TIMING_TESTS: readonly string[] = ['packages/server/test/security/timing.test.ts'];

/** The same as in .npmrc: CI also runs this script directly, not through npm. */
const SOURCE_CONDITION = '--conditions=crypto-service-source';

type Selection = 'default' | 'timing' | 'vectors';

const OPTIONS = new Map<string | undefined, Selection>([
  [undefined, 'default'],
  ['--timing', 'timing'],
  ['--vectors-only', 'vectors'],
]);

function selectionFrom(args: readonly string[]): Selection {
  const selection = OPTIONS.get(args[0]);
  if (selection === undefined || args.length > 1) {
    process.stderr.write(`usage: node scripts/run-tests.ts [--timing | --vectors-only] (got: ${args.join(' ')})\n`);
    process.exit(2);
  }
  return selection;
}

function testFiles(selection: Selection): string[] {
  // A renamed timing test would otherwise slip into the default suite unnoticed.
  const missing = TIMING_TESTS.filter((file) => !existsSync(file));
  if (missing.length > 0) {
    process.stderr.write(`timing tests listed in scripts/run-tests.ts do not exist: ${missing.join(', ')}\n`);
    process.exit(1);
  }
  if (selection === 'timing') {
    return [...TIMING_TESTS];
  }
  const all = [
    ...globSync('packages/*/test/**/*.test.ts'),
    ...globSync('deploy/test/**/*.test.ts'),
    ...globSync('scripts/**/*.test.ts'),
  ];
  const isTiming = (file: string) => TIMING_TESTS.includes(file);
  const isVectorSuite = (file: string) => file.includes('/test/vectors/');
  return all
    .filter((file) => !isTiming(file))
    .filter((file) => selection !== 'vectors' || isVectorSuite(file))
    .sort();
}

/** NODE_OPTIONS with the export condition that resolves the workspace packages to their src/. */
function withSourceCondition(options = ''): string {
  return options.includes(SOURCE_CONDITION) ? options : `${options} ${SOURCE_CONDITION}`.trim();
}

// The paths and globs above are relative to the repository root, wherever this is run from.
process.chdir(resolve(import.meta.dirname, '..'));
const selection = selectionFrom(process.argv.slice(2));
const files = testFiles(selection);
process.stdout.write(`node ${process.version} (${process.execPath}), ${files.length} test files (${selection})\n`);
if (files.length === 0) {
  process.stderr.write('no test files to run\n');
  process.exit(1);
}
// Through NODE_OPTIONS, so that every process the tests start runs the packages' sources too.
const env = { ...process.env, NODE_OPTIONS: withSourceCondition(process.env.NODE_OPTIONS) };
const result = spawnSync(process.execPath, ['--test', '--test-reporter=spec', ...files], { stdio: 'inherit', env });
process.exit(result.status ?? 1);
