/**
 * A worker thread of the post-quantum offload (../pq-offload.ts): receives one job at a time,
 * runs it through the shared job table and replies with the result or a serialized error. Where
 * node:crypto lacks ML-DSA and SLH-DSA (Node 22), this is where @noble/post-quantum's synchronous
 * work happens, away from the event loop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { CryptoError } from '@crypto-service/core';
import { isPqJobName, runPqJob, type PqWorkerReply, type PqWorkerRequest } from './pq-jobs.ts';
import { lowerCurrentThreadPriority } from '../thread-priority.ts';

const port = parentPort;
if (port === null) throw new Error('pq-worker.ts runs only as a worker thread');
lowerCurrentThreadPriority((workerData as { nice?: number } | null)?.nice ?? 0);

/** The arguments are this thread's own copies: wiping them (keys included) harms no one. */
function wipeArguments(values: unknown[]): void {
  for (const value of values) {
    if (value instanceof Uint8Array) value.fill(0);
    else if (value !== null && typeof value === 'object') wipeArguments(Object.values(value));
  }
}

port.on('message', async (request: PqWorkerRequest) => {
  let reply: PqWorkerReply;
  try {
    if (!isPqJobName(request.name)) throw new Error(`unknown post-quantum job '${String(request.name)}'`);
    reply = { ok: true, result: await runPqJob(request.name, request.args as never) };
  } catch (error) {
    reply = error instanceof CryptoError
      ? { ok: false, error: { kind: 'crypto', code: error.code, message: error.message, ...(error.field === undefined ? {} : { field: error.field }) } }
      : { ok: false, error: { kind: 'other', message: error instanceof Error ? error.message : String(error) } };
  } finally {
    wipeArguments(request.args);
  }
  port.postMessage(reply);
});
