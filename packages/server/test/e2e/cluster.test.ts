/**
 * Cluster mode (WORKERS > 1): the pieces in one process first (the shared rate limit with its
 * leases, the metrics gathering, the restart budget, against a fake IPC channel that serializes
 * like Node's), then the real thing: a primary and its worker processes, started, scraped,
 * rate-limited, killed and drained over real sockets and signals.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import fc from 'fast-check';
import { Counter, Registry } from 'prom-client';
import { IpcStore } from '../../src/cluster/ipc-store.ts';
import { MAX_LEASE_CAP, MIN_LEASE_CAP, RateLimitHost, leaseCap } from '../../src/cluster/rate-limit-host.ts';
import { MetricsGatherer } from '../../src/cluster/metrics-gather.ts';
import { answerMetricsCollection, metricsExposition } from '../../src/cluster/metrics.ts';
import { RestartBudget } from '../../src/cluster/restart-budget.ts';
import type { PrimaryChannel } from '../../src/cluster/channel.ts';
import { SERVER_V8_FLAGS } from '../../src/v8-flags.ts';
import {
  ServerProcess,
  delay,
  freePort,
  openRequest,
  outcome,
  postJson,
  request,
  runServerToExit,
  waitForExit,
  type Env,
  type LogLine,
} from './helpers.ts';

const ABC_SHA256 = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';
const WINDOW_MS = 60_000;

// ---------------------------------------------------------------------------------------------
// In one process: a fake primary and fake workers connected by channels that deliver
// asynchronously and copy every message through JSON, as Node's IPC channel does.
// ---------------------------------------------------------------------------------------------

type Listener = (message: unknown) => void;

/** A worker's end: what the worker sends reaches `toPrimary`; what the primary sends reaches its subscribers. */
class FakeWorkerChannel implements PrimaryChannel {
  readonly id: number;
  readonly #listeners = new Set<Listener>();
  readonly #toPrimary: (from: FakeWorkerChannel, message: unknown) => void;
  sent = 0;
  /** While true, messages to the primary are dropped (an unresponsive primary). */
  primaryDeaf = false;

  constructor(id: number, toPrimary: (from: FakeWorkerChannel, message: unknown) => void) {
    this.id = id;
    this.#toPrimary = toPrimary;
  }

