/** Errors: every error is a problem+json with a stable code; the status for each condition. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ERROR_CODES, PROBLEM_TYPE_PREFIX, problemType } from '@crypto-service/protocol';
import { buildApp } from '../src/app.ts';
import { ApiError } from '../src/errors.ts';
import { postJson, testApp, testConfig } from './helpers.ts';
import type { FastifyInstance } from 'fastify';

function assertProblem(
  response: { statusCode: number; headers: Record<string, unknown>; json: () => any },
  status: number,
  code: string,
) {
  assert.equal(response.statusCode, status);
  assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
  const body = response.json();
  assert.equal(body.status, status);
  assert.equal(body.code, code);
  assert.equal(body.type, problemType(code as keyof typeof ERROR_CODES));
  assert.equal(body.title, ERROR_CODES[code as keyof typeof ERROR_CODES].title);
  assert.equal(typeof body.detail, 'string');
  assert.equal(body.error, body.detail);
  assert.equal(typeof body.instance, 'string');
  return body;
}

describe('ApiError', () => {
  test('carries its code, detail and headers but no stack frames, and leaves Error.stackTraceLimit as it was', () => {
    const before = Error.stackTraceLimit;
    const error = new ApiError('RATE_LIMITED', 'slow down', { headers: { 'retry-after': '1' } });
    assert.ok(error instanceof Error);
    assert.equal(error.name, 'ApiError');
    assert.equal(error.code, 'RATE_LIMITED');
    assert.equal(error.message, 'slow down');
    assert.deepEqual(error.headers, { 'retry-after': '1' });
    // A refusal is an answer, not a fault: capturing a stack cost about a third of a 429 in a flood
    // (docs/performance.md, "Refusals").
    assert.equal(error.stack, 'ApiError: slow down');
    assert.equal(Error.stackTraceLimit, before);
    assert.match(String(new Error('other').stack), /\n\s+at /, 'other errors keep their stacks');
  });
});

describe('error statuses', () => {
  let app: FastifyInstance;
  test.before(async () => {
    app = await testApp({ BODY_LIMIT_BYTES: '2048' });
  });
  test.after(() => app.close());

  test('unknown route: 404, and instance never echoes the query string', async () => {
    const body = assertProblem(
      await app.inject({ method: 'GET', url: '/v2/nothing?token=secret-value' }),
      404,
      'NOT_FOUND',
    );
    assert.equal(body.instance, '/v2/nothing');
    assert.doesNotMatch(JSON.stringify(body), /secret-value/);
  });

  test('a known path with the wrong method: 405 with Allow', async () => {
    const response = await app.inject({ method: 'GET', url: '/v2/hash' });
    assertProblem(response, 405, 'METHOD_NOT_ALLOWED');
    assert.equal(response.headers.allow, 'POST');
  });

  test('a body over the limit: 413 that names the limit and its variable', async () => {
    const body = assertProblem(
      await postJson(app, '/v2/hash', { algorithm: 'sha256', data: 'x'.repeat(4096) }),
      413,
      'PAYLOAD_TOO_LARGE',
    );
    assert.equal(body.detail, 'the request body is larger than the limit of 2048 bytes (BODY_LIMIT_BYTES)');
  });

  test('a content type other than JSON: 415', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const response = await app.inject({
        method: 'POST',
        url: '/v2/hash',
        payload: 'algorithm=sha256',
        headers: { 'content-type': type },
      });
      assertProblem(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
    }
  });

  test('a compressed request body: 415', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/v2/hash',
      payload: '{}',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    assertProblem(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  test('malformed JSON, an empty body, invalid UTF-8 and prototype keys: 400', async () => {
    const json = { 'content-type': 'application/json' };
    const cases: (string | Buffer)[] = [
      '{"algorithm":',
      '',
      'null x',
      Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]),
      '{"__proto__":{"admin":true},"algorithm":"sha256","data":"x"}',
      '{"constructor":{"prototype":{}},"algorithm":"sha256","data":"x"}',
      '{"\\u005f_proto__":{},"algorithm":"sha256","data":"x"}',
    ];
    for (const payload of cases) {
      const response = await app.inject({ method: 'POST', url: '/v2/hash', payload, headers: json });
      assertProblem(response, 400, 'MALFORMED_JSON');
    }
  });

  test('a JSON value that is not an object: 400 validation', async () => {
    for (const payload of ['[]', '"sha256"', '42', 'null']) {
      const response = await app.inject({
        method: 'POST',
        url: '/v2/hash',
        payload,
        headers: { 'content-type': 'application/json' },
      });
      assertProblem(response, 400, 'VALIDATION_FAILED');
    }
  });

  test('schema violations: 400 with errors[] naming each field', async () => {
    const missing = assertProblem(await postJson(app, '/v2/hash', { algorithm: 'sha256' }), 400, 'VALIDATION_FAILED');
    assert.deepEqual(
      missing.errors.map((e: { field: string }) => e.field),
      ['/data'],
    );
    assert.equal(missing.detail, 'invalid request: /data is required');
    const unknown = assertProblem(
      await postJson(app, '/v2/hash', { algorithm: 'sha256', data: 'x', extra: 1 }),
      400,
      'VALIDATION_FAILED',
    );
    assert.equal(unknown.errors[0].field, '/extra');
    assert.equal(unknown.detail, 'invalid request: unknown field /extra');
    const wrongType = assertProblem(
      await postJson(app, '/v2/hash', { algorithm: 'sha256', data: 42 }),
      400,
      'VALIDATION_FAILED',
    );
    assert.equal(wrongType.errors[0].field, '/data');
  });

  test('an unsupported or insecure algorithm: 400 UNSUPPORTED_ALGORITHM that says so', async () => {
    const md5 = assertProblem(
      await postJson(app, '/v2/hash', { algorithm: 'md5', data: 'x' }),
      400,
      'UNSUPPORTED_ALGORITHM',
    );
    assert.match(md5.detail, /md5.*insecure/);
    const sha1 = assertProblem(
      await postJson(app, '/v2/hash', { algorithm: 'sha1', data: 'x' }),
      400,
      'UNSUPPORTED_ALGORITHM',
    );
    assert.match(sha1.detail, /insecure/);
    const unknown = assertProblem(
      await postJson(app, '/v2/hash', { algorithm: 'whirlpool', data: 'x' }),
      400,
      'UNSUPPORTED_ALGORITHM',
    );
    assert.match(unknown.detail, /unsupported algorithm 'whirlpool'/);
  });

  test('an algorithm value that is not a plain identifier is not echoed back', async () => {
    const body = assertProblem(
      await postJson(app, '/v2/hash', { algorithm: '<script>alert(1)</script>', data: 'x' }),
      400,
      'UNSUPPORTED_ALGORITHM',
    );
    assert.doesNotMatch(JSON.stringify(body), /script/);
  });
});

describe('expected failures capture no stack trace', () => {
  test('a schema violation and a CryptoError reach the error handler stackless; an unexpected error keeps its stack', async (t) => {
    const app = await buildApp(testConfig(), { quiet: true });
    t.after(() => app.close());
    const seen = new Map<string, Error>();
    app.addHook('onError', (request, _reply, error, done) => {
      seen.set(request.url, error);
      done();
    });
    app.get('/boom', { config: { public: true } }, async () => {
      throw new Error('a bug');
    });
    await app.ready();
    await app.selfTests.done;
    assertProblem(
      await postJson(app, '/v2/hash', { algorithm: 'sha256', data: 'x', extra: 1 }),
      400,
      'VALIDATION_FAILED',
    );
    assertProblem(await postJson(app, '/v2/encrypt', { key: '00', plaintext: 'x' }), 400, 'INVALID_INPUT');
    assertProblem(await app.inject({ method: 'GET', url: '/boom' }), 500, 'INTERNAL_ERROR');
    // A stack without frames is its header line alone; V8 writes frames as "\n    at …".
    const frames = (url: string) => {
      const error = seen.get(url);
      assert.ok(error !== undefined, `the error of ${url} reached onError`);
      return /\n\s+at /.test(String(error.stack));
    };
    assert.equal(frames('/v2/hash'), false, 'a schema violation');
    assert.equal(frames('/v2/encrypt'), false, 'a CryptoError');
    assert.equal(frames('/boom'), true, 'an unexpected error');
  });
});

describe('500s never leak internals', () => {
  test('an unexpected error is a generic 500 problem; its message stays in the log, out of the body', async (t) => {
    const lines: string[] = [];
    const app = await buildApp(testConfig({ LOG_LEVEL: 'error' }), {
      logStream: { write: (line: string) => lines.push(line) },
    });
    t.after(() => app.close());
    // A route added for this test only, before the app is ready, that fails like a bug would.
    app.get('/boom', { config: { public: true } }, async () => {
      throw new Error('database password is hunter2 at /srv/secret/path.ts:42');
    });
    const response = await app.inject({ method: 'GET', url: '/boom' });
    assertProblem(response, 500, 'INTERNAL_ERROR');
    assert.doesNotMatch(response.body, /hunter2|secret|path\.ts|stack/);
    assert.ok(
      lines.some((line) => line.includes('hunter2')),
      'the cause is logged for the operator',
    );
  });
});

describe('the code table', () => {
  test('every code has a distinct problem type under the service URN and a 4xx/5xx status', () => {
    const types = new Set<string>();
    for (const [code, { status }] of Object.entries(ERROR_CODES)) {
      const type = problemType(code as keyof typeof ERROR_CODES);
      assert.ok(type.startsWith(PROBLEM_TYPE_PREFIX), code);
      assert.ok(status >= 400 && status < 600, code);
      types.add(type);
    }
    assert.equal(types.size, Object.keys(ERROR_CODES).length);
    assert.equal(problemType('DECRYPTION_FAILED'), 'urn:crypto-service:problem:decryption-failed');
    assert.equal(problemType('HEADERS_TOO_LARGE'), 'urn:crypto-service:problem:headers-too-large');
  });
});

describe('a URL that cannot be decoded', () => {
  test('is a 400 problem with the security headers, and the deprecation headers under /v1', async (t) => {
    const app = await testApp();
    t.after(() => app.close());
    for (const url of ['/v2/%zz', '/v1/%zz']) {
      const response = await app.inject({ method: 'GET', url });
      assertProblem(response, 400, 'VALIDATION_FAILED');
      assert.equal(response.headers['x-content-type-options'], 'nosniff', url);
      assert.equal(response.headers.deprecation !== undefined, url.startsWith('/v1'), url);
    }
  });
});
