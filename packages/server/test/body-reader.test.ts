/**
 * body-reader.ts: the JSON parser's own reading of the request body, which replaces Fastify's
 * (`parseAs: 'buffer'`) to save its copy of a one-chunk body. Unit tests against a stream for each
 * rule it keeps from Fastify's reader, then the same rules through the app over real sockets
 * (chunked framing, where no Content-Length announces the size) and with a route's own limit.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { createHash } from 'node:crypto';
import { PassThrough } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { readBody, type PayloadStream } from '../src/body-reader.ts';
import { buildApp } from '../src/app.ts';
import { postJson, testApp, testConfig } from './helpers.ts';

interface Outcome {
  error: (Error & { code?: string; statusCode?: number }) | null;
  body: Buffer | undefined;
  calls: number;
}

/** Runs readBody over a PassThrough; `feed` writes to it. Resolves once done has been called. */
function read(
  headers: Record<string, string>,
  limit: number,
  feed: (stream: PassThrough & PayloadStream) => void,
): Promise<Outcome & { stream: PassThrough }> {
  const stream = new PassThrough() as PassThrough & PayloadStream;
  const request = { headers } as unknown as FastifyRequest;
  return new Promise((resolve) => {
    const outcome: Outcome = { error: null, body: undefined, calls: 0 };
    readBody(request, stream, limit, (error, body) => {
      outcome.calls++;
      outcome.error = error;
      outcome.body = body;
      // Let any second call show up before the test looks.
      setImmediate(() => resolve({ ...outcome, stream }));
    });
    feed(stream);
  });
}

describe('readBody', () => {
  test('a body of one chunk is handed over as it came, not copied', async () => {
    const chunk = Buffer.from('{"a":1}');
    const outcome = await read({ 'content-length': String(chunk.length) }, 100, (stream) => stream.end(chunk));
    assert.equal(outcome.error, null);
    assert.equal(outcome.body, chunk, 'the very Buffer the stream emitted');
    assert.equal(outcome.calls, 1);
  });

  test('chunks are joined in order, a character split between two of them included', async () => {
    const bytes = Buffer.from('{"a":"é€"}');
    const outcome = await read({ 'content-length': String(bytes.length) }, 100, (stream) => {
      stream.write(bytes.subarray(0, 7)); // ends inside the é
      stream.write(bytes.subarray(7, 9)); // ends inside the €
      stream.end(bytes.subarray(9));
    });
    assert.equal(outcome.error, null);
    assert.equal(outcome.body?.toString('utf8'), '{"a":"é€"}');
  });

  test('a stream that emits strings (a preParsing stream could) is counted and joined as UTF-8 bytes', async () => {
    const outcome = await read({ 'content-length': String(Buffer.byteLength('{"a":"é€"}')) }, 100, (stream) => {
      stream.setEncoding('utf8');
      stream.write('{"a":');
      stream.end('"é€"}');
    });
    assert.equal(outcome.error, null, 'the Content-Length counts bytes, not characters');
    assert.equal(outcome.body?.toString('utf8'), '{"a":"é€"}');
  });

  test('an empty stream is an empty body', async () => {
    const outcome = await read({ 'content-length': '0' }, 100, (stream) => stream.end());
    assert.equal(outcome.error, null);
    assert.equal(outcome.body?.byteLength, 0);
  });

  test('a Content-Length over the limit is refused before anything is read', async () => {
    const outcome = await read({ 'content-length': '101' }, 100, () => {});
    assert.equal(outcome.error?.code, 'FST_ERR_CTP_BODY_TOO_LARGE');
    assert.equal(outcome.error?.statusCode, 413);
    assert.equal(outcome.stream.listenerCount('data'), 0, 'the stream is not even listened to');
  });

  test('bytes past the limit are refused as they arrive, with or without a Content-Length', async () => {
    for (const headers of [{}, { 'content-length': '50' }] as Record<string, string>[]) {
      const outcome = await read(headers, 100, (stream) => {
        stream.write(Buffer.alloc(60));
        stream.write(Buffer.alloc(41));
        stream.end(Buffer.alloc(10));
      });
      assert.equal(outcome.error?.code, 'FST_ERR_CTP_BODY_TOO_LARGE');
      assert.equal(outcome.calls, 1, 'no second answer when the stream ends after the refusal');
    }
    const exact = await read({}, 100, (stream) => stream.end(Buffer.alloc(100)));
    assert.equal(exact.error, null, 'the limit itself is allowed');
  });

  test('a preParsing stream that reports more encoded bytes than the limit is refused', async () => {
    const outcome = await read({}, 100, (stream) => {
      stream.receivedEncodedLength = 101;
      stream.end(Buffer.alloc(10));
    });
    assert.equal(outcome.error?.code, 'FST_ERR_CTP_BODY_TOO_LARGE');
  });

  test('a body shorter or longer than its Content-Length is a 400', async () => {
    for (const [declared, sent] of [
      [10, 9],
      [10, 11],
    ] as const) {
      const outcome = await read({ 'content-length': String(declared) }, 100, (stream) =>
        stream.end(Buffer.alloc(sent)),
      );
      assert.equal(outcome.error?.code, 'FST_ERR_CTP_INVALID_CONTENT_LENGTH');
      assert.equal(outcome.error?.statusCode, 400);
    }
  });

  test('a stream error is a 400 unless it carries a 4xx or 5xx status of its own', async () => {
    const reset = await read({}, 100, (stream) =>
      stream.destroy(Object.assign(new Error('aborted'), { code: 'ECONNRESET' })),
    );
    assert.equal(reset.error?.message, 'aborted');
    assert.equal(reset.error?.statusCode, 400);
    assert.equal(reset.calls, 1);
    const own = await read({}, 100, (stream) =>
      stream.destroy(Object.assign(new Error('too slow'), { statusCode: 408 })),
    );
    assert.equal(own.error?.statusCode, 408);
    const late = await read({}, 100, (stream) => {
      stream.end(Buffer.from('{}'));
      stream.once('end', () => stream.destroy(new Error('after the end')));
    });
    assert.equal(late.error, null);
    assert.equal(late.calls, 1, 'an error after the end changes nothing');
  });
});

