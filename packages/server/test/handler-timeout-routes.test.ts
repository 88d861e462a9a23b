/**
 * HANDLER_TIMEOUT_MS applies per route, to the routes of variable and possibly large cost only
 * (their `config.handlerTimeout`): the cheap, body-bounded routes run without a per-request timer
 * (plugins/handler-timeout.ts). (That a timed route answers a 503 in time: security/limits.test.ts.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildApp } from '../src/app.ts';
import { postJson, testConfig } from './helpers.ts';

/** The route templates of the app whose config asks for HANDLER_TIMEOUT_MS. */
async function timedRoutes(): Promise<Set<string>> {
  const timed = new Set<string>();
  const app = await buildApp(testConfig(), {
    quiet: true,
    onRoute: (route) => {
      if (route.config?.handlerTimeout === true) timed.add(route.url);
    },
  });
  await app.close();
  return timed;
}

test('the timed routes are the queued, post-quantum-signing, multi-recipient and /v1 ones', async () => {
  const timedInApp = await timedRoutes();
  const hasHandlerTimeout = (url: string) => timedInApp.has(url);
  const timed = [
    '/v1/sign',
    '/v1/generate',
    '/v2/password/hash',
    '/v2/password/decrypt',
    '/v2/kdf',
    '/v2/multi-recipient/encrypt',
    '/v2/pq/dsa/sign',
    '/v2/pq/slh-dsa/keygen',
    '/v2/pq/hash-sign/sign',
    '/v2/sign',
    '/v2/verify',
    '/v2/keys/generate',
  ];
  const untimed = [
    '/v2/hash',
    '/v2/encrypt',
    '/v2/hmac',
    '/v2/keys/wrap',
    '/v2/sealedbox/seal',
    '/v2/pq/encapsulate',
    '/v2/pq/hybrid/keygen',
    '/v2/signature',
    '/v2/kdfx',
    '/v2/keys/generator',
    '/v10/sign',
    '/live',
    '/metrics',
    '/docs/json',
  ];
  for (const url of timed) assert.equal(hasHandlerTimeout(url), true, url);
  for (const url of untimed) assert.equal(hasHandlerTimeout(url), false, url);
});

test('the app gives HANDLER_TIMEOUT_MS to the timed routes and none to the others', async (t) => {
  const app = await buildApp(testConfig({ HANDLER_TIMEOUT_MS: '1234' }), { quiet: true });
  t.after(() => app.close());
  const seen = new Map<string, boolean>();
  app.addHook('onRequest', (request, _reply, done) => {
    // Fastify binds the handler: a wrapped one is "bound timedHandler".
    seen.set(request.url, request.routeOptions.handler.name.endsWith('timedHandler'));
    done();
  });
  await app.ready();
  await app.selfTests.done;
  assert.equal((await postJson(app, '/v2/hash', { algorithm: 'sha256', data: 'abc' })).statusCode, 200);
  // Bodies the schemas refuse: answered at once, after the onRequest hooks have seen the route.
  assert.equal((await postJson(app, '/v2/password/hash', { nonsense: true })).statusCode, 400);
  assert.equal((await postJson(app, '/v2/sign', { nonsense: true })).statusCode, 400);
  assert.equal((await postJson(app, '/v2/encrypt', { nonsense: true })).statusCode, 400);
  assert.equal(seen.get('/v2/password/hash'), true);
  assert.equal(seen.get('/v2/sign'), true);
  assert.equal(seen.get('/v2/hash'), false);
  assert.equal(seen.get('/v2/encrypt'), false);
});
