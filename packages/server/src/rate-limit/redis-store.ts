/**
 * The shared rate-limit store (REDIS_URL): fixed windows counted in Redis, so that every process
 * and replica enforces one limit per client.
 *
 * Data layout: one integer key per client, `crypto-service:ratelimit:<client address>` (IPv4 or
 * IPv6, as `request.ip` gives it), holding the units used in the current window and expiring when
 * the window ends. One Lua script adds the units and, when the key has no expiry yet (the first
 * use of a window), sets it to the window: atomic, in one round trip. It answers the new total and
 * the key's remaining TTL, and the end of the window is computed from that TTL, so every replica
 * gives the same answer whatever its own clock says.
 *
 * The client is set up to fail fast, never to wait: no offline queue (a command while disconnected
 * fails at once), no resending after a reconnect (a resent increment could count twice), a connect
 * timeout and a socket timeout (a frozen server is dropped), and reconnection forever with capped
 * backoff. What a failure means for the request is decided by failover-store.ts, which also bounds
 * every call by REDIS_TIMEOUT_MS.
 *
 * REDIS_URL may hold a password: nothing here logs the URL, and every error message that leaves
 * this module has the password scrubbed out.
 */
import { once } from 'node:events';
import type { FastifyBaseLogger } from 'fastify';
import { Redis } from 'ioredis';
import type { RateLimitConfig } from '../config.ts';
import type { RateLimitStore, WindowCount } from './store.ts';
import { FailoverStore } from './failover-store.ts';

export const KEY_PREFIX = 'crypto-service:ratelimit:';

/**
 * KEYS[1] the client's key; ARGV[1] units to add; ARGV[2] the window in ms. Returns { used, ttl }.
 * A key without an expiry is a window's first use (or a key someone wrote without one, which
 * would otherwise never reset): it gets the window as its TTL.
 */
const CONSUME_SCRIPT = `
local used = redis.call('INCRBY', KEYS[1], ARGV[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  ttl = tonumber(ARGV[2])
end
return { used, ttl }
`;

/** Reconnection delays: 100 ms, doubling up to this cap, then this often for as long as it takes. */
const MAX_RECONNECT_DELAY_MS = 2000;

/** A failure of the Redis store, its message free of the password. */
export class RedisStoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RedisStoreError';
  }
}

interface ScriptedRedis extends Redis {
  rateLimitConsume(key: string, cost: number, windowMs: number): Promise<unknown>;
}

export interface RedisStoreOptions {
  /** Longest wait for a TCP connection, and for any answer on an open one (a frozen server). */
  connectTimeoutMs: number;
}

export class RedisStore implements RateLimitStore {
  readonly #client: ScriptedRedis;
  readonly #prefix: string;
  readonly #secrets: string[];
  /** Why the last connection failed, for the outage warning; cleared once connected. */
  #lastError: string | undefined;
  #connectionSettled: Promise<void> | undefined;

