/**
 * Stream encryption and decryption of a large payload (1 GiB by default) through the production
 * server (`/v2/stream/encrypt|decrypt`) against the same secretstream called in process
 * (core encryptStream/decryptStream), in alternating rounds: MB/s (10^6 bytes a second) as the
 * median of the rounds, the ratio of the medians, and the server's resident memory before the first
 * round (after a 32 MiB stream each way), its peak (sampled every 50 ms) and after the last.
 *
 *   node bench/stream.ts [--mib 1024] [--rounds 3]
 *
 * The payload is one random MiB repeated (the cipher's speed does not depend on the bytes); the
 * ciphertext for decryption is written once to a temporary file, which both sides read.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { decryptStream, encryptStream } from '@crypto-service/core';
import { describeMachine, formatMiB, formatRatio, markdownTable, median, options, print } from './lib/common.ts';
import { benchApiKey, residentBytes, startProductionServer } from './lib/server-process.ts';

const { mib, rounds } = options({ mib: 1024, rounds: 3 });
const BOUNDARY = 'bench-stream-boundary';
const key = randomBytes(32);
const block = randomBytes(1024 * 1024);
const bytes = mib * 1024 * 1024;

async function* plaintext(): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < mib; i++) yield block;
}
const ciphertext = () => createReadStream(cipherFile, { highWaterMark: 1024 * 1024 });

async function* multipart(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  yield Buffer.from(
    `--${BOUNDARY}\r\ncontent-disposition: form-data; name="params"\r\ncontent-type: application/json\r\n\r\n` +
      `${JSON.stringify({ key: key.toString('hex') })}\r\n--${BOUNDARY}\r\n` +
      'content-disposition: form-data; name="data"; filename="data"\r\ncontent-type: application/octet-stream\r\n\r\n',
  );
  yield* source;
  yield Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
}

/** Bytes out of `output`, read to its end and dropped. */
async function drain(output: AsyncIterable<Uint8Array>): Promise<number> {
  let length = 0;
  for await (const part of output) length += part.byteLength;
  return length;
}

function throughService(
  url: string,
  apiKey: string,
  path: string,
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${url}${path}`,
      {
        method: 'POST',
        headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'x-api-key': apiKey },
        // A connection of its own: one kept alive through an in-process round longer than the
        // server's KEEP_ALIVE_TIMEOUT_MS would be closed under the next stream's first write.
        agent: false,
      },
      (response) => {
        if (response.statusCode !== 200) reject(new Error(`${path}: ${response.statusCode}`));
        drain(response).then((length) => {
          if (!response.complete) reject(new Error(`${path}: the response was aborted`));
          else resolve(length);
        }, reject);
      },
    );
    request.on('error', reject);
    Readable.from(multipart(source)).pipe(request);
  });
}

async function timed(work: () => Promise<number>, expected: number): Promise<number> {
  const started = performance.now();
  const length = await work();
  const seconds = (performance.now() - started) / 1000;
  if (length !== expected) throw new Error(`expected ${expected} bytes, got ${length}`);
  return bytes / 1e6 / seconds;
}

const chunks = Math.max(1, Math.ceil(bytes / 65_536));
const sealedLength = 24 + bytes + 17 * chunks;
const cipherFile = join(tmpdir(), `crypto-service-bench-stream-${process.pid}.bin`);
await pipeline(Readable.from(encryptStream(key, plaintext())), createWriteStream(cipherFile));

const apiKey = benchApiKey();
const server = await startProductionServer('stream', apiKey, { REQUEST_TIMEOUT_MS: '3600000' });
const pid = server.child.pid as number;
const results = {
  encrypt: { local: [] as number[], service: [] as number[] },
  decrypt: { local: [] as number[], service: [] as number[] },
};
const rss = { before: 0, peak: 0, after: 0 };
try {
  // A first stream of 32 MiB each way: the code loaded on first use and the young generation that
  // V8 commits under load are the server's base, not growth with the payload.
  const warmup = Array.from({ length: 32 }, () => block);
  await throughService(server.url, apiKey, '/v2/stream/encrypt', warmup);
  await throughService(server.url, apiKey, '/v2/stream/decrypt', encryptStream(key, warmup));
  rss.before = residentBytes(pid);
  rss.peak = rss.before;
  const sampler = setInterval(() => (rss.peak = Math.max(rss.peak, residentBytes(pid))), 50);
  for (let round = 0; round < rounds; round++) {
    results.encrypt.local.push(await timed(() => drain(encryptStream(key, plaintext())), sealedLength));
    results.encrypt.service.push(
      await timed(() => throughService(server.url, apiKey, '/v2/stream/encrypt', plaintext()), sealedLength),
    );
    results.decrypt.local.push(await timed(() => drain(decryptStream(key, ciphertext())), bytes));
    results.decrypt.service.push(
      await timed(() => throughService(server.url, apiKey, '/v2/stream/decrypt', ciphertext()), bytes),
    );
  }
  clearInterval(sampler);
  rss.after = residentBytes(pid);
} finally {
  await server.stop();
  rmSync(cipherFile, { force: true });
}

const mbps = (values: number[]) =>
  `${median(values).toFixed(0)} (${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)})`;
print(`## Streams: ${mib} MiB, ${rounds} alternating rounds\n\n${describeMachine()}\n`);
print(
  markdownTable(
    ['direction', 'in process, MB/s', 'through the service, MB/s', 'service / in process'],
    (['encrypt', 'decrypt'] as const).map((direction) => [
      direction,
      mbps(results[direction].local),
      mbps(results[direction].service),
      formatRatio(median(results[direction].service) / median(results[direction].local)),
    ]),
  ),
);
print(
  `\nServer resident memory: ${formatMiB(rss.before)} before, ${formatMiB(rss.peak)} at the peak, ${formatMiB(rss.after)} after ` +
    `(growth to the peak ${formatMiB(rss.peak - rss.before)}, to the end ${formatMiB(rss.after - rss.before)}, over ${rounds * 2} streams of ${mib} MiB)`,
);
