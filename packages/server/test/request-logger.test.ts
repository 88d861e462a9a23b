/**
 * The per-request logger (src/logging.ts, requestChildLogger): pino's child logger is made only
 * when a request first logs at an enabled level, and the lines it then writes are the ones a child
 * made up front would write (request id, redaction).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import type { FastifyBaseLogger } from 'fastify';
import { requestChildLogger } from '../src/logging.ts';
import { postJson, testApp, TEST_API_KEY } from './helpers.ts';

/** A pino logger at `level` writing into `lines`, and a count of the child loggers made from it. */
function capturingLogger(level: string) {
  const lines: Record<string, unknown>[] = [];
  const parent = pino(
    { level, redact: { paths: ['headers["x-api-key"]'], censor: '[redacted]' } },
    { write: (line: string) => lines.push(JSON.parse(line)) },
  );
  let children = 0;
  // pino's children inherit from their parent's object: the spy must call the original on `this`.
  const child = parent.child;
  parent.child = function countedChild(this: typeof parent, ...args: Parameters<typeof child>) {
    children++;
    return child.apply(this, args);
  } as typeof parent.child;
  return { parent: parent as unknown as FastifyBaseLogger, lines, children: () => children };
}

describe('requestChildLogger', () => {
  test('nothing logged at a disabled level: no child logger is made and nothing is written', () => {
    const { parent, lines, children } = capturingLogger('warn');
    const log = requestChildLogger(parent, { reqId: 'req-1' }, {}) as unknown as pino.Logger;
    log.info({ some: 'field' }, 'completed');
    log.debug('incoming');
    log.trace('detail');
    assert.equal(children(), 0);
    assert.deepEqual(lines, []);
    assert.equal(log.level, 'warn');
    assert.equal(log.isLevelEnabled('info'), false);
    assert.equal(log.isLevelEnabled('error'), true);
  });

  test('the first line at an enabled level makes one child; every line carries the request id', () => {
    const { parent, lines, children } = capturingLogger('warn');
    const log = requestChildLogger(parent, { reqId: 'req-2' }, {});
    log.warn('first');
    log.error({ code: 'X' }, 'second');
    log.fatal(new Error('third'));
    assert.equal(children(), 1);
    assert.deepEqual(
      lines.map((line) => [line.reqId, line.msg]),
      [
        ['req-2', 'first'],
        ['req-2', 'second'],
        ['req-2', 'third'],
      ],
    );
    assert.equal(lines[1]?.code, 'X');
    assert.equal((lines[2]?.err as { message?: string } | undefined)?.message, 'third');
  });

  test("the parent's redaction applies to what a request logs", () => {
    const { parent, lines } = capturingLogger('info');
    requestChildLogger(parent, { reqId: 'req-3' }, {}).info(
      { headers: { 'x-api-key': 'secret-key-value' } },
      'headers',
    );
    assert.deepEqual(lines[0]?.headers, { 'x-api-key': '[redacted]' });
  });

  test('child(), and a level set on the request logger, act on the real child only', () => {
    const { parent, lines } = capturingLogger('warn');
    const log = requestChildLogger(parent, { reqId: 'req-4' }, {});
    log.level = 'debug';
    log.debug('now enabled');
    log.child({ part: 'inner' }).warn('nested');
    assert.equal(parent.level, 'warn');
    assert.deepEqual(
      lines.map((line) => [line.reqId, line.part, line.msg]),
      [
        ['req-4', undefined, 'now enabled'],
        ['req-4', 'inner', 'nested'],
      ],
    );
  });

  test('route options (a level of its own) get the real child at once', () => {
    const { parent, children } = capturingLogger('warn');
    const log = requestChildLogger(parent, { reqId: 'req-5' }, { level: 'debug' });
    assert.equal(children(), 1);
    assert.equal(log.level, 'debug');
  });
});

test('in the app: at debug a request logs its arrival and completion, at info its completion, with its id; at warn a successful one writes nothing', async (t) => {
  for (const level of ['debug', 'info', 'warn']) {
    const lines: string[] = [];
    const app = await testApp(
      { LOG_LEVEL: level, CRYPTO_API_KEY: TEST_API_KEY },
      { logStream: { write: (line: string) => lines.push(line) } },
    );
    t.after(() => app.close());
    const before = lines.length;
    const ok = await postJson(app, '/v2/hash', { algorithm: 'sha256', data: 'abc' }, { 'x-api-key': TEST_API_KEY });
    assert.equal(ok.statusCode, 200);
    const written = lines
      .slice(before)
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.msg === 'incoming request' || line.msg === 'request completed');
    const expected = { debug: ['incoming request', 'request completed'], info: ['request completed'], warn: [] }[level];
    assert.deepEqual(
      written.map((line) => line.msg),
      expected,
      `LOG_LEVEL=${level}`,
    );
    for (const line of written) {
      assert.match(String(line.reqId), /^req-/);
      assert.equal((line.req as { url?: string } | undefined)?.url, '/v2/hash');
    }
    if (level === 'warn') assert.deepEqual(lines.slice(before), []);
  }
});

test("in the app: a request's log line names its path without the query string, and never the API key", async (t) => {
  const lines: string[] = [];
  const app = await testApp(
    { LOG_LEVEL: 'info', CRYPTO_API_KEY: TEST_API_KEY },
    { logStream: { write: (line: string) => lines.push(line) } },
  );
  t.after(() => app.close());
  const before = lines.length;
  const response = await app.inject({
    method: 'POST',
    url: '/v2/hash?token=query-secret-value',
    headers: { 'content-type': 'application/json', 'x-api-key': TEST_API_KEY },
    payload: JSON.stringify({ algorithm: 'sha256', data: 'abc' }),
  });
  assert.equal(response.statusCode, 200);
  const written = lines.slice(before);
  const completed = written
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.msg === 'request completed');
  assert.equal(completed.length, 1);
  assert.equal((completed[0]?.req as { url?: string } | undefined)?.url, '/v2/hash');
  assert.equal((completed[0]?.res as { statusCode?: number } | undefined)?.statusCode, 200);
  assert.ok(!written.join('\n').includes('query-secret-value'), 'the query string is not logged');
  assert.ok(!written.join('\n').includes(TEST_API_KEY), 'the API key is not logged');
});