  send(message: object): void {
    this.sent += 1;
    const copy = JSON.parse(JSON.stringify(message)) as unknown;
    if (!this.primaryDeaf) setImmediate(() => this.#toPrimary(this, copy));
  }

  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** The primary's send to this worker. */
  deliver(message: unknown): void {
    const copy = JSON.parse(JSON.stringify(message)) as unknown;
    setImmediate(() => {
      for (const listener of this.#listeners) listener(copy);
    });
  }
}

function fakeRateLimitCluster(max: number, workers: number) {
  const host = new RateLimitHost({ max, windowMs: WINDOW_MS, workers });
  const channels = Array.from(
    { length: workers },
    (_, index) =>
      new FakeWorkerChannel(index + 1, (from, message) => {
        host.handle({ send: (answer) => from.deliver(answer) }, message);
      }),
  );
  const stores = channels.map((channel) => new IpcStore({ channel, leaseCap: leaseCap(max) }));
  return {
    channels,
    stores,
    async close() {
      await Promise.all(stores.map((store) => store.close()));
      host.close();
    },
  };
}

describe('the shared rate limit, in one process', () => {
  test('RATE_LIMIT_MAX=5 over two workers: exactly five units in all, whichever worker asks; counts are host-wide', async (t) => {
    const cluster = fakeRateLimitCluster(5, 2);
    t.after(() => cluster.close());
    const now = Date.now();
    const used: number[] = [];
    for (let index = 0; index < 8; index += 1) {
      const count = await cluster.stores[index % 2]!.consume('203.0.113.7', 1, WINDOW_MS, now);
      used.push(count.used);
      assert.equal(count.resetAt, now + WINDOW_MS);
    }
    // One count for the host (a per-process store would answer 1, 1, 2, 2, …): 5 allowed, then over.
    assert.deepEqual(used, [1, 2, 3, 4, 5, 6, 7, 8]);
    // Another client has a limit of its own.
    assert.equal((await cluster.stores[1]!.consume('198.51.100.1', 1, WINDOW_MS, now)).used, 1);
  });

  test('leases: a busy client is served mostly without a round trip, and never past its limit', async (t) => {
    const cluster = fakeRateLimitCluster(1000, 2);
    t.after(() => cluster.close());
    const now = Date.now();
    let admitted = 0;
    for (let index = 0; index < 1200; index += 1) {
      const { used } = await cluster.stores[index % 2]!.consume('203.0.113.7', 1, WINDOW_MS, now);
      if (used <= 1000) admitted += 1;
    }
    const messages = cluster.channels.reduce((sum, channel) => sum + channel.sent, 0);
    assert.ok(admitted <= 1000, `${admitted} admitted over a limit of 1000`);
    assert.ok(admitted >= 1000 - leaseCap(1000), `only ${admitted} admitted of 1000`);
    // Far fewer messages than requests (one per request would be 1200).
    assert.ok(messages < 300, `${messages} messages for 1200 requests`);
  });

  test('the lease cap is 1/64 of the limit, between MIN_LEASE_CAP and MAX_LEASE_CAP, and the primary never grants more', () => {
    assert.deepEqual([5, 1000, 4096, 6400, 100_000, 262_144, 10_000_000].map(leaseCap), [
      MIN_LEASE_CAP,
      MIN_LEASE_CAP,
      MIN_LEASE_CAP,
      100,
      1562,
      MAX_LEASE_CAP,
      MAX_LEASE_CAP,
    ]);
    const host = new RateLimitHost({ max: 10_000_000, windowMs: WINDOW_MS, workers: 2 });
    try {
      const [used, , leased] = host.consume('client', 1, WINDOW_MS, Date.now(), 1_000_000);
      assert.equal(leased, MAX_LEASE_CAP);
      assert.equal(used, 1 + MAX_LEASE_CAP);
    } finally {
      host.close();
    }
  });

  test('consumeSync answers from the lease without a message, and defers to consume when the lease cannot cover a request', async (t) => {
    const cluster = fakeRateLimitCluster(1_000_000, 2);
    t.after(() => cluster.close());
    const [store] = cluster.stores;
    const [channel] = cluster.channels;
    const now = Date.now();
    // No lease yet: nothing to answer from.
    assert.equal(store!.consumeSync('client', 1, WINDOW_MS, now), undefined);
    assert.equal(channel!.sent, 0);
    const first = await store!.consume('client', 1, WINDOW_MS, now);
    assert.equal(channel!.sent, 1);
    assert.equal(first.used, 1);
    // With the first unit the primary leased a full lease (the client is far from its limit),
    // which pays for the next requests; more is asked for once half of it is used.
    const leased = leaseCap(1_000_000);
    const refillBelow = leased / 2;
    const answers = [];
    for (let index = 0; index < leased - refillBelow; index += 1)
      answers.push(store!.consumeSync('client', 1, WINDOW_MS, now));
    assert.ok(answers.every((answer) => answer !== undefined && answer.resetAt === first.resetAt));
    // Remaining count goes down one unit per request, as the host's count less what is still leased.
    assert.deepEqual(
      answers.map((answer) => answer!.used),
      answers.map((_, index) => 2 + index),
    );
    assert.equal(channel!.sent, 1, 'no message while more than half the lease is left');
    // Half the lease used: the next one asks for a refill in the background, and is still answered at once.
    assert.notEqual(store!.consumeSync('client', 1, WINDOW_MS, now), undefined);
    await delay(20);
    assert.equal(channel!.sent, 2);
    // A request costing more than the lease holds waits for the primary.
    assert.equal(store!.consumeSync('client', leased * 2, WINDOW_MS, now), undefined);
    // Another client has no lease here.
    assert.equal(store!.consumeSync('other', 1, WINDOW_MS, now), undefined);
  });

  test('leases are refilled before they run out: a steady client waits for the primary only once', async (t) => {
    const host = new RateLimitHost({ max: 1_000_000, windowMs: WINDOW_MS, workers: 2 });
    // A slow primary: 30 ms per answer.
    const channel = new FakeWorkerChannel(1, (from, message) => {
      setTimeout(() => host.handle({ send: (answer) => from.deliver(answer) }, message), 30);
    });
    const store = new IpcStore({ channel, timeoutMs: 5000 });
    t.after(async () => {
      await store.close();
      host.close();
    });
    const waits: number[] = [];
    for (let index = 0; index < 80; index += 1) {
      const started = performance.now();
      await store.consume('client', 1, WINDOW_MS, Date.now());
      waits.push(performance.now() - started);
      await delay(4);
    }
    const slow = waits.filter((ms) => ms >= 25);
    // The first request waits for the first lease; every later one is admitted from a lease.
    assert.ok(waits[0]! >= 25, `the first request did not wait for the primary (${waits[0]} ms)`);
    assert.equal(slow.length, 1, `requests waited: ${slow.map((ms) => Math.round(ms)).join(', ')} ms`);
  });

  test('property: whatever the interleaving, never more than RATE_LIMIT_MAX, and at most (workers - 1) leases short of it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 2, max: 4 }),
        fc.array(
          fc.record({ worker: fc.nat({ max: 3 }), together: fc.integer({ min: 1, max: 12 }), spread: fc.boolean() }),
          { minLength: 1, maxLength: 40 },
        ),
        async (max, workers, rounds) => {
          const cluster = fakeRateLimitCluster(max, workers);
          const now = Date.now();
          let admitted = 0;
          let sent = 0;
          for (const { worker, together, spread } of rounds) {
            // `together` requests at once: all on one worker, or spread over the workers.
            const counts = await Promise.all(
              Array.from({ length: together }, (_, index) => {
                const store = cluster.stores[(worker + (spread ? index : 0)) % workers]!;
                return store.consume('client', 1, WINDOW_MS, now);
              }),
            );
            sent += together;
            admitted += counts.filter(({ used }) => used <= max).length;
          }
          await cluster.close();
          assert.ok(admitted <= max, `${admitted} admitted, limit ${max}`);
          const floor = Math.min(sent, max - (workers - 1) * leaseCap(max));
          assert.ok(admitted >= floor, `${admitted} admitted of ${sent} sent, limit ${max}, ${workers} workers`);
        },
      ),
      { numRuns: 150 },
    );
  });

