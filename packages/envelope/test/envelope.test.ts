/**
 * Envelopes against the real service: round trips in both wrap modes through the generators, Node
 * pipelines and Web streams; the content checked by libsodium itself and the wrapped key by
 * independent AES-KW (node:crypto) and HPKE (@hpke) implementations; every way an envelope can be
 * cut, reordered, tampered with or mixed up fails without a clean end; rotation.
 */
import assert from 'node:assert/strict';
import { createDecipheriv, randomBytes } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, test } from 'node:test';
import sodium from 'libsodium-wrappers';
import { CipherSuite, HkdfSha256 } from '@hpke/core';
import { Chacha20Poly1305 } from '@hpke/chacha20poly1305';
import { XWing } from '@hpke/hybridkem-x-wing';
import { CryptoApiError } from '@crypto-service/client';
import { useCryptoService } from '@crypto-service/testing/node-test';
import {
  createDecryptStream,
  createEncryptStream,
  createRewrapStream,
  decrypt,
  decryptTransform,
  encrypt,
  encryptTransform,
  EnvelopeError,
  MAX_CHUNK_LENGTH,
  parseHeader,
  readHeader,
  rewrap,
  type EnvelopeHeader,
} from '../src/index.ts';
import { aesKw, collect, newKek, pieces, sink, xWing, type KeyPairs } from './helpers.ts';

await sodium.ready;

const CHUNK = 65_536;
const SIZES = [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK + 17];
const PQ_INFO = new TextEncoder().encode('crypto-service/v2/sealedbox-pq');

/** The data key, unwrapped without the service: RFC 3394 in OpenSSL, or HPKE X-Wing in @hpke. */
async function dataKeyIndependently(header: EnvelopeHeader, keys: KeyPairs): Promise<Uint8Array> {
  if (keys.unwrap.mode === 'aes-kw') {
    const kek = Buffer.from(keys.unwrap.kek, 'hex');
    const decipher = createDecipheriv('id-aes256-wrap', kek, Buffer.from('a6a6a6a6a6a6a6a6', 'hex'));
    return Buffer.concat([decipher.update(header.wrappedKey), decipher.final()]);
  }
  const suite = new CipherSuite({ kem: new XWing(), kdf: new HkdfSha256(), aead: new Chacha20Poly1305() });
  const recipientKey = await suite.kem.deserializePrivateKey(
    new Uint8Array(Buffer.from(keys.unwrap.privateKey, 'hex')).buffer,
  );
  const box = header.wrappedKey;
  const opened = await suite.open(
    { recipientKey, enc: box.slice(0, 1120).buffer, info: PQ_INFO.slice().buffer },
    box.slice(1120).buffer,
  );
  return new Uint8Array(opened);
}

/** libsodium's own reader over the content: chunks of chunkLength + 17, FINAL exactly on the last. */
function libsodiumOpen(envelope: Buffer, header: EnvelopeHeader, headerLength: number, dataKey: Uint8Array): Buffer {
  const state = sodium.crypto_secretstream_xchacha20poly1305_init_pull(header.streamHeader, dataKey);
  const body = envelope.subarray(headerLength);
  const size = header.chunkLength + sodium.crypto_secretstream_xchacha20poly1305_ABYTES;
  const parts: Uint8Array[] = [];
  let offset = 0;
  do {
    const chunk = body.subarray(offset, offset + size);
    offset += size;
    const opened = sodium.crypto_secretstream_xchacha20poly1305_pull(state, chunk, null);
    assert.ok(opened, 'libsodium refused a chunk');
    const last = offset >= body.byteLength;
    assert.equal(
      opened.tag === sodium.crypto_secretstream_xchacha20poly1305_TAG_FINAL,
      last,
      'FINAL on the last chunk only',
    );
    parts.push(opened.message);
  } while (offset < body.byteLength);
  return Buffer.concat(parts);
}

/** Asserts that reading `source` ends in the error `code`, never in a clean end. */
async function assertFails(source: AsyncIterable<Uint8Array>, code: string, label: string): Promise<void> {
  await assert.rejects(collect(source), (error: unknown) => {
    assert.ok(error instanceof EnvelopeError, `${label}: ${String(error)}`);
    assert.equal(error.code, code, label);
    return true;
  });
}

