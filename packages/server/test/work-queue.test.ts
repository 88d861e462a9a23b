/**
 * Tests of the bounded work queue. Jobs are promises that the test settles by hand, so every
 * assertion is about order and counts, never about time.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ARGON2_MAX, argon2MemoryBytes, planKdf, SCRYPT_MAX_MEMORY_BYTES } from '@crypto-service/core';
import {
  KDF_QUEUE_DEFAULTS,
  MIB,
  PASSWORD_QUEUE_DEFAULTS,
  WorkQueue,
  type WorkQueueOptions,
} from '../src/work-queue.ts';
import { ApiError } from '../src/errors.ts';

interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

function deferred<T = string>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets every pending promise callback run (the queue hands out slots in promise callbacks). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

function queue(options: Partial<WorkQueueOptions> = {}, onRefused?: () => void): WorkQueue {
  return new WorkQueue(
    { name: 'test', concurrency: 2, maxQueued: 4, memoryBudgetBytes: 100, retryAfterSeconds: 3, ...options },
    { onRefused },
  );
}

/** A job that records when it starts and finishes when the test says so. */
function job(started: string[], name: string): { run: () => Promise<string>; gate: Deferred<string> } {
  const gate = deferred<string>();
  return {
    gate,
    run: () => {
      started.push(name);
      return gate.promise;
    },
  };
}

function isUnavailable(retryAfter: string) {
  return (error: unknown) => {
    assert.ok(error instanceof ApiError, String(error));
    assert.equal(error.code, 'SERVICE_UNAVAILABLE');
    assert.deepEqual(error.headers, { 'retry-after': retryAfter });
    assert.match(error.message, /server busy/);
    return true;
  };
}

describe('concurrency', () => {
  test('at most `concurrency` jobs run; the others start in arrival order as slots free up', async () => {
    const q = queue({ concurrency: 2 });
    const started: string[] = [];
    const jobs = ['a', 'b', 'c', 'd'].map((name) => job(started, name));
    const results = jobs.map((j) => q.run(0, j.run));
    await settle();
    assert.deepEqual(started, ['a', 'b']);
    assert.equal(q.running, 2);
    assert.equal(q.queued, 2);

    jobs[1]!.gate.resolve('B');
    assert.equal(await results[1], 'B', "a job's value is passed through");
    await settle();
    assert.deepEqual(started, ['a', 'b', 'c']);

    jobs[0]!.gate.resolve('A');
    await settle();
    assert.deepEqual(started, ['a', 'b', 'c', 'd']);
    assert.equal(q.queued, 0);

    jobs[2]!.gate.resolve('C');
    jobs[3]!.gate.resolve('D');
    assert.deepEqual(await Promise.all(results), ['A', 'B', 'C', 'D']);
    assert.equal(q.running, 0);
  });

  test('a job that fails, or throws before returning a promise, gives its slot back and its error to the caller', async () => {
    const q = queue({ concurrency: 1 });
    const failure = new Error('job failed');
    const rejected = q.run(10, () => Promise.reject(failure));
    const thrown = q.run(10, () => {
      throw failure;
    });
    const after = q.run(10, async () => 'ran');
    await assert.rejects(rejected, (error) => error === failure);
    await assert.rejects(thrown, (error) => error === failure);
    assert.equal(await after, 'ran');
    assert.equal(q.running, 0);
    assert.equal(q.memoryInUse, 0);
  });
});

describe('queue limit', () => {
  test('one job more than concurrency + maxQueued is refused at once: 503 SERVICE_UNAVAILABLE with Retry-After', async () => {
    let refusals = 0;
    const q = queue({ concurrency: 1, maxQueued: 2, retryAfterSeconds: 3 }, () => {
      refusals += 1;
    });
    const started: string[] = [];
    const jobs = ['a', 'b', 'c'].map((name) => job(started, name));
    const accepted = jobs.map((j) => q.run(0, j.run));
    await settle();
    assert.deepEqual([q.running, q.queued], [1, 2]);

    await assert.rejects(
      q.run(0, async () => 'never'),
      isUnavailable('3'),
    );
    assert.equal(q.rejected, 1);
    assert.equal(refusals, 1, 'the hook sees every refusal');
    assert.deepEqual(started, ['a'], 'the refused job never ran and displaced nothing');

    for (const j of jobs) j.gate.resolve('done');
    assert.deepEqual(await Promise.all(accepted), ['done', 'done', 'done']);
    assert.equal(await q.run(0, async () => 'accepted again'), 'accepted again');
  });

  test('with maxQueued 0 nothing waits: a job beyond the running ones is refused', async () => {
    const q = queue({ concurrency: 1, maxQueued: 0 });
    const gate = deferred<string>();
    const running = q.run(0, () => gate.promise);
    await assert.rejects(
      q.run(0, async () => 'x'),
      isUnavailable('3'),
    );
    gate.resolve('ok');
    assert.equal(await running, 'ok');
  });
});

