/**
 * Finished requests reported by the app's log controller (src/logging.ts, requestLogController),
 * where the metrics plugin takes its request counts and latencies instead of an onResponse hook.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify, { type FastifyInstance } from 'fastify';
import type { LogLevel } from '../src/config.ts';
import { loggerOptions, requestChildLogger, requestLogController } from '../src/logging.ts';
import metrics from '../src/plugins/metrics.ts';
import { testApp } from './helpers.ts';

/** An app as app.ts wires its logging: the request-log controller, pino at `level` into `lines`. */
function appWithController(level: LogLevel = 'silent', lines: string[] = []) {
  const controller = requestLogController();
  const app = Fastify({
    logger: loggerOptions(level, { write: (line: string) => void lines.push(line) }),
    logController: controller,
    childLoggerFactory: requestChildLogger,
  });
  app.get('/ok', async () => ({ ok: true }));
  app.get('/fails', async () => {
    throw new Error('handler failed');
  });
  return { app, controller };
}

function onResponseHookCount(app: FastifyInstance): number {
  // Every route's hooks as Fastify prints them: one line per hook function.
  return (app.printRoutes({ includeHooks: true, commonPrefix: false }).match(/onResponse/g) ?? []).length;
}

describe('request completions', () => {
  test('each finished request is reported once, after its status is final: 200, 500 and an unknown path', async (t) => {
    const { app, controller } = appWithController();
    t.after(() => app.close());
    const seen: [string, number][] = [];
    controller.observe((request, reply) => seen.push([request.url, reply.statusCode]));
    await app.inject({ method: 'GET', url: '/ok' });
    await app.inject({ method: 'GET', url: '/fails' });
    await app.inject({ method: 'GET', url: '/nowhere' });
    assert.deepEqual(seen, [['/ok', 200], ['/fails', 500], ['/nowhere', 404]]);
  });

  test('an observer that throws is logged as an error and the others still run', async (t) => {
    const lines: string[] = [];
    const { app, controller } = appWithController('error', lines);
    t.after(() => app.close());
    let after = 0;
    controller.observe(() => {
      throw new Error('observer broke');
    });
    controller.observe(() => after++);
    assert.equal((await app.inject({ method: 'GET', url: '/ok' })).statusCode, 200);
    assert.equal(after, 1);
    const logged = lines.map((line) => JSON.parse(line) as { msg: string; err?: { message: string } });
    assert.deepEqual(logged.map((line) => [line.msg, line.err?.message]), [['a request-completion observer failed', 'observer broke']]);
  });

  test('the metrics plugin given the controller counts requests through it, with no onResponse hook', async (t) => {
    const { app, controller } = appWithController();
    await app.register(metrics, { completions: controller });
    t.after(() => app.close());
    await app.ready();
    assert.equal(onResponseHookCount(app), 0);
    await app.inject({ method: 'GET', url: '/ok' });
    await app.inject({ method: 'GET', url: '/ok' });
    const text = await app.metricsRegistry.metrics();
    assert.match(text, /^http_requests_total\{method="GET",route="\/ok",status_code="200"\} 2$/m);
    assert.match(text, /^http_request_duration_seconds_count\{method="GET",route="\/ok",status_code="200"\} 2$/m);
  });

  test('without the controller (an app with no logger), the metrics plugin counts through its own onResponse hook', async (t) => {
    const app = Fastify({ logger: false });
    await app.register(metrics);
    app.get('/ok', async () => ({ ok: true }));
    t.after(() => app.close());
    await app.ready();
    assert.ok(onResponseHookCount(app) > 0);
    await app.inject({ method: 'GET', url: '/ok' });
    assert.match(await app.metricsRegistry.metrics(), /^http_requests_total\{method="GET",route="\/ok",status_code="200"\} 1$/m);
  });

  test('the whole app, quiet as the tests build it, has no onResponse hook and still counts requests', async (t) => {
    const app = await testApp();
    t.after(() => app.close());
    assert.equal(onResponseHookCount(app), 0);
    await app.inject({ method: 'GET', url: '/live' });
    assert.match(await app.metricsRegistry.metrics(), /^http_requests_total\{method="GET",route="\/live",status_code="200"\} 1$/m);
  });
});
