/**
 * Runs every package's tests with node:test on the runtime that runs this script (Node 24 through
 * `npm test`; CI also runs it directly with Node 22). Child processes that tests start use the
 * same runtime (process.execPath).
 *
 *   node scripts/run-tests.ts                 every test file
 *   node scripts/run-tests.ts --vectors-only  only the test-vector suite (packages/*\/test/vectors)
 *
 * The test-vector suite reads the published vectors (Wycheproof, X-Wing) from CRYPTO_VECTORS_DIR
 * or ../shared/vectors; where neither exists it is not run, and this script says so.
 */
import { spawnSync } from 'node:child_process';
import { globSync } from 'node:fs';
import { vectorsDir } from './vectors-dir.ts';

const vectorsOnly = process.argv.includes('--vectors-only');
const vectors = vectorsDir();
const isVectorSuite = (file: string) => file.includes('/test/vectors/');

const files = [...globSync('packages/*/test/**/*.test.ts'), ...globSync('deploy/test/**/*.test.ts')]
  .filter((file) => (vectorsOnly ? isVectorSuite(file) : true))
  .filter((file) => vectors !== undefined || !isVectorSuite(file))
  .sort();

process.stdout.write(`node ${process.version} (${process.execPath}), ${files.length} test files\n`);
process.stdout.write(vectors === undefined
  ? 'test vectors: not found (set CRYPTO_VECTORS_DIR or place them in ../shared/vectors); the vector suite is not run\n'
  : `test vectors: ${vectors}\n`);
if (files.length === 0) {
  process.stderr.write('no test files to run\n');
  process.exit(1);
}
const result = spawnSync(process.execPath, ['--test', '--test-reporter=spec', ...files], {
  stdio: 'inherit',
  env: { ...process.env, ...(vectors === undefined ? {} : { CRYPTO_VECTORS_DIR: vectors }) },
});
process.exit(result.status ?? 1);
