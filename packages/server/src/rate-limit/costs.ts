/**
 * Rate-limit units of the post-quantum work, the one source for every route that does it:
 * `/v2/pq/*` charges them as its route cost, and `/v2/sign`, `/v2/keys/generate` charge the same
 * totals once the body names the algorithm (reply.chargeRateLimit), so an operation costs the same
 * whichever route asks for it.
 *
 * One unit is one ordinary request (a hash of a small body). A `/v2/pq` route is charged before its
 * body is read, so its cost is set from the range of the route's variants, far below its CPU time
 * relative to a hash: priced by CPU time, a client at the default limit could make only a handful
 * of SLH-DSA signatures a minute, while the bounded queue already caps the work in progress for all
 * clients together (docs/performance.md, "Post-quantum").
 */
import type { FastifyReply } from 'fastify';
import '../route-config.ts';

export const PQ_RATE_LIMIT_COSTS = {
  slhDsaSign: 25,
  slhDsaKeygen: 10,
  mlDsaSign: 2,
  mlDsaKeygen: 2,
} as const;

/** Total units of one signature with `algorithm` (1 for the classical schemes). */
export function signingCost(algorithm: string): number {
  if (algorithm.startsWith('slh-dsa-')) return PQ_RATE_LIMIT_COSTS.slhDsaSign;
  if (algorithm.startsWith('ml-dsa-')) return PQ_RATE_LIMIT_COSTS.mlDsaSign;
  return 1;
}

/** Total units of one key generation for `algorithm` (1 for every other key type). */
export function keyGenerationCost(algorithm: string): number {
  if (algorithm.startsWith('slh-dsa-')) return PQ_RATE_LIMIT_COSTS.slhDsaKeygen;
  if (algorithm.startsWith('ml-dsa-')) return PQ_RATE_LIMIT_COSTS.mlDsaKeygen;
  return 1;
}

/**
 * Brings this request's charge up to `total` units: the route's own cost was charged when the
 * request arrived, so only the difference is added (a 429 if that puts the client over its limit).
 */
export async function chargeUpTo(reply: FastifyReply, total: number): Promise<void> {
  const routeCost = reply.request.routeOptions.config.rateLimitCost;
  if (routeCost === false) return;
  const extra = total - (routeCost ?? 1);
  if (extra > 0) await reply.chargeRateLimit(extra);
}
