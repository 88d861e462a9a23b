/** Pipeline stage 4: response compression when the client accepts it and the body is large. */
import { constants } from 'node:zlib';
import fp from 'fastify-plugin';
import compress from '@fastify/compress';

/** Below this size compression costs more than it saves. */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

/**
 * Whether a string or Buffer body is smaller than the threshold, so that no compression will
 * touch it (the metrics plugin counts such an answer at once). A string's length (UTF-16 code
 * units) settles most cases without counting its UTF-8 bytes: a code unit takes at least one byte
 * and at most three (a surrogate pair, two units, takes four).
 */
export function isUnderThreshold(payload: unknown): boolean {
  if (typeof payload === 'string') {
    if (payload.length * 3 < COMPRESSION_THRESHOLD_BYTES) return true;
    if (payload.length >= COMPRESSION_THRESHOLD_BYTES) return false;
    return Buffer.byteLength(payload) < COMPRESSION_THRESHOLD_BYTES;
  }
  return Buffer.isBuffer(payload) && payload.byteLength < COMPRESSION_THRESHOLD_BYTES;
}

export default fp(
  async function compression(app) {
    await app.register(compress, {
      globalCompression: true,
      // Request bodies are never inflated: a compressed body could hide a size bomb behind the body limit.
      globalDecompression: false,
      threshold: COMPRESSION_THRESHOLD_BYTES,
      encodings: ['br', 'gzip', 'deflate'],
      // Brotli's default quality (11) is for static assets; 4 compresses JSON well at a fraction of the CPU.
      brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } },
    });
  },
  { name: 'compression' },
);
