/**
 * A worker thread of the post-quantum offload (../pq-offload.ts): runs one job at a time through
 * the shared job table. Where node:crypto lacks ML-DSA and SLH-DSA (Node 22), this is where
 * @noble/post-quantum's synchronous work happens, away from the event loop.
 */
import { workerData } from 'node:worker_threads';
import { isPqJobName, runPqJob, type PqJob } from './pq-jobs.ts';
import { serveJobs } from './serve.ts';
import { lowerCurrentThreadPriority } from '../thread-priority.ts';

lowerCurrentThreadPriority((workerData as { nice?: number } | null)?.nice ?? 0);

/** The arguments are this thread's own copies: wiping them (keys included) harms no one. */
function wipeArguments(values: unknown[]): void {
  for (const value of values) {
    if (value instanceof Uint8Array) value.fill(0);
    else if (value !== null && typeof value === 'object') wipeArguments(Object.values(value));
  }
}

await serveJobs<PqJob>({
  run: async ({ name, args }) => {
    if (!isPqJobName(name)) throw new Error(`unknown post-quantum job '${String(name)}'`);
    return runPqJob(name, args as never);
  },
  after: (job) => wipeArguments(job.args),
});
