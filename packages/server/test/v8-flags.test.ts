/**
 * The server's V8 flags (src/v8-flags.ts): this runtime accepts them, and they do what the module
 * says: the young generation starts at its fixed size and stays within it under a pile of
 * short-lived garbage, where V8's own sizing lets Node 24 grow it to 128 MiB. (That npm start and
 * the Dockerfile pass them: deploy/test/dockerfile.test.ts; `crypto-service serve`: the CLI's tests.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { SERVER_V8_FLAGS } from '../src/v8-flags.ts';

const run = promisify(execFile);
const MiB = 1024 * 1024;

/** Allocates ~200 MB of short-lived objects; prints the new space's size at start and at its largest. */
const YOUNG_GENERATION_PROBE = `
const { getHeapSpaceStatistics } = require('node:v8');
const newSpace = () => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_size;
const initial = newSpace();
let largest = initial;
let batch = [];
for (let i = 0; i < 4e6; i++) {
  batch.push({ i, text: 'x' + i });
  if (batch.length > 200000) batch = [];
  if (i % 50000 === 0) largest = Math.max(largest, newSpace());
}
console.log(JSON.stringify({ initial, largest }));
`;

function semiSpaceMiB(): number {
  const sizes = SERVER_V8_FLAGS.map((flag) => /^--(?:min|max)-semi-space-size=(\d+)$/.exec(flag)?.[1]);
  assert.ok(
    sizes.length === 2 && sizes[0] !== undefined && sizes[0] === sizes[1],
    `one fixed semi-space size: ${SERVER_V8_FLAGS.join(' ')}`,
  );
  return Number(sizes[0]);
}

test("the server's V8 flags fix the young generation: it starts at the semi-space size and never grows past two of them", async () => {
  const semiSpace = semiSpaceMiB() * MiB;
  const { stdout } = await run(process.execPath, [...SERVER_V8_FLAGS, '-e', YOUNG_GENERATION_PROBE]);
  const { initial, largest } = JSON.parse(stdout) as { initial: number; largest: number };
  assert.ok(initial >= semiSpace, `starts at the fixed size: ${initial / MiB} MiB`);
  // Both semi-spaces, plus a few pages V8 holds for a moment during a scavenge (seen: up to 2.8
  // MiB over); V8's own sizing goes to 128 MiB on Node 24.
  assert.ok(largest <= 2.5 * semiSpace, `stays near two semi-spaces: ${largest / MiB} MiB`);
});

test('without them, V8 sizes the young generation for itself: it starts smaller (what the flags change)', async () => {
  const { stdout } = await run(process.execPath, ['-e', YOUNG_GENERATION_PROBE]);
  const { initial } = JSON.parse(stdout) as { initial: number };
  assert.ok(initial < semiSpaceMiB() * MiB, `V8's own initial size: ${initial / MiB} MiB`);
});
