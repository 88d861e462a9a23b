/**
 * `/v2/stream/encrypt` and `/v2/stream/decrypt` over real sockets (an abort is only visible there):
 * round trips with libsodium in both directions at the sizes around a chunk, failures before the
 * first byte answered as problems, failures after it aborting the response, the multipart rules,
 * STREAM_MAX_BYTES and the rate-limit charge by size.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sodium from 'libsodium-wrappers';
import type { FastifyInstance } from 'fastify';
import { STREAM_CHUNK_BYTES, STREAM_PARAMS_MAX_BYTES } from '@crypto-service/protocol';
import { testApp } from './helpers.ts';

await sodium.ready;

const C = STREAM_CHUNK_BYTES;
const KEY = Uint8Array.from({ length: 32 }, (_, i) => i);
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const BOUNDARY = 'stream-test-boundary-7f3a';

function bytes(label: string, length: number): Uint8Array {
  return Uint8Array.from(createHash('shake256', { outputLength: length }).update(label).digest());
}

interface Part {
  name: string;
  body: Uint8Array | string;
  file?: boolean;
}

function multipart(parts: Part[]): Buffer {
  const pieces: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.file === true ? '; filename="data"' : ''}`;
    const type = part.file === true ? 'application/octet-stream' : 'application/json';
    pieces.push(Buffer.from(`--${BOUNDARY}\r\ncontent-disposition: ${disposition}\r\ncontent-type: ${type}\r\n\r\n`));
    pieces.push(Buffer.from(part.body));
    pieces.push(Buffer.from('\r\n'));
  }
  pieces.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(pieces);
}

const streamBody = (data: Uint8Array, key: string = hex(KEY)) =>
  multipart([
    { name: 'params', body: JSON.stringify({ key }) },
    { name: 'data', body: data, file: true },
  ]);

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** Whether the response ended normally, as opposed to being cut off. */
  complete: boolean;
}

let app: FastifyInstance;
let port: number;

/** Sends `body` (in pieces, chunked when `chunked`) and reads the whole answer, noting an abort. */
function post(path: string, body: Buffer, options: { chunked?: boolean; contentType?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: http.OutgoingHttpHeaders = {
      'content-type': options.contentType ?? `multipart/form-data; boundary=${BOUNDARY}`,
      'accept-encoding': 'br, gzip',
    };
    if (options.chunked !== true) headers['content-length'] = body.byteLength;
    let answered = false;
    const request = http.request({ host: '127.0.0.1', port, path, method: 'POST', headers }, (response) => {
      answered = true;
      const parts: Buffer[] = [];
      let ended = false;
      response.on('data', (part: Buffer) => parts.push(part));
      response.on('end', () => (ended = true));
      response.on('error', () => {});
      response.on('close', () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(parts),
          complete: ended && response.complete,
        }),
      );
    });
    // A server that answers before the whole body is sent (a problem) may close the socket under it.
    request.on('error', (error) => {
      if (!answered) reject(error);
    });
    for (let offset = 0; offset < body.byteLength; offset += 100_000)
      request.write(body.subarray(offset, offset + 100_000));
    request.end();
  });
}

function sodiumDecrypt(sealed: Uint8Array): Uint8Array {
  const state = sodium.crypto_secretstream_xchacha20poly1305_init_pull(sealed.subarray(0, 24), KEY);
  const out: Uint8Array[] = [];
  let offset = 24;
  for (;;) {
    const chunk = sealed.subarray(offset, offset + C + 17);
    offset += chunk.byteLength;
    const opened = sodium.crypto_secretstream_xchacha20poly1305_pull(state, chunk, null);
    if (opened === false) throw new Error('libsodium refused a chunk');
    out.push(opened.message);
    if (opened.tag === sodium.crypto_secretstream_xchacha20poly1305_TAG_FINAL) {
      assert.equal(offset, sealed.byteLength, 'FINAL is the last chunk');
      return Buffer.concat(out);
    }
  }
}

function sodiumEncrypt(plaintext: Uint8Array): Uint8Array {
  const { state, header } = sodium.crypto_secretstream_xchacha20poly1305_init_push(KEY);
  const out = [header];
  let offset = 0;
  do {
    const last = offset + C >= plaintext.byteLength;
    const tag = last ? sodium.crypto_secretstream_xchacha20poly1305_TAG_FINAL : 0;
    out.push(
      sodium.crypto_secretstream_xchacha20poly1305_push(state, plaintext.subarray(offset, offset + C), null, tag),
    );
    offset += C;
  } while (offset < plaintext.byteLength);
  return Buffer.concat(out);
}

function assertProblem(answer: Answer, status: number, code: string): { errors?: { field: string }[] } {
  assert.equal(answer.status, status, answer.body.toString());
  assert.match(String(answer.headers['content-type']), /^application\/problem\+json/);
  const problem = JSON.parse(answer.body.toString());
  assert.equal(problem.code, code);
  return problem;
}

