/**
 * Whole payloads of any length as secretstream (secretstream.ts): the header, then the payload cut
 * into messages of SECRETSTREAM_CHUNK_LENGTH bytes, the last one (shorter, or empty for an empty
 * payload) tagged FINAL. This is the format of `/v2/stream/encrypt|decrypt`: libsodium opens it
 * by pulling chunks of SECRETSTREAM_CHUNK_LENGTH + 17 bytes, and writes one the service opens by
 * pushing messages of SECRETSTREAM_CHUNK_LENGTH bytes.
 *
 * Decryption yields each chunk's plaintext as soon as it is verified, so a caller sees the
 * plaintext of a stream that later turns out truncated or tampered: the generator then throws
 * DECRYPTION_FAILED, and only a generator that ended without throwing delivered a complete payload.
 */
import { decryptionFailed } from './errors.ts';
import { rechunk } from './rechunk.ts';
import {
  SECRETSTREAM_ABYTES,
  SECRETSTREAM_HEADER_LENGTH,
  SECRETSTREAM_TAG,
  SecretStreamPull,
  SecretStreamPush,
} from './secretstream.ts';

/** Plaintext bytes per chunk (64 KiB): a chunk of ciphertext is this plus SECRETSTREAM_ABYTES. */
export const SECRETSTREAM_CHUNK_LENGTH = 65_536;

/** Yields the header, then one sealed chunk per SECRETSTREAM_CHUNK_LENGTH bytes of `plaintext`. */
export async function* encryptStream(
  key: Uint8Array,
  plaintext: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  options: { header?: Uint8Array; chunkLength?: number } = {},
): AsyncGenerator<Uint8Array> {
  const chunkLength = options.chunkLength ?? SECRETSTREAM_CHUNK_LENGTH;
  const stream = new SecretStreamPush(key, options.header === undefined ? {} : { header: options.header });
  try {
    yield stream.header;
    for await (const { piece, last } of rechunk(plaintext, chunkLength, chunkLength, { reuse: true })) {
      yield stream.push(piece, last ? SECRETSTREAM_TAG.FINAL : SECRETSTREAM_TAG.MESSAGE);
    }
  } finally {
    stream.wipe();
  }
}

/**
 * Yields the plaintext of each chunk of `ciphertext` as it is verified. Throws DECRYPTION_FAILED
 * (and yields nothing more) on a short header, a tampered, reordered or foreign chunk, a FINAL tag
 * before the last chunk, or a last chunk without it (truncation).
 */
export async function* decryptStream(
  key: Uint8Array,
  ciphertext: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  options: { chunkLength?: number } = {},
): AsyncGenerator<Uint8Array> {
  const chunkLength = (options.chunkLength ?? SECRETSTREAM_CHUNK_LENGTH) + SECRETSTREAM_ABYTES;
  let stream: SecretStreamPull | undefined;
  let finished = false;
  try {
    for await (const { piece, last } of rechunk(ciphertext, SECRETSTREAM_HEADER_LENGTH, chunkLength, { reuse: true })) {
      if (stream === undefined) {
        // The key is checked first, so that a wrong-length key is a 400 that names it, not a failed decryption.
        stream = new SecretStreamPull(key, piece);
        if (last) throw decryptionFailed();
        continue;
      }
      const { message, tag } = stream.pull(piece);
      if ((tag === SECRETSTREAM_TAG.FINAL) !== last) throw decryptionFailed();
      yield message;
      finished = last;
    }
    if (!finished) throw decryptionFailed();
  } finally {
    stream?.wipe();
  }
}
