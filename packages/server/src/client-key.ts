/**
 * The identity of the client behind a request, for the heavy work queues: what they serve in turn
 * and what MAX_HEAVY_JOBS_PER_CLIENT counts. Read in this one place so that it follows the rate
 * limiter's notion of a client.
 */
import type { FastifyRequest } from 'fastify';

/** The client's address (the socket's, or the one the trusted proxies vouch for). */
export function clientKeyOf(request: FastifyRequest): string {
  return request.ip;
}
