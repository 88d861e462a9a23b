/**
 * The real server process, end to end: start, serve, shut down gracefully on SIGTERM and SIGINT,
 * force an exit when draining takes too long, refuse bad configuration, serve HTTPS, and count
 * rate limits per client behind a trusted proxy. Each test starts its own process on a free port.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  delay,
  openRequest,
  outcome,
  postJson,
  request,
  runServerToExit,
  startServer,
  waitForExit,
  type LogLine,
} from './helpers.ts';

const ABC_SHA256 = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';
const TIMEOUT = { timeout: 20_000 };

// Arrivals are logged at debug (completions at info): tests that wait for one start with LOG_LEVEL=debug.
const isIncomingHash = (line: LogLine) =>
  line.msg === 'incoming request' && (line.req as { url?: string } | undefined)?.url === '/v2/hash';
const isShuttingDown = (line: LogLine) => line.msg.startsWith('shutting down');

test('the server starts, answers /live, and hashes "abc" with SHA-256 (FIPS 180-4)', TIMEOUT, async (t) => {
  const server = await startServer();
  t.after(() => server.kill());
  assert.equal(server.baseUrl, `http://127.0.0.1:${server.port}`);

  const live = await request(`${server.baseUrl}/live`);
  assert.equal(live.status, 200);
  const liveBody = live.json() as { status: unknown; uptime: unknown };
  assert.equal(liveBody.status, 'alive');
  assert.equal(typeof liveBody.uptime, 'number');

  const hash = await postJson(`${server.baseUrl}/v2/hash`, { algorithm: 'sha256', data: 'abc' });
  assert.equal(hash.status, 200);
  assert.deepEqual(hash.json(), { data: ABC_SHA256 });

  assert.deepEqual(await server.stop(), { code: 0, signal: null });
});

test('SIGTERM drains: a request in flight completes, new connections are refused, exit code 0', TIMEOUT, async (t) => {
  const server = await startServer({ LOG_LEVEL: 'debug' });
  t.after(() => server.kill());

  const body = JSON.stringify({ algorithm: 'sha256', data: 'abc' });
  const half = Math.floor(body.length / 2);
  const upload = openRequest(`${server.baseUrl}/v2/hash`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
  });
  await upload.write(body.slice(0, half));
  // The server has parsed the headers (sent in the same packet as the first half) once it logs the
  // request; the extra pause leaves no doubt that the half body has arrived too.
  await server.waitForLog(isIncomingHash, 3000, 'log of the incoming /v2/hash request');
  await delay(100);

  const signalledAt = performance.now();
  server.signal('SIGTERM');
  const shutdownLog = await server.waitForLog(isShuttingDown, 3000, 'shutdown log line');
  assert.equal(shutdownLog.signal, 'SIGTERM');

  // While the upload is still in flight the listener closes: within a few milliseconds of the
  // shutdown log a new connection is refused. A connection that slips in just before is reset or
  // answered 503; none may be served as ready.
  const probes: ({ status: number } | { error: string })[] = [];
  while (performance.now() - signalledAt < 2000) {
    const probe = await outcome(request(`${server.baseUrl}/ready`, { timeoutMs: 1000 }));
    probes.push(probe);
    if ('error' in probe && probe.error === 'ECONNREFUSED') break;
    await delay(5);
  }
  const notServed = (probe: { status: number } | { error: string }) =>
    ('status' in probe && probe.status === 503) ||
    ('error' in probe && ['ECONNREFUSED', 'ECONNRESET'].includes(probe.error));
  assert.ok(probes.every(notServed), `a probe was served during the drain: ${JSON.stringify(probes)}`);
  assert.deepEqual(
    probes.at(-1),
    { error: 'ECONNREFUSED' },
    `new connections were still accepted: ${JSON.stringify(probes)}`,
  );

  await delay(300 - (performance.now() - signalledAt));
  assert.equal(server.hasExited, false, 'the server must wait for the request in flight');
  upload.end(body.slice(half));

  const response = await upload.response;
  assert.equal(response.status, 200);
  assert.deepEqual(response.json(), { data: ABC_SHA256 });

  assert.deepEqual(await waitForExit(server.process, 5000), { code: 0, signal: null });
  assert.ok(
    server.logs().some((line) => line.msg === 'shutdown complete'),
    server.output(),
  );
});

test('SIGINT shuts down gracefully with exit code 0', TIMEOUT, async (t) => {
  const server = await startServer();
  t.after(() => server.kill());
  assert.equal((await request(`${server.baseUrl}/live`)).status, 200);

  server.signal('SIGINT');
  assert.deepEqual(await waitForExit(server.process, 5000), { code: 0, signal: null });
  assert.equal(server.logs().find(isShuttingDown)?.signal, 'SIGINT', server.output());
  assert.ok(
    server.logs().some((line) => line.msg === 'shutdown complete'),
    server.output(),
  );
});

test(
  'SIGTERM still ends the process when nobody reads its stdout any more (a dead log shipper)',
  TIMEOUT,
  async (t) => {
    const server = await startServer({ SHUTDOWN_TIMEOUT_MS: '2000' });
    t.after(() => server.kill());
    assert.equal((await request(`${server.baseUrl}/live`)).status, 200);
    // Closing our end of the pipe makes every later write to the server's stdout fail with EPIPE.
    server.process.stdout?.destroy();
    server.signal('SIGTERM');
    const exit = await waitForExit(server.process, 5000);
    assert.equal(exit.signal, null);
    assert.equal(exit.code, 0);
  },
);

test('SHUTDOWN_TIMEOUT_MS: a request that never completes cannot hold the exit; exit code 1', TIMEOUT, async (t) => {
  const server = await startServer({ SHUTDOWN_TIMEOUT_MS: '500', LOG_LEVEL: 'debug' });
  t.after(() => server.kill());

  const body = JSON.stringify({ algorithm: 'sha256', data: 'abc' });
  const upload = openRequest(`${server.baseUrl}/v2/hash`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
    timeoutMs: 8000,
  });
  t.after(() => upload.destroy());
  await upload.write(body.slice(0, 5));
  await server.waitForLog(isIncomingHash, 3000, 'log of the incoming /v2/hash request');
  await delay(100);

  const signalledAt = performance.now();
  server.signal('SIGTERM');
  const exit = await waitForExit(server.process, 4000);
  const elapsed = performance.now() - signalledAt;

  assert.deepEqual(exit, { code: 1, signal: null });
  assert.ok(elapsed >= 400, `exited after ${Math.round(elapsed)} ms, before the 500 ms shutdown timeout`);
  const forced = server.logs().find((line) => line.msg.includes('forcing exit'));
  assert.ok(forced !== undefined, `no forced-exit log line in:\n${server.output()}`);
  assert.equal(forced.level, 50);
  assert.equal(forced.timeoutMs, 500);
  assert.equal(
    server.logs().some((line) => line.msg === 'shutdown complete'),
    false,
  );
  // The unfinished request got no answer: its connection died with the process.
  await assert.rejects(upload.response);
});

const configErrors: { name: string; env: Record<string, string | undefined>; variable: string }[] = [
  { name: 'PORT=abc', env: { PORT: 'abc' }, variable: 'PORT' },
  { name: 'PROTOCOL=gopher', env: { PROTOCOL: 'gopher' }, variable: 'PROTOCOL' },
  { name: 'JWT_SECRET shorter than 32 bytes', env: { JWT_SECRET: 'short' }, variable: 'JWT_SECRET' },
  {
    name: 'NODE_ENV=production without CRYPTO_API_KEY or JWT_SECRET',
    env: { NODE_ENV: 'production' },
    variable: 'ALLOW_ANONYMOUS',
  },
  { name: 'PROTOCOL=https without TLS_CERT_FILE', env: { PROTOCOL: 'https' }, variable: 'TLS_CERT_FILE' },
];

for (const { name, env, variable } of configErrors) {
  test(`configuration error stops the start with exit code 1 and names ${variable}: ${name}`, TIMEOUT, async () => {
    const result = await runServerToExit(env);
    assert.deepEqual(
      { code: result.code, signal: result.signal },
      { code: 1, signal: null },
      result.stdout + result.stderr,
    );
    assert.match(result.stderr, new RegExp(`^crypto-service: configuration error: ${variable}: `, 'm'));
    assert.doesNotMatch(result.stdout, /Server listening/);
  });
}

test(
  'NODE_ENV=production with ALLOW_ANONYMOUS=true starts, warning that anonymous access is allowed',
  TIMEOUT,
  async (t) => {
    const server = await startServer({ NODE_ENV: 'production', ALLOW_ANONYMOUS: 'true' });
    t.after(() => server.kill());
    assert.equal((await request(`${server.baseUrl}/live`)).status, 200);
    assert.ok(
      server.logs().some((line) => line.level === 40 && line.msg.includes('anonymous access is allowed in production')),
      server.output(),
    );
    assert.equal(
      server.logs().some((line) => line.msg.includes('development mode')),
      false,
      server.output(),
    );
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  },
);

test(
  'without CRYPTO_API_KEY and JWT_SECRET the start logs a development-mode warning; with a key it does not',
  TIMEOUT,
  async (t) => {
    const open = await startServer();
    t.after(() => open.kill());
    const warning = open.logs().find((line) => line.msg.includes('development mode'));
    assert.ok(warning !== undefined, `no development-mode warning in:\n${open.output()}`);
    assert.equal(warning.level, 40);
    assert.deepEqual(await open.stop(), { code: 0, signal: null });

    const apiKey = 'e2e-api-key-0123456789abcdef0123456789';
    const guarded = await startServer({ CRYPTO_API_KEY: apiKey });
    t.after(() => guarded.kill());
    assert.equal(
      guarded.logs().some((line) => line.msg.includes('development mode')),
      false,
      guarded.output(),
    );
    // And the key is really in force: without it /v2 is refused, with it the request passes.
    assert.equal((await postJson(`${guarded.baseUrl}/v2/hash`, { algorithm: 'sha256', data: 'abc' })).status, 401);
    const authorised = await postJson(
      `${guarded.baseUrl}/v2/hash`,
      { algorithm: 'sha256', data: 'abc' },
      { headers: { 'x-api-key': apiKey } },
    );
    assert.equal(authorised.status, 200);
    assert.deepEqual(await guarded.stop(), { code: 0, signal: null });
  },
);

test('PROTOCOL=https serves TLS with the given certificate; plain http on that port fails', TIMEOUT, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'crypto-service-tls-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const cert = readFileSync(certFile);

  const server = await startServer({ PROTOCOL: 'https', TLS_CERT_FILE: certFile, TLS_KEY_FILE: keyFile });
  t.after(() => server.kill());
  assert.equal(server.baseUrl, `https://127.0.0.1:${server.port}`);

  const live = await request(`${server.baseUrl}/live`, { ca: cert });
  assert.equal(live.status, 200);
  assert.equal((live.json() as { status: unknown }).status, 'alive');
  const hash = await postJson(`${server.baseUrl}/v2/hash`, { algorithm: 'sha256', data: 'abc' }, { ca: cert });
  assert.deepEqual(hash.json(), { data: ABC_SHA256 });
  // Over TLS, and only there, responses carry HSTS (RFC 6797 §7.2): errors too.
  assert.equal(hash.headers['strict-transport-security'], 'max-age=31536000; includeSubDomains');
  const missing = await request(`${server.baseUrl}/v2/nope`, { ca: cert });
  assert.equal(missing.status, 404);
  assert.equal(missing.headers['strict-transport-security'], 'max-age=31536000; includeSubDomains');
  const malformedUrl = await request(`${server.baseUrl}/v2/%zz`, { ca: cert });
  assert.equal(malformedUrl.status, 400);
  assert.equal(malformedUrl.headers['strict-transport-security'], 'max-age=31536000; includeSubDomains');

  // The certificate served is the self-signed one: without it as CA the handshake is refused.
  await assert.rejects(request(`${server.baseUrl}/live`), (error: NodeJS.ErrnoException) =>
    /SELF_SIGNED/.test(error.code ?? ''),
  );
  // Plain HTTP to the TLS port gets no HTTP answer.
  const plain = await outcome(request(`http://127.0.0.1:${server.port}/live`, { timeoutMs: 3000 }));
  assert.ok('error' in plain, `plain http to the https port answered ${JSON.stringify(plain)}`);

  assert.deepEqual(await server.stop(), { code: 0, signal: null });
});

const remoteAddress = (line: LogLine) => (line.req as { remoteAddress?: unknown } | undefined)?.remoteAddress;

async function statuses(baseUrl: string, clients: string[]): Promise<number[]> {
  const result: number[] = [];
  for (const client of clients) {
    const response = await postJson(
      `${baseUrl}/v2/hash`,
      { algorithm: 'sha256', data: 'abc' },
      { headers: { 'x-forwarded-for': client } },
    );
    result.push(response.status);
  }
  return result;
}

test('TRUSTED_PROXY_CIDRS: clients behind a trusted proxy are rate-limited by X-Forwarded-For', TIMEOUT, async (t) => {
  const server = await startServer({ TRUSTED_PROXY_CIDRS: '127.0.0.1/32', RATE_LIMIT_MAX: '2', LOG_LEVEL: 'debug' });
  t.after(() => server.kill());
  const [a, b] = ['203.0.113.10', '198.51.100.20'];

  assert.deepEqual(await statuses(server.baseUrl, [a, a, a, b]), [200, 200, 429, 200]);
  const logged = await server.waitForLogs((line) => line.msg === 'incoming request', 4);
  assert.deepEqual(logged.map(remoteAddress), [a, a, a, b]);
  assert.deepEqual(await server.stop(), { code: 0, signal: null });
});

test(
  'without TRUSTED_PROXY_CIDRS, X-Forwarded-For is ignored: every request counts for the socket address',
  TIMEOUT,
  async (t) => {
    const server = await startServer({ RATE_LIMIT_MAX: '2', LOG_LEVEL: 'debug' });
    t.after(() => server.kill());

    assert.deepEqual(
      await statuses(server.baseUrl, ['203.0.113.10', '203.0.113.10', '198.51.100.20']),
      [200, 200, 429],
    );
    const logged = await server.waitForLogs((line) => line.msg === 'incoming request', 3);
    assert.deepEqual(logged.map(remoteAddress), ['127.0.0.1', '127.0.0.1', '127.0.0.1']);
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  },
);
