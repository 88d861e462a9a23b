/**
 * What a route declares about itself, read by the pipeline stages: whether it is public, which
 * scope it needs, and how many units of the rate limit one call costs.
 */
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
}

export {};