  test('property: with costs above one unit, the units admitted never exceed RATE_LIMIT_MAX', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 300 }),
        fc.array(fc.record({ worker: fc.nat({ max: 1 }), cost: fc.integer({ min: 1, max: 40 }) }), {
          minLength: 1,
          maxLength: 60,
        }),
        async (max, requests) => {
          const cluster = fakeRateLimitCluster(max, 2);
          const now = Date.now();
          const counts = await Promise.all(
            requests.map(({ worker, cost }) => cluster.stores[worker]!.consume('client', cost, WINDOW_MS, now)),
          );
          await cluster.close();
          const admittedUnits = requests.reduce(
            (sum, { cost }, index) => sum + (counts[index]!.used <= max ? cost : 0),
            0,
          );
          assert.ok(admittedUnits <= max, `${admittedUnits} units admitted, limit ${max}`);
        },
      ),
      { numRuns: 150 },
    );
  });

  test('a primary that does not answer: the request is counted locally after the timeout, then locally at once, then the primary is asked again', async (t) => {
    const channel = new FakeWorkerChannel(1, () => undefined); // Never answers.
    const store = new IpcStore({ channel, timeoutMs: 100, localForMs: 400 });
    t.after(() => store.close());
    const now = Date.now();

    const started = performance.now();
    assert.equal((await store.consume('client', 1, WINDOW_MS, now)).used, 1);
    const waited = performance.now() - started;
    assert.ok(waited >= 90 && waited < 1000, `answered after ${Math.round(waited)} ms`);
    assert.equal(channel.sent, 1);

    // Within localForMs: local, without asking (and without waiting).
    const quick = performance.now();
    assert.equal((await store.consume('client', 1, WINDOW_MS, now)).used, 2);
    assert.ok(performance.now() - quick < 50);
    assert.equal(channel.sent, 1);

    await delay(450);
    void store.consume('client', 1, WINDOW_MS, now);
    await delay(20);
    assert.equal(channel.sent, 2, 'after localForMs the primary is asked again');
  });

  test('answers are matched to their batch by id, whatever their order', async (t) => {
    const answered: unknown[] = [];
    const channel = new FakeWorkerChannel(1, (_from, message) => answered.push(message));
    const store = new IpcStore({ channel, timeoutMs: 5000 });
    t.after(() => store.close());
    const now = Date.now();
    const first = store.consume('a', 1, WINDOW_MS, now);
    await delay(10);
    const second = store.consume('b', 1, WINDOW_MS, now);
    await delay(10);
    assert.equal(answered.length, 2);
    const [one, two] = answered as { id: number }[];
    // The second batch is answered first; no leases, so each count is the request's own.
    channel.deliver({ type: 'crypto-service:rate-limit:counts', id: two!.id, counts: [7, now + 1000, 0] });
    channel.deliver({ type: 'crypto-service:rate-limit:counts', id: one!.id, counts: [3, now + 2000, 0] });
    assert.deepEqual(await first, { used: 3, resetAt: now + 2000 });
    assert.deepEqual(await second, { used: 7, resetAt: now + 1000 });
  });

  test('close() leaves no request waiting', async () => {
    const channel = new FakeWorkerChannel(1, () => undefined);
    const store = new IpcStore({ channel, timeoutMs: 60_000 });
    const pending = store.consume('client', 1, WINDOW_MS, Date.now());
    await delay(10);
    await store.close();
    assert.equal((await pending).used, 1);
  });

  test('outside one of our clusters the store counts in this process, without a channel', async (t) => {
    const store = new IpcStore();
    t.after(() => store.close());
    const now = Date.now();
    assert.equal((await store.consume('client', 2, WINDOW_MS, now)).used, 2);
    assert.equal((await store.consume('client', 3, WINDOW_MS, now)).used, 5);
  });
});

