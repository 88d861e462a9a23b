/**
 * Configuration: every environment variable of the service (docs/configuration.md), read once at
 * start, validated and typed. A bad value throws a ConfigError that names the
 * variable; the entry point prints it and exits with status 1.
 */
import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { SCRAPE_CACHE_MS } from './metrics-scrape-cache.ts';

/**
 * BATCH_MAX_ITEMS when unset; protocol's DEFAULT_BATCH_MAX_ITEMS, written out because the entry
 * point reads the configuration before it loads any workspace package.
 */
const DEFAULT_BATCH_MAX_ITEMS = 1000;

export type Protocol = 'http' | 'https';
export type NodeEnv = 'development' | 'production' | 'test';
export type LogLevel = 'error' | 'warn' | 'info' | 'debug' | 'silent';

export interface AuthConfig {
  /** Accepted API keys: one, or several during a rotation window (comma-separated). */
  apiKeys: string[];
  /** Accepted HS256 secrets: one, or several during a rotation window (comma-separated). */
  jwtSecrets: Uint8Array[];
  jwtIssuer: string | undefined;
  jwtAudience: string | undefined;
  /** A JWT whose lifetime (`exp` minus `iat`, or minus now without `iat`) is longer is refused. */
  jwtMaxTtlSeconds: number;
  allowAnonymous: boolean;
}

/** The deprecated /v1 OpenPGP routes. */
export interface V1Config {
  /** When /v1 was deprecated: the `Deprecation` header (RFC 9745). */
  deprecationDate: Date;
  /** When /v1 goes away: the `Sunset` header (RFC 8594). Never before deprecationDate. */
  sunsetDate: Date;
  /** Unlocks the server's own key in CRYPTO_KEY_DIR, when that key is locked. */
  keyPassphrase: string | undefined;
  /** Worker threads that run OpenPGP.js (one job each at a time). */
  workers: number;
  /** Jobs that may wait for a worker; one more is a 503. */
  queueLimit: number;
  /** A job running longer is stopped (its worker replaced) and answered 503. */
  jobTimeoutMs: number;
}

/** A bounded queue for expensive work (see work-queue.ts). */
export interface QueueConfig {
  concurrency: number;
  maxQueued: number;
  memoryBudgetBytes: number;
}

/**
 * What the rate limit does while its Redis store cannot be reached: `local` enforces the limit in
 * this process alone until Redis answers again, `open` lets every request through, `closed`
 * answers 503 (probes are never limited, so they keep answering).
 */
export type RateLimitFailureMode = 'local' | 'open' | 'closed';

export interface RateLimitConfig {
  max: number;
  windowMs: number;
  /** Shared store (redis:// or rediss://); undefined means each process counts on its own. */
  redisUrl: string | undefined;
  failureMode: RateLimitFailureMode;
  /** A Redis call slower than this counts as an outage for that request. */
  redisTimeoutMs: number;
}

/**
 * What a client's rate-limit bucket is keyed by: `address` (its normalised address, an IPv6 client
 * by its network prefix) or `credential` (an authenticated request by its API key or JWT `sub`,
 * everything else by address).
 */
export type RateLimitKeyKind = 'address' | 'credential';

export interface ClientKeyConfig {
  by: RateLimitKeyKind;
  /** IPv6 clients sharing this many leading bits share one bucket (one /64 is one subscriber). */
  ipv6PrefixLength: number;
}

/** Socket- and application-level time limits (slow clients, stuck handlers). */
export interface TimeoutConfig {
  /** The request line and headers must arrive within this (Node's headersTimeout). */
  headersMs: number;
  /** The whole request, body included, must arrive within this (Node's requestTimeout). */
  requestMs: number;
  /** A route that has not answered within this answers 503 (Fastify's handlerTimeout). */
  handlerMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveMs: number;
}

