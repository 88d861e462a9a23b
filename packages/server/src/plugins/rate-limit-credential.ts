/**
 * RATE_LIMIT_KEY=credential: an authenticated request is charged to its credential rather than its
 * address, so that the clients behind one NAT or proxy keep separate budgets, and one client keeps
 * its budget across addresses. Registered right after authentication: the rate-limit stage left
 * the units of a request presenting a credential in `request.rateLimitDeferred`; once the
 * credential is verified, they go to its bucket here. A request refused before (a 401) is charged
 * to its address by the rate-limit stage's onSend hook, so guessing credentials still costs.
 */
import { createHash } from 'node:crypto';
import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import type { Principal } from '../auth/authenticator.ts';

/**
 * The bucket of a verified credential: a digest of the API key (never the key itself: the
 * key names a Redis entry), the JWT `sub`; undefined when the credential names nobody (a JWT
 * without `sub`, anonymous access), which keeps the address as the key.
 */
export function credentialKey(principal: Principal | null, request: FastifyRequest): string | undefined {
  if (principal === null) return undefined;
  if (principal.kind === 'jwt') return principal.subject === undefined ? undefined : `sub:${principal.subject}`;
  const apiKey = request.headers['x-api-key'];
  if (principal.kind === 'api-key' && typeof apiKey === 'string') {
    return `api-key:${createHash('sha256').update(apiKey).digest('hex').slice(0, 32)}`;
  }
  return undefined;
}

export default fp(
  async function rateLimitByCredential(app) {
    app.addHook('onRequest', (request, reply, done) => {
      const units = request.rateLimitDeferred;
      if (units === 0) return done();
      request.rateLimitDeferred = 0;
      const key = credentialKey(request.principal, request);
      if (key !== undefined) request.rateLimitKey = key;
      reply.chargeRateLimit(units).then(() => done(), done);
    });
  },
  { name: 'rate-limit-credential', dependencies: ['rate-limit', 'authentication'] },
);