describe('metrics gathering, in one process', () => {
  function workerRegistry(hashes: number): Registry {
    const registry = new Registry();
    const counter = new Counter({
      name: 'http_requests_total',
      help: 'requests',
      labelNames: ['route'] as const,
      registers: [registry],
    });
    counter.inc({ route: '/v2/hash' }, hashes);
    return registry;
  }

  test('counters from every worker are summed; a worker that does not answer is left out after the timeout, and counted as missing', async (t) => {
    const registries = [workerRegistry(3), workerRegistry(4), workerRegistry(100)];
    let gatherer: MetricsGatherer | undefined;
    const channels = registries.map(
      (_registry, index) =>
        new FakeWorkerChannel(index + 1, (from, message) => {
          gatherer!.handle({ id: from.id, send: (answer) => from.deliver(answer) }, message);
        }),
    );
    // Workers 1 and 2 answer; worker 3 is stuck.
    const stops = [
      answerMetricsCollection(registries[0]!, channels[0]),
      answerMetricsCollection(registries[1]!, channels[1]),
    ];
    t.after(() => stops.forEach((stop) => stop()));
    gatherer = new MetricsGatherer(
      new Registry(),
      () => channels.map((channel) => ({ id: channel.id, send: (message) => channel.deliver(message) })),
      200,
    );

    const started = performance.now();
    const text = await gatherer.gather();
    assert.ok(performance.now() - started >= 190, 'it waited for the stuck worker until the timeout');
    assert.match(text, /^http_requests_total\{route="\/v2\/hash"\} 7$/m);
    assert.match(text, /^cluster_metrics_missing_workers 1$/m);

    // A scrape through a worker's channel gets the same merged text.
    const scraped = await metricsExposition(new Registry(), channels[0], 2000);
    assert.match(scraped.body, /^http_requests_total\{route="\/v2\/hash"\} 7$/m);
    assert.match(scraped.contentType, /^text\/plain/);
  });

  test('when every worker answers, the scrape does not wait for the timeout', async (t) => {
    const registries = [workerRegistry(1), workerRegistry(2)];
    let gatherer: MetricsGatherer | undefined;
    const channels = registries.map(
      (_registry, index) =>
        new FakeWorkerChannel(index + 1, (from, message) => {
          gatherer!.handle({ id: from.id, send: (answer) => from.deliver(answer) }, message);
        }),
    );
    const stops = registries.map((registry, index) => answerMetricsCollection(registry, channels[index]));
    t.after(() => stops.forEach((stop) => stop()));
    gatherer = new MetricsGatherer(
      new Registry(),
      () => channels.map((channel) => ({ id: channel.id, send: (message) => channel.deliver(message) })),
      5000,
    );
    const started = performance.now();
    const text = await gatherer.gather();
    assert.ok(performance.now() - started < 2000);
    assert.match(text, /^http_requests_total\{route="\/v2\/hash"\} 3$/m);
    assert.match(text, /^cluster_metrics_missing_workers 0$/m);
  });

  test('a primary that does not answer the scrape: the worker answers with its own figures, and says so', async () => {
    const channel = new FakeWorkerChannel(1, () => undefined);
    const started = performance.now();
    const own = await metricsExposition(workerRegistry(5), channel, 150);
    assert.ok(performance.now() - started < 2000);
    assert.match(own.body, /^# The cluster's merged figures are unavailable/m);
    assert.match(own.body, /^http_requests_total\{route="\/v2\/hash"\} 5$/m);
  });

  test('outside cluster mode /metrics is the registry itself', async () => {
    const registry = workerRegistry(2);
    const exposition = await metricsExposition(registry);
    assert.equal(exposition.body, await registry.metrics());
  });
});

test('restart budget: at most `max` restarts within any window', () => {
  const budget = new RestartBudget(3, 60_000);
  assert.equal(budget.tryRestart(0), true);
  assert.equal(budget.tryRestart(10_000), true);
  assert.equal(budget.tryRestart(20_000), true);
  assert.equal(budget.tryRestart(30_000), false);
  assert.equal(budget.tryRestart(59_999), false);
  // The first restart leaves the window at 60 s: one more is allowed, and not two.
  assert.equal(budget.tryRestart(60_000), true);
  assert.equal(budget.tryRestart(60_001), false);
  assert.equal(budget.tryRestart(80_000), true);
});

// ---------------------------------------------------------------------------------------------
// Real processes.
// ---------------------------------------------------------------------------------------------

const TIMEOUT = { timeout: 60_000 };
const CLUSTER_READY_MS = 30_000;

const isPrimary = (line: LogLine) => line.role === 'primary';
const isClusterReady = (line: LogLine) => isPrimary(line) && line.msg.startsWith('cluster ready');
const isWorkerStarted = (line: LogLine) => isPrimary(line) && line.msg === 'worker started';
const isHashCompleted = (line: LogLine) =>
  line.msg === 'request completed' && (line.req as { url?: string } | undefined)?.url === '/v2/hash';

interface Cluster {
  server: ServerProcess;
  baseUrl: string;
  /** The workers' pids from the "cluster ready" line. */
  workerPids: number[];
}

/** Starts the server with WORKERS (2 unless env says) and waits until every worker listens. */
async function startCluster(env: Env = {}): Promise<Cluster> {
  for (let attempt = 1; ; attempt += 1) {
    const server = new ServerProcess({ WORKERS: '2', PORT: String(await freePort()), ...env });
    try {
      const ready = await server.waitForLog(isClusterReady, CLUSTER_READY_MS, 'the "cluster ready" line');
      await server.ready(1000);
      return { server, baseUrl: server.baseUrl, workerPids: ready.workerPids as number[] };
    } catch (error) {
      await killTree(server);
      // The port was taken between freePort() and the listen: once more on another one.
      if (server.stderr().includes('already in use') && attempt < 3) continue;
      throw error;
    }
  }
}

/** Every worker pid the primary has announced. */
function announcedWorkerPids(server: ServerProcess): number[] {
  return server
    .logs()
    .filter(isWorkerStarted)
    .map((line) => line.workerPid as number);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** Waits (briefly) until none of `pids` is alive; returns those still alive. */
async function survivors(pids: number[], timeoutMs = 3000): Promise<number[]> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const alive = pids.filter(isAlive);
    if (alive.length === 0 || performance.now() > deadline) return alive;
    await delay(50);
  }
}

