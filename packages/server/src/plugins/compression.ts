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
    if ((typeof payload === 'string' || Buffer.isBuffer(payload)) && Buffer.byteLength(payload) < COMPRESSION_THRESHOLD_BYTES) {
      return done(null, payload);
    }
    return onSend.call(this, request, reply, payload, done);
  };
}

function onSendHooks(route: RouteOptions): OnSendHook[] {
  const hooks = route.onSend as OnSendHook | OnSendHook[] | undefined;
  return hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];
}

export default fp(async function compression(app) {
  // @fastify/compress adds its onSend hook to each route as the route is declared (an onRoute
  // hook). Ours run just before and just after its own, so the hooks it added are told apart by
  // position, whatever they are called.
  const before = new WeakMap<RouteOptions, number>();
  app.addHook('onRoute', (route) => {
    before.set(route, onSendHooks(route).length);
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
    const hooks = onSendHooks(route);
    const first = before.get(route) ?? hooks.length;
    if (hooks.length === first) return;
    route.onSend = hooks.map((hook, index) => (index >= first ? smallPayloadsFirst(hook) : hook)) as RouteOptions['onSend'];
  });
}, { name: 'compression' });
