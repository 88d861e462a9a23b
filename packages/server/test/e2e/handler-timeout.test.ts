/**
 * HANDLER_TIMEOUT_MS on a real socket (src/handler-timeout.ts). Fastify's own handlerTimeout passes
 * its tests under inject() but never fires for a request with a body on a real connection, so this
 * is checked end to end: a slow route answers a 503 problem in time, and the queued work of a
 * request that timed out, or whose client left, is dropped without running.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { slhDsaKeygen } from '@crypto-service/core';
import { delay, openRequest, postJson, request, startServer, untilReady } from './helpers.ts';

// Argon2id at the cap's memory and passes: seconds of work, far beyond a 300 ms timeout.
const SLOW_HASH = { password: 'correct horse', memoryCost: 131072, timeCost: 10, parallelism: 1 };
// Argon2id at the floor (ARGON2_MIN): a few tens of ms, well inside the timeout even on a busy machine.
const QUICK_HASH = { password: 'p', memoryCost: 19456, timeCost: 2, parallelism: 1 };

/**
 * The servers here run their heavy work at the event loop's own priority. At the default
 * HEAVY_WORK_NICE (10), any other busy process on a shared CI machine slows the hashes and
 * signatures about tenfold, and these tests wait for them to finish; the lowered priority has its
 * own test (thread-priority.test.ts).
 */
const SAME_PRIORITY = { HEAVY_WORK_NICE: '0' };

/** The value of the series of `metrics` (Prometheus text) whose name and labels start with `prefix`. */
function sample(metrics: string, prefix: string): number {
  const line = metrics.split('\n').find((row) => row.startsWith(prefix));
  return line === undefined ? Number.NaN : Number(line.split(' ').at(-1));
}

function counter(metrics: string, name: string, queue: string): number {
  return sample(metrics, `${name}{queue="${queue}"}`);
}

/** Polls /metrics until `done` says so (or fails after `timeoutMs`); returns the last scrape. */
async function metricsUntil(baseUrl: string, done: (metrics: string) => boolean, timeoutMs = 30_000): Promise<string> {
  let metrics = '';
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await delay(50)) {
    metrics = (await request(`${baseUrl}/metrics`)).body;
    if (done(metrics)) return metrics;
  }
  return metrics;
}

test(
  'a slow route answers 503 after HANDLER_TIMEOUT_MS; queued work nobody waits for is dropped',
  { timeout: 60_000 },
  async (t) => {
    const server = await startServer({ ...SAME_PRIORITY, HANDLER_TIMEOUT_MS: '300', PASSWORD_CONCURRENCY: '1' });
    t.after(() => server.kill());
    await untilReady(server);
    const url = `${server.baseUrl}/v2/password/hash`;

    const jobs = (metrics: string, state: string) =>
      sample(metrics, `crypto_work_queue_jobs{queue="password",state="${state}"}`);
    const running = postJson(url, SLOW_HASH, { timeoutMs: 20_000 }); // takes the only slot
    const queued = postJson(url, SLOW_HASH, { timeoutMs: 20_000 }); // waits, then times out
    const abandoned = openRequest(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      timeoutMs: 20_000,
    });
    abandoned.end(JSON.stringify(SLOW_HASH)); // waits, and its client leaves
    const both = await metricsUntil(
      server.baseUrl,
      (metrics) => jobs(metrics, 'running') === 1 && jobs(metrics, 'waiting') === 2,
    );
    assert.equal(jobs(both, 'waiting'), 2, 'two hashes wait behind the running one');
    abandoned.destroy();

    for (const response of [await running, await queued]) {
      assert.equal(response.status, 503);
      assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
      const problem = response.json() as { code: string; detail: string };
      assert.equal(problem.code, 'SERVICE_UNAVAILABLE');
      assert.match(problem.detail, /HANDLER_TIMEOUT_MS/);
    }
    // Answered by the timeout, not by the end of the work: the first hash is still being computed.
    assert.equal(jobs((await request(`${server.baseUrl}/metrics`)).body, 'running'), 1);

    // The running hash cannot be stopped; once it ends, the two waiting jobs are dropped unstarted.
    let metrics = '';
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; await delay(200)) {
      metrics = (await request(`${server.baseUrl}/metrics`)).body;
      if (counter(metrics, 'crypto_work_queue_dropped_total', 'password') === 2 && jobs(metrics, 'running') === 0)
        break;
    }
    assert.equal(
      counter(metrics, 'crypto_work_queue_dropped_total', 'password'),
      2,
      metrics
        .split('\n')
        .filter((line) => line.includes('work_queue'))
        .join('\n'),
    );
    // Exactly one Argon2id hash ran (the first one); the two dropped ones count as unavailable.
    const hashes = Object.fromEntries(
      metrics
        .split('\n')
        .filter((line) => line.startsWith('crypto_operations_total{operation="password.hash"'))
        .map((line) => [/outcome="([a-z-]+)"/.exec(line)?.[1], Number(line.split(' ').at(-1))]),
    );
    assert.deepEqual(hashes, { success: 1, unavailable: 2 });

    // And the server serves on, with a fresh slot: the queue is empty, and a hash at the floor's
    // cost goes through it (the default cost, 64 MiB and 3 passes, can come close to the 300 ms
    // timeout on an idle machine, and pass it under load).
    assert.equal(jobs(metrics, 'running'), 0);
    assert.equal(jobs(metrics, 'waiting'), 0);
    const quick = await postJson(url, QUICK_HASH, { timeoutMs: 10_000 });
    assert.equal(quick.status, 200, quick.body);
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  },
);

