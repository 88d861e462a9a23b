/**
 * Byte-array helpers that several core modules need: views between Buffer and Uint8Array,
 * joining, little-endian words, big-endian integers and an all-zero test. Constant-time comparison
 * and wiping of secrets live in ct.ts.
 */

/**
 * A Uint8Array over the memory of `buffer`, without a copy. Use it for bytes that node:crypto hands
 * back, not for input that must own its memory (codec.ts copies decoded input for that reason).
 */
export function asBytes(buffer: Buffer): Uint8Array {
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

/** A Buffer over the memory of `bytes`, without a copy, for node:crypto calls that take one. */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The parts one after the other, in a new array of their own. */
export function concatBytes(...parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.byteLength, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}

/** The bytes read as 32-bit little-endian words (the length must be a multiple of 4). */
export function littleEndianWords(bytes: Uint8Array): Uint32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const words = new Uint32Array(bytes.byteLength / 4);
  for (let i = 0; i < words.length; i++) words[i] = view.getUint32(i * 4, true);
  return words;
}

/** The words written as 32-bit little-endian bytes: the inverse of littleEndianWords. */
export function littleEndianBytes(words: Uint32Array): Uint8Array {
  const bytes = new Uint8Array(words.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < words.length; i++) view.setUint32(i * 4, words[i] ?? 0, true);
  return bytes;
}

/** I2OSP(value, width) of RFC 8017: `value` as `width` big-endian bytes. */
export function bigEndianBytes(value: number, width: number): Uint8Array {
  const out = new Uint8Array(width);
  for (let i = width - 1, rest = value; i >= 0; i--, rest = Math.floor(rest / 256)) out[i] = rest % 256;
  return out;
}

/**
 * Whether every byte is zero. It ORs every byte without stopping early, so the time does not
 * depend on where a non-zero byte is: the bytes may be a secret (a shared secret, for instance).
 */
export function isAllZero(bytes: Uint8Array): boolean {
  let accumulator = 0;
  for (const byte of bytes) accumulator |= byte;
  return accumulator === 0;
}