describe('refusal delay', () => {
  test('a refusal because the queue is full is counted at once and sent refusalDelayMs later; one that can never fit goes at once', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    let refusals = 0;
    const q = queue({ concurrency: 1, maxQueued: 0, refusalDelayMs: 25 }, () => {
      refusals += 1;
    });
    const gate = deferred<string>();
    const running = q.run(0, () => gate.promise);

    let outcome: unknown = 'pending';
    const refused = q
      .run(0, async () => 'never')
      .catch((error: unknown) => {
        outcome = error;
      });
    assert.equal(q.rejected, 1, 'counted when decided');
    assert.equal(refusals, 1);
    t.mock.timers.tick(24);
    await settle();
    assert.equal(outcome, 'pending', 'not sent before the delay');
    t.mock.timers.tick(1);
    await refused;
    assert.ok(isUnavailable('3')(outcome));

    // Too large for the whole budget: that does not depend on the load, so no delay.
    await assert.rejects(
      q.run(101, async () => 'never'),
      /more memory/,
    );
    assert.equal(q.running, 1, 'the running job kept its slot throughout');
    gate.resolve('ok');
    assert.equal(await running, 'ok');
  });

  test('0, the default, refuses at once', async (t) => {
    // With setTimeout mocked and never advanced, only a refusal that needs no timer can settle.
    t.mock.timers.enable({ apis: ['setTimeout'] });
    assert.equal(queue().options.refusalDelayMs, 0);
    const q = queue({ concurrency: 1, maxQueued: 0 });
    const gate = deferred<string>();
    const running = q.run(0, () => gate.promise);
    let outcome: unknown = 'pending';
    const refused = q
      .run(0, async () => 'never')
      .catch((error: unknown) => {
        outcome = error;
      });
    await settle();
    assert.ok(isUnavailable('3')(outcome), 'settled without a timer');
    await refused;
    gate.resolve('ok');
    await running;
  });
});

describe('memory budget', () => {
  test('a job larger than the whole budget is refused even when the queue is idle', async () => {
    const q = queue({ memoryBudgetBytes: 100 });
    let ran = false;
    await assert.rejects(
      q.run(101, async () => {
        ran = true;
      }),
      isUnavailable('3'),
    );
    assert.equal(ran, false);
    assert.equal(await q.run(100, async () => 'exactly the budget fits'), 'exactly the budget fits');
  });

  test('jobs run together only while their declared memory fits; a waiting head holds back smaller jobs behind it', async () => {
    const q = queue({ concurrency: 10, maxQueued: 10, memoryBudgetBytes: 100 });
    const started: string[] = [];
    const big1 = job(started, 'big1');
    const big2 = job(started, 'big2');
    const small = job(started, 'small');
    const results = [q.run(60, big1.run), q.run(60, big2.run), q.run(10, small.run)];
    await settle();
    // big2 does not fit beside big1 (120 > 100) although slots are free; small waits behind it, so
    // that a stream of small jobs can never starve a large one.
    assert.deepEqual(started, ['big1']);
    assert.equal(q.memoryInUse, 60);
    assert.equal(q.queued, 2);

    big1.gate.resolve('1');
    await settle();
    assert.deepEqual(started, ['big1', 'big2', 'small'], 'both fit once big1 is done (60 + 10 <= 100)');
    assert.equal(q.memoryInUse, 70);

    big2.gate.resolve('2');
    small.gate.resolve('3');
    assert.deepEqual(await Promise.all(results), ['1', '2', '3']);
    assert.equal(q.memoryInUse, 0);
  });

  test('the largest job each route can submit fits the default budgets (else it would always be a 503)', () => {
    assert.ok(argon2MemoryBytes(ARGON2_MAX) <= PASSWORD_QUEUE_DEFAULTS.memoryBudgetBytes);
    const largestScrypt = planKdf({
      algorithm: 'scrypt',
      password: new Uint8Array([1]),
      params: { N: 2 ** 20, r: 2, p: 1 },
    });
    assert.equal(largestScrypt.memoryBytes, SCRYPT_MAX_MEMORY_BYTES);
    assert.ok(largestScrypt.memoryBytes <= KDF_QUEUE_DEFAULTS.memoryBudgetBytes);
    // Two default Argon2id jobs (64 MiB each) run side by side.
    assert.ok(2 * 64 * MIB <= PASSWORD_QUEUE_DEFAULTS.memoryBudgetBytes && PASSWORD_QUEUE_DEFAULTS.concurrency >= 2);
  });
});