/**
 * One request written as raw pieces, a few ms apart; the whole answer once the server closes the
 * connection. A reset once an answer has come is expected (the server may close while the client
 * is still sending a refused body).
 */
function exchange(port: number, bytes: (string | Buffer)[]): Promise<{ status: number; head: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    socket.on('data', (data) => received.push(data));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (received.length === 0 || (error.code !== 'ECONNRESET' && error.code !== 'EPIPE')) reject(error);
    });
    socket.on('close', () => {
      const text = Buffer.concat(received).toString('utf8');
      const headEnd = text.indexOf('\r\n\r\n');
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? NaN),
        head: text.slice(0, headEnd).toLowerCase(),
        body: text.slice(headEnd + 4),
      });
    });
    socket.on('connect', async () => {
      for (const piece of bytes) {
        if (socket.destroyed) return;
        socket.write(piece);
        await new Promise((resolveWrite) => setTimeout(resolveWrite, 5));
      }
    });
  });
}

/** One chunk of chunked framing around `bytes`. */
const chunk = (bytes: string | Buffer) => {
  const data = Buffer.from(bytes);
  return Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n')]);
};
const CHUNKED_HEAD =
  'POST /v2/hash HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n';

describe('the JSON body through the app, over real sockets', () => {
  test('a chunked body in several pieces is read whole; one that grows past BODY_LIMIT_BYTES is a 413 problem', async (t) => {
    const app = await testApp({ BODY_LIMIT_BYTES: '2048' });
    t.after(() => app.close());
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as net.AddressInfo;

    // Three chunks, the cuts falling inside two-byte characters.
    const data = 'é'.repeat(300);
    const body = Buffer.from(JSON.stringify({ algorithm: 'sha256', data }));
    const served = await exchange(port, [
      CHUNKED_HEAD,
      chunk(body.subarray(0, 101)),
      chunk(body.subarray(101, 400)),
      chunk(body.subarray(400)),
      '0\r\n\r\n',
    ]);
    assert.equal(served.status, 200);
    // The chunked answer's body: size line, JSON, terminator.
    const digest = /"data":"([0-9a-f]{64})"/.exec(served.body)?.[1];
    assert.equal(digest, createHash('sha256').update(data).digest('hex'));

    const pieces = Array.from({ length: 5 }, () => chunk(`"${'x'.repeat(500)}",`));
    const refused = await exchange(port, [
      CHUNKED_HEAD,
      chunk('{"algorithm":"sha256","data":['),
      ...pieces,
      chunk('"x"]}'),
      '0\r\n\r\n',
    ]);
    assert.equal(refused.status, 413);
    assert.match(refused.body, /PAYLOAD_TOO_LARGE/);
    assert.match(refused.head, /\r\nconnection: close\r\n/, 'the rest of a refused body is not read as a next request');
  });

  test('a route with a body limit of its own is held to it, the others to BODY_LIMIT_BYTES', async (t) => {
    const app = await buildApp(testConfig({ BODY_LIMIT_BYTES: '4096' }), { quiet: true });
    app.post('/test/small-body', { bodyLimit: 64, config: { public: true } }, async (request) => ({
      echoed: request.body,
    }));
    app.post('/test/large-body', { bodyLimit: 8192, config: { public: true } }, async () => ({ ok: true }));
    await app.ready();
    await app.selfTests.done;
    t.after(() => app.close());

    for (let round = 0; round < 2; round++) {
      // Twice: the second time each route's limit comes from where the first request left it.
      assert.equal((await postJson(app, '/test/small-body', { a: 'x'.repeat(20) })).statusCode, 200);
      const tooLarge = await postJson(app, '/test/small-body', { a: 'x'.repeat(100) });
      assert.equal(tooLarge.statusCode, 413);
      assert.equal(tooLarge.json().code, 'PAYLOAD_TOO_LARGE');
      assert.equal(
        (await postJson(app, '/test/large-body', { a: 'x'.repeat(6000) })).statusCode,
        200,
        'a route may allow more than the server',
      );
      assert.equal((await postJson(app, '/test/large-body', { a: 'x'.repeat(9000) })).statusCode, 413);
      assert.equal((await postJson(app, '/v2/hash', { algorithm: 'sha256', data: 'x'.repeat(1000) })).statusCode, 200);
      assert.equal(
        (await postJson(app, '/v2/hash', { algorithm: 'sha256', data: 'x'.repeat(5000) })).statusCode,
        413,
        'the others keep the server limit',
      );
    }
  });
});