export interface Config {
  port: number;
  host: string;
  protocol: Protocol;
  nodeEnv: NodeEnv;
  logLevel: LogLevel;
  auth: AuthConfig;
  /** Allowed CORS origins; empty means CORS is off. `*` allows every origin (without credentials). */
  corsOrigins: string[];
  /** Proxies whose X-Forwarded-For is believed; empty means the socket address is the client. */
  trustedProxyCidrs: string[];
  keyDir: string | undefined;
  keyOutDir: string | undefined;
  v1: V1Config;
  shutdownTimeoutMs: number;
  rateLimit: RateLimitConfig;
  rateLimitKey: ClientKeyConfig;
  /** The bearer token /metrics requires; undefined leaves /metrics public. */
  metricsToken: string | undefined;
  /** METRICS_CACHE_MS: how long a rendered /metrics text is reused. */
  metricsCacheMs: number;
  /** Open connections one client address (IPv6: one prefix) may hold; 0 means no cap. */
  maxConnectionsPerIp: number;
  bodyLimitBytes: number;
  /** BATCH_MAX_ITEMS: the most items one batch request may hold. */
  batchMaxItems: number;
  /** STREAM_MAX_BYTES: the largest `data` part `/v2/stream/*` accept (BODY_LIMIT_BYTES does not apply). */
  streamMaxBytes: number;
  /** Server processes on this host (WORKERS; `auto` resolved to one per core). 1 = no cluster. */
  workers: number;
  timeouts: TimeoutConfig;
  /**
   * The nice value (0–19) of the threads that run heavy work (thread-priority.ts); 0 leaves them
   * at the event loop's priority.
   */
  heavyWorkNice: number;
  /** Argon2id (password routes) and scrypt/PBKDF2 (`/v2/kdf`) queues. */
  workQueues: { password: QueueConfig; kdf: QueueConfig };
  /** Heavy jobs (Argon2id, scrypt, PBKDF2, queued post-quantum work) one client may have in flight at once. */
  maxHeavyJobsPerClient: number;
  /**
   * How long a request refused because a work queue is full (Argon2id, scrypt/PBKDF2,
   * post-quantum, OpenPGP) waits before its 503 goes out, in ms (work-queue.ts says why).
   */
  busyRefusalDelayMs: number;
  tls: { cert: Buffer; key: Buffer } | undefined;
  /** Things worth a warning at start (development mode, anonymous production, short keys); not fatal. */
  warnings: string[];
}

export class ConfigError extends Error {
  readonly variable: string;
  constructor(variable: string, message: string) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
    this.variable = variable;
  }
}

type Env = Record<string, string | undefined>;

/** An unset variable and an empty one mean the same: use the default. */
function read(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function readEnum<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const value = read(env, name);
  if (value === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')} (got "${value}")`);
  }
  return value as T;
}

function readInteger(env: Env, name: string, fallback: number, min: number, max: number): number {
  const value = read(env, name);
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw new ConfigError(name, `must be a whole number (got "${value}")`);
  }
  const number = Number(value);
  if (number < min || number > max) {
    throw new ConfigError(name, `must be between ${min} and ${max} (got ${number})`);
  }
  return number;
}

function readBoolean(env: Env, name: string, fallback: boolean): boolean {
  const value = read(env, name)?.toLowerCase();
  if (value === undefined) return fallback;
  if (['true', '1', 'yes'].includes(value)) return true;
  if (['false', '0', 'no'].includes(value)) return false;
  throw new ConfigError(name, `must be true or false (got "${value}")`);
}

function readList(env: Env, name: string): string[] {
  const value = read(env, name);
  if (value === undefined) return [];
  const items = value.split(',').map((item) => item.trim());
  if (items.some((item) => item === '')) {
    throw new ConfigError(name, 'has an empty item in its comma-separated list');
  }
  return items;
}

function readOrigins(env: Env): string[] {
  const origins = readList(env, 'CORS_ORIGIN');
  for (const origin of origins) {
    if (origin === '*') continue;
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      throw new ConfigError('CORS_ORIGIN', `"${origin}" is not an origin such as https://app.example.com`);
    }
    if (!['http:', 'https:'].includes(url.protocol) || url.origin !== origin.replace(/\/$/, '')) {
      throw new ConfigError('CORS_ORIGIN', `"${origin}" is not an origin (scheme://host[:port], no path)`);
    }
  }
  // The literal "null" origin (sandboxed frames, file: pages) is never allowed: URL() refuses it above.
  return origins.map((origin) => origin.replace(/\/$/, ''));
}