describe('envelope encryption', () => {
  const service = useCryptoService();
  const modes = (): [string, KeyPairs][] => [
    ['aes-kw', aesKw(service.fixtures.keyWrap.key)],
    ['x-wing', xWing(service)],
  ];

  test('round trips in both wrap modes, every size around the chunk boundary', async () => {
    for (const [mode, keys] of modes()) {
      for (const size of SIZES) {
        const plaintext = randomBytes(size);
        const sealed = await collect(encrypt(pieces(plaintext, 10_000), { client: service.client, key: keys.wrap }));
        const { header, length } = parseHeader(sealed);
        assert.equal(header.mode, mode);
        const chunks = Math.max(1, Math.ceil(size / CHUNK));
        assert.equal(sealed.byteLength, length + size + 17 * chunks, `${mode} ${size}: one chunk per 64 KiB`);
        const opened = await collect(decrypt(pieces(sealed, 7_777), { client: service.client, keys: [keys.unwrap] }));
        assert.ok(opened.equals(plaintext), `${mode} ${size}`);
      }
    }
  });

  test('libsodium opens the content with the data key that independent AES-KW and HPKE unwrap', async () => {
    for (const [mode, keys] of modes()) {
      for (const size of [0, CHUNK, 2 * CHUNK + 5]) {
        const plaintext = randomBytes(size);
        const sealed = await collect(encrypt([plaintext], { client: service.client, key: keys.wrap }));
        const { header, length } = parseHeader(sealed);
        assert.equal(header.keyId, keys.wrap.keyId);
        assert.equal(header.chunkLength, CHUNK);
        assert.equal(header.wrappedKey.byteLength, mode === 'aes-kw' ? 40 : 1120 + 32 + 16);
        const dataKey = await dataKeyIndependently(header, keys);
        assert.equal(dataKey.byteLength, 32);
        assert.ok(libsodiumOpen(sealed, header, length, dataKey).equals(plaintext), `${mode} ${size}`);
      }
    }
  });

  test('every object gets a fresh data key and stream header', async () => {
    const keys = aesKw(service.fixtures.keyWrap.key);
    const first = parseHeader(
      await collect(encrypt([Buffer.from('same')], { client: service.client, key: keys.wrap })),
    ).header;
    const second = parseHeader(
      await collect(encrypt([Buffer.from('same')], { client: service.client, key: keys.wrap })),
    ).header;
    assert.notDeepEqual(await dataKeyIndependently(first, keys), await dataKeyIndependently(second, keys));
    assert.notDeepEqual(first.streamHeader, second.streamHeader);
  });

  test('a chosen chunk length is written in the header and read back from it', async () => {
    const keys = aesKw(service.fixtures.keyWrap.key);
    const plaintext = randomBytes(10_000);
    const sealed = await collect(encrypt([plaintext], { client: service.client, key: keys.wrap, chunkLength: 1_000 }));
    const { header, length } = parseHeader(sealed);
    assert.equal(header.chunkLength, 1_000);
    assert.ok(libsodiumOpen(sealed, header, length, await dataKeyIndependently(header, keys)).equals(plaintext));
    assert.ok((await collect(decrypt([sealed], { client: service.client, keys: [keys.unwrap] }))).equals(plaintext));
    await assert.rejects(
      encrypt([], { client: service.client, key: keys.wrap, chunkLength: 0 }).next(),
      (error: unknown) => error instanceof EnvelopeError && error.code === 'INVALID_OPTIONS',
    );
  });

  test('Node streams: pipeline() through the encrypt and decrypt Duplexes', async () => {
    for (const [, keys] of modes()) {
      const plaintext = randomBytes(5 * CHUNK + 3);
      const sealed: Buffer[] = [];
      await pipeline(
        Readable.from(pieces(plaintext, 16_384)),
        createEncryptStream({ client: service.client, key: keys.wrap }),
        sink(sealed),
      );
      const opened: Buffer[] = [];
      await pipeline(
        Readable.from(pieces(Buffer.concat(sealed), 50_000)),
        createDecryptStream({ client: service.client, keys: [keys.unwrap] }),
        sink(opened),
      );
      assert.ok(Buffer.concat(opened).equals(plaintext));
    }
  });

  test('Web streams: pipeThrough the encrypt and decrypt transforms', async () => {
    for (const [, keys] of modes()) {
      const plaintext = randomBytes(2 * CHUNK + 99);
      const opened = new Response(
        new Blob([plaintext])
          .stream()
          .pipeThrough(encryptTransform({ client: service.client, key: keys.wrap }))
          .pipeThrough(decryptTransform({ client: service.client, keys: [keys.unwrap] })),
      );
      assert.ok(Buffer.from(await opened.arrayBuffer()).equals(plaintext));
    }
  });

  describe('what must fail', () => {
    const keys = () => aesKw(service.fixtures.keyWrap.key);
    const seal = async (plaintext: Uint8Array) =>
      collect(encrypt([plaintext], { client: service.client, key: keys().wrap, chunkLength: 1_024 }));
    const open = (bytes: Uint8Array) =>
      decrypt(pieces(bytes, 3_000), { client: service.client, keys: [keys().unwrap] });
    const chunkSize = 1_024 + 17;

    test('truncation: inside the header, at a chunk boundary, inside a chunk, the FINAL chunk dropped', async () => {
      const sealed = await seal(randomBytes(4 * 1_024 + 10));
      const { length } = parseHeader(sealed);
      await assertFails(open(sealed.subarray(0, 0)), 'MALFORMED_HEADER', 'empty');
      await assertFails(open(sealed.subarray(0, 20)), 'MALFORMED_HEADER', 'inside the header');
      await assertFails(open(sealed.subarray(0, length)), 'DECRYPTION_FAILED', 'no chunk at all');
      await assertFails(open(sealed.subarray(0, length + 2 * chunkSize)), 'DECRYPTION_FAILED', 'at a boundary');
      await assertFails(open(sealed.subarray(0, length + 2 * chunkSize + 100)), 'DECRYPTION_FAILED', 'mid-chunk');
      await assertFails(open(sealed.subarray(0, length + 4 * chunkSize)), 'DECRYPTION_FAILED', 'FINAL dropped');
      await assertFails(open(sealed.subarray(0, sealed.byteLength - 1)), 'DECRYPTION_FAILED', 'one byte short');
    });

    test('plaintext may come before the failure, but the stream never ends cleanly', async () => {
      const sealed = await seal(randomBytes(4 * 1_024 + 10));
      const received: Uint8Array[] = [];
      await assert.rejects(async () => {
        const cut = parseHeader(sealed).length + 2 * chunkSize + 100;
        for await (const part of open(sealed.subarray(0, cut))) received.push(part);
      }, EnvelopeError);
      assert.equal(Buffer.concat(received).byteLength, 2 * 1_024);
    });

    test('reordered, duplicated and tampered chunks; appended bytes', async () => {
      const sealed = await seal(randomBytes(4 * 1_024 + 10));
      const { length } = parseHeader(sealed);
      const chunk = (i: number) => sealed.subarray(length + i * chunkSize, length + (i + 1) * chunkSize);
      const rest = sealed.subarray(length + 2 * chunkSize);
      const head = sealed.subarray(0, length);
      await assertFails(open(Buffer.concat([head, chunk(1), chunk(0), rest])), 'DECRYPTION_FAILED', 'swapped');
      await assertFails(
        open(Buffer.concat([head, chunk(0), chunk(0), chunk(1), rest])),
        'DECRYPTION_FAILED',
        'replayed',
      );
      for (const at of [length, length + 1, length + 500, length + chunkSize - 1, sealed.byteLength - 1]) {
        const tampered = Buffer.from(sealed);
        tampered[at]! ^= 0x01;
        await assertFails(open(tampered), 'DECRYPTION_FAILED', `bit flipped at ${at}`);
      }
      await assertFails(open(Buffer.concat([sealed, Buffer.from([0])])), 'DECRYPTION_FAILED', 'appended byte');
      await assertFails(open(Buffer.concat([sealed, chunk(0)])), 'DECRYPTION_FAILED', 'appended chunk');
    });

    test('a tampered header: magic, version, lengths, key id, wrapped key, stream header', async () => {
      const sealed = await seal(randomBytes(3_000));
      const { header, length } = parseHeader(sealed);
      const flip = (at: number) => {
        const copy = Buffer.from(sealed);
        copy[at]! ^= 0x01;
        return copy;
      };
      await assertFails(open(flip(0)), 'NOT_AN_ENVELOPE', 'magic');
      await assertFails(open(flip(4)), 'UNSUPPORTED_VERSION', 'version');
      await assertFails(open(flip(8)), 'MALFORMED_HEADER', 'header length');
      await assertFails(open(flip(9)), 'MALFORMED_HEADER', 'wrap mode');
      await assertFails(open(flip(13)), 'DECRYPTION_FAILED', 'chunk length');
      await assertFails(open(flip(15)), 'UNKNOWN_KEY', 'key id');
      const wrappedAt = 15 + header.keyId.length + 2;
      await assertFails(open(flip(wrappedAt + 3)), 'DECRYPTION_FAILED', 'wrapped key');
      await assertFails(open(flip(length - 1)), 'DECRYPTION_FAILED', 'stream header');
    });

    test("a foreign header: another object's header in front of this content, or the wrong key", async () => {
      const one = await seal(randomBytes(3_000));
      const two = await seal(randomBytes(3_000));
      const lengthOne = parseHeader(one).length;
      const lengthTwo = parseHeader(two).length;
      const spliced = Buffer.concat([one.subarray(0, lengthOne), two.subarray(lengthTwo)]);
      await assertFails(open(spliced), 'DECRYPTION_FAILED', 'spliced');
      const wrongKek = decrypt([one], { client: service.client, keys: [aesKw(newKek()).unwrap] });
      await assertFails(wrongKek, 'DECRYPTION_FAILED', 'wrong KEK under the same id');
      const unknown = decrypt([one], { client: service.client, keys: [aesKw(newKek(), 'other').unwrap] });
      await assertFails(unknown, 'UNKNOWN_KEY', 'no key for the id');
      await assertFails(open(Buffer.from('not an envelope at all')), 'NOT_AN_ENVELOPE', 'plain text');
    });

    test('a hostile header cannot ask for a huge chunk; a refused wrap fails before any output', async () => {
      const sealed = await seal(randomBytes(100));
      const huge = Buffer.from(sealed);
      huge.writeUInt32BE(MAX_CHUNK_LENGTH + 1, 10);
      await assertFails(open(huge), 'MALFORMED_HEADER', 'chunk length over the limit');
      const output: Uint8Array[] = [];
      const refused = encrypt([Buffer.from('secret')], {
        client: service.client,
        key: { mode: 'aes-kw', keyId: 'short', kek: 'abcd' },
      });
      await assert.rejects(
        async () => {
          for await (const part of refused) output.push(part);
        },
        (error: unknown) =>
          error instanceof CryptoApiError && error.status === 400 && !error.message.includes('secret'),
      );
      assert.equal(output.length, 0);
    });

    test('Node and Web streams error, never finish, on a tampered envelope', async () => {
      const sealed = await seal(randomBytes(5_000));
      const tampered = Buffer.from(sealed);
      tampered[tampered.byteLength - 20]! ^= 0x80;
      let finished = false;
      await assert.rejects(
        pipeline(
          Readable.from([tampered]),
          createDecryptStream({ client: service.client, keys: [keys().unwrap] }),
          new Writable({ write: (_chunk, _encoding, done) => done(), final: (done) => done(void (finished = true)) }),
        ),
        (error: unknown) => error instanceof EnvelopeError && error.code === 'DECRYPTION_FAILED',
      );
      assert.equal(finished, false);
      const web = new Blob([tampered])
        .stream()
        .pipeThrough(decryptTransform({ client: service.client, keys: [keys().unwrap] }));
      await assert.rejects(new Response(web).arrayBuffer(), (error: unknown) => error instanceof EnvelopeError);
    });
  });

  describe('rotation', () => {
    test('rewrap(header) moves the data key to a new KEK; the content is untouched', async () => {
      const old = aesKw(service.fixtures.keyWrap.key, 'kek-2025');
      const next = aesKw(newKek(), 'kek-2026');
      const plaintext = randomBytes(100_000);
      const sealed = await collect(encrypt([plaintext], { client: service.client, key: old.wrap }));
      const { header, length } = parseHeader(sealed);
      const newHeader = await rewrap(sealed.subarray(0, length), {
        client: service.client,
        keys: [old.unwrap],
        to: next.wrap,
      });
      const rotated = Buffer.concat([newHeader, sealed.subarray(length)]);
      const parsed = parseHeader(rotated).header;
      assert.equal(parsed.keyId, 'kek-2026');
      assert.deepEqual(parsed.streamHeader, header.streamHeader);
      assert.deepEqual(await dataKeyIndependently(parsed, next), await dataKeyIndependently(header, old));
      assert.ok((await collect(decrypt([rotated], { client: service.client, keys: [next.unwrap] }))).equals(plaintext));
      await assertFails(decrypt([rotated], { client: service.client, keys: [old.unwrap] }), 'UNKNOWN_KEY', 'old key');
    });

    test('from AES-KW to X-Wing, as a stream, with a resolver for the current key', async () => {
      const old = aesKw(service.fixtures.keyWrap.key);
      const next = xWing(service, 'offline-recipient');
      const plaintext = randomBytes(3 * CHUNK);
      const sealed = await collect(encrypt(pieces(plaintext, 9_000), { client: service.client, key: old.wrap }));
      const asked: unknown[] = [];
      const rotated = await collect(
        Readable.from(pieces(sealed, 10_000)).pipe(
          createRewrapStream({
            client: service.client,
            keys: (wanted) => (asked.push(wanted), wanted.keyId === old.unwrap.keyId ? old.unwrap : undefined),
            to: next.wrap,
          }),
        ),
      );
      assert.deepEqual(asked, [{ mode: 'aes-kw', keyId: old.unwrap.keyId }]);
      const { bytes, header } = await readHeader([rotated]);
      assert.equal(header.mode, 'x-wing');
      assert.ok(rotated.subarray(bytes.byteLength).equals(sealed.subarray(parseHeader(sealed).length)));
      assert.ok((await collect(decrypt([rotated], { client: service.client, keys: [next.unwrap] }))).equals(plaintext));
    });
  });
});
