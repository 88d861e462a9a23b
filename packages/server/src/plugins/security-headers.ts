/**
 * Pipeline stage 1: security response headers on every response, errors included (this hook runs
 * first, so a 401 or 429 carries them too).
 *
 * Two sets, both fixed at start:
 * - the API's JSON responses get the headers that mean something for JSON read by programs
 *   (OWASP's REST Security Cheat Sheet): `no-store`, a CSP that allows nothing at all
 *   (`default-src 'none'`, no framing), nosniff, HSTS, no framing, no referrer, same-origin
 *   resource policy. The document-only headers (COOP, Origin-Agent-Cluster, X-DNS-Prefetch-Control,
 *   X-Download-Options, X-Permitted-Cross-Domain-Policies, X-XSS-Protection) are left out: they
 *   protect nothing on a JSON body, and every byte of header is written on every response
 *   (≈ 880 bytes of headers on a 75-byte body before; the socket write is the largest single cost
 *   of a small request);
 * - the docs page (/docs and below: Swagger UI, HTML) gets helmet's full set, with a CSP that
 *   allows its own scripts, styles and data: images.
 *
 * helmet's values are computed ONCE: @fastify/helmet builds helmet's whole middleware chain and
 * re-parses the CSP on every request (bench/pipeline-stages.ts measured 32–36 µs of the ≈ 112 µs a
 * small request cost).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import fp from 'fastify-plugin';
import helmet, { type HelmetOptions } from 'helmet';

const HELMET_OPTIONS: HelmetOptions = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      // The docs page (Swagger UI) needs its own scripts and styles,
      // inline styles, and data: images. Nothing is loaded from another origin.
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", 'data:'],
      connectSrc: ["'self'"],
      fontSrc: ["'self'"],
      objectSrc: ["'none'"],
      baseUri: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
    },
  },
};

/** The API's own responses: see the top of this file. */
const API_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'cross-origin-resource-policy': 'same-origin',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
});

/** The security headers of every response outside the docs page (errors made outside the hooks too). */
export function securityHeaderValues(): Readonly<Record<string, string>> {
  return API_HEADERS;
}

/** /docs, /docs/json, /docs/static/…: not /docsx. */
export function isDocsPath(url: string): boolean {
  return url.startsWith('/docs') && (url.length === 5 || url.charCodeAt(5) === 47 /* / */ || url.charCodeAt(5) === 63 /* ? */);
}

/** Runs helmet's middleware once against a recorder and keeps the headers it would set. */
export function docsSecurityHeaderValues(options: HelmetOptions = HELMET_OPTIONS): Record<string, string> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader(name: string, value: unknown) {
      headers[name.toLowerCase()] = String(value);
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  };
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, () => {});
  // Responses of a crypto API must never be kept by a shared cache.
  headers['cache-control'] = 'no-store';
  return headers;
}

export default fp(async function securityHeaders(app) {
  const docsHeaders = docsSecurityHeaderValues();
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(isDocsPath(request.url) ? docsHeaders : API_HEADERS);
    done();
  });
}, { name: 'security-headers' });