function readCidrs(env: Env): string[] {
  const cidrs = readList(env, 'TRUSTED_PROXY_CIDRS');
  for (const cidr of cidrs) {
    const [address, prefix, ...rest] = cidr.split('/');
    const family = isIP(address ?? '');
    const maxPrefix = family === 6 ? 128 : 32;
    const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= maxPrefix);
    if (family === 0 || !prefixOk || rest.length > 0) {
      throw new ConfigError('TRUSTED_PROXY_CIDRS', `"${cidr}" is not an IP address or CIDR block`);
    }
    // Trusting every address would let any client write its own address in X-Forwarded-For.
    if (Number(prefix) === 0) {
      throw new ConfigError(
        'TRUSTED_PROXY_CIDRS',
        `"${cidr}" trusts every address as a proxy, so any client could choose the address it is rate limited by; list your proxies' addresses or subnets`,
      );
    }
  }
  return cidrs;
}

function readDirectory(env: Env, name: string, mode: number): string | undefined {
  const path = read(env, name);
  if (path === undefined) return undefined;
  try {
    if (!statSync(path).isDirectory()) {
      throw new ConfigError(name, `"${path}" is not a directory`);
    }
    accessSync(path, mode);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    const what = mode & constants.W_OK ? 'a writable' : 'a readable';
    throw new ConfigError(
      name,
      `"${path}" must be ${what} directory (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`,
    );
  }
  return path;
}

