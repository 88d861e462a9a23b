/** Pipeline stage 4: response compression when the client accepts it and the body is large. */
import { constants } from 'node:zlib';
import fp from 'fastify-plugin';
import compress from '@fastify/compress';
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';

/** Below this size compression costs more than it saves. */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

type OnSendHook = (this: unknown, request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: Error | null, payload?: unknown) => void) => void;

/**
 * @fastify/compress's onSend reads three response headers, the content type's compressibility and
 * the request's Accept-Encoding before it looks at the size, on every response (about 1 µs in a
 * profile), and then passes a body under the threshold through unchanged. Most of this API's
 * answers are a few dozen bytes, so the size comes first here: a string or Buffer under the
 * threshold goes through at once, anything else (a larger body, a stream) to compress's own hook.
 */
export function smallPayloadsFirst(onSend: OnSendHook): OnSendHook {
  return function sizeFirst(this: unknown, request, reply, payload, done) {
    if (isUnderThreshold(payload)) return done(null, payload);
    return onSend.call(this, request, reply, payload, done);
  };
}

/**
 * Whether a string or Buffer body is smaller than the threshold. A string's length (UTF-16 code
 * units) settles most cases without counting its UTF-8 bytes (Buffer.byteLength, a native call of
 * about 0.07 µs a response in a profile): a code unit takes at least one byte and at most three (a
 * surrogate pair, two units, takes four).
 */
export function isUnderThreshold(payload: unknown): boolean {
  if (typeof payload === 'string') {
    if (payload.length * 3 < COMPRESSION_THRESHOLD_BYTES) return true;
    if (payload.length >= COMPRESSION_THRESHOLD_BYTES) return false;
    return Buffer.byteLength(payload) < COMPRESSION_THRESHOLD_BYTES;
  }
  return Buffer.isBuffer(payload) && payload.byteLength < COMPRESSION_THRESHOLD_BYTES;
}

/** A route's hooks of one stage as an array, however the route declared them. */
function hooksOf(route: RouteOptions, stage: 'onRequest' | 'onSend'): unknown[] {
  const hooks = route[stage] as unknown;
  return hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];
}

export default fp(async function compression(app) {
  // @fastify/compress adds two hooks to each route as the route is declared (an onRoute hook): an
  // onSend hook that compresses, and an onRequest hook that only sets `reply.compress` (a helper
  // to compress a body by hand, which no route here uses: one hook call a request for nothing).
  // Ours run just before and just after its own, so the hooks it added are told apart by
  // position, whatever they are called: its onSend hook is put behind the size check, its
  // onRequest hook taken out (`reply.compress` stays null, its decorated default).
  const before = new WeakMap<RouteOptions, { onRequest: number; onSend: number }>();
  app.addHook('onRoute', (route) => {
    before.set(route, { onRequest: hooksOf(route, 'onRequest').length, onSend: hooksOf(route, 'onSend').length });
  });
  await app.register(compress, {
    globalCompression: true,
    // Request bodies are never inflated: a compressed body could hide a size bomb behind the body limit.
    globalDecompression: false,
    threshold: COMPRESSION_THRESHOLD_BYTES,
    encodings: ['br', 'gzip', 'deflate'],
    // Brotli's default quality (11) is for static assets; 4 compresses JSON well at a fraction of the CPU.
    brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } },
  });
  app.addHook('onRoute', (route) => {
    const counts = before.get(route);
    if (counts === undefined) return;
    const onRequest = hooksOf(route, 'onRequest');
    if (onRequest.length > counts.onRequest) {
      const kept = onRequest.slice(0, counts.onRequest);
      route.onRequest = (kept.length === 0 ? undefined : kept) as RouteOptions['onRequest'];
    }
    const onSend = hooksOf(route, 'onSend');
    if (onSend.length > counts.onSend) {
      route.onSend = onSend.map((hook, index) => (index >= counts.onSend ? smallPayloadsFirst(hook as OnSendHook) : hook)) as RouteOptions['onSend'];
    }
  });
}, { name: 'compression' });
