/**
 * Rate-limit units of the post-quantum work (contract §4), the one source for every route that
 * does it: `/v2/pq/*` charges them as its route cost, and `/v2/sign`, `/v2/keys/generate` charge
 * the same totals once the body names the algorithm (reply.chargeRateLimit), so an operation costs
 * the same whichever route asks for it.
 *
 * One unit is one ordinary request: a hash of a small body, about 50 µs of CPU here. A `/v2/pq`
 * route is charged before its body is read, so its cost cannot depend on the variant; it is set
 * from the range of the route's variants, measured natively on Node 24 (pure JavaScript on Node 22
 * is 5–20× slower, which the bounded queue absorbs):
 *   SLH-DSA signing          12 ms (sha2-128f) … 2.3 s (shake-192s)        25 units
 *   SLH-DSA key generation   1–6 ms (f sets) … 70–270 ms (s sets)          10 units
 *   ML-DSA sign and keygen   1–3 ms (10–20 ms in pure JavaScript)           2 units
 *   everything else          ML-KEM, X-Wing, verification: 0.1–5 ms          1 unit
 * Costs proportional to CPU time would price one SLH-DSA signature at hundreds of hash requests
 * and leave a client a handful per minute; with these weights a client at the default limit (1000
 * units a minute) may sign 40 times a minute, while the bounded queue caps the work in progress
 * for all clients together.
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
