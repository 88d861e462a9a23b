/**
 * Slow and malformed clients over real sockets (the app listening on a loopback port, in this
 * process): headers sent byte by byte past HEADERS_TIMEOUT_MS, a body trickled past
 * REQUEST_TIMEOUT_MS, an idle keep-alive connection past KEEP_ALIVE_TIMEOUT_MS, oversized headers,
 * bytes that are not HTTP. Each is answered with a problem (or closed) within a bound, while other
 * clients are served meanwhile. Timeouts are small here so that the file runs in seconds; the
 * bounds asserted are generous (a shared CI machine), the lower bounds are not (a socket closed
 * early would be a bug too).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import type { FastifyInstance } from 'fastify';
import { testApp } from '../helpers.ts';

const HEADERS_TIMEOUT_MS = 400;
const REQUEST_TIMEOUT_MS = 800;
const KEEP_ALIVE_TIMEOUT_MS = 300;
/** Scheduling slack on a loaded machine; the server checks its connections every headers/4 ms. */
const SLACK_MS = 2000;

interface Connection {
  socket: net.Socket;
  opened: number;
  /** Everything the server sent, once it has closed the connection, and when that was. */
  closed: Promise<{ data: string; atMs: number }>;
}

function connect(port: number): Promise<Connection> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const opened = performance.now();
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      data += chunk;
    });
    const closed = new Promise<{ data: string; atMs: number }>((resolveClosed) => {
      socket.once('close', () => resolveClosed({ data, atMs: performance.now() - opened }));
    });
    socket.once('error', () => undefined);
    socket.once('connect', () => resolve({ socket, opened, closed }));
    socket.once('error', reject);
  });
}

/** Writes `text` one byte every `everyMs` until it is all sent or the socket closes. */
function trickle(socket: net.Socket, text: string, everyMs: number): () => void {
  let index = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || index >= text.length) {
      clearInterval(timer);
      return;
    }
    socket.write(text[index]!);
    index += 1;
  }, everyMs);
  return () => clearInterval(timer);
}

function parseResponse(raw: string): { status: number; headers: Record<string, string>; body: string } {
  const [head = '', body = ''] = raw.split('\r\n\r\n', 2);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
    }),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

function assertProblemResponse(raw: string, status: number, code: string): void {
  const response = parseResponse(raw);
  assert.equal(response.status, status, raw.slice(0, 300));
  assert.equal(response.headers['content-type'], 'application/problem+json');
  assert.equal(response.headers['x-content-type-options'], 'nosniff');
  assert.equal(response.headers.connection, 'close');
  const problem = JSON.parse(response.body) as Record<string, unknown>;
  assert.equal(problem.code, code);
  assert.equal(problem.status, status);
  assert.equal(problem.error, problem.detail);
}

/** A plain request on a fresh connection: the proof that other clients are still served. */
async function hashOnce(port: number): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const response = await fetch(`http://127.0.0.1:${port}/v2/hash`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', connection: 'close' },
    body: JSON.stringify({ algorithm: 'sha256', data: 'abc' }),
  });
  await response.arrayBuffer();
  return { status: response.status, ms: performance.now() - started };
}

