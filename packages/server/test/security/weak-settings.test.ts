/**
 * Settings a careful operator would never choose are refused at start (or warned of), and JWTs
 * live no longer than JWT_MAX_TTL_SECONDS.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SignJWT } from 'jose';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { postJson, testApp, TEST_JWT_SECRET } from '../helpers.ts';

function refusal(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    return error;
  }
  assert.fail(`accepted ${JSON.stringify(env)}`);
}

describe('API key length', () => {
  const SHORT = 'short-key-12345';
  test('production refuses a key under 32 characters, naming the way out but not the key', () => {
    const error = refusal({ NODE_ENV: 'production', CRYPTO_API_KEY: `${'k'.repeat(40)},${SHORT}` });
    assert.equal(error.variable, 'CRYPTO_API_KEY');
    assert.match(error.message, /32 characters.*ALLOW_WEAK_API_KEY=true/);
    assert.ok(!error.message.includes(SHORT));
    assert.equal(refusal({ NODE_ENV: 'production', CRYPTO_API_KEY: 'k'.repeat(31) }).variable, 'CRYPTO_API_KEY');
  });

  test('32 characters start; ALLOW_WEAK_API_KEY=true starts a shorter key with a warning', () => {
    assert.deepEqual(loadConfig({ NODE_ENV: 'production', CRYPTO_API_KEY: 'k'.repeat(32) }).auth.apiKeys, [
      'k'.repeat(32),
    ]);
    const weak = loadConfig({ NODE_ENV: 'production', CRYPTO_API_KEY: SHORT, ALLOW_WEAK_API_KEY: 'true' });
    assert.match(weak.warnings.join('\n'), /CRYPTO_API_KEY: a key shorter than 32/);
    assert.equal(refusal({ CRYPTO_API_KEY: SHORT, ALLOW_WEAK_API_KEY: 'maybe' }).variable, 'ALLOW_WEAK_API_KEY');
  });

  test('outside production a short key only warns', () => {
    assert.match(loadConfig({ CRYPTO_API_KEY: SHORT }).warnings.join('\n'), /CRYPTO_API_KEY/);
  });
});

describe('other settings are validated with the variable named', () => {
  const cases: [Record<string, string>, string, RegExp][] = [
    [{ TRUSTED_PROXY_CIDRS: '0.0.0.0/0' }, 'TRUSTED_PROXY_CIDRS', /trusts every address/],
    [{ TRUSTED_PROXY_CIDRS: '10.0.0.1, ::/0' }, 'TRUSTED_PROXY_CIDRS', /trusts every address/],
    [{ RATE_LIMIT_KEY: 'user' }, 'RATE_LIMIT_KEY', /address, credential/],
    [{ RATE_LIMIT_IPV6_PREFIX: '8' }, 'RATE_LIMIT_IPV6_PREFIX', /between 16 and 128/],
    [{ RATE_LIMIT_IPV6_PREFIX: '129' }, 'RATE_LIMIT_IPV6_PREFIX', /between 16 and 128/],
    [{ METRICS_TOKEN: 'short' }, 'METRICS_TOKEN', /at least 16 characters/],
    [{ METRICS_TOKEN: 'has a space in it here' }, 'METRICS_TOKEN', /printable ASCII without spaces/],
    [{ MAX_CONNECTIONS_PER_IP: '-1' }, 'MAX_CONNECTIONS_PER_IP', /whole number/],
    [{ JWT_MAX_TTL_SECONDS: '59' }, 'JWT_MAX_TTL_SECONDS', /between 60/],
    [{ JWT_MAX_TTL_SECONDS: '1e308' }, 'JWT_MAX_TTL_SECONDS', /whole number/],
  ];
  for (const [env, variable, pattern] of cases) {
    test(`${JSON.stringify(env)} is refused`, () => {
      const error = refusal(env);
      assert.equal(error.variable, variable);
      assert.match(error.message, pattern);
    });
  }
});

describe('JWT_MAX_TTL_SECONDS', () => {
  const secret = new TextEncoder().encode(TEST_JWT_SECRET);
  const now = () => Math.floor(Date.now() / 1000);
  const sign = (claims: Record<string, number>) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(secret);
  const call = async (token: string, env: Record<string, string> = {}) => {
    const app = await testApp({ JWT_SECRET: TEST_JWT_SECRET, ...env });
    try {
      return await postJson(
        app,
        '/v2/hash',
        { algorithm: 'sha256', data: 'abc' },
        { authorization: `Bearer ${token}` },
      );
    } finally {
      await app.close();
    }
  };

  test('a token whose exp is 1e308 is refused', async () => {
    const response = await call(await sign({ exp: 1e308 }));
    assert.equal(response.statusCode, 401);
    assert.match(response.json().detail, /lifetime .* longer than the 86400 s/);
  });

  test('the lifetime is exp - iat, or exp - now without iat; a day passes by default', async () => {
    assert.equal((await call(await sign({ iat: now(), exp: now() + 86_400 }))).statusCode, 200);
    assert.equal((await call(await sign({ iat: now(), exp: now() + 86_400 + 120 }))).statusCode, 401);
    // Issued long ago and still valid for a minute: its lifetime, not what is left of it, counts.
    assert.equal((await call(await sign({ iat: now() - 90_000, exp: now() + 60 }))).statusCode, 401);
    assert.equal((await call(await sign({ exp: now() + 86_000 }))).statusCode, 200);
    assert.equal((await call(await sign({ exp: now() + 90_000 }))).statusCode, 401);
  });

  test('a shorter JWT_MAX_TTL_SECONDS refuses what the default accepts', async () => {
    const token = await sign({ iat: now(), exp: now() + 7200 });
    assert.equal((await call(token)).statusCode, 200);
    assert.equal((await call(token, { JWT_MAX_TTL_SECONDS: '3600' })).statusCode, 401);
  });
});
