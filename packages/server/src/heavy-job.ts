/**
 * What a route hands to a heavy work queue along with the job, once its parameters are known: the
 * rest of the operation's rate-limit units are charged first, before any work, and the job carries
 * its client (whose turn it waits for, and whose cap it counts towards), its price (whether it is
 * a small job) and whether its request still waits for it.
 */
import type { FastifyReply } from 'fastify';
import { clientKeyOf } from './client-key.ts';
import { stillWanted } from './handler-timeout.ts';
import { chargeUpTo } from './rate-limit/costs.ts';
import type { JobTerms } from './work-queue.ts';

/** Charges the operation's `units` (beyond the route's own cost) and returns the job's terms. */
export async function chargeHeavyJob(reply: FastifyReply, units: number): Promise<JobTerms> {
  await chargeUpTo(reply, units);
  return { stillWanted: stillWanted(reply), client: clientKeyOf(reply.request), work: units };
}
