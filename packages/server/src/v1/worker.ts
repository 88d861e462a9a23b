/**
 * A worker thread of the /v1 OpenPGP pool (openpgp-pool.ts): loads the server's key once (when
 * there is one), then runs one job at a time. OpenPGP.js's synchronous work (S2K derivations, RSA
 * and ECC arithmetic in JavaScript) happens here, away from the event loop.
 */
import { workerData } from 'node:worker_threads';
import {
  loadServerKey,
  runV1Job,
  ServerKeyError,
  type ServerKey,
  type ServerKeyInfo,
  type V1Job,
} from './openpgp-jobs.ts';
import type { WorkerInit } from './openpgp-pool.ts';
import { serveJobs } from '../workers/serve.ts';
import { lowerCurrentThreadPriority } from '../thread-priority.ts';

const init = workerData as WorkerInit;
lowerCurrentThreadPriority(init.nice ?? 0);
let serverKey: ServerKey | undefined;

await serveJobs<V1Job, ServerKeyInfo>({
  init: async () => {
    if (init.serverKey === undefined) return undefined;
    serverKey = await loadServerKey(init.serverKey.armored, init.serverKey.passphrase, init.serverKey.file);
    return serverKey.info;
  },
  variableOf: (error) => (error instanceof ServerKeyError ? error.variable : undefined),
  run: (job) => runV1Job(job, serverKey),
});
