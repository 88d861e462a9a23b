/**
 * Two real server processes with the same REDIS_URL behave as one rate limiter: requests that
 * alternate between them are limited at exactly the shared RATE_LIMIT_MAX. And when Redis goes
 * away, both keep answering (each on its own count), stay ready, and still shut down cleanly.
 */
import { before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { postJson, request, startServer, untilReady, type StartedServer } from './helpers.ts';
import { startRedisServer, type RedisServer } from '../redis-server.ts';

const HASH_BODY = { algorithm: 'sha256', data: 'abc' };
const MAX = 5;

let redis: RedisServer;
before(async () => {
  redis = await startRedisServer();
});
// Every request here comes from 127.0.0.1: each test starts from an empty Redis.
beforeEach(async () => {
  const client = new Redis(redis.url());
  try {
    await client.flushall();
  } finally {
    client.disconnect();
  }
});

async function startPair(): Promise<[StartedServer, StartedServer]> {
  // A generous REDIS_TIMEOUT_MS: on a busy CI machine a loopback round trip can stall past the
  // default 200 ms, which would rightly switch a process to counting on its own.
  const env = {
    REDIS_URL: redis.url(),
    RATE_LIMIT_MAX: String(MAX),
    RATE_LIMIT_WINDOW_MS: '60000',
    REDIS_TIMEOUT_MS: '1000',
  };
  // Two processes starting at once on a busy 2-core CI machine (Node 22 loads slower): be patient.
  const servers = await Promise.all([
    startServer(env, { readyTimeoutMs: 30_000 }),
    startServer(env, { readyTimeoutMs: 30_000 }),
  ]);
  // Ready, not just listening: until the start-up self-tests have run, crypto routes answer 503.
  await Promise.all(servers.map((server) => untilReady(server)));
  return servers as [StartedServer, StartedServer];
}

function remaining(headers: Record<string, unknown>): number | undefined {
  const match = /^"default";r=(\d+);t=\d+$/.exec(String(headers.ratelimit ?? ''));
  return match === null ? undefined : Number(match[1]);
}

describe('two server processes sharing one Redis', () => {
  test('requests alternating between them are limited at exactly the shared maximum', async (t) => {
    const [a, b] = await startPair();
    t.after(() => Promise.all([a.kill(), b.kill()]));
    const statuses: number[] = [];
    const left: (number | undefined)[] = [];
    for (let i = 0; i < MAX + 3; i++) {
      const server = i % 2 === 0 ? a : b;
      const response = await postJson(`${server.baseUrl}/v2/hash`, HASH_BODY);
      statuses.push(response.status);
      left.push(remaining(response.headers));
      if (response.status === 429) {
        assert.ok(Number(response.headers['retry-after']) >= 1, 'a 429 carries Retry-After');
        assert.equal(response.headers['ratelimit-policy'], `"default";q=${MAX};w=60`);
      }
    }
    const expected = [...Array.from({ length: MAX }, () => 200), 429, 429, 429];
    assert.deepEqual(statuses, expected);
    assert.deepEqual(left, [...Array.from({ length: MAX }, (_, i) => MAX - 1 - i), 0, 0, 0]);
    // Each process alone would have allowed MAX: together they allowed MAX, not 2 × MAX.
    assert.equal(statuses.filter((status) => status === 200).length, MAX);
  });

  test('with Redis gone, both keep answering and stay ready, and still stop cleanly', async (t) => {
    const [a, b] = await startPair();
    t.after(() => Promise.all([a.kill(), b.kill()]));
    assert.equal((await postJson(`${a.baseUrl}/v2/hash`, HASH_BODY)).status, 200);

    await redis.stop();
    t.after(async () => {
      if (!redis.running) await redis.start();
    });
    for (const server of [a, b]) {
      const started = performance.now();
      const response = await postJson(`${server.baseUrl}/v2/hash`, HASH_BODY);
      assert.equal(response.status, 200);
      assert.ok(performance.now() - started < 2000, 'answered promptly');
      assert.equal((await request(`${server.baseUrl}/ready`)).status, 200);
      await server.waitForLog(
        (line) => line.level === 40 && line.msg.startsWith('rate-limit store unavailable'),
        5000,
        'the outage warning',
      );
    }
    for (const server of [a, b]) {
      const exit = await server.stop(5000);
      assert.deepEqual(exit, { code: 0, signal: null });
    }
  });
});