before(async () => {
  app = await testApp({ STREAM_MAX_BYTES: String(8 * 1024 * 1024), RATE_LIMIT_MAX: '100000' });
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as AddressInfo).port;
});
after(() => app.close());

describe('round trips with libsodium', () => {
  for (const size of [0, 1, C, C + 1, 3 * 1024 * 1024 + 5]) {
    const plaintext = bytes(`payload ${size}`, size);
    test(`${size} bytes: libsodium opens what the service writes`, async () => {
      const answer = await post('/v2/stream/encrypt', streamBody(plaintext));
      assert.equal(answer.status, 200);
      assert.equal(answer.headers['content-type'], 'application/octet-stream');
      assert.equal(answer.headers['content-encoding'], undefined, 'never compressed');
      assert.ok(answer.complete);
      assert.equal(answer.body.byteLength, 24 + size + 17 * Math.max(1, Math.ceil(size / C)));
      assert.ok(Buffer.from(sodiumDecrypt(answer.body)).equals(Buffer.from(plaintext)));
    });
    test(`${size} bytes: the service opens what libsodium writes (chunked upload)`, async () => {
      const answer = await post('/v2/stream/decrypt', streamBody(sodiumEncrypt(plaintext)), { chunked: true });
      assert.equal(answer.status, 200);
      assert.ok(answer.complete);
      assert.ok(answer.body.equals(Buffer.from(plaintext)));
    });
  }
});

describe('a damaged stream never ends like a complete one', () => {
  const plaintext = bytes('damaged', 4 * C + 10);
  const sealed = sodiumEncrypt(plaintext);
  const chunk = C + 17;

  test('the wrong key, or a stream cut inside its first chunk, is a 400 problem before any byte', async () => {
    assertProblem(await post('/v2/stream/decrypt', streamBody(sealed, 'ff'.repeat(32))), 400, 'DECRYPTION_FAILED');
    assertProblem(await post('/v2/stream/decrypt', streamBody(sealed.subarray(0, 30))), 400, 'DECRYPTION_FAILED');
  });

  test('truncated at a chunk boundary: the verified chunks arrive, then the response is aborted', async () => {
    const answer = await post('/v2/stream/decrypt', streamBody(sealed.subarray(0, 24 + 2 * chunk)));
    assert.equal(answer.status, 200);
    assert.equal(answer.complete, false);
    assert.ok(answer.body.byteLength <= 2 * C);
  });

  test('chunks reordered, or the last one tampered: aborted', async () => {
    const reordered = Buffer.concat([
      sealed.subarray(0, 24 + chunk),
      sealed.subarray(24 + 2 * chunk, 24 + 3 * chunk),
      sealed.subarray(24 + chunk, 24 + 2 * chunk),
      sealed.subarray(24 + 3 * chunk),
    ]);
    const tampered = Buffer.from(sealed);
    tampered[tampered.byteLength - 1]! ^= 1;
    for (const [name, stream] of [
      ['reordered', reordered],
      ['tampered', tampered],
    ] as const) {
      const answer = await post('/v2/stream/decrypt', streamBody(stream));
      assert.equal(answer.complete, false, name);
      assert.ok(answer.body.byteLength < plaintext.byteLength, name);
    }
  });

  test('an upload cut short mid-part is never sealed with FINAL', async () => {
    // The form never closes: the part ends at the socket's end, with no boundary after it.
    const body = streamBody(bytes('cut', 3 * C));
    const answer = await new Promise<Answer>((resolve, reject) => {
      const request = http.request(
        {
          host: '127.0.0.1',
          port,
          path: '/v2/stream/encrypt',
          method: 'POST',
          headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'transfer-encoding': 'chunked' },
        },
        (response) => {
          const parts: Buffer[] = [];
          let ended = false;
          response.on('data', (part: Buffer) => parts.push(part));
          response.on('end', () => (ended = true));
          response.on('error', () => {});
          response.on('close', () =>
            resolve({
              status: response.statusCode ?? 0,
              headers: response.headers,
              body: Buffer.concat(parts),
              complete: ended,
            }),
          );
          // Enough of the part has gone through: now the client goes away.
          setTimeout(() => request.destroy(), 200);
        },
      );
      request.on('error', () => {});
      request.write(body.subarray(0, body.byteLength - 100));
      void reject;
    });
    assert.equal(answer.complete, false);
    assert.throws(() => sodiumDecrypt(answer.body));
  });
});

