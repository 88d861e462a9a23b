/**
 * Strict text codecs for the wire formats of the API: lowercase hex out (either case in),
 * standard padded base64, and well-formed UTF-8. Node's own decoders are lenient (they skip bad
 * characters silently), so every input is checked first: a typo in a key must be a 400, not a
 * different key.
 */
import { invalidInput, tryOrThrow } from './errors.ts';

export type TextEncoding = 'utf8' | 'base64' | 'hex';
export const TEXT_ENCODINGS: readonly TextEncoding[] = ['utf8', 'base64', 'hex'];

const HEX_PATTERN = /^(?:[0-9a-fA-F]{2})*$/;
const BASE64_PATTERN = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * A copy in its own memory. Node's small Buffers are slices of a shared pool: a view of one would
 * expose unrelated bytes through `.buffer`, and keys decoded here are later wiped in place.
 */
function ownBytes(buffer: Buffer): Uint8Array {
  return new Uint8Array(buffer);
}

export function hexToBytes(text: string, field = 'value'): Uint8Array {
  if (!HEX_PATTERN.test(text)) {
    throw invalidInput(`${field} must be hex: an even number of 0-9 a-f characters`, field);
  }
  return ownBytes(Buffer.from(text, 'hex'));
}

/** Arrays of at most this many bytes are copied for encoding rather than viewed (encodeBytes). */
const COPIED_FOR_ENCODING = 64;

/**
 * Node's encoders work on a Buffer. A Buffer viewing `bytes` needs `bytes.buffer`, which V8 has to
 * create first for a small typed array made on its own (up to 64 bytes live inside the JS heap until
 * something asks for their buffer), which costs more than copying them (bench/micro.ts measures
 * both). So a small array is copied, and the copy wiped after (an output can be a key); a
 * larger one, which has its buffer already, is viewed.
 */
function encodeBytes(bytes: Uint8Array, encoding: 'hex' | 'base64' | 'base64url'): string {
  if (bytes.byteLength > COPIED_FOR_ENCODING)
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString(encoding);
  const copy = Buffer.from(bytes);
  try {
    return copy.toString(encoding);
  } finally {
    copy.fill(0);
  }
}

export function bytesToHex(bytes: Uint8Array): string {
  return encodeBytes(bytes, 'hex');
}

export function base64ToBytes(text: string, field = 'value'): Uint8Array {
  if (!BASE64_PATTERN.test(text)) {
    throw invalidInput(`${field} must be base64: the standard alphabet (A-Z a-z 0-9 + /), padded with =`, field);
  }
  const decoded = Buffer.from(text, 'base64');
  // One spelling per value (RFC 4648 §3.5): 'YR==' would otherwise decode like 'YQ=='.
  if (decoded.toString('base64') !== text) {
    throw invalidInput(`${field} must be canonical base64: the bits before the padding must be zero`, field);
  }
  return ownBytes(decoded);
}

export function bytesToBase64(bytes: Uint8Array): string {
  return encodeBytes(bytes, 'base64');
}

/** base64url without padding (RFC 4648 §5), as JWK members and JWS use it. */
export function bytesToBase64Url(bytes: Uint8Array): string {
  return encodeBytes(bytes, 'base64url');
}

/**
 * UTF-8 encoding of a JavaScript string. A lone surrogate has no UTF-8 form; rather than let it
 * become U+FFFD silently (and so hash or encrypt something the caller did not send), refuse it.
 */
export function utf8ToBytes(text: string, field = 'value'): Uint8Array {
  if (!text.isWellFormed()) {
    throw invalidInput(`${field} is not well-formed Unicode (lone surrogate); send it as base64 or hex`, field);
  }
  return ownBytes(Buffer.from(text, 'utf8'));
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function bytesToUtf8(bytes: Uint8Array, field = 'plaintext'): string {
  return tryOrThrow(
    () => strictUtf8.decode(bytes),
    () => invalidInput(`${field} is not valid UTF-8; ask for it with encoding "base64" or "hex"`, field),
  );
}

/** Decodes a request field that carries data in the caller's chosen encoding. */
export function decodeText(text: string, encoding: TextEncoding, field: string): Uint8Array {
  switch (encoding) {
    case 'utf8':
      return utf8ToBytes(text, field);
    case 'base64':
      return base64ToBytes(text, field);
    case 'hex':
      return hexToBytes(text, field);
  }
}

/** Encodes bytes for a response field in the caller's chosen encoding. */
export function encodeText(bytes: Uint8Array, encoding: TextEncoding, field: string): string {
  switch (encoding) {
    case 'utf8':
      return bytesToUtf8(bytes, field);
    case 'base64':
      return bytesToBase64(bytes);
    case 'hex':
      return bytesToHex(bytes);
  }
}
