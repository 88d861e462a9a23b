/**
 * The identity of the client behind a request, for the heavy work queues: what they serve in turn
 * and what MAX_HEAVY_JOBS_PER_CLIENT counts. Read in this one place so that it follows the rate
 * limiter's notion of a client.
 */
import type { FastifyRequest } from 'fastify';

/**
 * The rate limiter's bucket (a normalised address, or the credential with RATE_LIMIT_KEY=credential);
 * the request's address where no limiter has keyed it.
 */
export function clientKeyOf(request: FastifyRequest): string {
  return request.rateLimitKey ?? request.ip;
}
