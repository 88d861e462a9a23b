/**
 * The shared rate-limit store (REDIS_URL) against a real redis-server: apps built in this process
 * that share one Redis share one limit per client, counted (with route costs) in Redis; and during
 * an outage each RATE_LIMIT_FAILURE_MODE does what it says, no request hangs or fails with 500, the
 * probes keep answering, the outage is logged once and its end once, and the password in
 * REDIS_URL never reaches a log line.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import type { FastifyBaseLogger, FastifyInstance, LightMyRequestResponse } from 'fastify';
import { testApp } from './helpers.ts';
import { startRedisServer, type RedisServer } from './redis-server.ts';
import { KEY_PREFIX } from '../src/rate-limit/redis-store.ts';
import { FailoverStore, PROBE_KEY, UNCOUNTED, type FailoverOptions } from '../src/rate-limit/failover-store.ts';
import type { RateLimitStore, WindowCount } from '../src/rate-limit/store.ts';
import { ApiError } from '../src/errors.ts';
import { keyGenerationCost, PQ_RATE_LIMIT_COSTS, scryptCost } from '../src/rate-limit/costs.ts';

const HASH_BODY = { algorithm: 'sha256', data: 'abc' };
/** Every request in an outage must be answered well within this. */
const PROMPT_MS = 2000;
/**
 * REDIS_TIMEOUT_MS for every test but the one about time-outs: the default 200 ms is a production
 * value, and a CI machine busy with other tests can stall a loopback round trip that long, which
 * would (rightly) switch the store to its failure mode in the middle of a test about sharing.
 */
const TIMEOUT_ENV = { REDIS_TIMEOUT_MS: '1000' };

let redis: RedisServer;
before(async () => {
  redis = await startRedisServer();
});

/** A plain Redis client to look at the keys; it reconnects by itself after a restart. */
function inspector(url: string): Redis {
  const client = new Redis(url, { maxRetriesPerRequest: 3 });
  client.on('error', () => undefined);
  after(() => client.disconnect());
  return client;
}

interface Timed {
  response: LightMyRequestResponse;
  ms: number;
}

