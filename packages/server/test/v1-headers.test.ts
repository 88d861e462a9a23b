/**
 * The /v1 deprecation headers (Deprecation, Sunset, Link): on every /v1 response, whichever
 * stage produced it (the route, validation, authentication, the rate limiter, the 404 / 405
 * handler, the body parser, CORS), with configurable dates; and on nothing else (/v2, probes, look-alike paths).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { postJson, testApp, TEST_API_KEY } from './helpers.ts';
import { deprecationHeaders, isV1Path } from '../src/v1/deprecation.ts';
import { assertDeprecated, assertNotDeprecated, assertProblem, DEFAULT_V1_HEADERS } from './v1-helpers.ts';

const KEY = { 'x-api-key': TEST_API_KEY };
const GENERATE = { name: 'Header', email: 'header@example.com' };

describe('/v1 deprecation headers', () => {
  test('on a success, a 400 (schema and input), 401, 404 (unknown route and /v1 itself), 405, 413 and 415', async (t) => {
    const app = await testApp({ CRYPTO_API_KEY: TEST_API_KEY, BODY_LIMIT_BYTES: '2048' });
    t.after(() => app.close());
    const success = await postJson(app, '/v1/generate', GENERATE, KEY);
    assert.equal(success.statusCode, 200);
    assertDeprecated(success, 'success');

    const schema = await postJson(app, '/v1/generate', { name: 'x' }, KEY);
    assertProblem(schema, 400, 'VALIDATION_FAILED');
    assertDeprecated(schema, 'schema violation');

    const input = await postJson(app, '/v1/encrypt', { message: 'x' }, KEY);
    assertProblem(input, 400, 'INVALID_INPUT');
    assertDeprecated(input, 'invalid input');

    const missing = await postJson(app, '/v1/generate', GENERATE);
    assertProblem(missing, 401, 'UNAUTHORIZED');
    assert.ok(missing.headers['www-authenticate']);
    assertDeprecated(missing, '401 without a key');

    const wrong = await postJson(app, '/v1/sign', { message: 'x' }, { 'x-api-key': 'not-the-key-0123456789' });
    assertProblem(wrong, 401, 'UNAUTHORIZED');
    assertDeprecated(wrong, '401 with a wrong key');

    for (const url of ['/v1/nothing-here', '/v1', '/v1/', '/v1/generate/extra', '/v1/nope?x=1']) {
      const notFound = await postJson(app, url, {}, KEY);
      assertProblem(notFound, 404, 'NOT_FOUND', url);
      assertDeprecated(notFound, url);
    }

    const wrongMethod = await app.inject({ method: 'GET', url: '/v1/encrypt', headers: KEY });
    assertProblem(wrongMethod, 405, 'METHOD_NOT_ALLOWED');
    assert.equal(wrongMethod.headers.allow, 'POST');
    assertDeprecated(wrongMethod, '405');

    const large = await postJson(app, '/v1/encrypt', { message: 'x'.repeat(4096), passphrase: 'p' }, KEY);
    assertProblem(large, 413, 'PAYLOAD_TOO_LARGE');
    assertDeprecated(large, '413');

    const text = await app.inject({
      method: 'POST',
      url: '/v1/encrypt',
      headers: { ...KEY, 'content-type': 'text/plain' },
      payload: 'x',
    });
    assertProblem(text, 415, 'UNSUPPORTED_MEDIA_TYPE');
    assertDeprecated(text, '415');

    const query = await postJson(app, '/v1/generate?verbose=1', GENERATE, KEY);
    assert.equal(query.statusCode, 200);
    assertDeprecated(query, 'with a query string');
  });

  test('on a 429, whether the first stage or the surcharge of an expensive request refuses it', async (t) => {
    const app = await testApp({ RATE_LIMIT_MAX: '12' });
    t.after(() => app.close());
    // 10 units for the key, then the RSA surcharge is over the limit.
    const rsa = await postJson(app, '/v1/generate', { ...GENERATE, type: 'rsa', rsaBits: 4096 });
    assertProblem(rsa, 429, 'RATE_LIMITED');
    assertDeprecated(rsa, '429 from chargeRateLimit');
    // The limit is spent: now the first stage refuses, before authentication or routing.
    for (const url of ['/v1/verify', '/v1/unknown']) {
      const limited = await postJson(app, url, {});
      assertProblem(limited, 429, 'RATE_LIMITED', url);
      assert.ok(limited.headers['retry-after']);
      assertDeprecated(limited, `429 on ${url}`);
    }
    // A /v2 request refused the same way carries none of them.
    const v2 = await postJson(app, '/v2/hash', { algorithm: 'sha256', data: 'x' });
    assertProblem(v2, 429, 'RATE_LIMITED');
    assertNotDeprecated(v2, '/v2 429');
  });

  test('on a CORS preflight of a /v1 route', async (t) => {
    const app = await testApp({ CORS_ORIGIN: 'https://app.example' });
    t.after(() => app.close());
    const preflight = await app.inject({
      method: 'OPTIONS',
      url: '/v1/encrypt',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    assert.equal(preflight.statusCode, 204);
    assert.equal(preflight.headers['access-control-allow-origin'], 'https://app.example');
    assertDeprecated(preflight, 'preflight');
  });

  test('never on /v2, the probes, or paths that only look like /v1', async (t) => {
    const app = await testApp({ CRYPTO_API_KEY: TEST_API_KEY });
    t.after(() => app.close());
    const v2 = await postJson(app, '/v2/hash', { algorithm: 'sha256', data: 'x' }, KEY);
    assert.equal(v2.statusCode, 200);
    assertNotDeprecated(v2, '/v2 success');
    assertNotDeprecated(await postJson(app, '/v2/hash', { algorithm: 'md5', data: 'x' }, KEY), '/v2 400');
    assertNotDeprecated(await postJson(app, '/v2/hash', { algorithm: 'sha256', data: 'x' }), '/v2 401');
    assertNotDeprecated(await postJson(app, '/v2/nothing', {}, KEY), '/v2 404');
    for (const url of ['/v10/generate', '/v1generate', '/api/v1/generate', '/V1/generate']) {
      const response = await postJson(app, url, GENERATE, KEY);
      assert.equal(response.statusCode, 404, url);
      assertNotDeprecated(response, url);
    }
    for (const url of ['/live', '/ready', '/health', '/metrics']) {
      assertNotDeprecated(await app.inject({ method: 'GET', url }), url);
    }
  });

  test('the dates come from V1_DEPRECATION_DATE and V1_SUNSET_DATE', async (t) => {
    const app = await testApp({ V1_DEPRECATION_DATE: '2025-06-30T23:59:59Z', V1_SUNSET_DATE: '2026-06-30' });
    t.after(() => app.close());
    const expected = {
      deprecation: '@1751327999',
      sunset: 'Tue, 30 Jun 2026 00:00:00 GMT',
      link: DEFAULT_V1_HEADERS.link,
    };
    assertDeprecated(await postJson(app, '/v1/generate', GENERATE), 'success', expected);
    assertDeprecated(await postJson(app, '/v1/missing', {}), '404', expected);
  });

  test('the header values: RFC 9745 @seconds, RFC 8594 IMF-fixdate, successor link', () => {
    assert.deepEqual(
      deprecationHeaders({
        deprecationDate: new Date('2026-01-01T00:00:00Z'),
        sunsetDate: new Date('2027-01-01T00:00:00Z'),
      }),
      DEFAULT_V1_HEADERS,
    );
    // A date with an offset is the same instant in UTC.
    assert.equal(
      deprecationHeaders({
        deprecationDate: new Date('2026-01-01T02:00:00+02:00'),
        sunsetDate: new Date('2027-01-01T00:00:00Z'),
      }).deprecation,
      '@1767225600',
    );
  });

  test('what counts as a /v1 path', () => {
    for (const url of ['/v1', '/v1/', '/v1/generate', '/v1/a/b', '/v1?x=1', '/v1/generate?x=/v2'])
      assert.equal(isV1Path(url), true, url);
    for (const url of ['/', '/v2/hash', '/v10', '/v1x', '/api/v1', '/V1/generate', '/v2?next=/v1/'])
      assert.equal(isV1Path(url), false, url);
  });
});
