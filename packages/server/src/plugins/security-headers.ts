/**
 * Pipeline stage 1: security response headers on every response, errors included (this hook runs
 * first, so a 401 or 429 carries them too).
 *
 * The header values come from helmet, computed ONCE at start: they depend only on the options.
 * (@fastify/helmet builds helmet's whole middleware chain and re-parses the CSP on every request;
 * bench/pipeline-stages.ts measured that at 32–36 µs of the ≈ 112 µs a small request costs.)
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import fp from 'fastify-plugin';
import helmet, { type HelmetOptions } from 'helmet';

const HELMET_OPTIONS: HelmetOptions = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      // JSON responses need nothing; the docs page (Swagger UI) needs its own scripts and styles,
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

/** Runs helmet's middleware once against a recorder and keeps the headers it would set. */
export function securityHeaderValues(options: HelmetOptions = HELMET_OPTIONS): Record<string, string> {
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
  const headers = securityHeaderValues();
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(headers);
    done();
  });
}, { name: 'security-headers' });
