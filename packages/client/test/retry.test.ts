/**
 * Retries: off by default; on 429 and 503 only; Retry-After honoured as seconds or as an HTTP-date;
 * bounded by attempts and by a maximum delay. The waits run on node:test's mock clock (setTimeout
 * and Date), so that the suite never sleeps and its timings do not depend on the host.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CryptoApiError, CryptoClient } from '@crypto-service/client';
import { parseRetryAfter, retryDelay, retryPolicy } from '../src/retry.ts';
import { advanceClockUntil, jsonResponse, nextTurn, scriptedFetch, startService } from './helpers.ts';

const HASH = { algorithm: 'sha256', data: 'abc' } as const;
const OK = jsonResponse(200, { data: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad' });
const problem = (status: number, headers: Record<string, string> = {}) =>
  jsonResponse(
    status,
    { status, error: `status ${status}`, code: status === 429 ? 'RATE_LIMITED' : 'SERVICE_UNAVAILABLE' },
    headers,
  );

test('against the real rate limiter: a 429 without retry, then a retry that waits Retry-After and succeeds', async (t) => {
  // One request per 2 s window: the window opens with the first request, so the two that follow
  // at once are refused for certain (it would take a 2 s stall for the window to roll over first).
  const service = await startService({ RATE_LIMIT_MAX: '1', RATE_LIMIT_WINDOW_MS: '2000' });
  t.after(() => service.close());
  const statuses: number[] = [];
  // A connection per request: a kept-alive socket would outlive the test and put its parser's
  // timers on a later test's mock clock.
  const counting = async (url: string, init: RequestInit) => {
    const response = await fetch(url, {
      ...init,
      headers: { ...(init.headers as Record<string, string>), connection: 'close' },
    });
    statuses.push(response.status);
    return response;
  };
  const once = new CryptoClient({ baseUrl: service.baseUrl, fetch: counting });
  assert.equal((await once.hash(HASH)).data.length, 32);
  const refused = await once.hash(HASH).catch((error: unknown) => error);
  assert.ok(refused instanceof CryptoApiError);
  assert.equal(refused.status, 429);
  assert.equal(refused.body.code, 'RATE_LIMITED');
  const retryAfter = Number(refused.headers.get('retry-after'));
  assert.ok(retryAfter >= 1, 'the service says when to come back');

  const patient = new CryptoClient({
    baseUrl: service.baseUrl,
    fetch: counting,
    retry: { attempts: 3, maxDelay: 5000 },
  });
  statuses.length = 0;
  // The service's rate limiter reads Date.now() too, so its window rolls over on the mock clock.
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: Date.now() });
  const started = Date.now();
  const call = patient.hash(HASH);
  // The clock stands still until the first refusal is in, so that it is the service's real answer.
  while (statuses.length === 0) await nextTurn();
  await advanceClockUntil(t.mock.timers, () => statuses.length === 2);
  assert.equal((await call).data.digest.slice(0, 8), 'ba7816bf');
  const waited = Date.now() - started;
  assert.deepEqual(statuses, [429, 200]);
  assert.ok(waited >= retryAfter * 1000 - 50, `waited ${waited} ms for Retry-After: ${retryAfter}`);
});

test('Retry-After as an HTTP-date is honoured', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: Date.parse('2015-10-21T07:28:00.250Z') });
  // HTTP-dates have whole seconds: a whole second two to three seconds ahead, so that the date
  // says exactly when (a date cut to its second would wait anywhere from 1 to 2 s).
  const retryAt = Math.ceil((Date.now() + 2000) / 1000) * 1000;
  const date = new Date(retryAt).toUTCString();
  const { fetch, requests } = scriptedFetch([problem(503, { 'retry-after': date }), OK]);
  const client = new CryptoClient({ baseUrl: 'http://service.test', fetch, retry: true });
  const expected = retryAt - Date.now();
  const started = Date.now();
  const call = client.hash(HASH);
  await advanceClockUntil(t.mock.timers, () => requests.length === 2);
  await call;
  const waited = Date.now() - started;
  assert.equal(requests.length, 2);
  assert.ok(waited >= expected - 50 && waited <= 5000, `waited ${waited} ms until ${date} (${expected} ms ahead)`);
});

test('retry is off by default: a 429 is thrown at once', async () => {
  const { fetch, requests } = scriptedFetch([problem(429, { 'retry-after': '0' }), OK]);
  const error = await new CryptoClient({ baseUrl: 'http://service.test', fetch })
    .hash(HASH)
    .catch((caught: unknown) => caught);
  assert.ok(error instanceof CryptoApiError);
  assert.equal(error.status, 429);
  assert.equal(requests.length, 1);
});

test('attempts are bounded: the last 503 is thrown', async () => {
  const { fetch, requests } = scriptedFetch([problem(503, { 'retry-after': '0' })]);
  const error = await new CryptoClient({ baseUrl: 'http://service.test', fetch, retry: { attempts: 4 } })
    .hash(HASH)
    .catch((caught: unknown) => caught);
  assert.ok(error instanceof CryptoApiError);
  assert.equal(error.status, 503);
  assert.equal(requests.length, 4);
});

test('a Retry-After beyond maxDelay is not waited for: the 429 is thrown at once', async () => {
  const { fetch, requests } = scriptedFetch([problem(429, { 'retry-after': '120' }), OK]);
  const started = performance.now();
  const error = await new CryptoClient({ baseUrl: 'http://service.test', fetch, retry: { maxDelay: 1000 } })
    .hash(HASH)
    .catch((caught: unknown) => caught);
  assert.ok(error instanceof CryptoApiError);
  assert.equal(error.status, 429);
  assert.equal(requests.length, 1);
  assert.ok(performance.now() - started < 5000, 'far less than the 120 s asked for');
});

test('only 429 and 503 are retried', async () => {
  for (const status of [400, 401, 404, 500, 502]) {
    const { fetch, requests } = scriptedFetch([problem(status, { 'retry-after': '0' }), OK]);
    const error = await new CryptoClient({ baseUrl: 'http://service.test', fetch, retry: true })
      .hash(HASH)
      .catch((caught: unknown) => caught);
    assert.ok(error instanceof CryptoApiError, `status ${status}`);
    assert.equal(error.status, status);
    assert.equal(requests.length, 1, `status ${status} is not retried`);
  }
});

test('without Retry-After, the wait doubles from baseDelay, capped by maxDelay', async (t) => {
  const policy = retryPolicy({ attempts: 6, baseDelay: 100, maxDelay: 350 });
  const none = new Headers();
  assert.deepEqual(
    [1, 2, 3, 4, 5].map((attempt) => retryDelay(policy, attempt, 503, none, 0)),
    [100, 200, 350, 350, 350],
  );
  assert.equal(retryDelay(policy, 6, 503, none, 0), undefined, 'no attempt after the last');
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const { fetch, requests } = scriptedFetch([problem(503), problem(503), OK]);
  const call = new CryptoClient({ baseUrl: 'http://service.test', fetch, retry: { baseDelay: 5 } }).hash(HASH);
  await advanceClockUntil(t.mock.timers, () => requests.length === 3);
  await call;
  assert.equal(requests.length, 3);
});

test('parseRetryAfter reads delay-seconds and HTTP-dates, and ignores anything else', () => {
  const now = Date.parse('Wed, 21 Oct 2015 07:28:00 GMT');
  assert.equal(parseRetryAfter('3', now), 3000);
  assert.equal(parseRetryAfter(' 0 ', now), 0);
  assert.equal(parseRetryAfter('Wed, 21 Oct 2015 07:28:05 GMT', now), 5000);
  assert.equal(parseRetryAfter('Wed, 21 Oct 2015 07:27:00 GMT', now), 0, 'a date in the past means now');
  assert.equal(parseRetryAfter(null, now), undefined);
  assert.equal(parseRetryAfter('soon', now), undefined);
  assert.equal(parseRetryAfter('-1', now), undefined);
});

test("an abort during the wait ends the call with the signal's reason", async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  const { fetch, requests } = scriptedFetch([problem(429, { 'retry-after': '30' }), OK]);
  const client = new CryptoClient({ baseUrl: 'http://service.test', fetch, retry: { maxDelay: 60_000 } });
  const controller = new AbortController();
  setTimeout(() => controller.abort(new Error('user gave up')), 50);
  const started = Date.now();
  const call = assert.rejects(client.hash(HASH, { signal: controller.signal }), /user gave up/);
  let settled = false;
  void call.finally(() => (settled = true));
  await advanceClockUntil(t.mock.timers, () => settled);
  await call;
  assert.ok(Date.now() - started < 5000, 'far less than the 30 s asked for');
  assert.equal(requests.length, 1);
});

test('retry options are checked', () => {
  assert.throws(() => new CryptoClient({ baseUrl: 'http://service.test', retry: { attempts: 0 } }), RangeError);
  assert.throws(() => new CryptoClient({ baseUrl: 'http://service.test', retry: { maxDelay: -1 } }), RangeError);
  assert.deepEqual(retryPolicy(undefined).attempts, 1);
  assert.deepEqual(retryPolicy(true), { attempts: 3, maxDelay: 30_000, baseDelay: 500 });
});
