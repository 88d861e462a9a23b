/**
 * Runs every package's tests with node:test on the runtime that runs this script (Node 24 through
 * `npm test`; CI also runs it directly with Node 22). Child processes that tests start use the
 * same runtime (process.execPath).
 *
 *   node scripts/run-tests.ts                 every test file
 *   node scripts/run-tests.ts --vectors-only  only the test-vector suite (packages/*\/test/vectors)
 */
import { spawnSync } from 'node:child_process';
import { globSync } from 'node:fs';

const vectorsOnly = process.argv.includes('--vectors-only');
const files = globSync('packages/*/test/**/*.test.ts')
  .filter((file) => !vectorsOnly || file.includes('/test/vectors/'))
  .sort();

process.stdout.write(`node ${process.version} (${process.execPath}), ${files.length} test files\n`);
const result = spawnSync(process.execPath, ['--test', '--test-reporter=spec', ...files], { stdio: 'inherit' });
process.exit(result.status ?? 1);