/** The test's clean-up: the primary and every worker it announced, whatever state a failed test left. */
async function killTree(server: ServerProcess): Promise<void> {
  for (const pid of announcedWorkerPids(server)) {
    try {
      process.kill(pid, 'SIGCONT');
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  await server.kill();
}

const hashOnce = (baseUrl: string) => postJson(`${baseUrl}/v2/hash`, { algorithm: 'sha256', data: 'abc' });

/** The pids that logged the completion of the first `count` /v2/hash requests. */
async function hashPids(server: ServerProcess, count: number): Promise<number[]> {
  const lines = await server.waitForLogs(isHashCompleted, count, 5000);
  return lines.map((line) => line.pid as number);
}

/** The semi-space flags on a process's command line (Linux's /proc, as the CI runs). */
function v8FlagsOf(pid: number): string[] {
  return readFileSync(`/proc/${pid}/cmdline`, 'utf8')
    .split('\0')
    .filter((argument) => argument.startsWith('--') && argument.includes('semi-space'));
}

function metricValue(text: string, line: RegExp): number | undefined {
  const match = line.exec(text);
  return match === null ? undefined : Number(match[1]);
}

const HASH_200 = /^http_requests_total\{method="POST",route="\/v2\/hash",status_code="200"\} (\d+)$/m;

describe('cluster mode, real processes', () => {
  test(
    'WORKERS=2: two worker processes serve; warnings are logged once; /metrics adds up every worker; SIGTERM stops all with exit 0',
    TIMEOUT,
    async (t) => {
      const { server, baseUrl, workerPids } = await startCluster();
      t.after(() => killTree(server));
      assert.equal(workerPids.length, 2);
      assert.equal(new Set([...workerPids, server.process.pid]).size, 3);
      // The primary was started with the server's V8 flags; node:cluster forks with its execArgv.
      for (const pid of workerPids)
        assert.deepEqual(v8FlagsOf(pid), [...SERVER_V8_FLAGS], `worker ${pid}'s command line`);
      // NODE_ENV=test without credentials: one development-mode warning for the cluster, from the primary.
      const warnings = server.logs().filter((line) => line.msg.includes('development mode'));
      assert.equal(warnings.length, 1, server.output());
      assert.equal(warnings[0]!.pid, server.process.pid);

      const sent = 10;
      for (let index = 0; index < sent; index += 1) {
        const response = await hashOnce(baseUrl);
        assert.equal(response.status, 200);
        assert.deepEqual(response.json(), { data: ABC_SHA256 });
      }
      const servedBy = new Set(await hashPids(server, sent));
      assert.deepEqual([...servedBy].sort(), [...workerPids].sort(), 'both workers served, and nothing else did');

      // Each scrape reaches one worker; both give the host's total.
      for (let scrape = 0; scrape < 2; scrape += 1) {
        const metrics = await request(`${baseUrl}/metrics`);
        assert.equal(metrics.status, 200);
        assert.match(String(metrics.headers['content-type']), /^text\/plain/);
        assert.equal(metricValue(metrics.body, HASH_200), sent, metrics.body);
        assert.equal(metricValue(metrics.body, /^cluster_workers (\d+)$/m), 2);
        assert.equal(metricValue(metrics.body, /^cluster_metrics_missing_workers (\d+)$/m), 0);
      }

      assert.deepEqual(await server.stop(15_000), { code: 0, signal: null });
      assert.deepEqual(await survivors(workerPids), []);
    },
  );

  test(
    'SIGTERM drains: a request still uploading completes on its worker, then every process exits, the primary with 0',
    TIMEOUT,
    async (t) => {
      const { server, baseUrl, workerPids } = await startCluster({ LOG_LEVEL: 'debug' });
      t.after(() => killTree(server));

      const body = JSON.stringify({ algorithm: 'sha256', data: 'abc' });
      const half = Math.floor(body.length / 2);
      const upload = openRequest(`${baseUrl}/v2/hash`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
        timeoutMs: 15_000,
      });
      await upload.write(body.slice(0, half));
      const incoming = await server.waitForLog(
        (line) => line.msg === 'incoming request' && (line.req as { url?: string }).url === '/v2/hash',
        5000,
      );
      await delay(100);

      server.signal('SIGTERM');
      await server.waitForLog((line) => isPrimary(line) && line.msg.startsWith('shutting down'), 5000);
      // Every worker drains (the one with the upload too), the primary waits for them.
      await server.waitForLogs((line) => !isPrimary(line) && line.msg.startsWith('shutting down'), 2, 5000);
      await delay(300);
      assert.equal(server.hasExited, false, 'the primary must wait for the request in flight');
      assert.ok(isAlive(incoming.pid as number), 'the worker with the request in flight must wait for it');

      upload.end(body.slice(half));
      const response = await upload.response;
      assert.equal(response.status, 200);
      assert.deepEqual(response.json(), { data: ABC_SHA256 });

      assert.deepEqual(await waitForExit(server.process, 10_000), { code: 0, signal: null });
      assert.deepEqual(await survivors(workerPids), []);
      const exits = server.logs().filter((line) => isPrimary(line) && line.msg === 'worker exited');
      assert.deepEqual(
        exits.map((line) => line.code),
        [0, 0],
        server.output(),
      );
    },
  );

  test(
    'Ctrl-C (SIGINT to the primary and every worker at once) still drains once, through the primary, with exit 0',
    TIMEOUT,
    async (t) => {
      const { server, workerPids } = await startCluster();
      t.after(() => killTree(server));
      // What a terminal does: the signal reaches every process of the foreground group.
      for (const pid of [server.process.pid!, ...workerPids]) process.kill(pid, 'SIGINT');
      assert.deepEqual(await waitForExit(server.process, 15_000), { code: 0, signal: null });
      assert.deepEqual(await survivors(workerPids), []);
      // The workers ignored the terminal's SIGINT and drained on the primary's SIGTERM.
      const drains = server.logs().filter((line) => !isPrimary(line) && line.msg.startsWith('shutting down'));
      assert.deepEqual(
        drains.map((line) => line.signal),
        ['SIGTERM', 'SIGTERM'],
        server.output(),
      );
      assert.equal(
        server.logs().find((line) => isPrimary(line) && line.msg.startsWith('shutting down'))?.signal,
        'SIGINT',
      );
    },
  );

  test('a worker whose drain outlasts SHUTDOWN_TIMEOUT_MS exits 1, and so does the primary', TIMEOUT, async (t) => {
    const { server, baseUrl, workerPids } = await startCluster({ SHUTDOWN_TIMEOUT_MS: '500', LOG_LEVEL: 'debug' });
    t.after(() => killTree(server));
    const upload = openRequest(`${baseUrl}/v2/hash`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': '100' },
      timeoutMs: 15_000,
    });
    t.after(() => upload.destroy());
    await upload.write('{"algorithm":');
    await server.waitForLog(
      (line) => line.msg === 'incoming request' && (line.req as { url?: string }).url === '/v2/hash',
      5000,
    );
    await delay(100);

    const signalledAt = performance.now();
    server.signal('SIGTERM');
    assert.deepEqual(await waitForExit(server.process, 10_000), { code: 1, signal: null });
    const elapsed = performance.now() - signalledAt;
    assert.ok(elapsed >= 400, `exited after ${Math.round(elapsed)} ms, before the workers' 500 ms shutdown timeout`);
    // The worker with the unfinished upload forced its own exit (1); the idle one exited 0.
    const exits = server.logs().filter((line) => isPrimary(line) && line.msg === 'worker exited');
    assert.deepEqual(exits.map((line) => line.code).sort(), [0, 1], server.output());
    assert.deepEqual(await survivors(workerPids), []);
  });

  test(
    'a worker that does not drain at all (stopped): at SHUTDOWN_TIMEOUT_MS plus the margin the primary kills it and exits 1',
    TIMEOUT,
    async (t) => {
      const { server, workerPids } = await startCluster({ SHUTDOWN_TIMEOUT_MS: '300' });
      t.after(() => killTree(server));
      const [stuck, healthy] = workerPids as [number, number];
      process.kill(stuck, 'SIGSTOP');

      const signalledAt = performance.now();
      server.signal('SIGTERM');
      // The healthy worker drains at once; the primary waits for the stuck one until 300 + 2000 ms.
      assert.deepEqual(await waitForExit(server.process, 15_000), { code: 1, signal: null });
      const elapsed = performance.now() - signalledAt;
      assert.ok(elapsed >= 2200, `exited after ${Math.round(elapsed)} ms, before SHUTDOWN_TIMEOUT_MS plus the margin`);
      const forced = server.logs().find((line) => isPrimary(line) && line.msg.startsWith('shutdown timed out'));
      assert.ok(forced !== undefined, server.output());
      assert.deepEqual(forced.workerPids, [stuck]);
      assert.deepEqual(await survivors([stuck, healthy]), []);
    },
  );

  test('SIGTERM while the workers are still starting: they stop, the primary exits 0', TIMEOUT, async (t) => {
    // The workers' rate-limit store is a "Redis" that accepts connections and never answers, so
    // each worker waits for its start-up check (2 s, the Redis connect timeout) before it listens.
    // Without it the workers could be listening, and the cluster ready, within a few hundred ms of
    // the forks: a test process that stalled that long would signal too late.
    const redisSockets = new Set<net.Socket>();
    const frozenRedis = net.createServer((socket) => {
      redisSockets.add(socket.on('error', () => {}));
    });
    frozenRedis.listen(0, '127.0.0.1');
    await once(frozenRedis, 'listening');
    t.after(() => {
      for (const socket of redisSockets) socket.destroy();
      frozenRedis.close();
    });
    const redisPort = (frozenRedis.address() as net.AddressInfo).port;
    const server = new ServerProcess({
      WORKERS: '2',
      PORT: String(await freePort()),
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    });
    t.after(() => killTree(server));
    await server.waitForLogs(isWorkerStarted, 2, CLUSTER_READY_MS);
    server.signal('SIGTERM');
    assert.deepEqual(await waitForExit(server.process, 15_000), { code: 0, signal: null });
    assert.equal(server.logs().some(isClusterReady), false, 'the signal was meant to arrive during the start');
    assert.deepEqual(await survivors(announcedWorkerPids(server)), []);
  });

  test('a worker that dies is replaced; the replacement serves; restarts show in /metrics', TIMEOUT, async (t) => {
    const { server, baseUrl, workerPids } = await startCluster();
    t.after(() => killTree(server));
    const [victim, survivor] = workerPids as [number, number];

    process.kill(victim, 'SIGKILL');
    const replaced = await server.waitForLog(
      (line) => isPrimary(line) && line.msg === 'worker exited; starting a replacement',
      10_000,
    );
    assert.equal(replaced.workerPid, victim);
    assert.equal(replaced.signal, 'SIGKILL');
    const listening = await server.waitForLog(
      (line) => isPrimary(line) && line.msg === 'replacement worker listening',
      CLUSTER_READY_MS,
    );
    const newcomer = listening.workerPid as number;
    assert.ok(![victim, survivor].includes(newcomer));

    // New connections alternate between the workers: the newcomer serves within a few requests.
    for (let index = 0; index < 6; index += 1) assert.equal((await hashOnce(baseUrl)).status, 200);
    const servedBy = new Set(await hashPids(server, 6));
    assert.ok(servedBy.has(newcomer), `the replacement (${newcomer}) served none of ${[...servedBy].join(', ')}`);
    assert.ok(!servedBy.has(victim));

    const metrics = await request(`${baseUrl}/metrics`);
    assert.equal(metricValue(metrics.body, /^cluster_worker_restarts_total (\d+)$/m), 1);
    assert.equal(metricValue(metrics.body, /^cluster_workers (\d+)$/m), 2);

    assert.deepEqual(await server.stop(15_000), { code: 0, signal: null });
    assert.deepEqual(await survivors([survivor, newcomer]), []);
  });

  test(
    'workers that keep dying: past the restart budget the primary stops everything and exits 1',
    TIMEOUT,
    async (t) => {
      const { server } = await startCluster();
      t.after(() => killTree(server));
      // WORKERS=2: max(5, 2) = 5 replacements per minute. Kill a worker each time one is started.
      let kills = 0;
      while (!server.hasExited && kills < 10) {
        const pids = announcedWorkerPids(server);
        const target = pids[kills];
        if (target === undefined) {
          await delay(20);
          continue;
        }
        try {
          process.kill(target, 'SIGKILL');
        } catch {
          // Already gone.
        }
        kills += 1;
        await Promise.race([
          server.waitForLogs(isWorkerStarted, kills + 2, 10_000).catch(() => undefined),
          server.exited,
        ]);
      }
      assert.deepEqual(await waitForExit(server.process, 15_000), { code: 1, signal: null });
      assert.equal(kills, 6, `the primary gave up after ${kills} deaths; output:\n${server.output()}`);
      assert.equal(server.logs().filter(isWorkerStarted).length, 2 + 5);
      assert.ok(
        server.logs().some((line) => isPrimary(line) && line.msg.startsWith('workers keep exiting')),
        server.output(),
      );
      assert.deepEqual(await survivors(announcedWorkerPids(server)), []);
    },
  );

  test('WORKERS=auto starts one worker per available core', TIMEOUT, async (t) => {
    const cores = availableParallelism();
    if (cores === 1) {
      // One core: auto means one process, no cluster at all.
      const server = new ServerProcess({ WORKERS: 'auto', PORT: String(await freePort()) });
      t.after(() => server.kill());
      await server.ready(CLUSTER_READY_MS);
      assert.equal(server.logs().some(isPrimary), false);
      assert.deepEqual(await server.stop(15_000), { code: 0, signal: null });
      return;
    }
    const { server, workerPids } = await startCluster({ WORKERS: 'auto' });
    t.after(() => killTree(server));
    assert.equal(workerPids.length, cores);
    assert.equal(server.logs().filter(isWorkerStarted).length, cores);
    assert.deepEqual(await server.stop(15_000), { code: 0, signal: null });
    assert.deepEqual(await survivors(workerPids), []);
  });

  const badValues: { name: string; env: Env; variable: string }[] = [
    { name: 'PORT=abc with WORKERS=2', env: { WORKERS: '2', PORT: 'abc' }, variable: 'PORT' },
    { name: 'WORKERS=many', env: { WORKERS: 'many' }, variable: 'WORKERS' },
    { name: 'WORKERS=0', env: { WORKERS: '0' }, variable: 'WORKERS' },
  ];
  for (const { name, env, variable } of badValues) {
    test(`a bad variable stops the start once, before any worker, with exit code 1: ${name}`, TIMEOUT, async () => {
      const result = await runServerToExit(env);
      assert.deepEqual(
        { code: result.code, signal: result.signal },
        { code: 1, signal: null },
        result.stdout + result.stderr,
      );
      const errors = result.stderr.split('\n').filter((line) => line.includes('configuration error'));
      assert.equal(errors.length, 1, result.stderr);
      assert.match(errors[0]!, new RegExp(`^crypto-service: configuration error: ${variable}: `));
      assert.doesNotMatch(result.stdout, /worker started/);
    });
  }

  test(
    'a port already in use: the workers cannot start, the primary stops them all and exits 1',
    TIMEOUT,
    async (t) => {
      const blocker = net.createServer();
      blocker.listen(0, '127.0.0.1');
      await once(blocker, 'listening');
      t.after(() => blocker.close());
      const port = (blocker.address() as net.AddressInfo).port;

      const server = new ServerProcess({ WORKERS: '2', PORT: String(port) });
      t.after(() => killTree(server));
      assert.deepEqual(await waitForExit(server.process, CLUSTER_READY_MS), { code: 1, signal: null });
      assert.match(server.stderr(), /already in use/);
      assert.ok(
        server
          .logs()
          .some((line) => isPrimary(line) && line.msg.startsWith('a worker exited before the cluster was up')),
        server.output(),
      );
      assert.equal(server.logs().some(isClusterReady), false);
      assert.deepEqual(await survivors(announcedWorkerPids(server)), []);
    },
  );

  test('RATE_LIMIT_MAX=5: one limit for the host, whichever worker answers', TIMEOUT, async (t) => {
    const { server, baseUrl, workerPids } = await startCluster({ RATE_LIMIT_MAX: '5' });
    t.after(() => killTree(server));
    const statuses: number[] = [];
    const remaining: string[] = [];
    // Each request on a new connection: the primary hands connections to the workers in turn.
    for (let index = 0; index < 8; index += 1) {
      const response = await hashOnce(baseUrl);
      statuses.push(response.status);
      remaining.push(String(response.headers.ratelimit));
    }
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429, 429, 429]);
    assert.deepEqual(
      remaining.slice(0, 5).map((header) => /r=(\d+)/.exec(header)?.[1]),
      ['4', '3', '2', '1', '0'],
    );
    const servedBy = new Set(await hashPids(server, 8));
    assert.deepEqual([...servedBy].sort(), [...workerPids].sort(), 'the requests were spread over both workers');
    assert.deepEqual(await server.stop(15_000), { code: 0, signal: null });
  });

  test(
    'RATE_LIMIT_MAX=100 with concurrent connections (leases in play): never more than 100, at most one lease short',
    TIMEOUT,
    async (t) => {
      const { server, baseUrl } = await startCluster({ RATE_LIMIT_MAX: '100' });
      t.after(() => killTree(server));
      const statuses: number[] = [];
      for (let batch = 0; batch < 14; batch += 1) {
        const responses = await Promise.all(Array.from({ length: 10 }, () => hashOnce(baseUrl)));
        statuses.push(...responses.map((response) => response.status));
      }
      const ok = statuses.filter((status) => status === 200).length;
      assert.equal(ok + statuses.filter((status) => status === 429).length, 140, `statuses: ${statuses.join(' ')}`);
      assert.ok(ok <= 100, `${ok} requests admitted over a limit of 100`);
      assert.ok(ok >= 100 - leaseCap(100), `only ${ok} requests admitted of 100`);
      assert.deepEqual(await server.stop(15_000), { code: 0, signal: null });
    },
  );

  test(
    "/metrics does not hang on a stopped worker: the others' figures, and the missing one counted",
    TIMEOUT,
    async (t) => {
      const { server, baseUrl, workerPids } = await startCluster();
      t.after(() => killTree(server));
      const [stopped] = workerPids as [number, number];
      process.kill(stopped, 'SIGSTOP');
      t.after(() => {
        if (isAlive(stopped)) process.kill(stopped, 'SIGCONT');
      });

      // A connection handed to the stopped worker would wait for it: another try goes to the live one.
      let scraped: { status: number; body: string } | undefined;
      for (let attempt = 0; attempt < 3 && scraped === undefined; attempt += 1) {
        const result = await request(`${baseUrl}/metrics`, { timeoutMs: 5000 }).catch(() => undefined);
        if (result !== undefined) scraped = result;
      }
      assert.ok(scraped !== undefined, 'no /metrics answer in three tries');
      assert.equal(scraped.status, 200);
      assert.equal(metricValue(scraped.body, /^cluster_metrics_missing_workers (\d+)$/m), 1, scraped.body);

      process.kill(stopped, 'SIGCONT');
      const later = await outcome(request(`${baseUrl}/live`, { timeoutMs: 5000 }));
      assert.deepEqual(later, { status: 200 });
      assert.deepEqual(await server.stop(15_000), { code: 0, signal: null });
    },
  );
});
