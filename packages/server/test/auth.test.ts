import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SignJWT } from 'jose';
import { postJson, testApp, TEST_API_KEY, TEST_JWT_SECRET } from './helpers.ts';

const secret = new TextEncoder().encode(TEST_JWT_SECRET);
const HASH_BODY = { algorithm: 'sha256', data: 'abc' };
const now = () => Math.floor(Date.now() / 1000);

async function token(
  claims: Record<string, unknown> = {},
  options: { alg?: string; exp?: number | null; typ?: string; key?: Uint8Array } = {},
) {
  const jwt = new SignJWT(claims)
    .setProtectedHeader({ alg: options.alg ?? 'HS256', ...(options.typ ? { typ: options.typ } : {}) })
    .setIssuedAt();
  if (options.exp !== null) jwt.setExpirationTime(options.exp ?? now() + 300);
  return jwt.sign(options.key ?? secret);
}

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

describe('API key mode', () => {
  const env = { CRYPTO_API_KEY: TEST_API_KEY };

  test('a missing key is 401 with a WWW-Authenticate challenge and a problem body', async (t) => {
    const app = await testApp(env);
    t.after(() => app.close());
    const response = await postJson(app, '/v2/hash', HASH_BODY);
    assert.equal(response.statusCode, 401);
    assert.match(response.headers['content-type'] ?? '', /^application\/problem\+json/);
    assert.match(String(response.headers['www-authenticate']), /ApiKey realm="crypto-service"/);
    assert.equal(response.json().code, 'UNAUTHORIZED');
    assert.equal(response.json().error, response.json().detail);
  });

  test('the right key is accepted, a wrong one (same length, or longer) is 401', async (t) => {
    const app = await testApp(env);
    t.after(() => app.close());
    assert.equal((await postJson(app, '/v2/hash', HASH_BODY, { 'x-api-key': TEST_API_KEY })).statusCode, 200);
    const sameLength = TEST_API_KEY.slice(0, -1) + (TEST_API_KEY.endsWith('f') ? 'e' : 'f');
    assert.equal((await postJson(app, '/v2/hash', HASH_BODY, { 'x-api-key': sameLength })).statusCode, 401);
    assert.equal((await postJson(app, '/v2/hash', HASH_BODY, { 'x-api-key': TEST_API_KEY + 'x' })).statusCode, 401);
  });

  test('the error body never echoes the presented key', async (t) => {
    const app = await testApp(env);
    t.after(() => app.close());
    const response = await postJson(app, '/v2/hash', HASH_BODY, { 'x-api-key': 'my-guess-at-the-key-123' });
    assert.equal(response.statusCode, 401);
    assert.doesNotMatch(response.body, /my-guess-at-the-key-123/);
  });

  test('a key in the query string is ignored', async (t) => {
    const app = await testApp(env);
    t.after(() => app.close());
    const response = await app.inject({
      method: 'POST',
      url: `/v2/hash?x-api-key=${TEST_API_KEY}&api_key=${TEST_API_KEY}`,
      payload: HASH_BODY,
    });
    assert.equal(response.statusCode, 401);
    assert.equal(response.json().instance, '/v2/hash');
  });

  test('several comma-separated keys are all accepted (rotation window)', async (t) => {
    const app = await testApp({ CRYPTO_API_KEY: `${TEST_API_KEY},second-key-abcdefghijklmnop` });
    t.after(() => app.close());
    assert.equal((await postJson(app, '/v2/hash', HASH_BODY, { 'x-api-key': TEST_API_KEY })).statusCode, 200);
    assert.equal(
      (await postJson(app, '/v2/hash', HASH_BODY, { 'x-api-key': 'second-key-abcdefghijklmnop' })).statusCode,
      200,
    );
    assert.equal(
      (await postJson(app, '/v2/hash', HASH_BODY, { 'x-api-key': 'third-key-abcdefghijklmnopq' })).statusCode,
      401,
    );
  });
});

