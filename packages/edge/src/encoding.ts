/**
 * The wire's text forms, decoded as strictly as the service decodes them: keys, MACs, digests and
 * signatures are hex (either case in, lowercase out); sealed blobs are standard padded base64;
 * messages are in the request's `encoding` (utf8 by default). Written over atob/btoa and
 * TextEncoder, which every browser, Worker, Deno, Bun and Node has.
 */
import { invalidInput } from './errors.ts';

export type TextEncoding = 'utf8' | 'base64' | 'hex';
export const TEXT_ENCODINGS: readonly TextEncoding[] = ['utf8', 'base64', 'hex'];

/** A binary field: the wire's text form, or the bytes themselves. */
export type BinaryInput = string | Uint8Array;

const HEX_PATTERN = /^(?:[0-9a-fA-F]{2})*$/;
const BASE64_PATTERN = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const encoder = new TextEncoder();
/** String.prototype.isWellFormed's test, spelled out for the browsers that lack it (Firefox before 119). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function hexToBytes(text: string, field = 'value'): Uint8Array {
  if (!HEX_PATTERN.test(text)) throw invalidInput(`${field} must be hex: an even number of 0-9 a-f characters`, field);
  const bytes = new Uint8Array(text.length / 2);
  for (let index = 0; index < bytes.length; index++) bytes[index] = parseInt(text.slice(2 * index, 2 * index + 2), 16);
  return bytes;
}

export function bytesToHex(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) text += byte.toString(16).padStart(2, '0');
  return text;
}

export function base64ToBytes(text: string, field = 'value'): Uint8Array {
  if (!BASE64_PATTERN.test(text)) {
    throw invalidInput(`${field} must be base64: the standard alphabet (A-Z a-z 0-9 + /), padded with =`, field);
  }
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
  // One spelling per value (RFC 4648 §3.5), as the service insists: 'YR==' is not 'YQ=='.
  if (bytesToBase64(bytes) !== text) {
    throw invalidInput(`${field} must be canonical base64: the bits before the padding must be zero`, field);
  }
  return bytes;
}

export function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  // Chunks keep String.fromCharCode's argument list short for large inputs.
  for (let offset = 0; offset < bytes.length; offset += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(offset, offset + 0x8000));
  }
  return btoa(binary);
}

export function utf8ToBytes(text: string, field = 'value'): Uint8Array {
  // A lone surrogate has no UTF-8 form: refused rather than silently replaced by U+FFFD.
  if (LONE_SURROGATE.test(text)) {
    throw invalidInput(`${field} is not well-formed Unicode (lone surrogate); send it as base64 or hex`, field);
  }
  return encoder.encode(text);
}

export function bytesToUtf8(bytes: Uint8Array, field = 'plaintext'): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw invalidInput(`${field} is not valid UTF-8; ask for it with encoding "base64" or "hex"`, field);
  }
}

export function checkEncoding(encoding: string | undefined): TextEncoding {
  if (encoding === undefined) return 'utf8';
  if (!(TEXT_ENCODINGS as readonly string[]).includes(encoding)) {
    throw invalidInput(`encoding must be one of: ${TEXT_ENCODINGS.join(', ')}`, 'encoding');
  }
  return encoding as TextEncoding;
}

/** A message field: text in `encoding`, or the bytes themselves. */
export function decodeText(value: BinaryInput, encoding: TextEncoding, field: string): Uint8Array {
  if (value instanceof Uint8Array) return value;
  if (typeof value !== 'string') throw invalidInput(`${field} must be a string or a Uint8Array`, field);
  switch (encoding) {
    case 'utf8':
      return utf8ToBytes(value, field);
    case 'base64':
      return base64ToBytes(value, field);
    case 'hex':
      return hexToBytes(value, field);
  }
}

/** A recovered message, in the caller's `encoding`. */
export function encodeText(bytes: Uint8Array, encoding: TextEncoding, field = 'plaintext'): string {
  switch (encoding) {
    case 'utf8':
      return bytesToUtf8(bytes, field);
    case 'base64':
      return bytesToBase64(bytes);
    case 'hex':
      return bytesToHex(bytes);
  }
}

/** A key, MAC or signature field: hex, or the bytes themselves; `lengths` lists the lengths allowed. */
export function hexField(value: BinaryInput | undefined, field: string, lengths?: readonly number[]): Uint8Array {
  if (value === undefined) throw invalidInput(`${field} is required`, field);
  const bytes =
    value instanceof Uint8Array
      ? value
      : typeof value === 'string'
        ? hexToBytes(value, field)
        : (() => {
            throw invalidInput(`${field} must be a hex string or a Uint8Array`, field);
          })();
  if (lengths !== undefined && !lengths.includes(bytes.byteLength)) {
    throw invalidInput(`${field} must be ${lengths.join(' or ')} bytes (got ${bytes.byteLength})`, field);
  }
  return bytes;
}

/** A sealed blob field: base64, or the bytes themselves. */
export function base64Field(value: BinaryInput | undefined, field: string): Uint8Array {
  if (value instanceof Uint8Array) return value;
  if (typeof value !== 'string') throw invalidInput(`${field} must be a base64 string or a Uint8Array`, field);
  return base64ToBytes(value, field);
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.byteLength, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}

/** Comparison whose time depends only on the lengths, which are public. */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  let difference = 0;
  for (let index = 0; index < a.byteLength; index++) difference |= (a[index] as number) ^ (b[index] as number);
  return difference === 0;
}
