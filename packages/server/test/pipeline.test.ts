/**
 * The documented pipeline order (docs/api.md): security headers, CORS, rate limiting,
 * compression, authentication, handler. Each stage's effects must be visible on the responses of the stages after it.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import { postJson, testApp, testConfig, TEST_API_KEY } from './helpers.ts';
import { buildApp } from '../src/app.ts';
import { Readiness } from '../src/readiness.ts';
import { isUnderThreshold } from '../src/plugins/compression.ts';

const ORIGIN = 'https://app.example.com';
const HASH_BODY = { algorithm: 'sha256', data: 'abc' };

function assertSecurityHeaders(headers: Record<string, unknown>, what: string) {
  assert.equal(headers['x-content-type-options'], 'nosniff', what);
  assert.ok(headers['content-security-policy'], `${what}: content-security-policy`);
  // app.inject is plain HTTP, where HSTS must not be sent (RFC 6797 §7.2).
  assert.equal(headers['strict-transport-security'], undefined, `${what}: strict-transport-security`);
  assert.equal(headers['cache-control'], 'no-store', what);
  assert.equal(headers['x-powered-by'], undefined, what);
}

describe('pipeline order', () => {
  test('a 401 carries the security and CORS headers', async (t) => {
    const app = await testApp({ CRYPTO_API_KEY: TEST_API_KEY, CORS_ORIGIN: ORIGIN });
    t.after(() => app.close());
    const response = await postJson(app, '/v2/hash', HASH_BODY, { origin: ORIGIN });
    assert.equal(response.statusCode, 401);
    assertSecurityHeaders(response.headers, '401');
    assert.equal(response.headers['access-control-allow-origin'], ORIGIN);
  });

  test('an unauthenticated flood is answered 429 once past the limit, with Retry-After, security and CORS headers', async (t) => {
    const app = await testApp({ CRYPTO_API_KEY: TEST_API_KEY, CORS_ORIGIN: ORIGIN, RATE_LIMIT_MAX: '3' });
    t.after(() => app.close());
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 5; i++) {
      last = await postJson(app, '/v2/hash', HASH_BODY, { origin: ORIGIN });
      statuses.push(last.statusCode);
    }
    assert.deepEqual(statuses, [401, 401, 401, 429, 429]);
    assert.ok(last);
    assert.ok(Number(last.headers['retry-after']) >= 1);
    assert.equal(last.json().code, 'RATE_LIMITED');
    assertSecurityHeaders(last.headers, '429');
    assert.equal(last.headers['access-control-allow-origin'], ORIGIN);
  });

  test('the IETF RateLimit and RateLimit-Policy headers count down', async (t) => {
    const app = await testApp({ RATE_LIMIT_MAX: '10', RATE_LIMIT_WINDOW_MS: '60000' });
    t.after(() => app.close());
    const first = await postJson(app, '/v2/hash', HASH_BODY);
    const second = await postJson(app, '/v2/hash', HASH_BODY);
    assert.equal(first.headers['ratelimit-policy'], '"default";q=10;w=60');
    assert.match(String(first.headers.ratelimit), /^"default";r=9;t=\d+$/);
    assert.match(String(second.headers.ratelimit), /^"default";r=8;t=\d+$/);
  });

  test('a large remaining count is written in plain digits', async (t) => {
    const app = await testApp({ RATE_LIMIT_MAX: '10000000', RATE_LIMIT_WINDOW_MS: '60000' });
    t.after(() => app.close());
    const response = await postJson(app, '/v2/hash', HASH_BODY);
    assert.match(String(response.headers.ratelimit), /^"default";r=9999999;t=\d+$/);
  });

  test('clients are counted apart by address', async (t) => {
    const app = await testApp({ RATE_LIMIT_MAX: '1' });
    t.after(() => app.close());
    const from = (remoteAddress: string) =>
      app.inject({ method: 'POST', url: '/v2/hash', payload: HASH_BODY, remoteAddress });
    assert.equal((await from('10.0.0.1')).statusCode, 200);
    assert.equal((await from('10.0.0.1')).statusCode, 429);
    assert.equal((await from('10.0.0.2')).statusCode, 200);
  });

  test('unknown routes are rate-limited like any other request', async (t) => {
    const app = await testApp({ RATE_LIMIT_MAX: '2' });
    t.after(() => app.close());
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await app.inject({ method: 'GET', url: '/no/such/route' })).statusCode);
    assert.deepEqual(statuses, [404, 404, 429]);
  });

  test('probes are exempt from the rate limit, so a flood cannot make a healthy process look dead', async (t) => {
    const app = await testApp({ RATE_LIMIT_MAX: '1' });
    t.after(() => app.close());
    await postJson(app, '/v2/hash', HASH_BODY);
    assert.equal((await postJson(app, '/v2/hash', HASH_BODY)).statusCode, 429);
    for (const url of ['/live', '/ready', '/health']) {
      assert.equal((await app.inject({ method: 'GET', url })).statusCode, 200, url);
    }
  });

  test('a CORS preflight needs no credential and is answered before authentication', async (t) => {
    const app = await testApp({ CRYPTO_API_KEY: TEST_API_KEY, CORS_ORIGIN: ORIGIN });
    t.after(() => app.close());
    const response = await app.inject({
      method: 'OPTIONS',
      url: '/v2/hash',
      headers: {
        origin: ORIGIN,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, x-api-key',
      },
    });
    assert.equal(response.statusCode, 204);
    assert.equal(response.headers['access-control-allow-origin'], ORIGIN);
    assert.match(String(response.headers['access-control-allow-headers']), /x-api-key/);
    assertSecurityHeaders(response.headers, 'preflight');
  });

  test('an origin that is not listed gets no CORS grant; the null origin never does', async (t) => {
    const app = await testApp({ CORS_ORIGIN: ORIGIN });
    t.after(() => app.close());
    for (const origin of ['https://evil.example', 'null']) {
      const response = await postJson(app, '/v2/hash', HASH_BODY, { origin });
      assert.equal(response.headers['access-control-allow-origin'], undefined, origin);
    }
  });

  test('with CORS_ORIGIN unset, CORS is off', async (t) => {
    const app = await testApp();
    t.after(() => app.close());
    const response = await postJson(app, '/v2/hash', HASH_BODY, { origin: ORIGIN });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['access-control-allow-origin'], undefined);
  });
});

describe('security headers', () => {
  test('JSON responses get the strict API set; only the docs page gets a CSP that lets scripts run', async (t) => {
    const app = await testApp();
    t.after(() => app.close());
    const api = await postJson(app, '/v2/hash', HASH_BODY);
    assert.equal(api.statusCode, 200);
    assertSecurityHeaders(api.headers, 'JSON');
    assert.equal(api.headers['content-security-policy'], "default-src 'none'; frame-ancestors 'none'");
    assert.equal(api.headers['x-frame-options'], 'DENY');
    assert.equal(api.headers['cache-control'], 'no-store');
    assert.equal(api.headers['x-content-type-options'], 'nosniff');
    for (const documentOnly of [
      'referrer-policy',
      'cross-origin-resource-policy',
      'cross-origin-opener-policy',
      'origin-agent-cluster',
      'x-dns-prefetch-control',
      'x-download-options',
      'x-permitted-cross-domain-policies',
      'x-xss-protection',
    ]) {
      assert.equal(api.headers[documentOnly], undefined, documentOnly);
    }
    // An error, and a route that does not exist, get the same set.
    for (const url of ['/v2/nope', '/docsx']) {
      const missing = await app.inject({ method: 'GET', url });
      assert.equal(missing.statusCode, 404, url);
      assert.equal(missing.headers['content-security-policy'], "default-src 'none'; frame-ancestors 'none'", url);
    }

    const page = await app.inject({ method: 'GET', url: '/docs' });
    const pageCsp = String(page.headers['content-security-policy']);
    assert.match(pageCsp, /script-src 'self'/);
    assert.match(pageCsp, /frame-ancestors 'none'/);
    assert.doesNotMatch(pageCsp, /unsafe-eval/);
    assert.equal(page.headers['cross-origin-opener-policy'], 'same-origin');
    assert.equal(page.headers['referrer-policy'], 'no-referrer');
    assert.equal(page.headers['cross-origin-resource-policy'], 'same-origin');
    assert.equal(page.headers['cache-control'], 'no-store');
    const document = await app.inject({ method: 'GET', url: '/docs/json' });
    assert.equal(document.statusCode, 200);
    assert.match(String(document.headers['content-security-policy']), /script-src 'self'/);
  });
});

describe('HSTS', () => {
  const HSTS = 'max-age=31536000; includeSubDomains';
  const forwardedHttps = { 'x-forwarded-proto': 'https' };

  test('sent when a trusted proxy says the client came over HTTPS, on JSON, errors and the docs page alike', async (t) => {
    // app.inject's peer is 127.0.0.1.
    const app = await testApp({ TRUSTED_PROXY_CIDRS: '127.0.0.1/32', CRYPTO_API_KEY: TEST_API_KEY });
    t.after(() => app.close());
    const unauthorised = await postJson(app, '/v2/hash', HASH_BODY, forwardedHttps);
    assert.equal(unauthorised.statusCode, 401);
    assert.equal(unauthorised.headers['strict-transport-security'], HSTS);
    const hashed = await postJson(app, '/v2/hash', HASH_BODY, { ...forwardedHttps, 'x-api-key': TEST_API_KEY });
    assert.equal(hashed.statusCode, 200);
    assert.equal(hashed.headers['strict-transport-security'], HSTS);
    const page = await app.inject({ method: 'GET', url: '/docs', headers: forwardedHttps });
    assert.match(String(page.headers['strict-transport-security']), /^max-age=\d+/);
    // The scheme is case-insensitive; the last entry (the nearest proxy's) is the one that counts.
    for (const proto of ['HTTPS', 'http, https']) {
      const response = await postJson(app, '/v2/hash', HASH_BODY, {
        'x-forwarded-proto': proto,
        'x-api-key': TEST_API_KEY,
      });
      assert.equal(response.headers['strict-transport-security'], HSTS, proto);
    }
    const spoofedFirst = await postJson(app, '/v2/hash', HASH_BODY, {
      'x-forwarded-proto': 'https, http',
      'x-api-key': TEST_API_KEY,
    });
    assert.equal(spoofedFirst.headers['strict-transport-security'], undefined);
    // The same proxy forwarding plain HTTP: none.
    const plain = await postJson(app, '/v2/hash', HASH_BODY, {
      'x-forwarded-proto': 'http',
      'x-api-key': TEST_API_KEY,
    });
    assert.equal(plain.statusCode, 200);
    assert.equal(plain.headers['strict-transport-security'], undefined);
  });

  test('not sent over plain HTTP, even when an untrusted client claims X-Forwarded-Proto: https', async (t) => {
    const environments: Record<string, string>[] = [{}, { TRUSTED_PROXY_CIDRS: '10.0.0.0/8' }];
    for (const env of environments) {
      const app = await testApp(env);
      t.after(() => app.close());
      for (const response of [
        await postJson(app, '/v2/hash', HASH_BODY, forwardedHttps),
        await app.inject({ method: 'GET', url: '/docs', headers: forwardedHttps }),
        await app.inject({ method: 'GET', url: '/v2/%zz', headers: forwardedHttps }),
      ]) {
        assert.ok(response.statusCode < 500, String(response.statusCode));
        assert.equal(response.headers['strict-transport-security'], undefined, JSON.stringify(env));
        assert.equal(response.headers['x-content-type-options'], 'nosniff');
      }
    }
  });
});

describe('draining (SIGTERM)', () => {
  test('a request that still arrives is refused with a 503 problem, Connection: close and the security and CORS headers; the probes answer', async (t) => {
    const readiness = new Readiness();
    const app = await testApp({ CORS_ORIGIN: ORIGIN }, { readiness });
    t.after(() => app.close());
    assert.equal((await postJson(app, '/v2/hash', HASH_BODY)).statusCode, 200);
    readiness.startDraining();

    const refused = await postJson(app, '/v2/hash', HASH_BODY, { origin: ORIGIN });
    assert.equal(refused.statusCode, 503);
    assert.equal(refused.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.equal((refused.json() as { code: string }).code, 'SERVICE_UNAVAILABLE');
    assert.match((refused.json() as { detail: string }).detail, /shutting down/);
    assert.equal(refused.headers.connection, 'close');
    assert.equal(refused.headers['retry-after'], '1');
    assertSecurityHeaders(refused.headers, 'draining 503');
    assert.equal(refused.headers['access-control-allow-origin'], ORIGIN);
    assert.equal(refused.headers.ratelimit, undefined, 'refused before the rate limit: it costs the client nothing');

    assert.equal((await app.inject({ method: 'GET', url: '/live' })).statusCode, 200);
    const ready = await app.inject({ method: 'GET', url: '/ready' });
    assert.equal(ready.statusCode, 503);
    assert.equal((ready.json() as { checks: Record<string, string> }).checks.shutdown, 'fail');
  });
});

describe('compression', () => {
  test('a large response is compressed when the client accepts it; a small one is not', async (t) => {
    const app = await testApp();
    t.after(() => app.close());
    const large = await app.inject({ method: 'GET', url: '/docs/json', headers: { 'accept-encoding': 'gzip' } });
    assert.equal(large.headers['content-encoding'], 'gzip');
    const document = JSON.parse(gunzipSync(large.rawPayload).toString('utf8'));
    assert.equal(document.openapi, '3.1.0');
    const brotli = await app.inject({ method: 'GET', url: '/metrics', headers: { 'accept-encoding': 'br' } });
    assert.equal(brotli.headers['content-encoding'], 'br');
    assert.match(brotliDecompressSync(brotli.rawPayload).toString('utf8'), /process_cpu_seconds_total/);
    const small = await postJson(app, '/v2/hash', HASH_BODY, { 'accept-encoding': 'gzip' });
    assert.equal(small.headers['content-encoding'], undefined);
    assert.equal(small.json().data.length, 64);
  });

  test('the threshold counts bytes: a route answer just over it is compressed, one of few characters but many bytes too', async (t) => {
    const app = await testApp();
    t.after(() => app.close());
    // 600 bytes of SHAKE256 output: 1,200 hex characters in a 1,211-byte body.
    const xof = await postJson(
      app,
      '/v2/hash',
      { algorithm: 'shake256', data: 'abc', length: 600 },
      { 'accept-encoding': 'gzip' },
    );
    assert.equal(xof.headers['content-encoding'], 'gzip');
    assert.equal(JSON.parse(gunzipSync(xof.rawPayload).toString('utf8')).data.length, 1200);
    // 400 euro signs: a 410-character body of 1,210 bytes.
    const key = '00'.repeat(32);
    const plaintext = '€'.repeat(400);
    const sealed = (await postJson(app, '/v2/encrypt', { key, plaintext })).json().data.ciphertext as string;
    const opened = await postJson(app, '/v2/decrypt', { key, ciphertext: sealed }, { 'accept-encoding': 'gzip' });
    assert.equal(opened.statusCode, 200);
    assert.equal(opened.headers['content-encoding'], 'gzip');
    assert.equal(JSON.parse(gunzipSync(opened.rawPayload).toString('utf8')).data, plaintext);
    // Just under the threshold: passed through, with its exact length.
    const under = await postJson(
      app,
      '/v2/hash',
      { algorithm: 'shake256', data: 'abc', length: 500 },
      { 'accept-encoding': 'gzip' },
    );
    assert.equal(under.headers['content-encoding'], undefined);
    assert.equal(Number(under.headers['content-length']), under.rawPayload.byteLength);
  });

  test('isUnderThreshold counts UTF-8 bytes, settling most strings by their length alone', () => {
    const cases: [unknown, boolean][] = [
      ['', true],
      ['x'.repeat(341), true], // 3 × 341 < 1024: settled by the length
      ['x'.repeat(342), true], // counted: 342 bytes
      ['x'.repeat(1023), true],
      ['x'.repeat(1024), false], // settled by the length: at least 1024 bytes
      ['€'.repeat(341), true], // 1,023 bytes
      ['€'.repeat(342), false], // 1,026 bytes in 342 characters
      ['😀'.repeat(255), true], // 510 code units, 1,020 bytes
      ['😀'.repeat(256), false], // 512 code units, 1,024 bytes
      [Buffer.alloc(1023), true],
      [Buffer.alloc(1024), false],
      [new Uint8Array(10), false], // not a Buffer: left to compress
      [null, false],
    ];
    for (const [payload, expected] of cases) {
      assert.equal(
        isUnderThreshold(payload),
        expected,
        `${typeof payload === 'string' ? `${payload.length} code units` : String(payload)}`,
      );
    }
  });

  test('without Accept-Encoding nothing is compressed', async (t) => {
    const app = await testApp();
    t.after(() => app.close());
    const response = await app.inject({ method: 'GET', url: '/docs/json' });
    assert.equal(response.headers['content-encoding'], undefined);
    assert.equal(response.json().openapi, '3.1.0');
  });
});

describe('charging more once the body is known', () => {
  test('reply.chargeRateLimit adds units, updates the header, and answers 429 past the limit', async (t) => {
    const app = await buildApp(testConfig({ RATE_LIMIT_MAX: '10' }), { quiet: true });
    t.after(() => app.close());
    // A route for this test only: it charges what its body asks, as an expensive operation would.
    app.post('/charge', { config: { public: true } }, async (request, reply) => {
      await reply.chargeRateLimit((request.body as { units: number }).units);
      return { ok: true };
    });
    const charge = (units: number) => postJson(app, '/charge', { units });
    const first = await charge(4);
    assert.equal(first.statusCode, 200);
    assert.match(String(first.headers.ratelimit), /^"default";r=5;t=\d+$/);
    assert.equal((await charge(4)).statusCode, 200);
    const over = await charge(4);
    assert.equal(over.statusCode, 429);
    assert.equal(over.json().code, 'RATE_LIMITED');
    assert.ok(Number(over.headers['retry-after']) >= 1);
  });
});
