/**
 * The batching log writer (src/log-destination.ts): every line arrives, in order, in one write per
 * event-loop turn; nothing is lost on exit; a broken destination never throws into a request.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { BatchedLineWriter } from '../src/log-destination.ts';

function tempFile(t: { after: (fn: () => void) => void }): { path: string; fd: number } {
  const dir = mkdtempSync(join(tmpdir(), 'log-destination-'));
  const path = join(dir, 'log');
  const fd = openSync(path, 'w');
  t.after(() => {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  });
  return { path, fd };
}

test('the lines of one turn are written together at the end of the turn, in order', async (t) => {
  const { path, fd } = tempFile(t);
  const writer = new BatchedLineWriter(fd);
  writer.write('{"n":1}\n');
  writer.write('{"n":2}\n');
  writer.write('{"n":3,"text":"é ✓"}\n');
  assert.equal(readFileSync(path, 'utf8'), '', 'nothing is written before the turn ends');
  await nextTurn();
  assert.equal(readFileSync(path, 'utf8'), '{"n":1}\n{"n":2}\n{"n":3,"text":"é ✓"}\n');
  writer.write('{"n":4}\n');
  await nextTurn();
  assert.equal(readFileSync(path, 'utf8').split('\n').length, 5);
});

test('a batch that reaches 64 KiB is written at once, without waiting for the turn to end', (t) => {
  const { path, fd } = tempFile(t);
  const writer = new BatchedLineWriter(fd);
  const line = `${JSON.stringify({ msg: 'x'.repeat(1000) })}\n`;
  let written = 0;
  while (readFileSync(path, 'utf8').length === 0) {
    writer.write(line);
    written += 1;
    assert.ok(written <= 70, 'flushed by about 64 KiB');
  }
  assert.ok(written >= 60, `not flushed too early (${written} lines)`);
  assert.equal(readFileSync(path, 'utf8'), line.repeat(written));
});

test('a write error drops the batch instead of throwing into the caller', async () => {
  const closed = openSync(tmpdir(), 'r'); // a directory: write(2) fails with EISDIR or EBADF
  const writer = new BatchedLineWriter(closed);
  writer.write('{"lost":true}\n');
  assert.doesNotThrow(() => writer.flush());
  closeSync(closed);
});

test('lines still pending when the process exits are written (process.exit and an uncaught exception)', () => {
  const module = new URL('../src/log-destination.ts', import.meta.url).href;
  for (const ending of ['process.exit(3)', 'throw new Error("boom")']) {
    const script = `import { stdoutDestination } from ${JSON.stringify(module)};
      const out = stdoutDestination();
      for (let i = 0; i < 100; i++) out.write(JSON.stringify({ i }) + '\\n');
      ${ending};`;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    const lines = result.stdout.trim().split('\n');
    assert.equal(lines.length, 100, `${ending}: ${result.stderr}`);
    assert.deepEqual(JSON.parse(lines[99]!), { i: 99 });
    assert.notEqual(result.status, 0, ending);
  }
});
