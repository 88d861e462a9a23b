/**
 * Pipeline stage 2: CORS. Off unless CORS_ORIGIN lists origins. Preflights are answered here,
 * before rate limiting and authentication, so they never need a credential.
 */
import fp from 'fastify-plugin';
import cors from '@fastify/cors';

export interface CorsOptions {
  origins: string[];
}

export default fp<CorsOptions>(async function corsPolicy(app, { origins }) {
  if (origins.length === 0) return;
  await app.register(cors, {
    origin: origins.includes('*') ? '*' : origins,
    // Credentials travel in headers (x-api-key, Authorization), never in cookies.
    credentials: false,
    methods: ['GET', 'POST'],
    allowedHeaders: ['content-type', 'authorization', 'x-api-key'],
    exposedHeaders: ['ratelimit', 'ratelimit-policy', 'retry-after', 'deprecation', 'sunset', 'link', 'www-authenticate'],
    maxAge: 600,
    strictPreflight: true,
  });
}, { name: 'cors' });
