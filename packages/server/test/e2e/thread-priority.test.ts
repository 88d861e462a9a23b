/**
 * HEAVY_WORK_NICE (src/thread-priority.ts), on the real server process: the threads that run heavy
 * work (libuv's pool, the OpenPGP and post-quantum worker threads) run at the configured nice
 * value, the event loop's thread stays at the normal priority, and 0 changes nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { getPriority } from 'node:os';
import { postJson, startServer, untilReady } from './helpers.ts';

const TIMEOUT = { timeout: 30_000 };

interface ThreadInfo {
  id: number;
  name: string;
  nice: number;
}

/** Every thread of a process, from /proc: its name and its nice value (field 19 of stat). */
function threadsOf(pid: number): ThreadInfo[] {
  const threads: ThreadInfo[] = [];
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8');
      const name = readFileSync(`/proc/${pid}/task/${task}/comm`, 'utf8').trim();
      // "tid (comm) state ppid …": fields from the third on follow the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      threads.push({ id: Number(task), name, nice: Number(fields[19 - 3]) });
    } catch {
      // the thread ended while we looked
    }
  }
  return threads;
}

/** The nice value this test process runs at, which the server it starts inherits. */
const ownNice = () => getPriority();

test("HEAVY_WORK_NICE=7: libuv's pool and the worker threads run 7 steps below the event loop", TIMEOUT, async (t) => {
  const server = await startServer({ HEAVY_WORK_NICE: '7' });
  t.after(() => server.kill());
  const pid = server.process.pid!;
  await untilReady(server);
  // An ML-DSA signature: on Node 22 it starts a post-quantum worker thread, which lowers itself too.
  const keys = await postJson(`${server.baseUrl}/v2/pq/dsa/keygen`, {});
  assert.equal(keys.status, 200);
  const { privateKey } = (keys.json() as { data: { privateKey: string } }).data;
  const signed = await postJson(`${server.baseUrl}/v2/pq/dsa/sign`, { privateKey, message: 'abc' });
  assert.equal(signed.status, 200);
  // The OpenPGP worker threads start with the first /v1 job.
  const generated = await postJson(`${server.baseUrl}/v1/generate`, { name: 'Nice', email: 'nice@example.com' });
  assert.equal(generated.status, 200);

  const threads = threadsOf(pid);
  // Relative to the event loop's own nice (0 normally; more if the tests themselves run niced).
  const main = threads.find((thread) => thread.id === pid)!;
  assert.equal(main.nice, ownNice(), 'the event loop keeps the priority it was started with');
  const expected = Math.min(19, main.nice + 7);
  const pool = threads.filter((thread) => thread.name === 'libuv-worker');
  assert.ok(pool.length >= 1, `libuv's pool: ${JSON.stringify(threads)}`);
  assert.deepEqual(
    pool.map((thread) => thread.nice),
    pool.map(() => expected),
  );
  // Besides the pool: the OpenPGP worker thread that ran the job (and on Node 22 the post-quantum one).
  const lowered = threads.filter((thread) => thread.nice === expected).length;
  assert.ok(lowered >= pool.length + 1, `${lowered} threads at nice ${expected}: ${JSON.stringify(threads)}`);
  assert.deepEqual(await server.stop(), { code: 0, signal: null });
});

test('HEAVY_WORK_NICE=0 leaves every thread at the priority the process was started with', TIMEOUT, async (t) => {
  const server = await startServer({ HEAVY_WORK_NICE: '0' });
  t.after(() => server.kill());
  const hashed = await postJson(`${server.baseUrl}/v2/hash`, { algorithm: 'sha256', data: 'abc' });
  assert.equal(hashed.status, 200);
  assert.deepEqual(
    threadsOf(server.process.pid!).filter((thread) => thread.nice !== ownNice()),
    [],
  );
  assert.deepEqual(await server.stop(), { code: 0, signal: null });
});
