/**
 * secretstream against libsodium's crypto_secretstream_xchacha20poly1305 (libsodium-wrappers), in
 * both directions: chunk by chunk (every tag, AD, explicit rekey), and whole streams in the
 * service's format at the sizes around a chunk; then truncation, reordering, tampering and
 * splicing, which must all fail.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import sodium from 'libsodium-wrappers';
import { SECRETSTREAM_ABYTES, SecretStreamPull, SecretStreamPush } from '../src/secretstream.ts';
import { SECRETSTREAM_CHUNK_LENGTH, decryptStream, encryptStream } from '../src/secretstream-stream.ts';
import { rechunk } from '../src/rechunk.ts';
import { CryptoError } from '../src/errors.ts';

await sodium.ready;

function bytes(label: string, length: number): Uint8Array {
  return Uint8Array.from(createHash('shake256', { outputLength: length }).update(label).digest());
}

const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

/** `data` delivered in pieces of `size` bytes (the last shorter), as a network would. */
async function* pieces(data: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let offset = 0; offset < data.byteLength; offset += size) yield data.subarray(offset, offset + size);
}

async function collect(source: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const part of source) parts.push(part);
  return Buffer.concat(parts);
}

const isDecryptionFailure = (error: unknown) => error instanceof CryptoError && error.code === 'DECRYPTION_FAILED';

/** libsodium's writer in the service's format: messages of one chunk, the last tagged FINAL. */
function sodiumEncrypt(key: Uint8Array, plaintext: Uint8Array, chunkLength = SECRETSTREAM_CHUNK_LENGTH): Uint8Array {
  const { state, header } = sodium.crypto_secretstream_xchacha20poly1305_init_push(key);
  const parts = [header];
  let offset = 0;
  do {
    const message = plaintext.subarray(offset, offset + chunkLength);
    offset += chunkLength;
    const last = offset >= plaintext.byteLength;
    const tag = last ? sodium.crypto_secretstream_xchacha20poly1305_TAG_FINAL : 0;
    parts.push(sodium.crypto_secretstream_xchacha20poly1305_push(state, message, null, tag));
  } while (offset < plaintext.byteLength);
  return Buffer.concat(parts);
}

/** libsodium's reader in the service's format; throws unless the stream ends with FINAL exactly. */
function sodiumDecrypt(key: Uint8Array, sealed: Uint8Array, chunkLength = SECRETSTREAM_CHUNK_LENGTH): Uint8Array {
  const header = sealed.subarray(0, 24);
  const state = sodium.crypto_secretstream_xchacha20poly1305_init_pull(header, key);
  const parts: Uint8Array[] = [];
  let offset = 24;
  for (;;) {
    const chunk = sealed.subarray(offset, offset + chunkLength + SECRETSTREAM_ABYTES);
    offset += chunk.byteLength;
    const opened = sodium.crypto_secretstream_xchacha20poly1305_pull(state, chunk, null);
    if (opened === false) throw new Error('libsodium refused a chunk');
    parts.push(opened.message);
    if (opened.tag === sodium.crypto_secretstream_xchacha20poly1305_TAG_FINAL) {
      assert.equal(offset, sealed.byteLength, 'FINAL on the last chunk');
      return Buffer.concat(parts);
    }
  }
}

const C = SECRETSTREAM_CHUNK_LENGTH;
const SIZES = [0, 1, C - 1, C, C + 1, 2 * C, 3 * 1024 * 1024 + 17];

