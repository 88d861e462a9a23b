/**
 * What a route declares about itself, read by the pipeline stages: whether it is public, which
 * scope it needs, and how many units of the rate limit one call costs. Also: which routes run
 * under HANDLER_TIMEOUT_MS, and a per-request cache of the route's config for the hot path.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Scope } from './auth/scopes.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** No credential needed (probes, metrics, docs). */
    public?: boolean;
    /** The scope a JWT must grant (contract §3). Unset: any authenticated caller. */
    scope?: Scope;
    /** Units of the rate limit one call consumes (default 1); `false` exempts the route. */
    rateLimitCost?: number | false;
  }
  interface FastifyRequest {
    /** This request's route config, read once (see routeConfigOf); null until first asked. */
    pipelineRouteConfig: FastifyContextConfig | null;
  }
}

/**
 * The routes whose time is variable and can be long, so that they answer a 503 after
 * HANDLER_TIMEOUT_MS: queued work (Argon2id, scrypt, PBKDF2), SLH-DSA and ML-DSA (the post-quantum
 * offload), multi-recipient envelopes (one KEM per recipient), OpenPGP (/v1, its worker pool), and
 * the routes whose body may name an SLH-DSA or ML-DSA algorithm (/v2/sign, /v2/verify,
 * /v2/keys/generate). Every other route does a bounded amount of work, linear in a body that
 * BODY_LIMIT_BYTES bounds (a hash, an AEAD, X25519, ML-KEM): it needs no timer per request
 * (handler-timeout.ts). (Fastify's own handlerTimeout, tried first, cost ≈ 20 µs of a small
 * request's ≈ 100 µs with its AbortController and the DOMException each abort builds.)
 */
const TIMED_ROUTE_PREFIXES = [
  '/v1/',
  '/v2/password/',
  '/v2/kdf',
  '/v2/multi-recipient/',
  '/v2/pq/dsa/',
  '/v2/pq/slh-dsa/',
  '/v2/pq/hash-sign/',
  '/v2/sign',
  '/v2/verify',
  '/v2/keys/generate',
] as const;

/** Whether the route at `url` (a route template) runs under HANDLER_TIMEOUT_MS. */
export function hasHandlerTimeout(url: string): boolean {
  return TIMED_ROUTE_PREFIXES.some((prefix) => url === prefix || url.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`));
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
