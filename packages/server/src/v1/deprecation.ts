/**
 * The deprecation headers of every /v1 response:
 *   Deprecation: @1767225600                        (RFC 9745: a structured-field date, Unix seconds)
 *   Sunset: Fri, 01 Jan 2027 00:00:00 GMT           (RFC 8594: an HTTP-date)
 *   Link: </v2>; rel="successor-version"            (RFC 5829)
 *
 * "Every response" includes the ones no /v1 route code produces: a 401 from authentication, a 429
 * from the rate limiter (both onRequest hooks that app.ts registers before this plugin, so an
 * onRequest hook here would run too late, or not at all once they throw), and the 404 / 405 of an
 * unknown path under /v1. An onSend hook on the root instance runs for all of them: Fastify gives
 * every route of the root context, and the 404 handler, the root's hooks as they stand when the app
 * is ready, and an error thrown in any hook is sent through onSend like any reply. The hook looks
 * at the path, so /v2 and everything else are untouched. (Fastify's own 503 while closing is
 * written straight to the socket, bypassing every hook; it is the one exception.)
 */
import fp from 'fastify-plugin';
import type { V1Config } from '../config.ts';

export const SUCCESSOR_LINK = '</v2>; rel="successor-version"';

export function deprecationHeaders(
  v1: Pick<V1Config, 'deprecationDate' | 'sunsetDate'>,
): Record<'deprecation' | 'sunset' | 'link', string> {
  return {
    deprecation: `@${Math.floor(v1.deprecationDate.getTime() / 1000)}`,
    // toUTCString is the IMF-fixdate form of an HTTP-date (RFC 9110 §5.6.7).
    sunset: v1.sunsetDate.toUTCString(),
    link: SUCCESSOR_LINK,
  };
}

/**
 * `/v1` itself or anything below it; not `/v10`, not `/v2`. The query string does not count, and
 * neither does the scheme and authority of an absolute-form target (`POST http://host/v1/sign`,
 * RFC 9112 §3.2.2), which the router routes like its path.
 */
export function isV1Path(url: string): boolean {
  const path = (url.split('?', 1)[0] ?? '').replace(/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/]*/, '');
  return path === '/v1' || path.startsWith('/v1/');
}

export const v1DeprecationHeaders = fp<{ v1: V1Config }>(
  async function v1DeprecationHeaders(app, { v1 }) {
    const headers = deprecationHeaders(v1);
    // Callback style, not async: it runs on every response of the app, /v2 included. A path that
    // starts with `/` but not `/v1` (nearly every request) needs no closer look.
    app.addHook('onSend', (request, reply, payload, done) => {
      const url = request.raw.url ?? request.url;
      if ((url.charCodeAt(0) !== 0x2f || url.startsWith('/v1')) && isV1Path(url)) reply.headers(headers);
      done(null, payload);
    });
  },
  { name: 'v1-deprecation-headers' },
);
