/**
 * What a route declares about itself, read by the pipeline stages: whether it is public, which
 * scope it needs, how many units of the rate limit one call costs, whether it runs under
 * HANDLER_TIMEOUT_MS, and the operation label its metrics count. Also a per-request cache of the
 * route's config for the hot path. docs/adding-an-operation.md says which routes need which.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Scope } from './auth/scopes.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** No credential needed (probes, metrics, docs). */
    public?: boolean;
    /** The scope a credential must grant. Unset: any authenticated caller. */
    scope?: Scope;
    /** Units of the rate limit one call consumes (default 1); `false` exempts the route. */
    rateLimitCost?: number | false;
    /**
     * The route's cost is variable and can be large (queued work, post-quantum signing, OpenPGP):
     * it answers a 503 after HANDLER_TIMEOUT_MS (plugins/handler-timeout.ts).
     */
    handlerTimeout?: boolean;
    /** The `operation` label of crypto_operations_total, `family.operation` (plugins/metrics.ts). */
    operation?: string;
  }
  interface FastifyRequest {
    /** This request's route config, read once (see routeConfigOf); null until first asked. */
    pipelineRouteConfig: FastifyContextConfig | null;
  }
}

/**
 * The route's config, read from `request.routeOptions` once per request: Fastify 5 builds a new
 * twelve-field object on every access of that getter, and several stages (rate limit,
 * authentication, metrics, self-tests) each need the config.
 */
export function routeConfigOf(request: FastifyRequest): FastifyRequest['routeOptions']['config'] {
  let config = request.pipelineRouteConfig;
  if (config === null || config === undefined) {
    // Unknown routes (404) have a config too: an empty object.
    config = request.routeOptions.config;
    request.pipelineRouteConfig = config;
  }
  return config as FastifyRequest['routeOptions']['config'];
}

/** Declares the request slot that routeConfigOf fills (once per app; every stage that reads it calls this). */
export function declareRouteConfigCache(app: FastifyInstance): void {
  if (!app.hasRequestDecorator('pipelineRouteConfig')) app.decorateRequest('pipelineRouteConfig', null);
}
