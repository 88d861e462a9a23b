/**
 * The messages between a worker pool (pool.ts) and its threads (serve.ts). Structured clone keeps
 * no class, so a CryptoError crosses the boundary as plain data and is rebuilt on the other side.
 */
import { CryptoError, type CoreErrorCode } from '@crypto-service/core';

export interface JobRequest<Job> {
  id: number;
  job: Job;
}

export type SerializedError =
  { kind: 'crypto'; code: CoreErrorCode; message: string; field?: string } | { kind: 'other'; message: string };

export type WorkerReply<Ready = undefined> =
  | { type: 'ready'; info?: Ready }
  | { type: 'init-failed'; variable?: string; message: string }
  | { type: 'result'; id: number; ok: true; result: unknown }
  | { type: 'result'; id: number; ok: false; error: SerializedError };

/** A CryptoError keeps its code and field (a 400 on the other side); anything else only its message. */
export function serializeError(error: unknown): SerializedError {
  if (error instanceof CryptoError) {
    return {
      kind: 'crypto',
      code: error.code,
      message: error.message,
      ...(error.field === undefined ? {} : { field: error.field }),
    };
  }
  return { kind: 'other', message: error instanceof Error ? error.message : String(error) };
}

/** Rebuilds a thread's error: a CryptoError stays one, anything else becomes a 500 naming the pool. */
export function reviveError(error: SerializedError, poolName: string): Error {
  if (error.kind === 'crypto') return new CryptoError(error.code, error.message, error.field);
  return new Error(`${poolName} worker: ${error.message}`);
}
