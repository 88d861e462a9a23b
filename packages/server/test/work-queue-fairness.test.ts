/**
 * Tests of the work queue's fairness: clients take turns, a lane keeps room for small jobs, and a
 * per-client cap. Jobs are promises the test settles by hand: every assertion is about order and
 * counts, never about time.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ClientJobCap } from '../src/client-job-cap.ts';
import { ApiError } from '../src/errors.ts';
import { WorkQueue, type WorkQueueOptions } from '../src/work-queue.ts';

/** Lets every pending promise callback run (the queue hands out slots in promise callbacks). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Jobs that record their start and finish when the test says so. */
function recorder() {
  const started: string[] = [];
  const gates = new Map<string, () => void>();
  const job = (name: string) => () =>
    new Promise<string>((resolve) => {
      started.push(name);
      gates.set(name, () => resolve(name));
    });
  const finish = async (name: string) => {
    const gate = gates.get(name);
    assert.ok(gate, `${name} has not started`);
    gate();
    await settle();
  };
  return { started, job, finish };
}

function queue(options: Partial<WorkQueueOptions> = {}): WorkQueue {
  return new WorkQueue({
    name: 'test',
    concurrency: 1,
    maxQueued: 32,
    memoryBudgetBytes: 100,
    retryAfterSeconds: 1,
    ...options,
  });
}

describe('clients take turns', () => {
  test('clients take turns, one job each, however many jobs one of them has queued', async () => {
    const q = queue();
    const { started, job, finish } = recorder();
    const runs = ['a1', 'a2', 'a3', 'a4'].map((name) => q.run(1, job(name), { client: 'A' }));
    runs.push(q.run(1, job('b1'), { client: 'B' }), q.run(1, job('b2'), { client: 'B' }));
    runs.push(q.run(1, job('c1'), { client: 'C' }));
    await settle();
    for (const name of ['a1', 'a2', 'b1', 'c1', 'a3', 'b2', 'a4']) await finish(name);
    assert.deepEqual(started, ['a1', 'a2', 'b1', 'c1', 'a3', 'b2', 'a4']);
    await Promise.all(runs);
  });

  test('the jobs of one client, or of none, keep their arrival order', async () => {
    const q = queue();
    const { started, job, finish } = recorder();
    const runs = ['x', 'y', 'z'].map((name) => q.run(1, job(name)));
    await settle();
    for (const name of ['x', 'y', 'z']) await finish(name);
    assert.deepEqual(started, ['x', 'y', 'z']);
    await Promise.all(runs);
  });

  test('the client whose turn it is holds the slots until its large job fits: a stream of small jobs cannot starve it', async () => {
    const q = queue({ concurrency: 3, memoryBudgetBytes: 100 });
    const { started, job, finish } = recorder();
    const runs = [q.run(40, job('b1'), { client: 'B' }), q.run(40, job('c1'), { client: 'C' })];
    runs.push(q.run(100, job('a-large'), { client: 'A' }), q.run(10, job('b2'), { client: 'B' }));
    await settle();
    assert.deepEqual(started, ['b1', 'c1'], 'b2 would fit, but it is A’s turn');
    await finish('b1');
    assert.deepEqual(started, ['b1', 'c1']);
    await finish('c1');
    assert.deepEqual(started, ['b1', 'c1', 'a-large']);
    await finish('a-large');
    await finish('b2');
    await Promise.all(runs);
  });
});

