/**
 * CORS (decisions in src/plugins/cors.ts and SECURITY.md): a listed origin is reflected
 * with `Vary: Origin`; an unlisted origin and `Origin: null` get nothing; `*` never comes with
 * credentials (and `Access-Control-Allow-Credentials` is never sent at all: credentials travel in
 * headers, never in cookies); preflights from a granted origin work without a credential, and a
 * preflight from `null` or an unlisted origin is answered without any grant.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { postJson, testApp, TEST_API_KEY } from '../helpers.ts';

const APP = 'https://app.example.com';
const ADMIN = 'https://admin.example.com:8443';
const HASH_BODY = { algorithm: 'sha256', data: 'abc' };

function accessControl(headers: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => name.startsWith('access-control-')));
}

function preflight(app: FastifyInstance, origin: string | undefined, extra: Record<string, string> = {}) {
  return app.inject({
    method: 'OPTIONS',
    url: '/v2/hash',
    headers: {
      ...(origin === undefined ? {} : { origin }),
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type, x-api-key',
      ...extra,
    },
  });
}

describe('CORS_ORIGIN listing origins', () => {
  let app: FastifyInstance;
  test.before(async () => {
    app = await testApp({ CORS_ORIGIN: `${APP},${ADMIN}`, CRYPTO_API_KEY: TEST_API_KEY });
  });
  test.after(() => app.close());

  test('each listed origin is reflected exactly, with Vary: Origin, and never with credentials', async () => {
    for (const origin of [APP, ADMIN]) {
      const response = await postJson(app, '/v2/hash', HASH_BODY, { origin, 'x-api-key': TEST_API_KEY });
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['access-control-allow-origin'], origin);
      assert.match(String(response.headers.vary), /\bOrigin\b/i);
      assert.equal(response.headers['access-control-allow-credentials'], undefined);
      assert.match(String(response.headers['access-control-expose-headers']), /ratelimit/);
    }
  });

  test('an unlisted origin, a look-alike, and the null origin get no Access-Control-* header at all', async () => {
    const lookAlikes = [
      'https://evil.example',
      'https://app.example.com.evil.example',
      'https://evilapp.example.com',
      'http://app.example.com',
      'https://app.example.com:443',
      'https://APP.example.com',
      'https://admin.example.com',
      'null',
      'NULL',
      '*',
      '',
    ];
    for (const origin of lookAlikes) {
      const response = await postJson(app, '/v2/hash', HASH_BODY, { origin, 'x-api-key': TEST_API_KEY });
      assert.equal(response.statusCode, 200, origin);
      assert.deepEqual(accessControl(response.headers), {}, `origin ${JSON.stringify(origin)}`);
      // Still Vary: Origin, so a cache never hands this response to a listed origin or back.
      assert.match(String(response.headers.vary), /\bOrigin\b/i, origin);
    }
  });

  test('a preflight from a listed origin is answered without a credential (and not counted as a request)', async () => {
    const response = await preflight(app, APP);
    assert.equal(response.statusCode, 204);
    assert.equal(response.headers['access-control-allow-origin'], APP);
    assert.equal(response.headers['access-control-allow-methods'], 'GET, POST');
    assert.match(String(response.headers['access-control-allow-headers']), /x-api-key/);
    assert.match(String(response.headers['access-control-allow-headers']), /authorization/);
    assert.equal(response.headers['access-control-max-age'], '600');
    assert.equal(response.headers['access-control-allow-credentials'], undefined);
    assert.equal(
      response.headers['www-authenticate'],
      undefined,
      'no authentication challenge: the preflight never reached it',
    );
  });

  test('a preflight from null or an unlisted origin gets no grant (the browser then refuses the call), and no 401', async () => {
    for (const origin of ['null', 'https://evil.example']) {
      const response = await preflight(app, origin);
      assert.equal(response.statusCode, 204, origin);
      assert.deepEqual(accessControl(response.headers), {}, origin);
      assert.equal(response.body, '');
    }
  });

  test('a request asking for credentials (a cookie) is not granted credentials either', async () => {
    const response = await preflight(app, APP, { cookie: 'session=abc' });
    assert.equal(response.headers['access-control-allow-credentials'], undefined);
  });
});

describe('CORS_ORIGIN=*', () => {
  let app: FastifyInstance;
  test.before(async () => {
    app = await testApp({ CORS_ORIGIN: '*' });
  });
  test.after(() => app.close());

  test('any origin gets the literal *, never itself reflected, never with credentials', async () => {
    for (const origin of [APP, 'https://anyone.example']) {
      const response = await postJson(app, '/v2/hash', HASH_BODY, { origin });
      assert.equal(response.headers['access-control-allow-origin'], '*', origin);
      assert.equal(response.headers['access-control-allow-credentials'], undefined, origin);
      const pre = await preflight(app, origin);
      assert.equal(pre.statusCode, 204);
      assert.equal(pre.headers['access-control-allow-origin'], '*', origin);
      assert.equal(pre.headers['access-control-allow-credentials'], undefined, origin);
    }
  });

  test('even under *, the null origin is granted nothing', async () => {
    assert.deepEqual(accessControl((await postJson(app, '/v2/hash', HASH_BODY, { origin: 'null' })).headers), {});
    const pre = await preflight(app, 'null');
    assert.equal(pre.statusCode, 204);
    assert.deepEqual(accessControl(pre.headers), {});
  });

  test("a request without Origin (not a browser's cross-origin call) gets no CORS header", async () => {
    assert.deepEqual(accessControl((await postJson(app, '/v2/hash', HASH_BODY)).headers), {});
  });
});

describe('configuration', () => {
  test('the null origin cannot be listed, and an origin with a path is refused at start', async () => {
    await assert.rejects(testApp({ CORS_ORIGIN: 'null' }), /CORS_ORIGIN/);
    await assert.rejects(testApp({ CORS_ORIGIN: `${APP},null` }), /CORS_ORIGIN/);
    await assert.rejects(testApp({ CORS_ORIGIN: `${APP}/path` }), /CORS_ORIGIN/);
  });

  test('without CORS_ORIGIN, CORS is off: no header, and an OPTIONS is not a preflight', async (t) => {
    const app = await testApp();
    t.after(() => app.close());
    const response = await preflight(app, APP);
    assert.deepEqual(accessControl(response.headers), {});
    assert.notEqual(response.statusCode, 204);
  });
});
