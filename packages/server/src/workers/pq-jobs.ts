/**
 * The post-quantum operations that the routes run through the offload (../pq-offload.ts), by name.
 * The same table runs them on the event loop's thread (Node 24, where node:crypto does the work in
 * libuv's pool) and in the worker threads (Node 22, where @noble/post-quantum's work is synchronous
 * JavaScript). Arguments and results are plain data (bytes, numbers, strings), so they cross a
 * worker boundary by structured clone.
 */
import { mlKemDecapsulate, mlKemEncapsulate, mlKemKeygen } from '@crypto-service/core';
import { mlDsaKeygen, mlDsaSign, mlDsaVerify } from '@crypto-service/core';
import { slhDsaKeygen, slhDsaSign, slhDsaVerify } from '@crypto-service/core';
import {
  xwingDecapsulate,
  xwingDecapsulateParts,
  xwingEncapsulate,
  xwingEncapsulateParts,
  xwingKeygen,
} from '@crypto-service/core';
import { postQuantumPrivateKeyFromPem } from '@crypto-service/core';

export const PQ_JOBS = {
  'ml-kem.keygen': mlKemKeygen,
  'ml-kem.encapsulate': mlKemEncapsulate,
  'ml-kem.decapsulate': mlKemDecapsulate,
  'x-wing.keygen': xwingKeygen,
  'x-wing.encapsulate': xwingEncapsulate,
  'x-wing.encapsulate-parts': xwingEncapsulateParts,
  'x-wing.decapsulate': xwingDecapsulate,
  'x-wing.decapsulate-parts': xwingDecapsulateParts,
  'ml-dsa.keygen': mlDsaKeygen,
  'ml-dsa.sign': mlDsaSign,
  'ml-dsa.verify': mlDsaVerify,
  'slh-dsa.keygen': slhDsaKeygen,
  'slh-dsa.sign': slhDsaSign,
  'slh-dsa.verify': slhDsaVerify,
  // A PKCS#8 ML-DSA / ML-KEM key in the `both` form is checked by expanding its seed.
  'pq.private-key-from-pem': postQuantumPrivateKeyFromPem,
} as const;

export type PqJobName = keyof typeof PQ_JOBS;
export type PqJobArgs<N extends PqJobName> = Parameters<(typeof PQ_JOBS)[N]>;
export type PqJobResult<N extends PqJobName> = Awaited<ReturnType<(typeof PQ_JOBS)[N]>>;

export function isPqJobName(name: unknown): name is PqJobName {
  return typeof name === 'string' && Object.hasOwn(PQ_JOBS, name);
}

/** Runs one job by name. The table's functions are all async, so every failure is a rejection. */
export function runPqJob<N extends PqJobName>(name: N, args: PqJobArgs<N>): Promise<PqJobResult<N>> {
  const job = PQ_JOBS[name] as unknown as (...jobArgs: PqJobArgs<N>) => Promise<PqJobResult<N>>;
  return job(...args);
}

/** One job as it crosses to a worker thread. */
export interface PqJob {
  name: PqJobName;
  args: unknown[];
}
