/**
 * Pipeline stage 5: authentication and scopes. Runs after rate limiting, so that a flood of
 * unauthenticated requests is answered 429 once past its limit, and before the body is parsed,
 * so that nothing of an unauthenticated request is read.
 */
import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import type { AuthConfig } from '../config.ts';
import { ApiError } from '../errors.ts';
import { Authenticator, type Principal } from '../auth/authenticator.ts';
import { grants, type Scope } from '../auth/scopes.ts';
import { declareRouteConfigCache, routeConfigOf } from '../route-config.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

export interface AuthenticationOptions {
  auth: AuthConfig;
}

export default fp<AuthenticationOptions>(
  async function authentication(app, { auth }) {
    const authenticator = new Authenticator(auth);
    app.decorateRequest('principal', null);
    declareRouteConfigCache(app);
    /** Admits the request as `principal` when it holds the route's scope; else the 403 to answer. */
    function admit(request: FastifyRequest, scope: Scope | undefined, principal: Principal): ApiError | undefined {
      if (scope !== undefined && !grants(principal.grant, scope)) {
        return new ApiError('FORBIDDEN', `this credential lacks the scope ${scope}`);
      }
      request.principal = principal;
      return undefined;
    }
    // Callback style: an API key (or no credential at all) is decided synchronously, with no promise;
    // only a bearer token goes through the asynchronous JWT verification.
    app.addHook('onRequest', (request, _reply, done) => {
      const config = routeConfigOf(request);
      // Unknown routes answer 404 whoever asks: the route list is public (/docs/json) anyway.
      if (request.is404 || config.public === true) return done();
      let principal: Principal | undefined;
      try {
        principal = authenticator.authenticateWithoutToken(request.headers);
      } catch (error) {
        return done(error as Error);
      }
      if (principal !== undefined) return done(admit(request, config.scope, principal));
      authenticator
        .authenticate(request.headers)
        .then((verified) => done(admit(request, config.scope, verified)), done);
    });
  },
  { name: 'authentication' },
);
