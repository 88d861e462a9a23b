/**
 * Envelope encryption of byte streams of any length: a fresh 32-byte data key per object, wrapped
 * through the service; the content sealed here with it, chunk by chunk (libsodium secretstream),
 * so that memory stays one chunk whatever the length. The async generators below are the whole
 * mechanism; node.ts and web.ts adapt them to Node and Web streams.
 */
import { CryptoError, decryptStream, encryptStream, SECRETSTREAM_CHUNK_LENGTH } from '@crypto-service/core';
import { ByteReader } from './byte-reader.ts';
import { decryptionFailed, EnvelopeError } from './errors.ts';
import {
  checkChunkLength,
  encodeHeader,
  headerLength,
  parseHeader,
  PREFIX_LENGTH,
  type EnvelopeHeader,
} from './format.ts';
import {
  checkWrappingKey,
  DATA_KEY_LENGTH,
  unwrapDataKey,
  wrapDataKey,
  type EnvelopeClient,
  type KeyResolver,
  type WrappingKey,
} from './keys.ts';

export type ByteSource = AsyncIterable<Uint8Array> | Iterable<Uint8Array>;

export interface EncryptOptions {
  /** The service that wraps the data key (a CryptoClient). */
  client: EnvelopeClient;
  /** The key-encryption key or recipient public key the data key is wrapped with. */
  key: WrappingKey;
  /** Plaintext bytes per chunk: the service's streaming routes' 64 KiB unless set. */
  chunkLength?: number;
}

export interface DecryptOptions {
  /** The service that unwraps the data key. */
  client: EnvelopeClient;
  /** The keys that may open the data key; the header names the one it needs. */
  keys: KeyResolver;
}

export interface RewrapOptions extends DecryptOptions {
  /** The new key the data key is wrapped with. */
  to: WrappingKey;
}

async function* toAsync(source: ByteSource): AsyncGenerator<Uint8Array> {
  yield* source;
}

/**
 * Yields the header, then the sealed chunks of `source`. The data key is wrapped before the first
 * byte is read, so that a refused wrap fails the stream before any output.
 */
export async function* encrypt(source: ByteSource, options: EncryptOptions): AsyncGenerator<Uint8Array> {
  const chunkLength = options.chunkLength ?? SECRETSTREAM_CHUNK_LENGTH;
  checkChunkLength(chunkLength);
  checkWrappingKey(options.key);
  const dataKey = crypto.getRandomValues(new Uint8Array(DATA_KEY_LENGTH));
  try {
    const wrappedKey = await wrapDataKey(options.client, options.key, dataKey);
    let streamHeader: Uint8Array | undefined;
    for await (const piece of encryptStream(dataKey, toAsync(source), { chunkLength })) {
      if (streamHeader === undefined) {
        streamHeader = piece;
        yield encodeHeader({ mode: options.key.mode, keyId: options.key.keyId, wrappedKey, chunkLength, streamHeader });
      } else {
        yield piece;
      }
    }
  } finally {
    dataKey.fill(0);
  }
}

/** Reads the header at the start of `reader`: its bytes and fields. */
async function readHeaderFrom(reader: ByteReader): Promise<{ bytes: Uint8Array; header: EnvelopeHeader }> {
  const prefix = await reader.read(PREFIX_LENGTH);
  const length = headerLength(prefix);
  const bytes = new Uint8Array(length);
  bytes.set(prefix);
  const rest = await reader.read(length - PREFIX_LENGTH);
  if (rest.byteLength < length - PREFIX_LENGTH)
    throw new EnvelopeError('MALFORMED_HEADER', 'the envelope header is cut short');
  bytes.set(rest, PREFIX_LENGTH);
  return { bytes, header: parseHeader(bytes).header };
}

async function* prepend(first: Uint8Array, rest: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  yield first;
  yield* rest;
}

/**
 * Yields the plaintext of each chunk as soon as it is verified. A truncated, reordered, tampered or
 * foreign stream throws DECRYPTION_FAILED, possibly after some plaintext: only a generator that
 * ends without throwing has delivered the whole, authentic content.
 */
export async function* decrypt(source: ByteSource, options: DecryptOptions): AsyncGenerator<Uint8Array> {
  const reader = new ByteReader(source);
  let dataKey: Uint8Array | undefined;
  try {
    const { header } = await readHeaderFrom(reader);
    dataKey = await unwrapDataKey(options.client, options.keys, header);
    const body = prepend(header.streamHeader, reader.rest());
    try {
      yield* decryptStream(dataKey, body, { chunkLength: header.chunkLength });
    } catch (error) {
      if (error instanceof CryptoError && error.code === 'DECRYPTION_FAILED') throw decryptionFailed(error);
      throw error;
    }
  } finally {
    dataKey?.fill(0);
    await reader.close();
  }
}

/** Reads just the header at the start of `source` (an envelope, or its first bytes). */
export async function readHeader(source: ByteSource): Promise<{ bytes: Uint8Array; header: EnvelopeHeader }> {
  const reader = new ByteReader(source);
  try {
    return await readHeaderFrom(reader);
  } finally {
    await reader.close();
  }
}

/**
 * Rotation: the same data key, unwrapped with `keys` and wrapped again under `to`. Returns the new
 * header, which replaces the old one in front of the unchanged content. `bytes` holds the header
 * and may hold more of the envelope.
 */
export async function rewrap(bytes: Uint8Array, options: RewrapOptions): Promise<Uint8Array> {
  const { header } = parseHeader(bytes);
  checkWrappingKey(options.to);
  const dataKey = await unwrapDataKey(options.client, options.keys, header);
  try {
    const wrappedKey = await wrapDataKey(options.client, options.to, dataKey);
    return encodeHeader({ ...header, mode: options.to.mode, keyId: options.to.keyId, wrappedKey });
  } finally {
    dataKey.fill(0);
  }
}

/** Rotation of a whole envelope as a stream: the new header, then the content as it is, unread. */
export async function* rewrapStream(source: ByteSource, options: RewrapOptions): AsyncGenerator<Uint8Array> {
  const reader = new ByteReader(source);
  try {
    const { bytes } = await readHeaderFrom(reader);
    yield await rewrap(bytes, options);
    yield* reader.rest();
  } finally {
    await reader.close();
  }
}
