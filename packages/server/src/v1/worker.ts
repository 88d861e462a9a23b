/**
 * A worker thread of the /v1 OpenPGP pool (pool.ts): loads the server's key once (when there is
 * one), says it is ready, then runs one job at a time and replies with the result or a serialized
 * error. OpenPGP.js's synchronous work (S2K derivations, RSA and ECC arithmetic in JavaScript)
 * happens here, away from the event loop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { CryptoError } from '@crypto-service/core';
import { loadServerKey, runV1Job, ServerKeyError, type ServerKey } from './openpgp-jobs.ts';
import type { WorkerInit, WorkerReply, WorkerRequest } from './pool.ts';
import { lowerCurrentThreadPriority } from '../thread-priority.ts';

const port = parentPort;
if (port === null) throw new Error('v1/worker.ts runs only as a worker thread');

const init = workerData as WorkerInit;
lowerCurrentThreadPriority(init.nice ?? 0);
let serverKey: ServerKey | undefined;
let ready: WorkerReply;
try {
  if (init.serverKey !== undefined) {
    serverKey = await loadServerKey(init.serverKey.armored, init.serverKey.passphrase, init.serverKey.file);
  }
  ready = { type: 'ready', ...(serverKey === undefined ? {} : { serverKey: serverKey.info }) };
} catch (error) {
  ready = {
    type: 'init-failed',
    ...(error instanceof ServerKeyError ? { variable: error.variable } : {}),
    message: error instanceof Error ? error.message : String(error),
  };
}

port.on('message', async (request: WorkerRequest) => {
  let reply: WorkerReply;
  try {
    reply = { type: 'result', id: request.id, ok: true, result: await runV1Job(request.job, serverKey) };
  } catch (error) {
    reply = error instanceof CryptoError
      ? { type: 'result', id: request.id, ok: false, error: { kind: 'crypto', code: error.code, message: error.message, ...(error.field === undefined ? {} : { field: error.field }) } }
      : { type: 'result', id: request.id, ok: false, error: { kind: 'other', message: error instanceof Error ? error.message : String(error) } };
  }
  port.postMessage(reply);
});
port.postMessage(ready);