describe('JWT mode', () => {
  const env = { JWT_SECRET: TEST_JWT_SECRET };

  async function call(
    authorization: string | undefined,
    extraEnv: Record<string, string> = {},
    headers: Record<string, string> = {},
  ) {
    const app = await testApp({ ...env, ...extraEnv });
    try {
      return await postJson(app, '/v2/hash', HASH_BODY, { ...(authorization ? { authorization } : {}), ...headers });
    } finally {
      await app.close();
    }
  }

  test('a valid HS256 token with exp is accepted', async () => {
    assert.equal((await call(`Bearer ${await token()}`)).statusCode, 200);
  });

  test('a missing token is 401 with a Bearer challenge', async () => {
    const response = await call(undefined);
    assert.equal(response.statusCode, 401);
    assert.match(String(response.headers['www-authenticate']), /^Bearer realm="crypto-service"/);
  });

  test('an expired token is 401 (beyond the 60 s of clock skew)', async () => {
    const response = await call(`Bearer ${await token({}, { exp: now() - 120 })}`);
    assert.equal(response.statusCode, 401);
    assert.match(response.json().detail, /expired/);
    assert.match(String(response.headers['www-authenticate']), /error="invalid_token"/);
  });

  test('a token expired within the clock skew is still accepted', async () => {
    assert.equal((await call(`Bearer ${await token({}, { exp: now() - 20 })}`)).statusCode, 200);
  });

  test('a token without exp is 401', async () => {
    const response = await call(`Bearer ${await token({}, { exp: null })}`);
    assert.equal(response.statusCode, 401);
    assert.match(response.json().detail, /exp/);
  });

  test('alg "none" is 401', async () => {
    const unsigned = `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url({ exp: now() + 300 })}.`;
    assert.equal((await call(`Bearer ${unsigned}`)).statusCode, 401);
  });

  test('HS512 with the right secret is 401: only HS256 is accepted', async () => {
    const response = await call(`Bearer ${await token({}, { alg: 'HS512' })}`);
    assert.equal(response.statusCode, 401);
    assert.match(response.json().detail, /HS256/);
  });

  test('a token signed with another secret is 401', async () => {
    const other = new TextEncoder().encode('another-secret-that-is-also-32-bytes-or-more');
    assert.equal((await call(`Bearer ${await token({}, { key: other })}`)).statusCode, 401);
  });

  test('nbf in the future (beyond skew) is 401; within skew is accepted', async () => {
    const response = await call(`Bearer ${await token({ nbf: now() + 600 })}`);
    assert.equal(response.statusCode, 401);
    assert.match(response.json().detail, /not yet valid/);
    assert.equal((await call(`Bearer ${await token({ nbf: now() + 30 })}`)).statusCode, 200);
  });

  test('a typ other than JWT is 401', async () => {
    assert.equal((await call(`Bearer ${await token({}, { typ: 'at+jwt+evil' })}`)).statusCode, 401);
  });

  test('a garbage token is 401, and the token never appears in the response', async () => {
    const response = await call('Bearer not.a.jwt-at-all');
    assert.equal(response.statusCode, 401);
    assert.doesNotMatch(response.body, /not\.a\.jwt/);
  });

  test('iss and aud are checked when JWT_ISSUER and JWT_AUDIENCE are set', async () => {
    const extra = { JWT_ISSUER: 'https://issuer.example', JWT_AUDIENCE: 'crypto-service' };
    const good = await token({ iss: 'https://issuer.example', aud: 'crypto-service' });
    const wrongIssuer = await token({ iss: 'https://evil.example', aud: 'crypto-service' });
    const wrongAudience = await token({ iss: 'https://issuer.example', aud: 'someone-else' });
    assert.equal((await call(`Bearer ${good}`, extra)).statusCode, 200);
    assert.equal((await call(`Bearer ${wrongIssuer}`, extra)).statusCode, 401);
    assert.equal((await call(`Bearer ${wrongAudience}`, extra)).statusCode, 401);
  });

  test('a token from either secret of a rotation window is accepted', async () => {
    const old = 'the-old-secret-that-is-also-32-bytes-or-more';
    const rotation = { JWT_SECRET: `${TEST_JWT_SECRET},${old}` };
    assert.equal(
      (await call(`Bearer ${await token({}, { key: new TextEncoder().encode(old) })}`, rotation)).statusCode,
      200,
    );
    assert.equal((await call(`Bearer ${await token()}`, rotation)).statusCode, 200);
  });
});

