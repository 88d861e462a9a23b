/**
 * Pipeline stage 1: security response headers on every response, errors included (this hook runs
 * first, so a 401 or 429 carries them too).
 *
 * Two sets, both fixed at start:
 * - the API's JSON responses get the set that OWASP's REST Security Cheat Sheet recommends for
 *   every API response: `no-store`, a CSP that allows nothing at all (`default-src 'none'`, no
 *   framing), nosniff, HSTS, `X-Frame-Options: DENY` (with Content-Type, set by the route). The
 *   headers that protect documents are left out, because a JSON body is never rendered as a page
 *   and each header costs the server and every client on every response (a header is validated
 *   and written by the server and parsed by the client): COOP, Origin-Agent-Cluster, X-DNS-Prefetch-Control, X-Download-Options,
 *   X-Permitted-Cross-Domain-Policies, X-XSS-Protection, and also
 *   - `Referrer-Policy`: only a document (or its subresources) sends a Referer; a JSON response
 *     makes the browser send nothing;
 *   - `Cross-Origin-Resource-Policy`: it guards against a page loading the response in no-cors
 *     mode (an `<img>` or `<script>` of another site). Nothing sensitive can be had that way
 *     here: a no-cors request cannot carry the `x-api-key` or `Authorization` header (401) nor a
 *     JSON body (415), and browsers' opaque-response blocking already keeps `nosniff` JSON from
 *     such loads;
 * - the docs page (/docs and below: Swagger UI, HTML) gets helmet's full set, with a CSP that
 *   allows its own scripts, styles and data: images.
 *
 * HSTS goes only on responses the client received over HTTPS: PROTOCOL=https, or a request that a
 * trusted proxy (TRUSTED_PROXY_CIDRS) forwarded with `X-Forwarded-Proto: https`. RFC 6797 §7.2
 * forbids it over plain HTTP, where a browser ignores it anyway (an attacker on the path could
 * forge or strip it). Behind a TLS-terminating proxy that is not listed as trusted, the proxy is
 * the one to add it.
 *
 * helmet's values are computed ONCE: @fastify/helmet builds helmet's whole middleware chain and
 * re-parses the CSP on every request, a large part of a small request's cost.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import fp from 'fastify-plugin';
import type { FastifyReply, FastifyRequest } from 'fastify';
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

const HSTS = 'strict-transport-security';

/** The API's own responses over plain HTTP: see the top of this file. */
const API_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
});

/** The same over HTTPS (PROTOCOL=https, or a trusted proxy's `X-Forwarded-Proto: https`). */
const SECURE_API_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  ...API_HEADERS,
  [HSTS]: 'max-age=31536000; includeSubDomains',
});

/**
 * The security headers of every response outside the docs page (errors made outside the hooks
 * too). `secure`: whether the client reached us over HTTPS; HSTS goes only there (RFC 6797 §7.2).
 */
export function securityHeaderValues(secure: boolean): Readonly<Record<string, string>> {
  return secure ? SECURE_API_HEADERS : API_HEADERS;
}

/**
 * Whether the client's connection is HTTPS: our own TLS, or a trusted proxy's `X-Forwarded-Proto`
 * (Fastify reads it only from a trusted peer, and takes its last entry, the nearest proxy's). A
 * scheme is case-insensitive (RFC 3986 §3.1).
 */
export function reachedOverHttps(request: FastifyRequest): boolean {
  const protocol = request.protocol as string | undefined;
  return protocol === 'https' || protocol?.toLowerCase() === 'https';
}

/** /docs, /docs/json, /docs/static/…: not /docsx. */
export function isDocsPath(url: string): boolean {
  return (
    url.startsWith('/docs') &&
    (url.length === 5 || url.charCodeAt(5) === 47 /* / */ || url.charCodeAt(5) === 63) /* ? */
  );
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

/**
 * Sets `headers` on the reply. The same as `reply.headers(object)`, which lists the object's keys
 * and looks each value up on every request: these sets are fixed, so they are listed once.
 */
function setAll(reply: FastifyReply, headers: readonly (readonly [string, string])[]): void {
  for (const [name, value] of headers) reply.header(name, value);
}

export default fp(
  async function securityHeaders(app) {
    const secureDocsHeaders = docsSecurityHeaderValues();
    const docsHeaders = { ...secureDocsHeaders };
    delete docsHeaders[HSTS];
    const api = Object.entries(securityHeaderValues(false));
    const secureApi = Object.entries(securityHeaderValues(true));
    const docs = Object.entries(docsHeaders);
    const secureDocs = Object.entries(secureDocsHeaders);
    app.addHook('onRequest', (request, reply, done) => {
      const secure = reachedOverHttps(request);
      if (isDocsPath(request.url)) {
        setAll(reply, secure ? secureDocs : docs);
      } else {
        setAll(reply, secure ? secureApi : api);
      }
      done();
    });
  },
  { name: 'security-headers' },
);
