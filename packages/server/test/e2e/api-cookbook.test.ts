/**
 * The cookbook, docs/cookbook.md, run as it is written: its first ```sh block defines the `post`
 * function, and every other block runs after it in its own bash, against a real server process,
 * with URL and API_KEY set. A block passes when it exits 0; each ends its round trip with `test`.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, startServer, untilReady, type StartedServer } from './helpers.ts';

const API_KEY = 'cookbook-api-key-0123456789abcdef';

interface ShellBlock {
  /** The bold words that introduce the block, or its first line. */
  title: string;
  script: string;
}

/** The ```sh blocks of one `## ` section of a Markdown document, in order. */
function shellBlocks(body: string): ShellBlock[] {
  return [...body.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => {
    const script = match[1] as string;
    const before = body.slice(0, match.index);
    const title = [...before.matchAll(/\*\*([^*]+)\*\*/g)].at(-1)?.[1] ?? script.split('\n', 1)[0] ?? '';
    return { title, script };
  });
}

interface BashResult {
  code: number | null;
  output: string;
}

function runBash(script: string, env: Record<string, string>, cwd: string): Promise<BashResult> {
  return new Promise((resolveRun, reject) => {
    const child = spawn('bash', ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolveRun({ code, output }));
  });
}

const blocks = shellBlocks(readFileSync(join(REPO_ROOT, 'docs/cookbook.md'), 'utf8'));
const [setup, ...recipes] = blocks;
let server: StartedServer;
let workDir: string;

before(async () => {
  for (const tool of ['curl', 'jq', 'openssl']) {
    const found = spawnSync('bash', ['-c', `command -v ${tool}`]).status === 0;
    assert.ok(
      found,
      `${tool} is missing: the cookbook needs it (Debian: apt-get install ${tool}; .ci/run installs it)`,
    );
  }
  server = await startServer({ CRYPTO_API_KEY: API_KEY, RATE_LIMIT_MAX: '100000', LOG_LEVEL: 'info' });
  await untilReady(server);
  workDir = mkdtempSync(join(tmpdir(), 'cookbook-'));
});

after(async () => {
  await server?.stop();
  if (workDir !== undefined) rmSync(workDir, { recursive: true, force: true });
});

test('the cookbook starts with the post function and has a round trip for every family', () => {
  assert.match(setup?.script ?? '', /^post\(\) \{/m);
  const routes = recipes.map(({ script }) => script).join('\n');
  for (const route of [
    '/v2/algorithms',
    '/v2/hash',
    '/v2/decrypt',
    '/v2/secretbox/open',
    '/v2/sealedbox/open',
    '/v2/sealedbox/open-pq',
    '/v2/multi-recipient/decrypt',
    '/v2/hmac/verify',
    '/v2/verify',
    '/v2/pq/decapsulate',
    '/v2/pq/hybrid/decapsulate',
    '/v2/pq/dsa/verify',
    '/v2/pq/slh-dsa/verify',
    '/v2/kdf',
    '/v2/password/verify',
    '/v2/password/decrypt',
    '/v2/keys/unwrap',
    '"format":"pem"',
    '"format":"jwk"',
    '/v1/decrypt',
  ]) {
    assert.ok(routes.includes(route), route);
  }
  for (const { title, script } of recipes) assert.match(script, /^\s*test /m, `${title}: a block without a check`);
});

for (const { title, script } of recipes) {
  test(`cookbook: ${title}`, async () => {
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', URL: server.baseUrl, API_KEY };
    // Stop at the first failing command, in a pipeline too, as the block's last `test` would.
    const { code, output } = await runBash(`set -euo pipefail\n${setup?.script}\n${script}`, env, workDir);
    assert.equal(code, 0, `${script}\n--- output ---\n${output}`);
  });
}