describe('scopes', () => {
  const env = { JWT_SECRET: TEST_JWT_SECRET };

  test('a token with the needed scope passes; one without it is 403', async (t) => {
    const app = await testApp(env);
    t.after(() => app.close());
    const withScope = await postJson(app, '/v2/hash', HASH_BODY, {
      authorization: `Bearer ${await token({ scope: 'crypto:sign crypto:hash' })}`,
    });
    assert.equal(withScope.statusCode, 200);
    const without = await postJson(app, '/v2/hash', HASH_BODY, {
      authorization: `Bearer ${await token({ scope: 'crypto:sign' })}`,
    });
    assert.equal(without.statusCode, 403);
    assert.equal(without.json().code, 'FORBIDDEN');
    assert.match(without.json().detail, /crypto:hash/);
  });

  test('scopes as an array, crypto:*, and no scope claim all work as documented', async (t) => {
    const app = await testApp(env);
    t.after(() => app.close());
    const cases: [Record<string, unknown>, number][] = [
      [{ scopes: ['crypto:hash'] }, 200],
      [{ scopes: ['crypto:kdf'] }, 403],
      [{ scope: 'crypto:*' }, 200],
      [{}, 200],
      [{ scope: '' }, 403],
      [{ scope: ['crypto:hash'] }, 401],
    ];
    for (const [claims, expected] of cases) {
      const response = await postJson(app, '/v2/hash', HASH_BODY, { authorization: `Bearer ${await token(claims)}` });
      assert.equal(response.statusCode, expected, JSON.stringify(claims));
    }
  });
});

describe('both modes together', () => {
  const env = { CRYPTO_API_KEY: TEST_API_KEY, JWT_SECRET: TEST_JWT_SECRET };

  test('either credential alone is enough', async (t) => {
    const app = await testApp(env);
    t.after(() => app.close());
    assert.equal((await postJson(app, '/v2/hash', HASH_BODY, { 'x-api-key': TEST_API_KEY })).statusCode, 200);
    assert.equal(
      (await postJson(app, '/v2/hash', HASH_BODY, { authorization: `Bearer ${await token()}` })).statusCode,
      200,
    );
  });

  test('an invalid Bearer token beside a valid API key is 401', async (t) => {
    const app = await testApp(env);
    t.after(() => app.close());
    const response = await postJson(app, '/v2/hash', HASH_BODY, {
      'x-api-key': TEST_API_KEY,
      authorization: 'Bearer invalid.token.here',
    });
    assert.equal(response.statusCode, 401);
    const challenges = String(response.headers['www-authenticate']);
    assert.match(challenges, /Bearer/);
    assert.match(challenges, /ApiKey/);
  });

  test('an invalid API key beside a valid token is 401', async (t) => {
    const app = await testApp(env);
    t.after(() => app.close());
    const response = await postJson(app, '/v2/hash', HASH_BODY, {
      'x-api-key': 'wrong-key-wrong-key-wrong',
      authorization: `Bearer ${await token()}`,
    });
    assert.equal(response.statusCode, 401);
  });

  test('neither is 401', async (t) => {
    const app = await testApp(env);
    t.after(() => app.close());
    assert.equal((await postJson(app, '/v2/hash', HASH_BODY)).statusCode, 401);
  });
});

describe('public routes and development mode', () => {
  test('probes, metrics and the docs need no credential', async (t) => {
    const app = await testApp({ CRYPTO_API_KEY: TEST_API_KEY, JWT_SECRET: TEST_JWT_SECRET });
    t.after(() => app.close());
    for (const url of ['/live', '/ready', '/health', '/metrics', '/docs', '/docs/json']) {
      const response = await app.inject({ method: 'GET', url });
      assert.equal(response.statusCode, 200, url);
    }
  });

  test('GET /v2/algorithms needs a credential when auth is on', async (t) => {
    const app = await testApp({ CRYPTO_API_KEY: TEST_API_KEY });
    t.after(() => app.close());
    assert.equal((await app.inject({ method: 'GET', url: '/v2/algorithms' })).statusCode, 401);
    assert.equal(
      (await app.inject({ method: 'GET', url: '/v2/algorithms', headers: { 'x-api-key': TEST_API_KEY } })).statusCode,
      200,
    );
  });

  test('with neither variable set every request is allowed', async (t) => {
    const app = await testApp();
    t.after(() => app.close());
    assert.equal((await postJson(app, '/v2/hash', HASH_BODY)).statusCode, 200);
  });
});