describe('slow and malformed clients, over real sockets', () => {
  let app: FastifyInstance;
  let port: number;
  test.before(async () => {
    app = await testApp({
      HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
      REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_TIMEOUT_MS),
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as net.AddressInfo).port;
  });
  test.after(() => app.close());

  test('headers sent one byte at a time are cut off after HEADERS_TIMEOUT_MS with a 408 problem; others are served meanwhile', async () => {
    // Several slow clients at once: a byte every 50 ms keeps each socket busy, which an idle
    // timeout would never catch. The headers timeout is a deadline for all of them.
    const slow = await Promise.all(Array.from({ length: 5 }, () => connect(port)));
    const stops = slow.map(({ socket }) => {
      socket.write('POST /v2/hash HTTP/1.1\r\nHost: localhost\r\n');
      return trickle(socket, `X-Slow: ${'a'.repeat(1000)}\r\n\r\n`, 50);
    });
    try {
      const served = await hashOnce(port);
      assert.equal(served.status, 200, 'a normal client is served while the slow ones hang');
      for (const { closed } of slow) {
        const { data, atMs } = await closed;
        assert.ok(atMs >= HEADERS_TIMEOUT_MS - 50, `closed after ${atMs.toFixed(0)} ms, before the timeout`);
        assert.ok(atMs <= HEADERS_TIMEOUT_MS + SLACK_MS, `closed only after ${atMs.toFixed(0)} ms`);
        assertProblemResponse(data, 408, 'REQUEST_TIMEOUT');
      }
    } finally {
      stops.forEach((stop) => stop());
    }
  });

  test('a body trickled slower than REQUEST_TIMEOUT_MS is cut off with a 408 problem', async () => {
    const { socket, closed } = await connect(port);
    const body = JSON.stringify({ algorithm: 'sha256', data: 'x'.repeat(200) });
    socket.write(
      `POST /v2/hash HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    const stop = trickle(socket, body, 20);
    try {
      const { data, atMs } = await closed;
      assert.ok(atMs >= REQUEST_TIMEOUT_MS - 50, `closed after ${atMs.toFixed(0)} ms, before the timeout`);
      assert.ok(atMs <= REQUEST_TIMEOUT_MS + SLACK_MS, `closed only after ${atMs.toFixed(0)} ms`);
      assertProblemResponse(data, 408, 'REQUEST_TIMEOUT');
    } finally {
      stop();
    }
    assert.equal((await hashOnce(port)).status, 200);
  });

  test('a body that arrives in time, even in pieces, is served', async () => {
    const { socket, closed } = await connect(port);
    const body = JSON.stringify({ algorithm: 'sha256', data: 'abc' });
    socket.write(
      `POST /v2/hash HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
    );
    const stop = trickle(socket, body, 5);
    try {
      const response = parseResponse((await closed).data);
      assert.equal(response.status, 200);
      assert.equal(JSON.parse(response.body).data, 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    } finally {
      stop();
    }
  });

  test('an idle keep-alive connection is closed after KEEP_ALIVE_TIMEOUT_MS, not before', async () => {
    const { socket, closed, opened } = await connect(port);
    const body = JSON.stringify({ algorithm: 'sha256', data: 'abc' });
    socket.write(
      `POST /v2/hash HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    // The response arrives, and the connection stays open for the next request…
    const answeredAt = await new Promise<number>((resolve) => {
      socket.on('data', function onData() {
        if (!socket.destroyed) {
          socket.off('data', onData);
          resolve(performance.now() - opened);
        }
      });
    });
    const { data, atMs } = await closed;
    assert.match(data, /^HTTP\/1\.1 200 /);
    assert.match(data, /keep-alive/i);
    // …until it has been idle for the keep-alive timeout.
    const idleMs = atMs - answeredAt;
    assert.ok(idleMs >= KEEP_ALIVE_TIMEOUT_MS - 50, `closed after ${idleMs.toFixed(0)} ms idle`);
    assert.ok(idleMs <= KEEP_ALIVE_TIMEOUT_MS + SLACK_MS, `closed only after ${idleMs.toFixed(0)} ms idle`);
  });

  test("headers over Node's limit are a 431 problem; bytes that are not HTTP a 400 problem", async () => {
    const large = await connect(port);
    large.socket.write(`GET /live HTTP/1.1\r\nHost: localhost\r\nX-Large: ${'a'.repeat(20 * 1024)}\r\n\r\n`);
    assertProblemResponse((await large.closed).data, 431, 'HEADERS_TOO_LARGE');
    const garbage = await connect(port);
    garbage.socket.write('\x16\x03\x01\x02\x00 this is not http\r\n\r\n');
    assertProblemResponse((await garbage.closed).data, 400, 'VALIDATION_FAILED');
    assert.equal((await hashOnce(port)).status, 200);
  });
});
