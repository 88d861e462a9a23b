/**
 * Pipeline stage 1: security response headers on every response, errors included (helmet's hook
 * runs first, so a 401 or 429 carries them too).
 */
import fp from 'fastify-plugin';
import helmet from '@fastify/helmet';

export default fp(async function securityHeaders(app) {
  await app.register(helmet, {
    global: true,
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
    // Responses of a crypto API must never be cached by a shared cache.
    hidePoweredBy: true,
  });
  app.addHook('onRequest', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
  });
}, { name: 'security-headers' });
