/**
 * The ```sh examples of the CLI's README run as written: every line, in order, in one bash session
 * in an empty temporary directory, with `crypto-service` on PATH and CRYPTO_SERVICE_URL naming a
 * real service started here. A step that fails stops the run and is named. The one kind of line
 * skipped is the one marked `# keeps running` (the README says so): it starts a service, which
 * this test has already done.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, readdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService, type Service } from '../../client/test/helpers.ts';
import { BIN, childEnv, REPO_ROOT } from './helpers.ts';

const README = join(REPO_ROOT, 'packages/cli/README.md');
const KEEPS_RUNNING = '# keeps running';
const PASSWORD = 'correct horse battery staple';

async function readmeLines(): Promise<string[]> {
  const markdown = await readFile(README, 'utf8');
  return [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)]
    .flatMap((match) => (match[1] ?? '').split('\n'))
    .filter((line) => line.trim() !== '' && !line.trimStart().startsWith('#'));
}

/** The steps as one bash script that stops at the first failing step and names it on stderr. */
function script(steps: readonly string[]): string {
  const checked = steps.map(
    (step, index) =>
      `${step}\nstatus=$?; if [ "$status" -ne 0 ]; then echo "README step ${index + 1} failed with status $status" >&2; exit 1; fi`,
  );
  return ['set -u -o pipefail', ...checked].join('\n');
}

function bash(source: string, cwd: string, env: Record<string, string>) {
  const child = spawn('bash', ['-s'], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin.end(source);
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

let service: Service;
let scratch: string;
before(async () => {
  service = await startService();
  scratch = await mkdtemp(join(tmpdir(), 'crypto-service-cli-readme-'));
});
after(async () => {
  await service.close();
  await rm(scratch, { recursive: true, force: true });
});

test('every line of the README examples runs, in order, in an empty directory', { timeout: 180_000 }, async () => {
  const lines = await readmeLines();
  const skipped = lines.filter((line) => line.includes(KEEPS_RUNNING));
  assert.deepEqual(
    skipped.map((line) => line.split(' ').slice(0, 2).join(' ')),
    ['crypto-service serve'],
    `only the line that starts the service is marked '${KEEPS_RUNNING}'`,
  );
  const steps = lines.filter((line) => !line.includes(KEEPS_RUNNING));
  assert.ok(steps.length >= 10, `expected the README's examples, found ${steps.length} lines`);

  const bin = join(scratch, 'bin');
  const work = join(scratch, 'work');
  await mkdir(bin);
  await mkdir(work);
  await symlink(BIN, join(bin, 'crypto-service'));
  const env = childEnv({ CRYPTO_SERVICE_URL: service.baseUrl, PASSWORD });
  const run = await bash(script(steps), work, { ...env, PATH: `${bin}:${env.PATH ?? ''}` });

  const failed = /README step (\d+) failed/.exec(run.stderr);
  const failedStep = failed === null ? '' : `failed step: ${steps[Number(failed[1]) - 1] ?? ''}\n`;
  assert.equal(run.code, 0, `${failedStep}${run.stderr}`);
  assert.ok((await readdir(work)).includes('release.sig'), 'the steps ran in the empty directory');

  // What the steps print says that each round trip reversed its operation.
  const printed = run.stdout.split('\n');
  const digest = createHash('sha256').update('release 1.2.0\n').digest('hex');
  assert.ok(printed.includes(digest), 'hash printed the SHA-256 of the file');
  assert.ok(printed.includes('ok'), 'verify accepted the Ed25519 signature');
  assert.ok(printed.includes('release 1.2.0'), 'decrypt gave back the file');
  const [, sharedSecret] = (await readFile(join(work, 'encapsulated'), 'utf8')).split('\n');
  assert.match(sharedSecret ?? '', /^[0-9a-f]{64}$/);
  assert.ok(printed.includes(sharedSecret ?? ''), 'decapsulate recovered the shared secret of encapsulate');
  const verdicts = run.stdout.match(/"valid": (true|false)/g);
  assert.deepEqual(verdicts, Array(3).fill('"valid": true'), 'verify, password verify and pq verify said valid');
});
