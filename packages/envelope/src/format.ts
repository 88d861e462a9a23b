/**
 * The envelope header, in one self-describing block before the content (big-endian integers):
 *
 *   magic "CSEV" (4) ‖ version 1 (1) ‖ header length N (4) ‖ wrap mode (1: aes-kw, 2: x-wing) ‖
 *   chunk length (4) ‖ key id length k (1) ‖ key id, UTF-8 (k) ‖ wrapped key length w (2) ‖
 *   wrapped key (w) ‖ secretstream header (24)
 *
 * N = 41 + k + w. The content that follows is libsodium crypto_secretstream_xchacha20poly1305
 * chunks of `chunk length` plaintext bytes each (the last shorter, tagged FINAL), exactly as the
 * service's streaming routes write them after the secretstream header.
 */
import { SECRETSTREAM_HEADER_LENGTH } from '@crypto-service/core';
import { EnvelopeError } from './errors.ts';

export const MAGIC = new Uint8Array([0x43, 0x53, 0x45, 0x56]);
export const FORMAT_VERSION = 1;
/** Bytes that locate the rest: magic, version and header length. */
export const PREFIX_LENGTH = 9;
const FIXED_LENGTH = PREFIX_LENGTH + 1 + 4 + 1 + 2 + SECRETSTREAM_HEADER_LENGTH;
export const MAX_KEY_ID_BYTES = 255;
const MAX_WRAPPED_KEY_BYTES = 0xffff;
export const MAX_HEADER_LENGTH = FIXED_LENGTH + MAX_KEY_ID_BYTES + MAX_WRAPPED_KEY_BYTES;
/** A reader allocates one chunk: a hostile header must not make it allocate gigabytes. */
export const MAX_CHUNK_LENGTH = 16 * 1024 * 1024;

export type WrapMode = 'aes-kw' | 'x-wing';
const MODE_CODES: Record<WrapMode, number> = { 'aes-kw': 1, 'x-wing': 2 };

export interface EnvelopeHeader {
  /** How the data key is wrapped: AES-KW under a key-encryption key, or sealed to an X-Wing public key. */
  mode: WrapMode;
  /** The name of the key-encryption key or recipient key, so that the reader knows which key opens it. */
  keyId: string;
  /** The wrapped data key as the service returned it. */
  wrappedKey: Uint8Array;
  /** Plaintext bytes per secretstream chunk. */
  chunkLength: number;
  /** libsodium's 24-byte secretstream header. */
  streamHeader: Uint8Array;
}

export function checkKeyId(keyId: string): Uint8Array {
  const bytes = new TextEncoder().encode(keyId);
  if (bytes.byteLength === 0 || bytes.byteLength > MAX_KEY_ID_BYTES)
    throw new EnvelopeError('INVALID_OPTIONS', `keyId must be 1 to ${MAX_KEY_ID_BYTES} bytes of UTF-8`);
  return bytes;
}

export function checkChunkLength(chunkLength: number): void {
  if (!Number.isSafeInteger(chunkLength) || chunkLength < 1 || chunkLength > MAX_CHUNK_LENGTH)
    throw new EnvelopeError('INVALID_OPTIONS', `chunkLength must be an integer from 1 to ${MAX_CHUNK_LENGTH}`);
}

export function encodeHeader(header: EnvelopeHeader): Uint8Array {
  const keyId = checkKeyId(header.keyId);
  checkChunkLength(header.chunkLength);
  if (header.wrappedKey.byteLength === 0 || header.wrappedKey.byteLength > MAX_WRAPPED_KEY_BYTES)
    throw new EnvelopeError('INVALID_OPTIONS', 'the wrapped key does not fit the header');
  const length = FIXED_LENGTH + keyId.byteLength + header.wrappedKey.byteLength;
  const bytes = new Uint8Array(length);
  const view = new DataView(bytes.buffer);
  bytes.set(MAGIC, 0);
  bytes[4] = FORMAT_VERSION;
  view.setUint32(5, length);
  bytes[9] = MODE_CODES[header.mode];
  view.setUint32(10, header.chunkLength);
  bytes[14] = keyId.byteLength;
  bytes.set(keyId, 15);
  let offset = 15 + keyId.byteLength;
  view.setUint16(offset, header.wrappedKey.byteLength);
  offset += 2;
  bytes.set(header.wrappedKey, offset);
  bytes.set(header.streamHeader, offset + header.wrappedKey.byteLength);
  return bytes;
}

/** Checks the magic and version and returns the whole header's length. */
export function headerLength(prefix: Uint8Array): number {
  if (prefix.byteLength < PREFIX_LENGTH) {
    const magicSeen = prefix.subarray(0, MAGIC.byteLength);
    if (!magicSeen.every((byte, i) => byte === MAGIC[i]))
      throw new EnvelopeError('NOT_AN_ENVELOPE', 'the input is not an envelope');
    throw new EnvelopeError('MALFORMED_HEADER', 'the envelope header is cut short');
  }
  if (!MAGIC.every((byte, i) => prefix[i] === byte))
    throw new EnvelopeError('NOT_AN_ENVELOPE', 'the input is not an envelope');
  if (prefix[4] !== FORMAT_VERSION)
    throw new EnvelopeError('UNSUPPORTED_VERSION', `envelope format version ${prefix[4]} is not supported`);
  const length = new DataView(prefix.buffer, prefix.byteOffset, prefix.byteLength).getUint32(5);
  if (length < FIXED_LENGTH + 2 || length > MAX_HEADER_LENGTH)
    throw new EnvelopeError('MALFORMED_HEADER', 'the envelope header length is out of range');
  return length;
}

/** Reads a header from the start of `bytes` (which may hold more): the header and its length. */
export function parseHeader(bytes: Uint8Array): { header: EnvelopeHeader; length: number } {
  const length = headerLength(bytes.subarray(0, PREFIX_LENGTH));
  if (bytes.byteLength < length) throw new EnvelopeError('MALFORMED_HEADER', 'the envelope header is cut short');
  const view = new DataView(bytes.buffer, bytes.byteOffset, length);
  const mode = (Object.keys(MODE_CODES) as WrapMode[]).find((name) => MODE_CODES[name] === bytes[9]);
  if (mode === undefined) throw new EnvelopeError('MALFORMED_HEADER', 'the envelope names an unknown wrap mode');
  const chunkLength = view.getUint32(10);
  if (chunkLength < 1 || chunkLength > MAX_CHUNK_LENGTH)
    throw new EnvelopeError('MALFORMED_HEADER', 'the envelope chunk length is out of range');
  const keyIdLength = bytes[14]!;
  let offset = 15 + keyIdLength;
  if (keyIdLength === 0 || offset + 2 > length)
    throw new EnvelopeError('MALFORMED_HEADER', 'the envelope key id is out of range');
  let keyId: string;
  try {
    keyId = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(15, offset));
  } catch {
    throw new EnvelopeError('MALFORMED_HEADER', 'the envelope key id is not UTF-8');
  }
  const wrappedLength = view.getUint16(offset);
  offset += 2;
  if (wrappedLength === 0 || offset + wrappedLength + SECRETSTREAM_HEADER_LENGTH !== length)
    throw new EnvelopeError('MALFORMED_HEADER', 'the envelope header fields do not add up to its length');
  // Copies, not views: the caller's buffer may be reused, and a Buffer's slice() is a view.
  const wrappedKey = new Uint8Array(bytes.subarray(offset, offset + wrappedLength));
  const streamHeader = new Uint8Array(bytes.subarray(offset + wrappedLength, length));
  return { header: { mode, keyId, wrappedKey, chunkLength, streamHeader }, length };
}