// The dedicated route and the generic one (/v2/sign hands SLH-DSA to the same queue through core).
const SLH_ROUTES = [
  {
    path: '/v2/pq/slh-dsa/sign',
    operation: 'slh-dsa.sign',
    body: (privateKey: string) => ({ algorithm: 'slh-dsa-sha2-192s', privateKey, message: 'm' }),
  },
  {
    path: '/v2/sign',
    operation: 'signature.sign',
    body: (privateKey: string) => ({ algorithm: 'slh-dsa-sha2-192s', privateKey, message: 'm' }),
  },
];

test(
  'SLH-DSA signatures still waiting for the post-quantum queue are dropped once their request timed out',
  { timeout: 300_000 },
  async (t) => {
    // The queue's gauges are read while they last (well under a second): every scrape renders anew.
    const server = await startServer({ ...SAME_PRIORITY, HANDLER_TIMEOUT_MS: '100', METRICS_CACHE_MS: '0' });
    t.after(() => server.kill());
    await untilReady(server);
    // The key is made here: on Node 22 the server's own key generation would outlast the 100 ms too.
    const secretKey = Buffer.from((await slhDsaKeygen('slh-dsa-sha2-192s')).secretKey).toString('hex');
    const gauge = (metrics: string, state: string) => sample(metrics, `crypto_pq_queue_jobs{state="${state}"}`);
    let droppedBefore = 0;

    for (const route of SLH_ROUTES) {
      // sha2-192s signing takes a large part of a second natively (more on Node 22): far beyond
      // 100 ms, so every request times out while the queue's slots (2 natively, 1 worker thread on
      // Node 22) are still busy.
      const requests = Array.from({ length: 4 }, () =>
        postJson(`${server.baseUrl}${route.path}`, route.body(secretKey), { timeoutMs: 60_000 }),
      );
      const during = await metricsUntil(
        server.baseUrl,
        (metrics) => gauge(metrics, 'running') + gauge(metrics, 'waiting') === 4,
      );
      const running = gauge(during, 'running');
      const waiting = gauge(during, 'waiting');
      assert.equal(
        running + waiting,
        4,
        `${route.path}: ${during
          .split('\n')
          .filter((line) => line.startsWith('crypto_pq_queue'))
          .join('\n')}`,
      );
      assert.ok(waiting >= 1, `${route.path}: ${waiting} waiting`);
      for (const response of await Promise.all(requests)) assert.equal(response.status, 503, route.path);

      const dropped = (metrics: string) => sample(metrics, 'crypto_pq_queue_dropped_total ') - droppedBefore;
      const after = await metricsUntil(
        server.baseUrl,
        (metrics) => gauge(metrics, 'running') === 0 && dropped(metrics) === waiting,
        120_000,
      );
      assert.equal(dropped(after), waiting, `${route.path}: every waiting signature was dropped`);
      const signed = sample(
        after,
        `crypto_operations_total{operation="${route.operation}",algorithm="slh-dsa-sha2-192s",outcome="success"}`,
      );
      assert.equal(signed, running, `${route.path}: only the ones already running were computed`);
      droppedBefore += waiting;
    }
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  },
);
