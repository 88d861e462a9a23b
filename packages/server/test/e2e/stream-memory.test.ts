/**
 * A large payload through a real server process: encrypted by one stream request while the answer
 * is fed, as it arrives, into a decrypt request, and the plaintext that comes back compared by
 * hash. The server's resident memory must stay flat: its growth over the run is bounded by a
 * generous figure far under the payload's size (a server that held the payload would exceed it).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { Readable } from 'node:stream';
import { startServer, untilReady } from './helpers.ts';

const API_KEY = 'stream-memory-test-key-0123456789';
const PAYLOAD_MIB = 256;
/** Generous: a quarter of the payload, many times what a constant-memory server needs. */
const RSS_GROWTH_BOUND_MIB = 64;
const BOUNDARY = 'stream-memory-boundary';
const KEY = randomBytes(32).toString('hex');

function residentMib(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1]);
  assert.ok(Number.isFinite(kib), 'VmRSS readable');
  return kib / 1024;
}

/** `params` then `data`, whose bytes are `source`, as a multipart body streamed as it is read. */
async function* multipart(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  yield Buffer.from(
    `--${BOUNDARY}\r\ncontent-disposition: form-data; name="params"\r\ncontent-type: application/json\r\n\r\n` +
      `${JSON.stringify({ key: KEY })}\r\n--${BOUNDARY}\r\n` +
      'content-disposition: form-data; name="data"; filename="data"\r\ncontent-type: application/octet-stream\r\n\r\n',
  );
  yield* source;
  yield Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
}

/** Posts a streamed body and resolves with the answer's stream once its headers arrive. */
function post(port: number, path: string, body: AsyncIterable<Uint8Array>): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'x-api-key': API_KEY },
      },
      resolve,
    );
    request.on('error', reject);
    Readable.from(body).pipe(request);
  });
}

test(`${PAYLOAD_MIB} MiB encrypted and decrypted through the server in constant memory`, async (t) => {
  const server = await startServer({
    CRYPTO_API_KEY: API_KEY,
    RATE_LIMIT_MAX: '100000',
    REQUEST_TIMEOUT_MS: '600000',
    LOG_LEVEL: 'info',
  });
  await untilReady(server);
  const pid = server.process.pid!;
  // A first stream of 32 MiB each way: the code loaded on first use and the young generation that
  // V8 commits under load are the server's base, not growth with the payload.
  const block = randomBytes(1024 * 1024);
  const warmSealed = await post(server.port, '/v2/stream/encrypt', multipart(Array.from({ length: 32 }, () => block)));
  assert.equal(warmSealed.statusCode, 200);
  const warmOpened = await post(server.port, '/v2/stream/decrypt', multipart(warmSealed));
  assert.equal(warmOpened.statusCode, 200);
  for await (const _ of warmOpened);
  const before = residentMib(pid);
  const sent = createHash('sha256');
  async function* plaintext(): AsyncGenerator<Uint8Array> {
    for (let i = 0; i < PAYLOAD_MIB; i++) {
      block[0] = i & 0xff;
      sent.update(block);
      yield Buffer.from(block);
    }
  }
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, residentMib(pid))), 50);
  try {
    const encrypted = await post(server.port, '/v2/stream/encrypt', multipart(plaintext()));
    assert.equal(encrypted.statusCode, 200);
    const decrypted = await post(server.port, '/v2/stream/decrypt', multipart(encrypted));
    assert.equal(decrypted.statusCode, 200);
    const received = createHash('sha256');
    let length = 0;
    for await (const part of decrypted as AsyncIterable<Buffer>) {
      received.update(part);
      length += part.byteLength;
    }
    assert.ok(decrypted.complete, 'the decryption ended normally');
    assert.equal(length, PAYLOAD_MIB * 1024 * 1024);
    assert.equal(received.digest('hex'), sent.digest('hex'));
  } finally {
    clearInterval(sampler);
  }
  peak = Math.max(peak, residentMib(pid));
  t.diagnostic(`server RSS ${before.toFixed(1)} MiB before, ${peak.toFixed(1)} MiB at the peak`);
  assert.ok(
    peak - before < RSS_GROWTH_BOUND_MIB,
    `server RSS grew by ${(peak - before).toFixed(1)} MiB (from ${before.toFixed(1)} MiB) over ${PAYLOAD_MIB} MiB`,
  );
});