describe('the small-job lane', () => {
  const lane = { memoryBytes: 20, work: 10 };

  test("a small job starts beside another client's large one, while the large ones behind it wait", async () => {
    const q = queue({ concurrency: 2, memoryBudgetBytes: 100, smallJobLane: lane });
    const { started, job, finish } = recorder();
    const runs = ['a1', 'a2', 'a3'].map((name) => q.run(80, job(name), { client: 'A', work: 100 }));
    await settle();
    assert.deepEqual(started, ['a1'], 'large jobs never take the lane');
    runs.push(q.run(20, job('b-small'), { client: 'B', work: 10 }));
    await settle();
    assert.deepEqual(started, ['a1', 'b-small']);
    assert.equal(q.running, 2);
    await finish('b-small');
    await finish('a1');
    assert.deepEqual(started, ['a1', 'b-small', 'a2']);
    await finish('a2');
    await finish('a3');
    await Promise.all(runs);
  });

  test('small jobs of one client use both the lane and the main slots: no loss of throughput', async () => {
    const q = queue({ concurrency: 2, memoryBudgetBytes: 100, smallJobLane: lane });
    const { started, job, finish } = recorder();
    const runs = ['s1', 's2', 's3'].map((name) => q.run(20, job(name), { client: 'A', work: 10 }));
    await settle();
    assert.deepEqual(started, ['s1', 's2']);
    await finish('s1');
    assert.deepEqual(started, ['s1', 's2', 's3']);
    await finish('s2');
    await finish('s3');
    await Promise.all(runs);
  });

  test('a job over the lane’s memory or work is large; the main slots hold at most the budget less the lane', async () => {
    const q = queue({ concurrency: 2, memoryBudgetBytes: 100, smallJobLane: lane });
    const { started, job, finish } = recorder();
    const runs = [
      q.run(21, job('too-big'), { client: 'A', work: 1 }),
      q.run(5, job('too-long'), { client: 'B', work: 11 }),
    ];
    await settle();
    assert.deepEqual(started, ['too-big']);
    await assert.rejects(q.run(81, job('never'), { client: 'C' }), (error: unknown) => {
      assert.ok(error instanceof ApiError);
      assert.equal(error.code, 'SERVICE_UNAVAILABLE');
      return true;
    });
    await finish('too-big');
    await finish('too-long');
    await Promise.all(runs);
  });

  test('with a concurrency of 1 there is no lane: every job takes the one slot in turn', async () => {
    const q = queue({ concurrency: 1, memoryBudgetBytes: 100, smallJobLane: lane });
    const { started, job, finish } = recorder();
    const runs = [q.run(80, job('a'), { client: 'A', work: 100 }), q.run(10, job('b'), { client: 'B', work: 1 })];
    await settle();
    assert.deepEqual(started, ['a']);
    await finish('a');
    await finish('b');
    await Promise.all(runs);
  });
});

describe('the per-client cap', () => {
  test('a client with its most jobs in flight, in any queue sharing the cap, is refused 429 naming the setting', async () => {
    const cap = new ClientJobCap(2);
    const password = queue({ name: 'password', clientCap: cap });
    const kdf = queue({ name: 'kdf', clientCap: cap });
    const { job, finish } = recorder();
    const runs = [password.run(1, job('p1'), { client: 'A' }), kdf.run(1, job('k1'), { client: 'A' })];
    await settle();
    await assert.rejects(password.run(1, job('p2'), { client: 'A' }), (error: unknown) => {
      assert.ok(error instanceof ApiError);
      assert.equal(error.code, 'RATE_LIMITED');
      assert.match(error.message, /MAX_HEAVY_JOBS_PER_CLIENT/);
      assert.deepEqual(error.headers, { 'retry-after': '1' });
      return true;
    });
    // Another client is not affected, and neither are jobs that name no client.
    runs.push(password.run(1, job('b1'), { client: 'B' }), password.run(1, job('anonymous')));
    await finish('p1');
    await finish('k1');
    assert.equal(cap.inFlight('A'), 0, 'finished jobs give their count back');
    runs.push(password.run(1, job('p3'), { client: 'A' }));
    await finish('b1');
    await finish('anonymous');
    await finish('p3');
    await Promise.all(runs);
    assert.equal(cap.inFlight('B'), 0);
  });

  test('a job refused because the queue is full, or dropped unstarted, gives its count back', async () => {
    const cap = new ClientJobCap(5);
    const q = queue({ maxQueued: 1, clientCap: cap });
    const { job, finish } = recorder();
    let wanted = true;
    const first = q.run(1, job('a1'), { client: 'A' });
    const dropped = q.run(1, job('a2'), { client: 'A', stillWanted: () => wanted });
    await assert.rejects(q.run(1, job('a3'), { client: 'A' }), /server busy/);
    assert.equal(cap.inFlight('A'), 2);
    const droppedRefusal = assert.rejects(dropped, /ended before its turn/);
    wanted = false;
    await settle();
    await finish('a1');
    await first;
    await droppedRefusal;
    assert.equal(cap.inFlight('A'), 0);
  });

  test('the cap must be a positive integer', () => {
    assert.throws(() => new ClientJobCap(0), /MAX_HEAVY_JOBS_PER_CLIENT/);
  });
});