describe('secretstream chunk by chunk, with libsodium', () => {
  const key = bytes('chunk key', 32);
  const messages = [0, 1, 63, 64, 65, 1000, 4096].map((length) => bytes(`message ${length}`, length));
  // Every tag, REKEY and PUSH in the middle, so that a rekey in the state machine is exercised.
  const tags = [0, 1, 2, 0, 2, 1, 3];
  const ads = messages.map((_, i) => (i % 2 === 0 ? new Uint8Array(0) : bytes(`ad ${i}`, 7 * i)));

  test('libsodium pulls what we push, with tags, AD and an explicit rekey', () => {
    const ours = new SecretStreamPush(key);
    const state = sodium.crypto_secretstream_xchacha20poly1305_init_pull(ours.header, key);
    messages.forEach((message, i) => {
      if (i === 4) {
        ours.rekey();
        sodium.crypto_secretstream_xchacha20poly1305_rekey(state);
      }
      const chunk = ours.push(message, tags[i], ads[i]);
      assert.equal(chunk.byteLength, message.byteLength + SECRETSTREAM_ABYTES);
      const opened = sodium.crypto_secretstream_xchacha20poly1305_pull(state, chunk, ads[i]!);
      assert.notEqual(opened, false, `chunk ${i}`);
      if (opened === false) return;
      assert.ok(same(opened.message, message), `message ${i}`);
      assert.equal(opened.tag, tags[i]);
    });
  });

  test('we pull what libsodium pushes, with tags, AD and an explicit rekey', () => {
    const { state, header } = sodium.crypto_secretstream_xchacha20poly1305_init_push(key);
    const ours = new SecretStreamPull(key, header);
    messages.forEach((message, i) => {
      if (i === 4) {
        ours.rekey();
        sodium.crypto_secretstream_xchacha20poly1305_rekey(state);
      }
      const chunk = sodium.crypto_secretstream_xchacha20poly1305_push(state, message, ads[i]!, tags[i]!);
      const opened = ours.pull(chunk, ads[i]);
      assert.ok(same(opened.message, message), `message ${i}`);
      assert.equal(opened.tag, tags[i]);
    });
  });

  test('a fixed header gives libsodium-identical chunks (the same state from the same header)', () => {
    const header = bytes('header', 24);
    const a = new SecretStreamPush(key, { header });
    const b = new SecretStreamPush(key, { header });
    for (const message of messages) assert.ok(same(a.push(message), b.push(message)));
    assert.ok(same(a.header, header));
  });

  test('a wrong AD, a flipped bit, a chunk out of order or a short chunk is refused, and the state survives', () => {
    const ours = new SecretStreamPush(key);
    const first = ours.push(messages[3]!, 0, ads[3]);
    const second = ours.push(messages[4]!);
    const pull = new SecretStreamPull(key, ours.header);
    assert.throws(() => pull.pull(first, bytes('other ad', 3)), isDecryptionFailure);
    assert.throws(() => pull.pull(second), isDecryptionFailure, 'the second chunk first');
    assert.throws(() => pull.pull(first.subarray(0, SECRETSTREAM_ABYTES - 1)), isDecryptionFailure);
    for (const position of [0, 1, first.byteLength - 1]) {
      const tampered = first.slice();
      tampered[position]! ^= 1;
      assert.throws(() => pull.pull(tampered, ads[3]), isDecryptionFailure, `bit flipped at ${position}`);
    }
    assert.ok(same(pull.pull(first, ads[3]).message, messages[3]!));
    assert.ok(same(pull.pull(second).message, messages[4]!));
  });

  test('an unknown tag and a wrong-length key are invalid input', () => {
    assert.throws(() => new SecretStreamPush(key).push(new Uint8Array(1), 4), /tag/);
    assert.throws(
      () => new SecretStreamPush(new Uint8Array(31)),
      (error) => error instanceof CryptoError && error.field === '/key',
    );
  });
});

describe('whole streams in the service format, with libsodium', () => {
  const key = bytes('stream key', 32);
  for (const size of SIZES) {
    const plaintext = bytes(`payload ${size}`, size);
    test(`${size} bytes: libsodium opens ours`, async () => {
      const sealed = await collect(encryptStream(key, pieces(plaintext, 10_000)));
      assert.equal(sealed.byteLength, 24 + size + SECRETSTREAM_ABYTES * Math.max(1, Math.ceil(size / C)));
      assert.ok(same(sodiumDecrypt(key, sealed), plaintext));
    });
    test(`${size} bytes: we open libsodium's`, async () => {
      const sealed = sodiumEncrypt(key, plaintext);
      // Delivered in awkward pieces: the chunk boundaries never line up with the input's.
      assert.ok(same(await collect(decryptStream(key, pieces(sealed, 7_777))), plaintext));
    });
  }

  test('a libsodium stream that ends with an empty FINAL chunk opens too', async () => {
    const plaintext = bytes('exact', 2 * C);
    const { state, header } = sodium.crypto_secretstream_xchacha20poly1305_init_push(key);
    const sealed = Buffer.concat([
      header,
      sodium.crypto_secretstream_xchacha20poly1305_push(state, plaintext.subarray(0, C), null, 0),
      sodium.crypto_secretstream_xchacha20poly1305_push(state, plaintext.subarray(C), null, 0),
      sodium.crypto_secretstream_xchacha20poly1305_push(state, new Uint8Array(0), null, 3),
    ]);
    assert.ok(same(await collect(decryptStream(key, pieces(sealed, 100_000))), plaintext));
  });
});