describe('the request', () => {
  const data = bytes('small', 100);

  test('params must come first, data second and last, with a 32-byte hex key', async () => {
    const swapped = multipart([
      { name: 'data', body: data, file: true },
      { name: 'params', body: JSON.stringify({ key: hex(KEY) }) },
    ]);
    assertProblem(await post('/v2/stream/encrypt', swapped), 400, 'VALIDATION_FAILED');
    const shortKey = assertProblem(
      await post('/v2/stream/encrypt', streamBody(data, 'ab'.repeat(31))),
      400,
      'INVALID_INPUT',
    );
    assert.equal(shortKey.errors?.[0]?.field, '/params/key');
    const notHex = assertProblem(
      await post('/v2/stream/encrypt', streamBody(data, 'zz'.repeat(32))),
      400,
      'INVALID_INPUT',
    );
    assert.equal(notHex.errors?.[0]?.field, '/params/key');
    const extra = multipart([
      { name: 'params', body: JSON.stringify({ key: hex(KEY), chunk: 5 }) },
      { name: 'data', body: data, file: true },
    ]);
    assertProblem(await post('/v2/stream/encrypt', extra), 400, 'INVALID_INPUT');
    const noData = multipart([{ name: 'params', body: JSON.stringify({ key: hex(KEY) }) }]);
    assertProblem(await post('/v2/stream/encrypt', noData), 400, 'VALIDATION_FAILED');
  });

  test('a form that is not two well-formed parts, or a params part over its cap, is a 400 problem', async () => {
    const third = multipart([
      { name: 'params', body: JSON.stringify({ key: hex(KEY) }) },
      { name: 'data', body: data, file: true },
      { name: 'more', body: data, file: true },
    ]);
    assertProblem(await post('/v2/stream/encrypt', third), 400, 'VALIDATION_FAILED');
    const padded = `{"key":"${hex(KEY)}"${' '.repeat(STREAM_PARAMS_MAX_BYTES)}}`;
    const large = multipart([
      { name: 'params', body: padded },
      { name: 'data', body: data, file: true },
    ]);
    const tooLong = assertProblem(await post('/v2/stream/encrypt', large), 400, 'INVALID_INPUT');
    assert.equal(tooLong.errors?.[0]?.field, '/params');
    // The same padding inside the cap is accepted: the cap, not the spaces, refused it.
    const fits = multipart([
      { name: 'params', body: padded.slice(0, STREAM_PARAMS_MAX_BYTES - 1) + '}' },
      { name: 'data', body: data, file: true },
    ]);
    assert.equal((await post('/v2/stream/encrypt', fits)).status, 200);
    const garbage = bytes('garbage', 5000);
    for (const [body, contentType] of [
      [Buffer.from(garbage), undefined],
      [Buffer.alloc(0), undefined],
      [streamBody(data).subarray(0, 150), undefined],
      // Cut inside `data`: decryption waits for a whole chunk, so the fault comes before any output.
      [streamBody(data).subarray(0, streamBody(data).byteLength - 60), undefined],
      [streamBody(data), 'multipart/form-data'],
      [streamBody(data), 'multipart/form-data; boundary=other'],
    ] as const) {
      const answer = await post('/v2/stream/decrypt', body, contentType === undefined ? {} : { contentType });
      assertProblem(answer, 400, 'VALIDATION_FAILED');
    }
  });

  test('a JSON body is a 415', async () => {
    const answer = await post('/v2/stream/encrypt', Buffer.from(JSON.stringify({ key: hex(KEY) })), {
      contentType: 'application/json',
    });
    assertProblem(answer, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  test('a body over BODY_LIMIT_BYTES streams; one over STREAM_MAX_BYTES is refused', async () => {
    const big = bytes('big', 2 * 1024 * 1024);
    const answer = await post('/v2/stream/encrypt', streamBody(big));
    assert.equal(answer.status, 200);
    assert.ok(answer.complete);
    // A Content-Length that says too much is refused before any work.
    const declared = new Uint8Array(9 * 1024 * 1024);
    assertProblem(await post('/v2/stream/encrypt', streamBody(declared)), 413, 'PAYLOAD_TOO_LARGE');
    // Otherwise the limit is found as the bytes arrive, one byte over it: the stream is aborted.
    const tooBig = new Uint8Array(8 * 1024 * 1024 + 1);
    for (const chunked of [true, false]) {
      const answer = await post('/v2/stream/encrypt', streamBody(tooBig), { chunked });
      assert.equal(answer.status, 200);
      assert.equal(answer.complete, false, `chunked: ${chunked}`);
    }
  });

  test('costs one rate-limit unit per started MiB of request', async () => {
    const remaining = (answer: Answer) => Number(/r=(\d+)/.exec(String(answer.headers.ratelimit))?.[1]);
    const small = await post('/v2/stream/encrypt', streamBody(bytes('a', 10)));
    const next = await post('/v2/stream/encrypt', streamBody(bytes('b', 10)));
    assert.equal(remaining(small) - remaining(next), 1);
    const large = await post('/v2/stream/encrypt', streamBody(bytes('c', 3 * 1024 * 1024)));
    assert.equal(remaining(next) - remaining(large), 4, 'a little over 3 MiB of body: 4 units');
  });
});
