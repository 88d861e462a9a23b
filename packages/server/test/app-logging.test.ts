/**
 * How the app logs and times its requests (src/logging.ts, appLogging; src/plugins/metrics.ts):
 * below `info` Fastify has no logger and adds nothing to a response, yet every log line still
 * reaches the stream; the metrics count and time each request from their own hooks, whatever the
 * level.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { buildApp } from '../src/app.ts';
import type { LogLevel } from '../src/config.ts';
import { appLogging } from '../src/logging.ts';
import metrics from '../src/plugins/metrics.ts';
import { TEST_API_KEY, postJson, testApp, testConfig } from './helpers.ts';

interface LogLine {
  level: number;
  msg: string;
  reqId?: string;
  err?: { message: string };
  req?: { url?: string };
}

/** The app at `level`, writing its log lines into `lines`, with two routes of the test's own. */
async function appAt(level: LogLevel, lines: string[]): Promise<FastifyInstance> {
  const app = await buildApp(testConfig({ LOG_LEVEL: level, CRYPTO_API_KEY: TEST_API_KEY }), {
    logStream: { write: (line: string) => void lines.push(line) },
  });
  // Public (no credential) and uncounted by the rate limit, as /live is.
  const config = { public: true, rateLimitCost: false } as const;
  app.get('/test/listeners', { config }, async (_request, reply) => ({
    finish: reply.raw.listenerCount('finish'),
    error: reply.raw.listenerCount('error'),
  }));
  app.get('/test/fails', { config }, async () => {
    throw new Error('handler failed on purpose');
  });
  await app.ready();
  await app.selfTests.done;
  return app;
}

const parse = (lines: string[]) => lines.map((line) => JSON.parse(line) as LogLine);

function onResponseHookCount(app: FastifyInstance): number {
  // Every route's hooks as Fastify prints them: one line per hook function.
  return (app.printRoutes({ includeHooks: true, commonPrefix: false }).match(/onResponse/g) ?? []).length;
}

function requestCountLines(text: string): string[] {
  return text.split('\n').filter((line) => line.startsWith('http_requests_total{'));
}

