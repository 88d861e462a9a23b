/**
 * Pipeline stage 5: authentication and scopes. Runs after rate limiting, so that a flood of
 * unauthenticated requests is answered 429 once past its limit, and before the body is parsed,
 * so that nothing of an unauthenticated request is read.
 */
import fp from 'fastify-plugin';
import type { AuthConfig } from '../config.ts';
import { ApiError } from '../errors.ts';
import { Authenticator, type Principal } from '../auth/authenticator.ts';
import { grants } from '../auth/scopes.ts';
import '../route-config.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

export interface AuthenticationOptions {
  auth: AuthConfig;
}

export default fp<AuthenticationOptions>(async function authentication(app, { auth }) {
  const authenticator = new Authenticator(auth);
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (request) => {
    const config = request.routeOptions.config;
    // Unknown routes answer 404 whoever asks: the route list is public (/docs/json) anyway.
    if (request.is404 || config.public === true) return;
    const principal = await authenticator.authenticate(request.headers);
    if (config.scope !== undefined && !grants(principal.grant, config.scope)) {
      throw new ApiError('FORBIDDEN', `this credential lacks the scope ${config.scope}`);
    }
    request.principal = principal;
  });
}, { name: 'authentication' });