describe('damaged streams are never taken for complete ones', () => {
  const key = bytes('damage key', 32);
  const plaintext = bytes('damage payload', 3 * C + 100);
  const chunk = C + SECRETSTREAM_ABYTES;
  let sealed: Uint8Array;

  async function opens(stream: Uint8Array, withKey = key): Promise<{ delivered: number; failed: boolean }> {
    let delivered = 0;
    try {
      for await (const part of decryptStream(withKey, pieces(stream, 50_000))) delivered += part.byteLength;
      return { delivered, failed: false };
    } catch (error) {
      assert.ok(isDecryptionFailure(error), String(error));
      return { delivered, failed: true };
    }
  }

  test('the intact stream opens', async () => {
    sealed = await collect(encryptStream(key, pieces(plaintext, 65_536)));
    assert.deepEqual(await opens(sealed), { delivered: plaintext.byteLength, failed: false });
  });

  test('truncated at a chunk boundary, inside a chunk, inside the header, or to nothing', async () => {
    for (const length of [24 + chunk, 24 + 2 * chunk, 24 + chunk + 5, sealed.byteLength - 1, 24, 10, 0]) {
      const result = await opens(sealed.subarray(0, length));
      assert.ok(result.failed, `truncated to ${length}`);
      assert.ok(result.delivered < plaintext.byteLength);
    }
  });

  test('two chunks swapped, a chunk dropped or repeated, the header replaced', async () => {
    const header = sealed.subarray(0, 24);
    const chunks = [0, 1, 2, 3].map((i) => sealed.subarray(24 + i * chunk, 24 + (i + 1) * chunk));
    const variants = {
      swapped: [header, chunks[1]!, chunks[0]!, chunks[2]!, chunks[3]!],
      dropped: [header, chunks[0]!, chunks[2]!, chunks[3]!],
      repeated: [header, chunks[0]!, chunks[0]!, chunks[1]!, chunks[2]!, chunks[3]!],
      otherHeader: [bytes('other header', 24), ...chunks],
    };
    for (const [name, parts] of Object.entries(variants)) {
      assert.ok((await opens(Buffer.concat(parts))).failed, name);
    }
  });

  test('a bit flipped anywhere fails; so does the wrong key', async () => {
    for (const position of [0, 23, 24, 24 + chunk - 1, 24 + 2 * chunk + 1000, sealed.byteLength - 1]) {
      const tampered = sealed.slice();
      tampered[position]! ^= 0x80;
      assert.ok((await opens(tampered)).failed, `bit flipped at ${position}`);
    }
    assert.ok((await opens(sealed, bytes('wrong key', 32))).failed);
  });

  test('data after the FINAL chunk, and a FINAL chunk before the end, fail', async () => {
    assert.ok((await opens(Buffer.concat([sealed, new Uint8Array(1)]))).failed, 'one byte appended');
    // A stream of one FINAL chunk of libsodium's followed by a second chunk.
    const { state, header } = sodium.crypto_secretstream_xchacha20poly1305_init_push(key);
    const early = Buffer.concat([
      header,
      sodium.crypto_secretstream_xchacha20poly1305_push(state, bytes('a', C), null, 3),
      sodium.crypto_secretstream_xchacha20poly1305_push(state, bytes('b', 10), null, 3),
    ]);
    assert.ok((await opens(early)).failed, 'FINAL before the end');
  });
});

describe('rechunk', () => {
  test('cuts any delivery into the asked sizes and marks the last piece', async () => {
    for (const total of [0, 5, 24, 25, 24 + 10, 24 + 20, 24 + 31]) {
      const data = bytes(`rechunk ${total}`, total);
      for (const [delivery, reuse] of [1, 3, 10, 100].flatMap((size) => [
        [size, false] as const,
        [size, true] as const,
      ])) {
        const out: { length: number; last: boolean }[] = [];
        const joined: Uint8Array[] = [];
        for await (const { piece, last } of rechunk(pieces(data, delivery), 24, 10, { reuse })) {
          out.push({ length: piece.byteLength, last });
          joined.push(piece.slice());
        }
        assert.ok(same(Buffer.concat(joined), data), `${total} in ${delivery}`);
        assert.deepEqual(
          out.map(({ last }) => last),
          out.map((_, i) => i === out.length - 1),
        );
        assert.ok(out.every(({ length }, i) => length === (i === 0 ? 24 : 10) || i === out.length - 1));
      }
    }
  });
});
