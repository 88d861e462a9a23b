/**
 * Zero-copy views between Node's Buffer and Uint8Array. They share memory with their source: use
 * them for bytes that node:crypto hands back or takes in, not for input that must own its memory
 * (codec.ts copies decoded input for that reason).
 */
export function asBytes(buffer: Buffer): Uint8Array {
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
