/**
 * Constant memory: 1 GiB of plaintext through encrypt and decrypt in one pipeline, against the real
 * service, with the process's resident memory sampled along the way. The bound is generous (a
 * chunk is 64 KiB, but garbage chunks wait for the collector, which lags more on Node 22); what it
 * catches is memory that grows with the payload, which would be a gibibyte.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { test } from 'node:test';
import { useCryptoService } from '@crypto-service/testing/node-test';
import { createDecryptStream, createEncryptStream } from '../src/index.ts';
import { aesKw } from './helpers.ts';

const MIB = 1024 * 1024;
const TOTAL_MIB = 1024;
const RSS_GROWTH_BOUND = 128 * MIB;

const service = useCryptoService();

test('1 GiB through encrypt | decrypt with bounded memory', async () => {
  const keys = aesKw(service.fixtures.keyWrap.key);
  const block = randomBytes(MIB);
  const sent = createHash('sha256');
  const received = createHash('sha256');
  let receivedBytes = 0;
  let baseline = 0;
  let peak = 0;

  async function* plaintext() {
    for (let i = 0; i < TOTAL_MIB; i++) {
      // Each mebibyte differs, so that a repeated or dropped one changes the hash.
      const piece = Buffer.from(block);
      piece.writeUInt32BE(i, 0);
      sent.update(piece);
      yield piece;
    }
  }

  await pipeline(
    Readable.from(plaintext()),
    createEncryptStream({ client: service.client, key: keys.wrap }),
    createDecryptStream({ client: service.client, keys: [keys.unwrap] }),
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        received.update(chunk);
        receivedBytes += chunk.byteLength;
        if (receivedBytes % (32 * MIB) === 0) {
          const rss = process.memoryUsage.rss();
          // The first 32 MiB warm up the code and the allocator: growth is measured from there.
          if (baseline === 0) baseline = rss;
          peak = Math.max(peak, rss);
        }
        done();
      },
    }),
  );

  assert.equal(receivedBytes, TOTAL_MIB * MIB);
  assert.equal(received.digest('hex'), sent.digest('hex'));
  const growth = peak - baseline;
  assert.ok(growth < RSS_GROWTH_BOUND, `resident memory grew by ${(growth / MIB).toFixed(1)} MiB`);
  console.log(
    `# 1 GiB: resident memory grew by ${(growth / MIB).toFixed(1)} MiB (peak ${(peak / MIB).toFixed(0)} MiB)`,
  );
});