/** A request from the client address `ip`, timed. */
async function send(app: FastifyInstance, ip: string, url = '/v2/hash', body: unknown = HASH_BODY): Promise<Timed> {
  const started = performance.now();
  const response = await app.inject({
    method: 'POST',
    url,
    remoteAddress: ip,
    payload: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  return { response, ms: performance.now() - started };
}

/** The `r` (remaining units) of a RateLimit header, or undefined when there is none. */
function remaining(response: LightMyRequestResponse): number | undefined {
  const match = /^"default";r=(\d+);t=(\d+)$/.exec(String(response.headers.ratelimit ?? ''));
  return match === null ? undefined : Number(match[1]);
}

function resetSeconds(response: LightMyRequestResponse): number | undefined {
  const match = /^"default";r=(\d+);t=(\d+)$/.exec(String(response.headers.ratelimit ?? ''));
  return match === null ? undefined : Number(match[2]);
}

/** Log lines an app writes, parsed. */
function logCapture() {
  const raw: string[] = [];
  return {
    stream: { write: (line: string) => void raw.push(line) },
    text: () => raw.join(''),
    lines: () =>
      raw.map((line) => JSON.parse(line) as { level: number; msg: string; reason?: string; [field: string]: unknown }),
  };
}
const WARN = 40;
const INFO = 30;
const isOutageWarning = (line: { level: number; msg: string }) =>
  line.level === WARN && line.msg.startsWith('rate-limit store unavailable');
const isRecoveryInfo = (line: { level: number; msg: string }) =>
  line.level === INFO && line.msg.startsWith('rate-limit store available again');

/** From the registry itself: a /metrics scrape would be rate limited (counted) and cached. */
async function metric(app: FastifyInstance, pattern: RegExp): Promise<number | undefined> {
  const match = pattern.exec(await app.metricsRegistry.metrics());
  return match === null ? undefined : Number(match[1]);
}
const STORE_UP = /^rate_limit_store_up (\d+)$/m;

/** Polls until `check` holds; fails naming `what` after timeoutMs. */
async function until(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Starts Redis again if a test stopped it, and waits until `apps` use it again. */
async function restoreRedis(...apps: FastifyInstance[]): Promise<void> {
  if (!redis.running) await redis.start();
  for (const app of apps) await until(async () => (await metric(app, STORE_UP)) === 1, 'the app to use Redis again');
}

async function redisApps(
  count: number,
  env: Record<string, string>,
  options: Parameters<typeof testApp>[1] = {},
): Promise<FastifyInstance[]> {
  // A failed outage test may have left Redis stopped: the next test starts from a running one.
  if (!redis.running) await redis.start();
  const apps: FastifyInstance[] = [];
  for (let i = 0; i < count; i++) {
    const app = await testApp({ REDIS_URL: redis.url(), ...TIMEOUT_ENV, ...env }, i === 0 ? options : {});
    after(() => app.close());
    apps.push(app);
  }
  return apps;
}

describe('shared rate-limit store in Redis (REDIS_URL)', () => {
  test('two apps on one Redis enforce one limit per client, counted in Redis with the window as TTL', async () => {
    const [a, b] = await redisApps(2, { RATE_LIMIT_MAX: '5', RATE_LIMIT_WINDOW_MS: '60000' });
    assert.ok(a && b);
    const ip = '203.0.113.7';
    const statuses: number[] = [];
    const left: (number | undefined)[] = [];
    let last: LightMyRequestResponse | undefined;
    for (let i = 0; i < 7; i++) {
      const { response } = await send(i % 2 === 0 ? a : b, ip);
      statuses.push(response.statusCode);
      left.push(remaining(response));
      last = response;
    }
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429, 429]);
    assert.deepEqual(left, [4, 3, 2, 1, 0, 0, 0]);
    assert.ok(last);
    assert.equal(last.json().code, 'RATE_LIMITED');
    assert.equal(last.headers['ratelimit-policy'], '"default";q=5;w=60');
    const retryAfter = Number(last.headers['retry-after']);
    assert.ok(
      Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60,
      `Retry-After ${last.headers['retry-after']}`,
    );

    const client = inspector(redis.url());
    assert.equal(await client.get(`${KEY_PREFIX}${ip}`), '7');
    const ttl = await client.pttl(`${KEY_PREFIX}${ip}`);
    assert.ok(ttl > 0 && ttl <= 60_000, `PTTL ${ttl}`);
  });

  test("an IPv6 client's /64 has its own key, and the reset time comes from that key's TTL in Redis", async () => {
    const [a, b] = await redisApps(2, { RATE_LIMIT_MAX: '10', RATE_LIMIT_WINDOW_MS: '60000' });
    assert.ok(a && b);
    const ip = '2001:db8::42';
    const client = inspector(redis.url());
    // Another replica opened this window 55.5 s ago and counted 3 units.
    await client.set(`${KEY_PREFIX}2001:db8:0:0:0:0:0:0/64`, '3', 'PX', 4500);
    const first = (await send(a, ip)).response;
    const second = (await send(b, ip)).response;
    assert.deepEqual([remaining(first), remaining(second)], [6, 5]);
    for (const response of [first, second]) {
      const t = resetSeconds(response);
      assert.ok(
        t !== undefined && t >= 1 && t <= 5,
        `t=${t}: the window ends when the Redis key expires, not 60 s from now`,
      );
    }
    // Another address of the same /64 is the same client; the next /64 is untouched.
    assert.equal(remaining((await send(a, '2001:db8::43')).response), 4);
    assert.equal(remaining((await send(a, '2001:db8:0:1::43')).response), 9);
  });

  test('a window expires in Redis: past its end the client is served again', async () => {
    const [a, b] = await redisApps(2, { RATE_LIMIT_MAX: '2', RATE_LIMIT_WINDOW_MS: '1000' });
    assert.ok(a && b);
    const ip = '198.51.100.20';
    const statuses = [(await send(a, ip)).response.statusCode, (await send(b, ip)).response.statusCode];
    const over = (await send(a, ip)).response;
    statuses.push(over.statusCode);
    assert.deepEqual(statuses, [200, 200, 429]);
    assert.equal(over.headers['retry-after'], '1');
    const client = inspector(redis.url());
    await until(async () => (await client.exists(`${KEY_PREFIX}${ip}`)) === 0, 'the window key to expire', 5000);
    const again = (await send(b, ip)).response;
    assert.equal(again.statusCode, 200);
    assert.equal(remaining(again), 1);
  });

  test('route costs are charged in Redis, whichever app serves the request, the later charges included', async () => {
    const max = 40;
    const [a, b] = await redisApps(2, { RATE_LIMIT_MAX: String(max) });
    assert.ok(a && b);
    const ip = '192.0.2.55';
    // The route cost is charged on arrival, so a body the route then refuses still costs it.
    const kdf = (await send(a, ip, '/v2/kdf', {})).response;
    assert.equal(kdf.statusCode, 400);
    let used = 1;
    assert.equal(remaining(kdf), max - used);
    const slh = (await send(b, ip, '/v2/pq/slh-dsa/sign', {})).response;
    assert.equal(slh.statusCode, 400);
    used += PQ_RATE_LIMIT_COSTS.slhDsaSign;
    assert.equal(remaining(slh), max - used);
    // ML-DSA key generation: one unit on arrival, the rest once the body names the algorithm.
    const keygen = (await send(a, ip, '/v2/keys/generate', { algorithm: 'ml-dsa-44' })).response;
    assert.equal(keygen.statusCode, 200, keygen.body);
    used += keyGenerationCost('ml-dsa-44');
    assert.ok(keyGenerationCost('ml-dsa-44') > 1);
    assert.equal(remaining(keygen), max - used);
    // The largest scrypt is charged in full once its parameters are read, before any work.
    const params = { N: 2 ** 20, r: 2, p: 2 };
    assert.ok(used + scryptCost(params) > max);
    const refused = (await send(b, ip, '/v2/kdf', { algorithm: 'scrypt', password: 'pw', params })).response;
    assert.equal(refused.statusCode, 429);
    used += scryptCost(params);
    assert.equal(await inspector(redis.url()).get(`${KEY_PREFIX}${ip}`), String(used));
  });

  test('Redis down, RATE_LIMIT_FAILURE_MODE=local (the default): each process enforces the limit alone; one warning, one recovery line', async () => {
    const logs = logCapture();
    const [a, b] = await redisApps(2, { RATE_LIMIT_MAX: '3', LOG_LEVEL: 'info' }, { logStream: logs.stream });
    assert.ok(a && b);
    assert.equal((await send(a, '198.51.100.1')).response.statusCode, 200);
    assert.equal(await metric(a, STORE_UP), 1);

    await redis.stop();
    const ip = '198.51.100.2';
    const fromA: Timed[] = [];
    const fromB: Timed[] = [];
    for (let i = 0; i < 5; i++) fromA.push(await send(a, ip));
    for (let i = 0; i < 4; i++) fromB.push(await send(b, ip));
    assert.deepEqual(
      fromA.map((r) => r.response.statusCode),
      [200, 200, 200, 429, 429],
    );
    assert.deepEqual(
      fromB.map((r) => r.response.statusCode),
      [200, 200, 200, 429],
    );
    assert.deepEqual(
      fromA.slice(0, 3).map((r) => remaining(r.response)),
      [2, 1, 0],
    );
    for (const { ms } of [...fromA, ...fromB])
      assert.ok(ms < PROMPT_MS, `a request took ${ms.toFixed(0)} ms during the outage`);

    for (const url of ['/live', '/ready', '/health']) {
      assert.equal((await a.inject({ method: 'GET', url })).statusCode, 200, url);
    }
    assert.equal(await metric(a, STORE_UP), 0);
    // An error as a rule (connection refused); a time-out if the request beat the news of the closed socket.
    const failures =
      ((await metric(a, /^rate_limit_store_failures_total\{reason="error"\} (\d+)$/m)) ?? 0) +
      ((await metric(a, /^rate_limit_store_failures_total\{reason="timeout"\} (\d+)$/m)) ?? 0);
    assert.ok(failures >= 1, `failures_total ${failures}`);
    assert.equal(await metric(a, /^rate_limit_store_fallbacks_total\{mode="local"\} (\d+)$/m), 5);
    assert.equal(
      logs.lines().filter(isOutageWarning).length,
      1,
      'one warning for the whole outage, not one per request',
    );
    assert.equal(logs.lines().filter(isRecoveryInfo).length, 0);

    await restoreRedis(a, b);
    const warnings = logs.lines().filter(isOutageWarning);
    assert.equal(warnings.length, 1);
    assert.equal(warnings[0]?.failureMode, 'local');
    assert.equal(logs.lines().filter(isRecoveryInfo).length, 1);
    // Shared again: the two apps count one client together, in Redis.
    const ipAfter = '198.51.100.3';
    assert.deepEqual(
      [remaining((await send(a, ipAfter)).response), remaining((await send(b, ipAfter)).response)],
      [2, 1],
    );
    assert.equal(await inspector(redis.url()).get(`${KEY_PREFIX}${ipAfter}`), '2');
  });

  test('Redis down, RATE_LIMIT_FAILURE_MODE=open: requests pass, uncounted and without RateLimit headers', async () => {
    const [a] = await redisApps(1, { RATE_LIMIT_MAX: '2', RATE_LIMIT_FAILURE_MODE: 'open' });
    assert.ok(a);
    const ip = '198.51.100.10';
    assert.equal(remaining((await send(a, ip)).response), 1);

    await redis.stop();
    const results: Timed[] = [];
    for (let i = 0; i < 5; i++) results.push(await send(a, ip));
    assert.deepEqual(
      results.map((r) => r.response.statusCode),
      [200, 200, 200, 200, 200],
    );
    for (const { response, ms } of results) {
      assert.equal(response.headers.ratelimit, undefined);
      assert.equal(response.headers['ratelimit-policy'], undefined);
      assert.ok(ms < PROMPT_MS, `a request took ${ms.toFixed(0)} ms during the outage`);
    }
    assert.equal((await a.inject({ method: 'GET', url: '/ready' })).statusCode, 200);
    assert.equal(await metric(a, /^rate_limit_store_fallbacks_total\{mode="open"\} (\d+)$/m), 5);

    await restoreRedis(a);
    // Counted and limited again, in the restarted (and so empty) Redis.
    const back = [(await send(a, ip)).response, (await send(a, ip)).response, (await send(a, ip)).response];
    assert.deepEqual(
      back.map((response) => response.statusCode),
      [200, 200, 429],
    );
    assert.deepEqual(back.map(remaining), [1, 0, 0]);
    assert.equal(await inspector(redis.url()).get(`${KEY_PREFIX}${ip}`), '3');
  });

  test('Redis down, RATE_LIMIT_FAILURE_MODE=closed: a 503 problem with Retry-After; probes still answer', async () => {
    const [a] = await redisApps(1, { RATE_LIMIT_MAX: '100', RATE_LIMIT_FAILURE_MODE: 'closed' });
    assert.ok(a);
    const ip = '198.51.100.11';
    assert.equal((await send(a, ip)).response.statusCode, 200);

    await redis.stop();
    for (let i = 0; i < 3; i++) {
      const { response, ms } = await send(a, ip);
      assert.equal(response.statusCode, 503);
      assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
      const problem = response.json();
      assert.equal(problem.code, 'SERVICE_UNAVAILABLE');
      assert.equal(problem.status, 503);
      assert.equal(problem.error, problem.detail);
      assert.ok(Number(response.headers['retry-after']) >= 1, `Retry-After ${response.headers['retry-after']}`);
      assert.ok(ms < PROMPT_MS, `a request took ${ms.toFixed(0)} ms during the outage`);
    }
    for (const url of ['/live', '/ready', '/health']) {
      assert.equal((await a.inject({ method: 'GET', url })).statusCode, 200, url);
    }
    // /metrics does no work to refuse, and the outage is what it must show.
    const scrape = await a.inject({ method: 'GET', url: '/metrics' });
    assert.equal(scrape.statusCode, 200);
    assert.match(scrape.body, /^rate_limit_store_up(\{[^}]*\})? 0$/m);

    await restoreRedis(a);
    assert.equal((await send(a, ip)).response.statusCode, 200);
  });

  test('a frozen Redis: a request gives up on it after REDIS_TIMEOUT_MS and is counted locally; none hangs', async () => {
    const [a] = await redisApps(1, { RATE_LIMIT_MAX: '3', REDIS_TIMEOUT_MS: '100' });
    assert.ok(a);
    const ip = '198.51.100.12';
    // Connected (a request here could itself outlast 100 ms on a busy machine and count locally).
    assert.equal(await metric(a, STORE_UP), 1);

    redis.freeze();
    try {
      const first = await send(a, ip);
      assert.equal(first.response.statusCode, 200);
      // It waited for Redis, gave up, and counted the request in this process's own window.
      assert.equal(remaining(first.response), 2);
      const rest: Timed[] = [];
      for (let i = 0; i < 3; i++) rest.push(await send(a, ip));
      assert.deepEqual(
        rest.map((r) => r.response.statusCode),
        [200, 200, 429],
      );
      for (const { ms } of [first, ...rest])
        assert.ok(ms < PROMPT_MS, `a request took ${ms.toFixed(0)} ms with Redis frozen`);
      assert.ok(((await metric(a, /^rate_limit_store_failures_total\{reason="timeout"\} (\d+)$/m)) ?? 0) >= 1);
      assert.equal(await metric(a, STORE_UP), 0);
    } finally {
      redis.thaw();
    }
    await restoreRedis(a);
  });

  test('app.close() returns at once while Redis is down or frozen', async () => {
    const [stopped, frozen] = await redisApps(2, {});
    assert.ok(stopped && frozen);
    // Closing drops the connection rather than waiting for a server that cannot answer.
    const CLOSE_MS = 750;
    redis.freeze();
    try {
      const started = performance.now();
      await frozen.close();
      assert.ok(
        performance.now() - started < CLOSE_MS,
        `close took ${(performance.now() - started).toFixed(0)} ms with Redis frozen`,
      );
    } finally {
      redis.thaw();
    }
    await redis.stop();
    assert.equal((await send(stopped, '198.51.100.13')).response.statusCode, 200);
    const started = performance.now();
    await stopped.close();
    assert.ok(
      performance.now() - started < CLOSE_MS,
      `close took ${(performance.now() - started).toFixed(0)} ms with Redis stopped`,
    );
    await redis.start();
  });

  test('the password in REDIS_URL never reaches the logs, whether it is right or wrong', async () => {
    const password = `s3cr3t/${randomBytes(8).toString('hex')}@:x`;
    const wrong = `wrong-${randomBytes(8).toString('hex')}`;
    const guarded = await startRedisServer({ args: ['--requirepass', password] });
    const logs = logCapture();
    const good = await testApp(
      { REDIS_URL: guarded.url(password), RATE_LIMIT_MAX: '5', LOG_LEVEL: 'debug', ...TIMEOUT_ENV },
      { logStream: logs.stream },
    );
    after(() => good.close());
    const bad = await testApp(
      { REDIS_URL: guarded.url(wrong), RATE_LIMIT_MAX: '5', LOG_LEVEL: 'debug', ...TIMEOUT_ENV },
      { logStream: logs.stream },
    );
    after(() => bad.close());

    const ip = '203.0.113.99';
    assert.equal(remaining((await send(good, ip)).response), 4);
    const client = inspector(guarded.url(password));
    assert.equal(await client.get(`${KEY_PREFIX}${ip}`), '1', 'the right password reaches Redis');
    // The wrong password is an outage from the start: logged, and the requests still served.
    assert.equal((await send(bad, ip)).response.statusCode, 200);
    assert.equal(await metric(bad, STORE_UP), 0);

    await guarded.stop();
    assert.equal((await send(good, ip)).response.statusCode, 200);
    await guarded.start();
    await until(async () => (await metric(good, STORE_UP)) === 1, 'the app with the right password to use Redis again');

    const warnings = logs.lines().filter(isOutageWarning);
    assert.equal(warnings.length, 2, 'one outage for each app');
    assert.ok(
      warnings.some((line) => /WRONGPASS|NOAUTH|invalid password/i.test(String(line.reason))),
      JSON.stringify(warnings),
    );
    assert.equal(logs.lines().filter(isRecoveryInfo).length, 1);
    const text = logs.text();
    for (const secret of [password, encodeURIComponent(password), wrong]) {
      assert.equal(text.includes(secret), false, 'a password appears in the logs');
    }
  });
});

