/**
 * src/async-context.ts: Node settles its async-context implementation as soon as the module is
 * imported or settleAsyncContext is called, and the server's entry point does so before anything
 * else, the configuration included.
 *
 * What it settles is internal to Node (`internal/async_context_frame`, read here through
 * `--expose-internals`): a class whose prototype starts as the do-nothing frame and is swapped for
 * the working one the first time something asks which implementation is in use. If a Node release
 * renames that module or its classes, these tests fail, and whether the module still has a reason
 * to exist has to be checked again on that release.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const asyncContextModule = fileURLToPath(new URL('../src/async-context.ts', import.meta.url));
const serverEntry = fileURLToPath(new URL('../src/server.ts', import.meta.url));

/** Frames are on by default from Node 24; Node 22 needs its experimental flag. */
const FRAME_FLAGS = Number(process.versions.node.split('.')[0]) >= 24 ? [] : ['--experimental-async-context-frame'];

type Settle = 'none' | 'import' | 'require-and-call';

/**
 * Loads modules and runs a tick, as a start-up does, after settling one way or not at all; prints
 * the frame class's prototype before and after.
 */
function startUpProbe(settle: Settle): string {
  return `
const { createRequire } = await import('node:module');
const require = createRequire(import.meta.url);
const frame = require('internal/async_context_frame');
const before = Object.getPrototypeOf(frame).name;
if (${JSON.stringify(settle)} === 'import') await import(${JSON.stringify(asyncContextModule)});
await import('node:http');
await new Promise((resolve) => process.nextTick(resolve));
const afterStartUp = Object.getPrototypeOf(frame).name;
if (${JSON.stringify(settle)} === 'require-and-call') require(${JSON.stringify(asyncContextModule)}).settleAsyncContext();
console.log(JSON.stringify({ before, afterStartUp, after: Object.getPrototypeOf(frame).name }));
`;
}

async function probe(
  settle: Settle,
  flags = FRAME_FLAGS,
): Promise<{ before: string; afterStartUp: string; after: string }> {
  const { stdout } = await run(process.execPath, [
    ...flags,
    '--expose-internals',
    '--input-type=module',
    '-e',
    startUpProbe(settle),
  ]);
  return JSON.parse(stdout) as { before: string; afterStartUp: string; after: string };
}

test('left alone, Node still has the do-nothing frame after modules load and a tick runs (what the module changes)', async () => {
  assert.deepEqual(await probe('none'), {
    before: 'InactiveAsyncContextFrame',
    afterStartUp: 'InactiveAsyncContextFrame',
    after: 'InactiveAsyncContextFrame',
  });
});

test('importing the module swaps in the working frame', async () => {
  const { before, afterStartUp } = await probe('import');
  assert.equal(before, 'InactiveAsyncContextFrame');
  assert.equal(afterStartUp, 'ActiveAsyncContextFrame');
});

test('settleAsyncContext swaps it in by itself, however the module was loaded (here through require)', async () => {
  const { afterStartUp, after } = await probe('require-and-call');
  assert.equal(afterStartUp, 'InactiveAsyncContextFrame', 'require alone does not ask');
  assert.equal(after, 'ActiveAsyncContextFrame');
});

test('with frames turned off, the do-nothing frame stays', async () => {
  const off = FRAME_FLAGS.length === 0 ? ['--no-async-context-frame'] : [];
  assert.equal((await probe('require-and-call', off)).after, 'InactiveAsyncContextFrame');
});

/**
 * Preloaded into the server: notes the frame at the first use of process.stderr (the entry point's
 * report of a bad configuration, before any other output) and prints it at exit, through the file
 * descriptor, without asking anything of Node's streams.
 */
const FRAME_AT_FIRST_STDERR_USE = `
const frame = require('internal/async_context_frame');
const stderr = Object.getOwnPropertyDescriptor(process, 'stderr');
let atFirstUse;
Object.defineProperty(process, 'stderr', { ...stderr, get() { atFirstUse ??= Object.getPrototypeOf(frame).name; return stderr.get.call(process); } });
process.on('exit', () => require('node:fs').writeSync(2, 'frame=' + atFirstUse + '\\n'));
`;

test('the server entry point settles it before reading the configuration: a start refused for its configuration already has the working frame', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'async-context-'));
  try {
    const preload = join(dir, 'frame-at-first-stderr-use.cjs');
    writeFileSync(preload, FRAME_AT_FIRST_STDERR_USE);
    const refused = await run(
      process.execPath,
      [...FRAME_FLAGS, '--expose-internals', '--require', preload, serverEntry],
      { env: { PATH: process.env.PATH ?? '', PORT: 'not-a-port' } },
    ).then(
      () => assert.fail('the server started with PORT=not-a-port'),
      (error: unknown) => error as { code: number; stderr: string },
    );
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /configuration error: PORT/);
    assert.match(refused.stderr, /frame=ActiveAsyncContextFrame/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
