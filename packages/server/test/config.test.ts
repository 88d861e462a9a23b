import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../src/config.ts';

function failsOn(env: Record<string, string>, variable: string, pattern?: RegExp) {
  assert.throws(() => loadConfig(env), (error: unknown) => {
    assert.ok(error instanceof ConfigError, 'a ConfigError');
    assert.equal(error.variable, variable);
    assert.ok(error.message.startsWith(`${variable}:`), error.message);
    if (pattern) assert.match(error.message, pattern);
    return true;
  });
}

describe('configuration', () => {
  test('defaults follow the mission and the contract', () => {
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
    assert.deepEqual(config.rateLimit, { max: 1000, windowMs: 60000 });
    assert.equal(config.bodyLimitBytes, 1048576);
    assert.deepEqual(config.workQueues, {
      password: { concurrency: 2, maxQueued: 32, memoryBudgetBytes: 256 * 1024 * 1024 },
      kdf: { concurrency: 1, maxQueued: 16, memoryBudgetBytes: 256 * 1024 * 1024 },
    });
    assert.equal(config.tls, undefined);
    assert.equal(config.keyDir, undefined);
    assert.match(config.warnings.join('\n'), /development mode/);
  });

  test('every variable is read and typed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
    const config = loadConfig({
      PORT: '8443', HOST: '0.0.0.0', NODE_ENV: 'production', LOG_LEVEL: 'debug',
      CRYPTO_API_KEY: 'a-long-enough-api-key-1234', JWT_SECRET: 'x'.repeat(32), JWT_ISSUER: 'iss', JWT_AUDIENCE: 'aud',
      CORS_ORIGIN: 'https://a.example, http://localhost:5173', TRUSTED_PROXY_CIDRS: '10.0.0.0/8,::1,192.168.1.1',
      CRYPTO_KEY_DIR: dir, CRYPTO_KEY_OUT_DIR: dir, SHUTDOWN_TIMEOUT_MS: '5000',
      RATE_LIMIT_MAX: '50', RATE_LIMIT_WINDOW_MS: '1000', BODY_LIMIT_BYTES: '4096',
    });
    assert.equal(config.port, 8443);
    assert.equal(config.host, '0.0.0.0');
    assert.equal(config.nodeEnv, 'production');
    assert.equal(config.logLevel, 'debug');
    assert.deepEqual(config.auth.apiKeys, ['a-long-enough-api-key-1234']);
    assert.equal(config.auth.jwtSecrets.length, 1);
    assert.equal(config.auth.jwtIssuer, 'iss');
    assert.equal(config.auth.jwtAudience, 'aud');
    assert.deepEqual(config.corsOrigins, ['https://a.example', 'http://localhost:5173']);
    assert.deepEqual(config.trustedProxyCidrs, ['10.0.0.0/8', '::1', '192.168.1.1']);
    assert.equal(config.keyDir, dir);
    assert.equal(config.keyOutDir, dir);
    assert.equal(config.shutdownTimeoutMs, 5000);
    assert.deepEqual(config.rateLimit, { max: 50, windowMs: 1000 });
    assert.equal(config.bodyLimitBytes, 4096);
    assert.deepEqual(config.warnings, []);
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
    failsOn({ KDF_MEMORY_BUDGET_MIB: 'lots' }, 'KDF_MEMORY_BUDGET_MIB');
    failsOn({ CORS_ORIGIN: 'not a url' }, 'CORS_ORIGIN');
    failsOn({ CORS_ORIGIN: 'https://a.example/path' }, 'CORS_ORIGIN');
    failsOn({ CORS_ORIGIN: 'null' }, 'CORS_ORIGIN');
    failsOn({ CORS_ORIGIN: 'https://a.example,,https://b.example' }, 'CORS_ORIGIN');
    failsOn({ TRUSTED_PROXY_CIDRS: '10.0.0.0/33' }, 'TRUSTED_PROXY_CIDRS');
    failsOn({ TRUSTED_PROXY_CIDRS: 'proxy.internal' }, 'TRUSTED_PROXY_CIDRS');
    failsOn({ CRYPTO_KEY_DIR: '/definitely/not/here' }, 'CRYPTO_KEY_DIR');
    failsOn({ CRYPTO_KEY_OUT_DIR: '/definitely/not/here' }, 'CRYPTO_KEY_OUT_DIR');
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
    assert.match(allowed.warnings.join(), /development mode|every request is allowed/);
    assert.doesNotThrow(() => loadConfig({ NODE_ENV: 'production', CRYPTO_API_KEY: 'a-long-enough-api-key-1234' }));
  });

  test('PROTOCOL=https needs readable certificate and key files', () => {
    failsOn({ PROTOCOL: 'https' }, 'TLS_CERT_FILE', /required/);
    const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
    writeFileSync(join(dir, 'cert.pem'), 'cert');
    failsOn({ PROTOCOL: 'https', TLS_CERT_FILE: join(dir, 'cert.pem') }, 'TLS_KEY_FILE', /required/);
    failsOn({ PROTOCOL: 'https', TLS_CERT_FILE: join(dir, 'cert.pem'), TLS_KEY_FILE: join(dir, 'missing.pem') }, 'TLS_KEY_FILE', /cannot read/);
  });

  test('a short API key starts, with a warning', () => {
    const config = loadConfig({ CRYPTO_API_KEY: 'short' });
    assert.match(config.warnings.join(), /CRYPTO_API_KEY/);
  });

  test('an empty variable means its default', () => {
    assert.equal(loadConfig({ PORT: '', LOG_LEVEL: '  ' }).port, 3000);
  });
});