describe('the app logging below info', () => {
  test("a response carries one finish and one error listener fewer at warn than at info (Fastify's, for the access line)", async (t) => {
    const counts: Record<string, { finish: number; error: number }> = {};
    for (const level of ['warn', 'info'] as const) {
      const app = await appAt(level, []);
      t.after(() => app.close());
      const response = await app.inject({ method: 'GET', url: '/test/listeners' });
      assert.equal(response.statusCode, 200);
      counts[level] = response.json();
    }
    assert.equal(counts.info!.finish, counts.warn!.finish + 1);
    assert.equal(counts.info!.error, counts.warn!.error + 1);
  });

  test('app.log writes to the stream at warn, and redacts credential headers', async (t) => {
    const lines: string[] = [];
    const app = await appAt('warn', lines);
    t.after(() => app.close());
    const before = lines.length;
    app.log.info('not at warn');
    app.log.warn({ headers: { 'x-api-key': 'secret-key-value' } }, 'a warning');
    const written = parse(lines.slice(before));
    assert.deepEqual(
      written.map((line) => [line.level, line.msg]),
      [[40, 'a warning']],
    );
    assert.ok(!lines.join('\n').includes('secret-key-value'));
  });

  test("a handler's failure is logged at error with the request's id; no access line", async (t) => {
    const lines: string[] = [];
    const app = await appAt('warn', lines);
    t.after(() => app.close());
    const before = lines.length;
    const response = await app.inject({ method: 'GET', url: '/test/fails?x=1' });
    assert.equal(response.statusCode, 500);
    const written = parse(lines.slice(before));
    assert.equal(written.length, 1);
    assert.equal(written[0]!.level, 50);
    assert.equal(written[0]!.err?.message, 'handler failed on purpose');
    assert.match(String(written[0]!.reqId), /^req-/);
  });

  test("every request's logger writes with its id at warn, a 404's too", async (t) => {
    const lines: string[] = [];
    const app = await buildApp(testConfig({ LOG_LEVEL: 'warn', CRYPTO_API_KEY: TEST_API_KEY }), {
      logStream: { write: (line: string) => void lines.push(line) },
    });
    t.after(() => app.close());
    // A hook of the test's, after the app's own: what a later stage or a route would log.
    app.addHook('onSend', (request, _reply, payload, done) => {
      request.log.warn({ url: request.url }, 'from onSend');
      done(null, payload);
    });
    await app.ready();
    await app.selfTests.done;
    const before = lines.length;
    assert.equal((await app.inject({ method: 'GET', url: '/live' })).statusCode, 200);
    assert.equal((await app.inject({ method: 'GET', url: '/no/such/path' })).statusCode, 404);
    const written = parse(lines.slice(before));
    assert.deepEqual(
      written.map((line) => [line.level, line.msg]),
      [
        [40, 'from onSend'],
        [40, 'from onSend'],
      ],
    );
    assert.match(String(written[0]!.reqId), /^req-/);
    assert.match(String(written[1]!.reqId), /^req-/);
    assert.notEqual(written[0]!.reqId, written[1]!.reqId);
  });

  test("the request's logger is given by the first onRequest hook of every route, before any stage can log", async (t) => {
    const app = await appAt('warn', []);
    t.after(() => app.close());
    const printed = app.printRoutes({ includeHooks: true, commonPrefix: false });
    const firsts = [...printed.matchAll(/\(onRequest\)\s*\[?\s*"?([A-Za-z0-9_$]+)/g)].map((match) => match[1]);
    assert.ok(firsts.length >= 10, `onRequest hooks found: ${firsts.length}`);
    assert.deepEqual(new Set(firsts), new Set(['giveRequestItsLogger']));
  });

  test('adopt gives a request that skipped the hooks its logger, bound to its id, for request and reply alike', () => {
    const lines: string[] = [];
    const logging = appLogging('warn', { write: (line: string) => void lines.push(line) });
    const request = { id: 'req-42', log: undefined } as unknown as FastifyRequest;
    const reply = { log: undefined } as unknown as FastifyReply;
    logging.adopt(request, reply);
    assert.equal(reply.log, request.log);
    request.log.info('below warn');
    reply.log.error('written');
    const written = parse(lines);
    assert.deepEqual(
      written.map((line) => [line.level, line.msg, line.reqId]),
      [[50, 'written', 'req-42']],
    );
  });

  test('at info, the same failure writes the error line and the access line', async (t) => {
    const lines: string[] = [];
    const app = await appAt('info', lines);
    t.after(() => app.close());
    const before = lines.length;
    assert.equal((await app.inject({ method: 'GET', url: '/test/fails' })).statusCode, 500);
    const written = parse(lines.slice(before));
    assert.deepEqual(
      written.map((line) => line.msg),
      ['unexpected failure', 'request completed'],
    );
    assert.equal(written[0]!.reqId, written[1]!.reqId);
  });
});

describe('request metrics from the hooks', () => {
  test('the whole app has no onResponse hook, and counts and times requests at warn and at info', async (t) => {
    for (const level of ['warn', 'info'] as const) {
      const app = await appAt(level, []);
      t.after(() => app.close());
      assert.equal(onResponseHookCount(app), 0);
      for (let i = 0; i < 2; i++)
        assert.equal(
          (await postJson(app, '/v2/hash', { algorithm: 'sha256', data: 'abc' }, { 'x-api-key': TEST_API_KEY }))
            .statusCode,
          200,
        );
      const text = await app.metricsRegistry.metrics();
      assert.match(text, /^http_requests_total\{method="POST",route="\/v2\/hash",status_code="200"\} 2$/m, level);
      assert.match(
        text,
        /^http_request_duration_seconds_count\{method="POST",route="\/v2\/hash",status_code="200"\} 2$/m,
        level,
      );
      const sum = Number(
        /^http_request_duration_seconds_sum\{method="POST",route="\/v2\/hash",status_code="200"\} (\S+)$/m.exec(
          text,
        )?.[1],
      );
      assert.ok(sum > 0 && sum < 10, `a latency was measured (${sum} s)`);
    }
  });

  test('requests refused by a later stage (401) and unknown paths (404) are counted and timed too', async (t) => {
    const app = await testApp({ CRYPTO_API_KEY: TEST_API_KEY });
    t.after(() => app.close());
    assert.equal((await postJson(app, '/v2/hash', { algorithm: 'sha256', data: 'abc' })).statusCode, 401);
    assert.equal((await app.inject({ method: 'GET', url: '/nowhere' })).statusCode, 404);
    const text = await app.metricsRegistry.metrics();
    assert.match(text, /^http_requests_total\{method="POST",route="\/v2\/hash",status_code="401"\} 1$/m);
    assert.match(
      text,
      /^http_request_duration_seconds_count\{method="POST",route="\/v2\/hash",status_code="401"\} 1$/m,
    );
    assert.match(text, /^http_requests_total\{method="GET",route="unmatched",status_code="404"\} 1$/m);
    const sum = Number(
      /^http_request_duration_seconds_sum\{method="POST",route="\/v2\/hash",status_code="401"\} (\S+)$/m.exec(
        text,
      )?.[1],
    );
    assert.ok(sum > 0, 'the 401 was timed from the first hook');
  });

  test('a large answer is counted when its response finishes, once, under its final status (a later onSend hook failed)', async (t) => {
    const app = Fastify({ logger: false });
    t.after(() => app.close());
    await app.register(metrics);
    let sends = 0;
    app.addHook('onSend', (_request, _reply, payload, done) => {
      sends++;
      if (sends === 1) return done(new Error('the first send fails'));
      done(null, payload);
    });
    // Over the compression threshold: compression (or a failure) could still follow the metrics' hook.
    app.get('/large', async () => ({ text: 'x'.repeat(4096) }));
    const response = await app.inject({ method: 'GET', url: '/large' });
    assert.equal(response.statusCode, 500);
    assert.equal(sends, 2);
    const text = await app.metricsRegistry.metrics();
    assert.deepEqual(requestCountLines(text), ['http_requests_total{method="GET",route="/large",status_code="500"} 1']);
    assert.match(text, /^http_request_duration_seconds_count\{method="GET",route="\/large",status_code="500"\} 1$/m);
  });

  test('a small answer is counted at once, before its response is written', async (t) => {
    const app = Fastify({ logger: false });
    t.after(() => app.close());
    await app.register(metrics);
    let countedBeforeWrite: string[] = [];
    app.addHook('onSend', async (_request, _reply, payload) => {
      countedBeforeWrite = requestCountLines(await app.metricsRegistry.metrics());
      return payload;
    });
    app.get('/small', async () => ({ ok: true }));
    assert.equal((await app.inject({ method: 'GET', url: '/small' })).statusCode, 200);
    assert.deepEqual(countedBeforeWrite, ['http_requests_total{method="GET",route="/small",status_code="200"} 1']);
  });

  test('a malformed URL, answered before routing (app.ts, frameworkErrors), is not counted: it has no route and runs no hook', async (t) => {
    const app = await testApp();
    t.after(() => app.close());
    assert.equal((await app.inject({ method: 'GET', url: '/v2/%zz' })).statusCode, 400);
    assert.deepEqual(requestCountLines(await app.metricsRegistry.metrics()), []);
  });
});
