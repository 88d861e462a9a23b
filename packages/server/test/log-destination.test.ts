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
  // pino's logger.flush(callback) reaches the destination's flush: the callback comes after the write.
  writer.write('{"n":5}\n');
  let flushed = '';
  writer.flush(() => (flushed = readFileSync(path, 'utf8')));
  assert.match(flushed, /\{"n":5\}\n$/);
});

test('a write carries whole lines and at most 4 KiB (PIPE_BUF): one that would go beyond is written first', (t) => {
  const { path, fd } = tempFile(t);
  const writer = new BatchedLineWriter(fd);
  const line = `${JSON.stringify({ msg: 'x'.repeat(990) })}\n`; // 1001 bytes
  for (let i = 0; i < 4; i++) writer.write(line);
  assert.equal(readFileSync(path, 'utf8'), '', '4004 bytes wait for the end of the turn');
  writer.write(line);
  assert.equal(
    readFileSync(path, 'utf8'),
    line.repeat(4),
    'the fifth line would make 5005 bytes: the four go out first',
  );
  const long = `${JSON.stringify({ msg: 'é'.repeat(3000) })}\n`; // 6000+ bytes: alone, and counted in bytes, not characters
  writer.write(long);
  assert.equal(readFileSync(path, 'utf8'), line.repeat(5));
  writer.flush();
  assert.equal(readFileSync(path, 'utf8'), line.repeat(5) + long);
});

test("several processes writing to one pipe never split each other's lines (cluster mode)", () => {
  const module = new URL('../src/log-destination.ts', import.meta.url).href;
  // Four writers at once through one shared stdout pipe, each turn's lines (≈ 100 KB) more than the
  // pipe holds (64 KiB), so that writes larger than PIPE_BUF would be split and interleaved.
  const script = `import { spawn } from 'node:child_process';
    const writer = ${JSON.stringify(`import { stdoutDestination } from ${JSON.stringify(module)};
      const out = stdoutDestination();
      const pad = 'p'.repeat(150 + Number(process.argv[1]) * 37);
      let turn = 0;
      const tick = () => {
        for (let i = 0; i < 400; i++) out.write(JSON.stringify({ w: Number(process.argv[1]), turn, i, pad }) + '\\n');
        if (++turn < 10) setImmediate(tick);
      };
      tick();`)};
    for (let w = 0; w < 4; w++) spawn(process.execPath, ['--input-type=module', '-e', writer, String(w)], { stdio: ['ignore', 'inherit', 'inherit'] });`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  assert.equal(result.stderr, '');
  const lines = result.stdout.trim().split('\n');
  assert.equal(lines.length, 4 * 10 * 400);
  const perWriter = [0, 0, 0, 0];
  for (const text of lines) {
    const parsed = JSON.parse(text) as { w: number };
    perWriter[parsed.w]! += 1;
  }
  assert.deepEqual(perWriter, [4000, 4000, 4000, 4000]);
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
