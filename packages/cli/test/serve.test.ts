/**
 * `crypto-service serve`: starts the real server (packages/server/src/server.ts) on the runtime
 * that runs the CLI, with the V8 flags of `npm start`, passes its exit status through, and hands a
 * SIGTERM sent to the CLI alone on to the server, which drains and exits cleanly.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { SERVER_V8_FLAGS } from '@crypto-service/server/v8-flags';
import { CryptoClient, CryptoNetworkError } from '@crypto-service/client';
import { deadUrl } from '../../client/test/helpers.ts';
import { childEnv, cli, MAIN, REPO_ROOT } from './helpers.ts';

test('serve starts the service, which answers; SIGTERM to the CLI stops it cleanly with status 0', async (t) => {
  const url = await deadUrl();
  const port = new URL(url).port;
  const child = spawn(process.execPath, [MAIN, 'serve', '--port', port, '--host', '127.0.0.1'], {
    cwd: REPO_ROOT,
    env: childEnv({ NODE_ENV: 'test', LOG_LEVEL: 'info' }),
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so that a failed test can kill the server too, not the CLI alone.
    detached: true,
  });
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined)
      process.kill(-child.pid, 'SIGKILL');
  });
  let output = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk: string) => {
    output += chunk;
  });
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;

  const deadline = Date.now() + 20_000;
  while (!output.includes(`Server listening at http://127.0.0.1:${port}`)) {
    assert.ok(Date.now() < deadline, `the server did not start; output:\n${output}`);
    assert.equal(child.exitCode, null, `serve exited early; output:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const client = new CryptoClient({ baseUrl: url });
  assert.equal((await client.health()).data.status, 'ok');
  assert.equal((await client.hash({ algorithm: 'sha256', data: 'abc' })).data.length, 32);
  // The server runs with the V8 flags of `npm start`: its command line, read from /proc.
  const [serverPid] = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(/\s+/);
  const serverArgv = readFileSync(`/proc/${serverPid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  assert.deepEqual(serverArgv.slice(1, 1 + SERVER_V8_FLAGS.length), [...SERVER_V8_FLAGS], serverArgv.join(' '));

  child.kill('SIGTERM');
  const [code, signal] = await exited;
  assert.deepEqual([code, signal], [0, null], output);
  assert.match(output, /shutting down: draining in-flight requests/);
  assert.match(output, /shutdown complete/);
  await assert.rejects(client.health(), CryptoNetworkError, 'nothing listens any more');
});

test("serve passes the server's failure through: a configuration error exits 1", async () => {
  const run = await cli(['serve', '--port', '0'], { env: { NODE_ENV: 'production', LOG_LEVEL: 'info' } });
  assert.equal(run.code, 1);
  assert.match(run.stderr, /configuration error/);
});

test('serve refuses options it does not know, and a port out of range, as usage errors', async () => {
  const unknown = await cli(['serve', '--api-key', 'k']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /Unknown option '--api-key'/);
  const outOfRange = await cli(['serve', '--port', '70000']);
  assert.equal(outOfRange.code, 2);
  assert.match(outOfRange.stderr, /--port must be a whole number from 0 to 65535/);
});