  constructor(url: string, options: RedisStoreOptions) {
    this.#prefix = KEY_PREFIX;
    this.#secrets = secretsOf(url);
    this.#client = new Redis(url, {
      enableOfflineQueue: false,
      autoResendUnfulfilledCommands: false,
      maxRetriesPerRequest: 0,
      connectTimeout: options.connectTimeoutMs,
      socketTimeout: options.connectTimeoutMs,
      retryStrategy: (attempt) => Math.min(50 * 2 ** Math.min(attempt, 10), MAX_RECONNECT_DELAY_MS),
      connectionName: 'crypto-service-ratelimit',
    }) as ScriptedRedis;
    this.#client.defineCommand('rateLimitConsume', { numberOfKeys: 1, lua: CONSUME_SCRIPT });
    // Without a listener ioredis prints every connection error to stderr. The failover store
    // logs the outage once; here the latest cause is kept for that one line.
    this.#client.on('error', (error: Error) => {
      this.#lastError = this.#scrub(error.message);
    });
    this.#client.on('ready', () => {
      this.#lastError = undefined;
    });
  }

  async consume(key: string, cost: number, windowMs: number, now: number): Promise<WindowCount> {
    // A connection being set up (at start, or a reconnection under way) is worth waiting for:
    // the caller's time limit bounds the wait.
    if (this.#client.status === 'connecting' || this.#client.status === 'connect') await this.#connectionAttempt();
    if (this.#client.status !== 'ready') {
      const cause = this.#lastError === undefined ? '' : `; last error: ${this.#lastError}`;
      throw new RedisStoreError(`not connected to Redis (${this.#client.status}${cause})`);
    }
    let reply: unknown;
    try {
      reply = await this.#client.rateLimitConsume(this.#prefix + key, cost, windowMs);
    } catch (error) {
      // Never the error object itself: ioredis attaches the command and its arguments to it.
      throw new RedisStoreError(`Redis command failed: ${this.#scrub((error as Error).message)}`);
    }
    if (!Array.isArray(reply) || typeof reply[0] !== 'number' || typeof reply[1] !== 'number') {
      throw new RedisStoreError('unexpected reply from the Redis rate-limit script');
    }
    return { used: reply[0], resetAt: now + Math.max(0, reply[1]) };
  }

  /** Resolves when the connection attempt under way ends, however it ends. */
  #connectionAttempt(): Promise<void> {
    this.#connectionSettled ??= new Promise<void>((resolve) => {
      const settle = () => {
        this.#client.off('ready', settle).off('close', settle).off('end', settle);
        this.#connectionSettled = undefined;
        resolve();
      };
      this.#client.on('ready', settle).on('close', settle).on('end', settle);
    });
    return this.#connectionSettled;
  }

  /** Closes the connection and stops reconnecting; never waits on an unreachable server. */
  async close(): Promise<void> {
    const client = this.#client;
    const open = client.status === 'connecting' || client.status === 'connect' || client.status === 'ready';
    const ended = open ? once(client, 'end', { signal: AbortSignal.timeout(1000) }).catch(() => undefined) : undefined;
    client.disconnect();
    // disconnect() only half-closes the socket, which then waits for the server's answer; a
    // frozen server never gives it. Nothing is in flight once the app closes: drop the socket.
    client.stream?.destroy();
    await ended;
  }

  #scrub(text: string): string {
    let result = text;
    for (const secret of this.#secrets) result = result.replaceAll(secret, '***');
    return result;
  }
}

/** The password in a Redis URL, as written and decoded, so that either spelling can be scrubbed. */
function secretsOf(url: string): string[] {
  let password: string;
  try {
    password = new URL(url).password;
  } catch {
    return [];
  }
  if (password === '') return [];
  let decoded = password;
  try {
    decoded = decodeURIComponent(password);
  } catch {
    // A malformed escape: ioredis would fail on it too; scrub it as written.
  }
  return [...new Set([password, decoded])].sort((a, b) => b.length - a.length);
}

/** Where the URL points, for logs: host, port and database, never the credentials. */
export function describeRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname.length > 1 ? parsed.pathname : ''}`;
  } catch {
    return 'redis';
  }
}

/** The store create-store.ts uses when REDIS_URL is set: Redis, behind the failure-mode policy. */
export function createRedisStore(config: RateLimitConfig, log: FastifyBaseLogger): RateLimitStore {
  if (config.redisUrl === undefined) throw new Error('createRedisStore needs REDIS_URL');
  // Long enough for a TLS handshake to a managed Redis; a request never waits this long (it is
  // bounded by REDIS_TIMEOUT_MS), only the start-up check and the reconnections do.
  const connectTimeoutMs = Math.max(2000, 2 * config.redisTimeoutMs);
  const redis = new RedisStore(config.redisUrl, { connectTimeoutMs });
  return new FailoverStore(redis, {
    name: 'redis',
    address: describeRedisUrl(config.redisUrl),
    mode: config.failureMode,
    timeoutMs: config.redisTimeoutMs,
    startupTimeoutMs: connectTimeoutMs,
    windowMs: config.windowMs,
    log,
  });
}
