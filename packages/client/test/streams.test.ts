/**
 * streamEncrypt and streamDecrypt against the real service: Web ReadableStreams in and out, a round
 * trip larger than a chunk, libsodium opening what the client received, a problem before the first
 * byte as a CryptoApiError, and a stream aborted midway as an error of the output stream.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import sodium from 'libsodium-wrappers';
import { CryptoApiError, CryptoClient, CryptoNetworkError } from '@crypto-service/client';
import { startService, type Service } from './helpers.ts';

await sodium.ready;

const KEY = randomBytes(32);
let service: Service;
let client: CryptoClient;

before(async () => {
  service = await startService({ RATE_LIMIT_MAX: '100000' });
  client = new CryptoClient({ baseUrl: service.baseUrl });
});
after(() => service.close());

/** `data` as a stream of pieces of `size` bytes. */
function streamOf(data: Uint8Array, size = 50_000): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= data.byteLength) return controller.close();
      controller.enqueue(data.slice(offset, offset + size));
      offset += size;
    },
  });
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const part of stream) parts.push(part);
  return Buffer.concat(parts);
}

test('a round trip through streamEncrypt and streamDecrypt, libsodium opening the ciphertext', async () => {
  const plaintext = randomBytes(3 * 65_536 + 123);
  const sealed = await readAll(await client.streamEncrypt({ key: KEY.toString('hex'), data: streamOf(plaintext) }));
  assert.equal(sealed.byteLength, 24 + plaintext.byteLength + 4 * 17);
  const state = sodium.crypto_secretstream_xchacha20poly1305_init_pull(sealed.subarray(0, 24), KEY);
  const first = sodium.crypto_secretstream_xchacha20poly1305_pull(state, sealed.subarray(24, 24 + 65_553), null);
  assert.ok(first !== false && Buffer.from(first.message).equals(plaintext.subarray(0, 65_536)));
  const opened = await readAll(await client.streamDecrypt({ key: KEY.toString('hex'), data: streamOf(sealed) }));
  assert.ok(opened.equals(plaintext));
});

test('bytes are accepted as data too, and an empty payload makes a stream of one empty chunk', async () => {
  const sealed = await readAll(await client.streamEncrypt({ key: KEY.toString('hex'), data: new Uint8Array(0) }));
  assert.equal(sealed.byteLength, 24 + 17);
  assert.equal((await readAll(await client.streamDecrypt({ key: KEY.toString('hex'), data: sealed }))).byteLength, 0);
});

test('a wrong key is a CryptoApiError before any output', async () => {
  const sealed = await readAll(await client.streamEncrypt({ key: KEY.toString('hex'), data: randomBytes(100) }));
  await assert.rejects(
    client.streamDecrypt({ key: 'ff'.repeat(32), data: sealed }),
    (error) => error instanceof CryptoApiError && error.status === 400 && error.body.code === 'DECRYPTION_FAILED',
  );
});

test('a truncated ciphertext: the output stream errors after the verified chunks', async () => {
  const sealed = await readAll(
    await client.streamEncrypt({ key: KEY.toString('hex'), data: streamOf(randomBytes(3 * 65_536)) }),
  );
  const output = await client.streamDecrypt({ key: KEY.toString('hex'), data: sealed.subarray(0, 24 + 2 * 65_553) });
  await assert.rejects(
    readAll(output),
    (error) => error instanceof CryptoNetworkError && /aborted/.test(error.message),
  );
});
