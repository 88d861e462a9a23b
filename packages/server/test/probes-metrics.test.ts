import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { postJson, testApp } from './helpers.ts';

describe('probes', () => {
  test('/live, /health and /ready answer with their documented shapes', async (t) => {
    const app = await testApp();
    t.after(() => app.close());
    const live = await app.inject({ method: 'GET', url: '/live' });
    assert.equal(live.json().status, 'alive');
    assert.equal(typeof live.json().uptime, 'number');
    const health = await app.inject({ method: 'GET', url: '/health' });
    assert.equal(health.json().status, 'ok');
    assert.equal(typeof health.json().uptime, 'number');
    const ready = await app.inject({ method: 'GET', url: '/ready' });
    assert.deepEqual(ready.json(), {
      status: 'ready',
      checks: { shutdown: 'pass', 'self-tests': 'pass' },
      disabled: [],
    });
  });

  test('/ready turns 503 with the failing checks while draining; /live stays 200', async (t) => {
    const app = await testApp();
    t.after(() => app.close());
    app.readiness.startDraining();
    const ready = await app.inject({ method: 'GET', url: '/ready' });
    assert.equal(ready.statusCode, 503);
    assert.match(String(ready.headers['content-type']), /^application\/problem\+json/);
    assert.equal(ready.json().code, 'SERVICE_UNAVAILABLE');
    assert.deepEqual(ready.json().checks, { shutdown: 'fail', 'self-tests': 'pass' });
    assert.equal((await app.inject({ method: 'GET', url: '/live' })).statusCode, 200);
  });

  test('a failing added check makes /ready 503 and names it', async (t) => {
    const app = await testApp();
    t.after(() => app.close());
    app.readiness.addCheck('selfTests', () => false);
    const ready = await app.inject({ method: 'GET', url: '/ready' });
    assert.equal(ready.statusCode, 503);
    assert.match(ready.json().detail, /selfTests/);
  });
});

describe('metrics', () => {
  test('/metrics is Prometheus text with process metrics, request counts by route and status, and latency', async (t) => {
    const app = await testApp();
    t.after(() => app.close());
    await postJson(app, '/v2/hash', { algorithm: 'sha256', data: 'abc' });
    await postJson(app, '/v2/hash', { algorithm: 'md5', data: 'abc' });
    await app.inject({ method: 'GET', url: '/not/a/route/minted-label' });
    const response = await app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    const text = response.body;
    assert.match(text, /^process_cpu_seconds_total \d/m);
    assert.match(text, /^nodejs_eventloop_lag_seconds /m);
    assert.match(text, /^http_requests_total\{method="POST",route="\/v2\/hash",status_code="200"\} 1$/m);
    assert.match(text, /^http_requests_total\{method="POST",route="\/v2\/hash",status_code="400"\} 1$/m);
    assert.match(
      text,
      /^http_request_duration_seconds_bucket\{le="0\.5",method="POST",route="\/v2\/hash",status_code="200"\} 1$/m,
    );
    // Unknown URLs are folded into one label value: nobody can mint label values from outside.
    // The marker is a word, not digits: a metric's value (a GC duration) once held "12345".
    assert.match(text, /route="unmatched",status_code="404"/);
    assert.doesNotMatch(text, /minted-label|not\/a\/route/);
  });

  test('crypto operations are counted by operation, algorithm and outcome', async (t) => {
    const app = await testApp();
    t.after(() => app.close());
    await postJson(app, '/v2/hash', { algorithm: 'blake3', data: 'abc' });
    await postJson(app, '/v2/hash', { algorithm: 'blake3', data: 'abc' });
    await postJson(app, '/v2/hash', { algorithm: 'sha256', data: 'zz', encoding: 'hex' });
    const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    assert.match(text, /^crypto_operations_total\{operation="hash.digest",algorithm="blake3",outcome="success"\} 2$/m);
    assert.match(text, /^crypto_operations_total\{operation="hash.digest",algorithm="sha256",outcome="rejected"\} 1$/m);
  });
});
