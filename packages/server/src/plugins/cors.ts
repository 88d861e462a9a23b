/**
 * Pipeline stage 2: CORS. Off unless CORS_ORIGIN lists origins. Preflights are answered here,
 * before rate limiting and authentication, so they never need a credential.
 *
 * Decisions (SECURITY.md):
 * - `Access-Control-Allow-Credentials` is never sent, with a list or with `*`. Credentials travel
 *   in headers (x-api-key, Authorization) that the calling page sets itself, never in cookies the
 *   browser would attach on its own, so no request of ours needs the credentials mode; and a
 *   wildcard with credentials is exactly the combination that lets any site act as the user.
 * - A listed origin is reflected (with `Vary: Origin`); `*` is sent as `*`.
 * - The `null` origin (sandboxed frames, file: pages, some redirects) is never granted, not even
 *   under `*`: any document can claim it, so it identifies nobody. (config.ts refuses it in a list.)
 * - A preflight from an origin that is not granted is still answered here (204, no
 *   Access-Control-* header at all), so that the browser refuses the call, rather than passed on to
 *   the rate limiter and authentication as if it were a request.
 */
import fp from 'fastify-plugin';
import cors from '@fastify/cors';

export interface CorsOptions {
  origins: string[];
}

function isPreflight(method: string, headers: Record<string, string | string[] | undefined>): boolean {
  return method === 'OPTIONS' && headers.origin !== undefined && headers['access-control-request-method'] !== undefined;
}

export default fp<CorsOptions>(
  async function corsPolicy(app, { origins }) {
    if (origins.length === 0) return;
    const wildcard = origins.includes('*');
    const listed = new Set(origins);
    await app.register(cors, {
      // What to send as Access-Control-Allow-Origin for this request's Origin, or false for nothing.
      origin: (origin, callback) => {
        if (origin === undefined || origin === 'null') return callback(null, false);
        if (wildcard) return callback(null, '*');
        return callback(null, listed.has(origin) ? origin : false);
      },
      credentials: false,
      methods: ['GET', 'POST'],
      allowedHeaders: ['content-type', 'authorization', 'x-api-key'],
      exposedHeaders: [
        'ratelimit',
        'ratelimit-policy',
        'retry-after',
        'deprecation',
        'sunset',
        'link',
        'www-authenticate',
      ],
      maxAge: 600,
      // An OPTIONS from a granted origin without Access-Control-Request-Method is answered as a
      // preflight too: strict mode would answer it with a text/plain 400, not a problem.
      strictPreflight: false,
    });
    // Runs only when @fastify/cors did not answer (it ends the hook chain when it does): a preflight
    // from an origin that is not granted.
    app.addHook('onRequest', async (request, reply) => {
      if (isPreflight(request.method, request.headers)) {
        return reply.code(204).header('content-length', '0').send();
      }
      return undefined;
    });
  },
  { name: 'cors' },
);
