import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, chmodSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../src/config.ts';

function failsOn(env: Record<string, string>, variable: string, pattern?: RegExp) {
  assert.throws(
    () => loadConfig(env),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError, 'a ConfigError');
      assert.equal(error.variable, variable);
      assert.ok(error.message.startsWith(`${variable}:`), error.message);
      if (pattern) assert.match(error.message, pattern);
      return true;
    },
  );
}

describe('configuration', () => {
  test('defaults are the documented ones', () => {
    const config = loadConfig({});
    assert.equal(config.port, 3000);
    assert.equal(config.host, 'localhost');
    assert.equal(config.protocol, 'http');
    assert.equal(config.nodeEnv, 'development');
    assert.equal(config.logLevel, 'info');
    assert.deepEqual(config.auth.apiKeys, []);
    assert.deepEqual(config.corsOrigins, []);
    assert.deepEqual(config.trustedProxyCidrs, []);
    assert.equal(config.shutdownTimeoutMs, 30000);
    assert.deepEqual(config.rateLimit, {
      max: 1000,
      windowMs: 60000,
      redisUrl: undefined,
      failureMode: 'local',
      redisTimeoutMs: 200,
    });
    assert.equal(config.bodyLimitBytes, 1048576);
    assert.equal(config.workers, 1);
    assert.deepEqual(config.timeouts, { headersMs: 10000, requestMs: 30000, handlerMs: 60000, keepAliveMs: 5000 });
    assert.equal(config.heavyWorkNice, 10);
    assert.equal(config.busyRefusalDelayMs, 25);
    assert.deepEqual(config.workQueues, {
      password: { concurrency: 2, maxQueued: 32, memoryBudgetBytes: 320 * 1024 * 1024 },
      kdf: { concurrency: 1, maxQueued: 16, memoryBudgetBytes: 256 * 1024 * 1024 },
    });
    assert.equal(config.maxHeavyJobsPerClient, 8);
    assert.equal(config.tls, undefined);
    assert.equal(config.keyDir, undefined);
    assert.deepEqual(config.rateLimitKey, { by: 'address', ipv6PrefixLength: 64 });
    assert.equal(config.metricsToken, undefined);
    assert.equal(config.metricsCacheMs, 1000);
    assert.equal(config.maxConnectionsPerIp, 0);
    assert.equal(config.auth.jwtMaxTtlSeconds, 86400);
    assert.deepEqual(config.v1, {
      deprecationDate: new Date('2026-01-01T00:00:00Z'),
      sunsetDate: new Date('2027-01-01T00:00:00Z'),
      keyPassphrase: undefined,
      workers: 2,
      queueLimit: 16,
      jobTimeoutMs: 10000,
    });
    assert.match(config.warnings.join('\n'), /development mode/);
  });

  test('every variable is read and typed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
    const config = loadConfig({
      PORT: '8443',
      HOST: '0.0.0.0',
      NODE_ENV: 'production',
      LOG_LEVEL: 'debug',
      CRYPTO_API_KEY: 'a-long-enough-api-key-0123456789abcdef',
      JWT_SECRET: 'x'.repeat(32),
      JWT_ISSUER: 'iss',
      JWT_AUDIENCE: 'aud',
      CORS_ORIGIN: 'https://a.example, http://localhost:5173',
      TRUSTED_PROXY_CIDRS: '10.0.0.0/8,::1,192.168.1.1',
      CRYPTO_KEY_DIR: dir,
      CRYPTO_KEY_OUT_DIR: dir,
      SHUTDOWN_TIMEOUT_MS: '5000',
      RATE_LIMIT_MAX: '50',
      RATE_LIMIT_WINDOW_MS: '1000',
      BODY_LIMIT_BYTES: '4096',
      V1_DEPRECATION_DATE: '2025-06-30T23:59:59Z',
      V1_SUNSET_DATE: '2026-06-30',
      CRYPTO_KEY_PASSPHRASE: 'server key pass',
      V1_WORKERS: '3',
      V1_QUEUE_LIMIT: '0',
      V1_JOB_TIMEOUT_MS: '5000',
      REDIS_URL: 'redis://:s3cret@redis.internal:6379/2',
      RATE_LIMIT_FAILURE_MODE: 'closed',
      REDIS_TIMEOUT_MS: '500',
      WORKERS: '3',
      HEADERS_TIMEOUT_MS: '2000',
      REQUEST_TIMEOUT_MS: '4000',
      HANDLER_TIMEOUT_MS: '9000',
      KEEP_ALIVE_TIMEOUT_MS: '1000',
      HEAVY_WORK_NICE: '19',
      BUSY_REFUSAL_DELAY_MS: '0',
      RATE_LIMIT_KEY: 'credential',
      RATE_LIMIT_IPV6_PREFIX: '48',
      METRICS_TOKEN: 'metrics-token-0123456789',
      METRICS_CACHE_MS: '0',
      MAX_CONNECTIONS_PER_IP: '200',
      JWT_MAX_TTL_SECONDS: '3600',
    });
    assert.deepEqual(config.rateLimitKey, { by: 'credential', ipv6PrefixLength: 48 });
    assert.equal(config.metricsToken, 'metrics-token-0123456789');
    assert.equal(config.metricsCacheMs, 0);
    assert.equal(config.maxConnectionsPerIp, 200);
    assert.equal(config.auth.jwtMaxTtlSeconds, 3600);
    assert.equal(config.heavyWorkNice, 19);
    assert.equal(config.busyRefusalDelayMs, 0);
    assert.equal(config.port, 8443);
    assert.equal(config.host, '0.0.0.0');
    assert.equal(config.nodeEnv, 'production');
    assert.equal(config.logLevel, 'debug');
    assert.deepEqual(config.auth.apiKeys, ['a-long-enough-api-key-0123456789abcdef']);
    assert.equal(config.auth.jwtSecrets.length, 1);
    assert.equal(config.auth.jwtIssuer, 'iss');
    assert.equal(config.auth.jwtAudience, 'aud');
    assert.deepEqual(config.corsOrigins, ['https://a.example', 'http://localhost:5173']);
    assert.deepEqual(config.trustedProxyCidrs, ['10.0.0.0/8', '::1', '192.168.1.1']);
    assert.equal(config.keyDir, dir);
    assert.equal(config.keyOutDir, dir);
    assert.equal(config.shutdownTimeoutMs, 5000);
    assert.deepEqual(config.rateLimit, {
      max: 50,
      windowMs: 1000,
      redisUrl: 'redis://:s3cret@redis.internal:6379/2',
      failureMode: 'closed',
      redisTimeoutMs: 500,
    });
    assert.equal(config.bodyLimitBytes, 4096);
    assert.equal(config.workers, 3);
    assert.deepEqual(config.timeouts, { headersMs: 2000, requestMs: 4000, handlerMs: 9000, keepAliveMs: 1000 });
    assert.deepEqual(config.v1, {
      deprecationDate: new Date('2025-06-30T23:59:59Z'),
      sunsetDate: new Date('2026-06-30T00:00:00Z'),
      keyPassphrase: 'server key pass',
      workers: 3,
      queueLimit: 0,
      jobTimeoutMs: 5000,
    });
    assert.deepEqual(config.warnings, []);
  });

  test('WORKERS=auto means one process per core', () => {
    assert.equal(loadConfig({ WORKERS: 'auto' }).workers, availableParallelism());
  });

  test('a bad REDIS_URL is named without repeating the value, which may hold a password', () => {
    for (const value of ['redis//:hunter2-secret@host', 'http://:hunter2-secret@host:6379']) {
      assert.throws(
        () => loadConfig({ REDIS_URL: value }),
        (error: Error) => {
          assert.match(error.message, /^REDIS_URL: /);
          assert.doesNotMatch(error.message, /hunter2-secret/);
          return true;
        },
      );
    }
  });

  test('bad values name their variable', () => {
    failsOn({ PORT: 'abc' }, 'PORT');
    failsOn({ PORT: '70000' }, 'PORT');
    failsOn({ PORT: '-1' }, 'PORT');
    failsOn({ PROTOCOL: 'ftp' }, 'PROTOCOL');
    failsOn({ NODE_ENV: 'staging' }, 'NODE_ENV');
    failsOn({ LOG_LEVEL: 'verbose' }, 'LOG_LEVEL');
    failsOn({ SHUTDOWN_TIMEOUT_MS: '1.5' }, 'SHUTDOWN_TIMEOUT_MS');
    failsOn({ RATE_LIMIT_MAX: '0' }, 'RATE_LIMIT_MAX');
    failsOn({ RATE_LIMIT_WINDOW_MS: '10' }, 'RATE_LIMIT_WINDOW_MS');
    failsOn({ BODY_LIMIT_BYTES: 'lots' }, 'BODY_LIMIT_BYTES');
    failsOn({ ALLOW_ANONYMOUS: 'maybe' }, 'ALLOW_ANONYMOUS');
    failsOn({ PASSWORD_CONCURRENCY: '0' }, 'PASSWORD_CONCURRENCY');
    failsOn({ PASSWORD_MEMORY_BUDGET_MIB: '128' }, 'PASSWORD_MEMORY_BUDGET_MIB');
    failsOn({ KDF_QUEUE_LIMIT: '-1' }, 'KDF_QUEUE_LIMIT');
    failsOn({ MAX_HEAVY_JOBS_PER_CLIENT: '0' }, 'MAX_HEAVY_JOBS_PER_CLIENT');
    failsOn({ KDF_MEMORY_BUDGET_MIB: 'lots' }, 'KDF_MEMORY_BUDGET_MIB');
    failsOn({ CORS_ORIGIN: 'not a url' }, 'CORS_ORIGIN');
    failsOn({ CORS_ORIGIN: 'https://a.example/path' }, 'CORS_ORIGIN');
    failsOn({ CORS_ORIGIN: 'null' }, 'CORS_ORIGIN');
    failsOn({ CORS_ORIGIN: 'https://a.example,,https://b.example' }, 'CORS_ORIGIN');
    failsOn({ TRUSTED_PROXY_CIDRS: '10.0.0.0/33' }, 'TRUSTED_PROXY_CIDRS');
    failsOn({ TRUSTED_PROXY_CIDRS: 'proxy.internal' }, 'TRUSTED_PROXY_CIDRS');
    failsOn({ CRYPTO_KEY_DIR: '/definitely/not/here' }, 'CRYPTO_KEY_DIR');
    failsOn({ CRYPTO_KEY_OUT_DIR: '/definitely/not/here' }, 'CRYPTO_KEY_OUT_DIR');
    failsOn({ V1_WORKERS: '0' }, 'V1_WORKERS');
    failsOn({ WORKERS: '0' }, 'WORKERS');
    failsOn({ WORKERS: 'many' }, 'WORKERS');
    failsOn({ RATE_LIMIT_FAILURE_MODE: 'sometimes' }, 'RATE_LIMIT_FAILURE_MODE');
    failsOn({ REDIS_TIMEOUT_MS: '0' }, 'REDIS_TIMEOUT_MS');
    failsOn({ HEADERS_TIMEOUT_MS: '20000', REQUEST_TIMEOUT_MS: '10000' }, 'HEADERS_TIMEOUT_MS');
    failsOn({ HANDLER_TIMEOUT_MS: 'soon' }, 'HANDLER_TIMEOUT_MS');
    failsOn({ HEAVY_WORK_NICE: '20' }, 'HEAVY_WORK_NICE');
    failsOn({ HEAVY_WORK_NICE: '-5' }, 'HEAVY_WORK_NICE');
    failsOn({ BUSY_REFUSAL_DELAY_MS: '1001' }, 'BUSY_REFUSAL_DELAY_MS');
    failsOn({ BUSY_REFUSAL_DELAY_MS: '-1' }, 'BUSY_REFUSAL_DELAY_MS');
    // Held back as long as the handler timeout, a refusal would lose its Retry-After to the timeout's 503.
    failsOn({ BUSY_REFUSAL_DELAY_MS: '200', HANDLER_TIMEOUT_MS: '200' }, 'BUSY_REFUSAL_DELAY_MS');
    failsOn({ V1_WORKERS: 'many' }, 'V1_WORKERS');
    failsOn({ V1_QUEUE_LIMIT: '-1' }, 'V1_QUEUE_LIMIT');
    failsOn({ V1_JOB_TIMEOUT_MS: '10' }, 'V1_JOB_TIMEOUT_MS');
  });

  test('/v1 dates: ISO 8601 dates or date-times with a zone, real calendar days, sunset not before deprecation', () => {
    const dates = (env: Record<string, string>) => {
      const { deprecationDate, sunsetDate } = loadConfig(env).v1;
      return [deprecationDate.toISOString(), sunsetDate.toISOString()];
    };
    assert.deepEqual(dates({ V1_DEPRECATION_DATE: '2026-03-01', V1_SUNSET_DATE: '2026-03-01T12:30Z' }), [
      '2026-03-01T00:00:00.000Z',
      '2026-03-01T12:30:00.000Z',
    ]);
    assert.deepEqual(dates({ V1_DEPRECATION_DATE: '2026-01-01T02:00:00+02:00' }), [
      '2026-01-01T00:00:00.000Z',
      '2027-01-01T00:00:00.000Z',
    ]);
    assert.deepEqual(
      dates({ V1_SUNSET_DATE: '2026-01-01' }),
      ['2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'],
      'the same instant is allowed',
    );
    for (const bad of [
      '2026-02-30',
      '2026-13-01',
      '2026-1-1',
      'tomorrow',
      '2026-01-01T00:00:00',
      '2026-01-01T24:00:00Z',
      '2026-01-01T00:00:00.5Z',
      '1969-12-31',
      '2026-01-01T00:00+25:00',
    ]) {
      failsOn({ V1_DEPRECATION_DATE: bad }, 'V1_DEPRECATION_DATE', /ISO 8601/);
    }
    failsOn({ V1_SUNSET_DATE: 'next year' }, 'V1_SUNSET_DATE', /ISO 8601/);
    failsOn(
      { V1_DEPRECATION_DATE: '2026-06-01', V1_SUNSET_DATE: '2026-05-31' },
      'V1_SUNSET_DATE',
      /not be earlier than V1_DEPRECATION_DATE/,
    );
  });

  test('CRYPTO_KEY_PASSPHRASE: used exactly as set, and only with CRYPTO_KEY_DIR', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
    assert.equal(
      loadConfig({ CRYPTO_KEY_DIR: dir, CRYPTO_KEY_PASSPHRASE: '  spaced out  ' }).v1.keyPassphrase,
      '  spaced out  ',
    );
    assert.equal(loadConfig({ CRYPTO_KEY_DIR: dir, CRYPTO_KEY_PASSPHRASE: '' }).v1.keyPassphrase, undefined);
    failsOn({ CRYPTO_KEY_PASSPHRASE: 'no key to unlock' }, 'CRYPTO_KEY_PASSPHRASE', /CRYPTO_KEY_DIR is not/);
    assert.throws(
      () => loadConfig({ CRYPTO_KEY_PASSPHRASE: 'no key to unlock' }),
      (error: Error) => !error.message.includes('no key to unlock'),
    );
  });

  test('a key directory that is a file is refused', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'cfg-')), 'file');
    writeFileSync(file, 'x');
    chmodSync(file, 0o600);
    failsOn({ CRYPTO_KEY_DIR: file }, 'CRYPTO_KEY_DIR', /not a directory/);
  });

  test('a JWT secret shorter than 32 bytes stops the start', () => {
    failsOn({ JWT_SECRET: 'short' }, 'JWT_SECRET', /at least 32 bytes/);
    failsOn({ JWT_SECRET: `${'x'.repeat(32)},short` }, 'JWT_SECRET');
  });

  test('production refuses to run unauthenticated unless ALLOW_ANONYMOUS=true', () => {
    failsOn({ NODE_ENV: 'production' }, 'ALLOW_ANONYMOUS');
    const allowed = loadConfig({ NODE_ENV: 'production', ALLOW_ANONYMOUS: 'true' });
    assert.equal(allowed.auth.allowAnonymous, true);
    assert.match(allowed.warnings.join(), /ALLOW_ANONYMOUS=true .*: anonymous access is allowed in production/);
    assert.doesNotMatch(allowed.warnings.join(), /development mode/);
    assert.doesNotThrow(() =>
      loadConfig({ NODE_ENV: 'production', CRYPTO_API_KEY: 'a-long-enough-api-key-0123456789abcdef' }),
    );
  });

  test('PROTOCOL=https needs readable certificate and key files', () => {
    failsOn({ PROTOCOL: 'https' }, 'TLS_CERT_FILE', /required/);
    const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
    writeFileSync(join(dir, 'cert.pem'), 'cert');
    failsOn({ PROTOCOL: 'https', TLS_CERT_FILE: join(dir, 'cert.pem') }, 'TLS_KEY_FILE', /required/);
    failsOn(
      { PROTOCOL: 'https', TLS_CERT_FILE: join(dir, 'cert.pem'), TLS_KEY_FILE: join(dir, 'missing.pem') },
      'TLS_KEY_FILE',
      /cannot read/,
    );
  });

  test('an API key with a character outside printable ASCII stops the start, without repeating the key', () => {
    for (const key of [
      'schlüssel-0123456789',
      'tab\there-0123456789',
      `ok-key-0123456789,${'k'.repeat(20)}\u{1f511}`,
    ]) {
      failsOn({ CRYPTO_API_KEY: key }, 'CRYPTO_API_KEY', /printable ASCII/);
      assert.throws(
        () => loadConfig({ CRYPTO_API_KEY: key }),
        (error: unknown) => !(error as Error).message.includes('0123456789'),
      );
    }
    assert.doesNotThrow(() => loadConfig({ CRYPTO_API_KEY: 'with inner space ~!@#$%^&*()_+{}|:"<>?' }));
  });

  test('a short API key starts, with a warning', () => {
    const config = loadConfig({ CRYPTO_API_KEY: 'short' });
    assert.match(config.warnings.join(), /CRYPTO_API_KEY/);
  });

  test('an empty variable means its default', () => {
    assert.equal(loadConfig({ PORT: '', LOG_LEVEL: '  ' }).port, 3000);
  });
});