describe('configuration', () => {
  test('nonsensical settings are refused when the queue is made', () => {
    for (const bad of [
      { concurrency: 0 },
      { concurrency: 1.5 },
      { maxQueued: -1 },
      { memoryBudgetBytes: 0 },
      { retryAfterSeconds: 0 },
      { concurrency: Number.NaN },
      { refusalDelayMs: -1 },
      { refusalDelayMs: 2.5 },
      { refusalDelayMs: 60_001 },
    ]) {
      assert.throws(() => queue(bad), RangeError, JSON.stringify(bad));
    }
  });

  test("a malformed memory cost is the caller's bug (a plain error, so a 500), not a 503", async () => {
    const q = queue();
    for (const cost of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      await assert.rejects(
        q.run(cost, async () => 'x'),
        RangeError,
      );
    }
    assert.equal(q.rejected, 0);
  });
});

describe('jobs nobody waits for any more', () => {
  test('a waiting job whose request has ended is dropped at its turn, unstarted, and the next one runs', async () => {
    let dropped = 0;
    const q = new WorkQueue(
      { name: 'test', concurrency: 1, maxQueued: 4, memoryBudgetBytes: 100, retryAfterSeconds: 1 },
      { onDropped: () => (dropped += 1) },
    );
    const started: string[] = [];
    const [a, b, c] = ['a', 'b', 'c'].map((name) => job(started, name));
    let bWanted = true;
    const runA = q.run(1, a!.run);
    const runB = q.run(1, b!.run, () => bWanted);
    const runC = q.run(1, c!.run, () => true);
    await settle();
    assert.deepEqual(started, ['a']);
    bWanted = false; // b's request timed out, or its client left
    a!.gate.resolve('a done');
    assert.equal(await runA, 'a done');
    await assert.rejects(runB, (error: unknown) => {
      assert.ok(error instanceof ApiError);
      assert.equal(error.code, 'SERVICE_UNAVAILABLE');
      assert.match(error.message, /ended before its turn/);
      return true;
    });
    await settle();
    assert.deepEqual(started, ['a', 'c'], 'b never ran');
    assert.equal(q.dropped, 1);
    assert.equal(dropped, 1);
    assert.equal(q.running, 1);
    c!.gate.resolve('c done');
    assert.equal(await runC, 'c done');
    assert.equal(q.running, 0);
  });

  test('a full queue first makes room by dropping the jobs nobody wants; a full queue of wanted jobs still refuses', async () => {
    const q = queue({ concurrency: 1, maxQueued: 2 });
    const started: string[] = [];
    const [a, b, c, d, e] = ['a', 'b', 'c', 'd', 'e'].map((name) => job(started, name));
    const wanted = { b: true, c: true };
    const runA = q.run(1, a!.run);
    const runB = q.run(1, b!.run, () => wanted.b);
    const runC = q.run(1, c!.run, () => wanted.c);
    await assert.rejects(q.run(1, d!.run), isUnavailable('3'));
    wanted.b = false;
    const runE = q.run(1, e!.run);
    await assert.rejects(runB, /ended before its turn/);
    assert.equal(q.queued, 2, 'c and e wait');
    assert.equal(q.dropped, 1);
    a!.gate.resolve('a');
    c!.gate.resolve('c');
    e!.gate.resolve('e');
    assert.deepEqual(await Promise.all([runA, runC, runE]), ['a', 'c', 'e']);
    assert.deepEqual(started, ['a', 'c', 'e']);
  });

  test('a job that starts at once is not asked: only waiting jobs can be dropped', async () => {
    const q = queue();
    let asked = 0;
    const result = await q.run(
      1,
      async () => 'ran',
      () => {
        asked += 1;
        return false;
      },
    );
    assert.equal(result, 'ran');
    assert.equal(asked, 0);
    assert.equal(q.dropped, 0);
  });
});