function readFile(env: Env, name: string): Buffer {
  const path = read(env, name);
  if (path === undefined) {
    throw new ConfigError(name, 'is required when PROTOCOL=https');
  }
  try {
    return readFileSync(path);
  } catch (error) {
    throw new ConfigError(name, `cannot read "${path}" (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/** Shortest JWT secret accepted: HS256 needs at least 256 bits of key (RFC 7518 §3.2). */
export const MIN_JWT_SECRET_BYTES = 32;
/** Shortest API key production accepts without ALLOW_WEAK_API_KEY: 32 characters of hex hold 128 bits. */
export const MIN_API_KEY_CHARS = 32;

/**
 * An API key travels in a header, whose bytes Node reads as Latin-1: a key with any other
 * character than printable ASCII could never match what a client sends, so it stops the start
 * rather than lock every client out without a word.
 */
const API_KEY_CHARACTERS = /^[\x20-\x7e]+$/;

function readAuth(env: Env, nodeEnv: NodeEnv, warnings: string[]): AuthConfig {
  const apiKeys = readList(env, 'CRYPTO_API_KEY');
  if (!apiKeys.every((key) => API_KEY_CHARACTERS.test(key))) {
    // The key itself is never repeated: the message is logged.
    throw new ConfigError(
      'CRYPTO_API_KEY',
      'a key has a character outside printable ASCII, which a header cannot carry as written; use hex or base64url',
    );
  }
  if (apiKeys.some((key) => key.length < MIN_API_KEY_CHARS)) {
    const weakAllowed = readBoolean(env, 'ALLOW_WEAK_API_KEY', false);
    if (nodeEnv === 'production' && !weakAllowed) {
      throw new ConfigError(
        'CRYPTO_API_KEY',
        `a key is shorter than ${MIN_API_KEY_CHARS} characters, which production refuses as guessable; use 32 random bytes in hex (openssl rand -hex 32), or set ALLOW_WEAK_API_KEY=true to mean it`,
      );
    }
    warnings.push(
      `CRYPTO_API_KEY: a key shorter than ${MIN_API_KEY_CHARS} characters is easy to guess; use 32 random bytes in hex`,
    );
  }
  const jwtSecrets = readList(env, 'JWT_SECRET').map((secret) => {
    const bytes = new TextEncoder().encode(secret);
    if (bytes.byteLength < MIN_JWT_SECRET_BYTES) {
      throw new ConfigError(
        'JWT_SECRET',
        `must be at least ${MIN_JWT_SECRET_BYTES} bytes for HS256 (got ${bytes.byteLength})`,
      );
    }
    return bytes;
  });
  const allowAnonymous = readBoolean(env, 'ALLOW_ANONYMOUS', false);
  if (apiKeys.length === 0 && jwtSecrets.length === 0) {
    if (nodeEnv === 'production' && !allowAnonymous) {
      throw new ConfigError(
        'ALLOW_ANONYMOUS',
        'NODE_ENV=production with neither CRYPTO_API_KEY nor JWT_SECRET set would serve everyone; set one of them, or ALLOW_ANONYMOUS=true to mean it',
      );
    }
    warnings.push(
      nodeEnv === 'production'
        ? 'ALLOW_ANONYMOUS=true and no CRYPTO_API_KEY or JWT_SECRET set: anonymous access is allowed in production, every request is served'
        : 'no CRYPTO_API_KEY or JWT_SECRET set: every request is allowed (development mode)',
    );
  }
  return {
    apiKeys,
    jwtSecrets,
    jwtIssuer: read(env, 'JWT_ISSUER'),
    jwtAudience: read(env, 'JWT_AUDIENCE'),
    jwtMaxTtlSeconds: readInteger(env, 'JWT_MAX_TTL_SECONDS', 86_400, 60, 31_536_000),
    allowAnonymous,
  };
}

const MIB = 1024 * 1024;
/**
 * The largest single job each queue must admit: Argon2id at its cap (m = 256 MiB) and scrypt at
 * its cap (128 · N · r = 256 MiB). A smaller budget would turn every capped request into a 503.
 */
const MIN_QUEUE_BUDGET_MIB = 256;

function readQueue(
  env: Env,
  prefix: 'PASSWORD' | 'KDF',
  defaults: { concurrency: number; maxQueued: number; budgetMib: number },
): QueueConfig {
  return {
    concurrency: readInteger(env, `${prefix}_CONCURRENCY`, defaults.concurrency, 1, 64),
    maxQueued: readInteger(env, `${prefix}_QUEUE_LIMIT`, defaults.maxQueued, 0, 10_000),
    memoryBudgetBytes:
      readInteger(env, `${prefix}_MEMORY_BUDGET_MIB`, defaults.budgetMib, MIN_QUEUE_BUDGET_MIB, 65_536) * MIB,
  };
}

/**
 * An ISO 8601 date (`2026-01-01`, midnight UTC) or date-time with a zone (`2026-01-01T12:00:00Z`,
 * `…+02:00`), to the second: the headers it feeds have no finer resolution. Checked field by field,
 * because Date.parse accepts impossible dates such as 2026-02-30 and silently moves them.
 */
function readDate(env: Env, name: string, fallback: string): Date {
  const value = read(env, name) ?? fallback;
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2}))?(Z|[+-]\d{2}:\d{2}))?$/.exec(value);
  const problem = () =>
    new ConfigError(name, `must be an ISO 8601 date such as 2026-01-01 or 2026-01-01T00:00:00Z (got "${value}")`);
  if (match === null) throw problem();
  const [year, month, day, hour = 0, minute = 0, second = 0] = match
    .slice(1, 7)
    .map((part) => (part === undefined ? undefined : Number(part))) as number[];
  const zone = match[7] ?? 'Z';
  const offsetMinutes =
    zone === 'Z' ? 0 : (zone.startsWith('-') ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
  const local = Date.UTC(year!, month! - 1, day!, hour, minute, second);
  const check = new Date(local);
  const fieldsHold =
    check.getUTCFullYear() === year &&
    check.getUTCMonth() === month! - 1 &&
    check.getUTCDate() === day &&
    check.getUTCHours() === hour &&
    check.getUTCMinutes() === minute &&
    check.getUTCSeconds() === second;
  if (!fieldsHold || year! < 1970 || Math.abs(offsetMinutes) >= 24 * 60) throw problem();
  return new Date(local - offsetMinutes * 60_000);
}

/** Raw: a passphrase is used exactly as set (spaces included); only an empty one means unset. */
function readSecret(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

function readV1(env: Env): V1Config {
  const deprecationDate = readDate(env, 'V1_DEPRECATION_DATE', '2026-01-01T00:00:00Z');
  const sunsetDate = readDate(env, 'V1_SUNSET_DATE', '2027-01-01T00:00:00Z');
  if (sunsetDate.getTime() < deprecationDate.getTime()) {
    // RFC 9745 §4: the Sunset timestamp MUST NOT be earlier than the Deprecation timestamp.
    throw new ConfigError(
      'V1_SUNSET_DATE',
      `must not be earlier than V1_DEPRECATION_DATE (${deprecationDate.toISOString()})`,
    );
  }
  const keyPassphrase = readSecret(env, 'CRYPTO_KEY_PASSPHRASE');
  if (keyPassphrase !== undefined && read(env, 'CRYPTO_KEY_DIR') === undefined) {
    throw new ConfigError(
      'CRYPTO_KEY_PASSPHRASE',
      'is set but CRYPTO_KEY_DIR is not: there is no server key for it to unlock',
    );
  }
  return {
    deprecationDate,
    sunsetDate,
    keyPassphrase,
    workers: readInteger(env, 'V1_WORKERS', 2, 1, 64),
    queueLimit: readInteger(env, 'V1_QUEUE_LIMIT', 16, 0, 10_000),
    jobTimeoutMs: readInteger(env, 'V1_JOB_TIMEOUT_MS', 10_000, 1000, 600_000),
  };
}

/** WORKERS: a count, or `auto` for one process per core the runtime may use. */
function readWorkers(env: Env): number {
  if (read(env, 'WORKERS')?.toLowerCase() === 'auto') return availableParallelism();
  return readInteger(env, 'WORKERS', 1, 1, 256);
}

/**
 * REDIS_URL: redis:// or rediss:// (TLS). The value may hold a password, so no message here
 * ever repeats it.
 */
function readRedisUrl(env: Env): string | undefined {
  const value = read(env, 'REDIS_URL');
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(
      'REDIS_URL',
      'is not a URL such as redis://redis:6379 (value not shown: it may hold a password)',
    );
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new ConfigError('REDIS_URL', `must start with redis:// or rediss:// (got ${url.protocol}//…)`);
  }
  return value;
}

/**
 * METRICS_TOKEN: sent by Prometheus as `Authorization: Bearer …` (its `authorization` or
 * `bearer_token_file` setting), so it must fit a header and be worth guessing against.
 */
const MIN_METRICS_TOKEN_CHARS = 16;
function readMetricsToken(env: Env): string | undefined {
  const token = read(env, 'METRICS_TOKEN');
  if (token === undefined) return undefined;
  if (!/^[\x21-\x7e]+$/.test(token)) {
    throw new ConfigError('METRICS_TOKEN', 'must be printable ASCII without spaces, as a bearer token is sent');
  }
  if (token.length < MIN_METRICS_TOKEN_CHARS) {
    throw new ConfigError(
      'METRICS_TOKEN',
      `must be at least ${MIN_METRICS_TOKEN_CHARS} characters (got ${token.length}); use openssl rand -hex 32`,
    );
  }
  return token;
}

function readClientKey(env: Env): ClientKeyConfig {
  return {
    by: readEnum<RateLimitKeyKind>(env, 'RATE_LIMIT_KEY', ['address', 'credential'], 'address'),
    ipv6PrefixLength: readInteger(env, 'RATE_LIMIT_IPV6_PREFIX', 64, 16, 128),
  };
}

function readTimeouts(env: Env): TimeoutConfig {
  const timeouts = {
    headersMs: readInteger(env, 'HEADERS_TIMEOUT_MS', 10_000, 100, 600_000),
    requestMs: readInteger(env, 'REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000),
    handlerMs: readInteger(env, 'HANDLER_TIMEOUT_MS', 60_000, 100, 3_600_000),
    keepAliveMs: readInteger(env, 'KEEP_ALIVE_TIMEOUT_MS', 5_000, 100, 600_000),
  };
  // Node refuses a headers timeout longer than the request timeout (the headers are part of it).
  if (timeouts.headersMs > timeouts.requestMs) {
    throw new ConfigError(
      'HEADERS_TIMEOUT_MS',
      `must not exceed REQUEST_TIMEOUT_MS (${timeouts.headersMs} > ${timeouts.requestMs})`,
    );
  }
  return timeouts;
}

/**
 * BUSY_REFUSAL_DELAY_MS, below the handler timeout: a refusal held back that long would be
 * overtaken by the timeout's 503, which has no Retry-After.
 */
function readRefusalDelay(env: Env, handlerMs: number): number {
  const delayMs = readInteger(env, 'BUSY_REFUSAL_DELAY_MS', 25, 0, 1000);
  if (delayMs >= handlerMs) {
    throw new ConfigError('BUSY_REFUSAL_DELAY_MS', `must be below HANDLER_TIMEOUT_MS (${delayMs} >= ${handlerMs})`);
  }
  return delayMs;
}

export function loadConfig(env: Env = process.env): Config {
  const warnings: string[] = [];
  const timeouts = readTimeouts(env);
  const nodeEnv = readEnum<NodeEnv>(env, 'NODE_ENV', ['development', 'production', 'test'], 'development');
  const protocol = readEnum<Protocol>(env, 'PROTOCOL', ['http', 'https'], 'http');
  return {
    port: readInteger(env, 'PORT', 3000, 0, 65535),
    host: read(env, 'HOST') ?? 'localhost',
    protocol,
    nodeEnv,
    logLevel: readEnum<LogLevel>(env, 'LOG_LEVEL', ['error', 'warn', 'info', 'debug', 'silent'], 'info'),
    auth: readAuth(env, nodeEnv, warnings),
    corsOrigins: readOrigins(env),
    trustedProxyCidrs: readCidrs(env),
    keyDir: readDirectory(env, 'CRYPTO_KEY_DIR', constants.R_OK | constants.X_OK),
    keyOutDir: readDirectory(env, 'CRYPTO_KEY_OUT_DIR', constants.W_OK | constants.X_OK),
    v1: readV1(env),
    shutdownTimeoutMs: readInteger(env, 'SHUTDOWN_TIMEOUT_MS', 30_000, 0, 3_600_000),
    rateLimit: {
      max: readInteger(env, 'RATE_LIMIT_MAX', 1000, 1, 10_000_000),
      windowMs: readInteger(env, 'RATE_LIMIT_WINDOW_MS', 60_000, 1000, 86_400_000),
      redisUrl: readRedisUrl(env),
      failureMode: readEnum<RateLimitFailureMode>(env, 'RATE_LIMIT_FAILURE_MODE', ['local', 'open', 'closed'], 'local'),
      redisTimeoutMs: readInteger(env, 'REDIS_TIMEOUT_MS', 200, 10, 10_000),
    },
    rateLimitKey: readClientKey(env),
    metricsToken: readMetricsToken(env),
    metricsCacheMs: readInteger(env, 'METRICS_CACHE_MS', SCRAPE_CACHE_MS, 0, 60_000),
    maxConnectionsPerIp: readInteger(env, 'MAX_CONNECTIONS_PER_IP', 0, 0, 1_000_000),
    bodyLimitBytes: readInteger(env, 'BODY_LIMIT_BYTES', 1_048_576, 1024, 67_108_864),
    batchMaxItems: readInteger(env, 'BATCH_MAX_ITEMS', DEFAULT_BATCH_MAX_ITEMS, 1, 100_000),
    streamMaxBytes: readInteger(env, 'STREAM_MAX_BYTES', 68_719_476_736, 1024, Number.MAX_SAFE_INTEGER),
    workers: readWorkers(env),
    timeouts,
    heavyWorkNice: readInteger(env, 'HEAVY_WORK_NICE', 10, 0, 19),
    workQueues: {
      password: readQueue(env, 'PASSWORD', { concurrency: 2, maxQueued: 32, budgetMib: 320 }),
      kdf: readQueue(env, 'KDF', { concurrency: 1, maxQueued: 16, budgetMib: 256 }),
    },
    maxHeavyJobsPerClient: readInteger(env, 'MAX_HEAVY_JOBS_PER_CLIENT', 8, 1, 10_000),
    busyRefusalDelayMs: readRefusalDelay(env, timeouts.handlerMs),
    tls:
      protocol === 'https' ? { cert: readFile(env, 'TLS_CERT_FILE'), key: readFile(env, 'TLS_KEY_FILE') } : undefined,
    warnings,
  };
}
