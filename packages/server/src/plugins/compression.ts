/** Pipeline stage 4: response compression when the client accepts it and the body is large. */
import { constants } from 'node:zlib';
import fp from 'fastify-plugin';
import compress from '@fastify/compress';

/** Below this size compression costs more than it saves. */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

export default fp(async function compression(app) {
  await app.register(compress, {
    globalCompression: true,
    // Request bodies are never inflated: a compressed body could hide a size bomb behind the body limit.
    globalDecompression: false,
    threshold: COMPRESSION_THRESHOLD_BYTES,
    encodings: ['br', 'gzip', 'deflate'],
    // Brotli's default quality (11) is for static assets; 4 compresses JSON well at a fraction of the CPU.
    brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } },
  });
}, { name: 'compression' });