/** A shared store whose health the test switches, counting the calls that reach it. */
class FakeSharedStore implements RateLimitStore {
  behaviour: 'ok' | 'fail' | 'hang' = 'ok';
  calls: string[] = [];
  used = 0;
  closed = false;

  consume(key: string, cost: number, windowMs: number, now: number): Promise<WindowCount> {
    this.calls.push(key);
    if (this.behaviour === 'fail') return Promise.reject(new Error('connection refused'));
    if (this.behaviour === 'hang') return new Promise<WindowCount>(() => undefined);
    if (key !== PROBE_KEY) this.used += cost;
    return Promise.resolve({ used: this.used, resetAt: now + windowMs });
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

function fakeLogger() {
  const entries: { level: 'warn' | 'info'; msg: string; fields: Record<string, unknown> }[] = [];
  const record = (level: 'warn' | 'info') => (fields: Record<string, unknown>, msg: string) =>
    void entries.push({ level, msg, fields });
  const noop = () => undefined;
  const log = {
    warn: record('warn'),
    info: record('info'),
    error: noop,
    debug: noop,
    trace: noop,
    fatal: noop,
    child: () => log,
    level: 'info',
    silent: noop,
  };
  return { log: log as unknown as FastifyBaseLogger, entries };
}

function failover(
  shared: RateLimitStore,
  options: Partial<FailoverOptions>,
): { store: FailoverStore; entries: ReturnType<typeof fakeLogger>['entries'] } {
  const { log, entries } = fakeLogger();
  const store = new FailoverStore(shared, {
    name: 'fake',
    mode: 'local',
    timeoutMs: 50,
    windowMs: 60_000,
    probeIntervalMs: 60_000,
    log,
    ...options,
  });
  after(() => store.close());
  return { store, entries };
}

describe('FailoverStore: the failure-mode policy around a shared store', () => {
  test('while the shared store is down, requests no longer reach it: one warning, then the local count', async () => {
    const shared = new FakeSharedStore();
    shared.behaviour = 'fail';
    const { store, entries } = failover(shared, { mode: 'local' });
    await store.ready();
    assert.equal(store.up, false);
    assert.deepEqual(shared.calls, [PROBE_KEY], 'the start-up check found it down');
    const counts: number[] = [];
    for (let i = 0; i < 5; i++) counts.push((await store.consume('192.0.2.1', 2, 60_000, Date.now())).used);
    assert.deepEqual(counts, [2, 4, 6, 8, 10]);
    assert.deepEqual(shared.calls, [PROBE_KEY], 'no request waited on the store it knows is down');
    assert.deepEqual(
      entries.map((entry) => entry.level),
      ['warn'],
    );
    assert.equal(entries[0]?.fields.reason, 'connection refused');
  });

  test('a probe finds the store back: one info line, and requests go to it again', async () => {
    const shared = new FakeSharedStore();
    const { store, entries } = failover(shared, { mode: 'local', probeIntervalMs: 20 });
    await store.ready();
    assert.equal(store.up, true);
    assert.equal((await store.consume('192.0.2.2', 1, 60_000, Date.now())).used, 1);
    shared.behaviour = 'fail';
    await store.consume('192.0.2.2', 1, 60_000, Date.now());
    assert.equal(store.up, false);
    shared.behaviour = 'ok';
    await until(async () => store.up, 'the probe to find the store back', 5000);
    assert.equal(
      (await store.consume('192.0.2.2', 1, 60_000, Date.now())).used,
      2,
      'counted by the shared store again',
    );
    assert.deepEqual(
      entries.map((entry) => entry.level),
      ['info', 'warn', 'info'],
    );
    assert.match(entries[2]?.msg ?? '', /available again/);
  });

  test('a store that does not answer is given up on after timeoutMs', async () => {
    const shared = new FakeSharedStore();
    const { store } = failover(shared, { mode: 'local', timeoutMs: 50 });
    await store.ready();
    shared.behaviour = 'hang';
    const started = performance.now();
    const count = await store.consume('192.0.2.3', 1, 60_000, Date.now());
    assert.ok(performance.now() - started < PROMPT_MS);
    assert.equal(count.used, 1);
    assert.equal(store.up, false);
  });

  test('open answers UNCOUNTED; closed throws a 503 SERVICE_UNAVAILABLE with Retry-After', async () => {
    const openShared = new FakeSharedStore();
    openShared.behaviour = 'fail';
    const open = failover(openShared, { mode: 'open' }).store;
    await open.ready();
    assert.equal(await open.consume('192.0.2.4', 1, 60_000, Date.now()), UNCOUNTED);

    const closedShared = new FakeSharedStore();
    closedShared.behaviour = 'fail';
    const closed = failover(closedShared, { mode: 'closed', probeIntervalMs: 3000 }).store;
    await closed.ready();
    await assert.rejects(closed.consume('192.0.2.4', 1, 60_000, Date.now()), (error: unknown) => {
      assert.ok(error instanceof ApiError);
      assert.equal(error.code, 'SERVICE_UNAVAILABLE');
      assert.equal(error.headers['retry-after'], '3');
      return true;
    });
  });

  test('close() closes the shared store and stops probing', async () => {
    const shared = new FakeSharedStore();
    shared.behaviour = 'fail';
    const { store } = failover(shared, { probeIntervalMs: 20 });
    await store.ready();
    await store.close();
    assert.equal(shared.closed, true);
    const calls = shared.calls.length;
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(shared.calls.length, calls, 'no probe after close');
  });
});
