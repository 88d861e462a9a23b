/**
 * The thread side of a worker pool (pool.ts): says it is ready (or why it cannot start), then runs
 * one job at a time and replies with its result or its serialized error.
 */
import { parentPort } from 'node:worker_threads';
import { serializeError, type JobRequest, type WorkerReply } from './protocol.ts';

export interface ServeOptions<Job, Ready> {
  /** Runs one job; a rejection is sent back as the job's error. */
  run: (job: Job) => Promise<unknown>;
  /** Prepares the thread before its first job; a failure is reported as `init-failed`. */
  init?: () => Promise<Ready | undefined>;
  /** The configuration variable to blame when `init` fails with this error, if any. */
  variableOf?: (error: unknown) => string | undefined;
  /** Called after every job, whatever its outcome (to wipe the thread's copy of its arguments). */
  after?: (job: Job) => void;
}

export async function serveJobs<Job, Ready = undefined>(options: ServeOptions<Job, Ready>): Promise<void> {
  const port = parentPort;
  if (port === null) throw new Error('a pool worker runs only as a worker thread');
  let ready: WorkerReply<Ready>;
  try {
    const info = await options.init?.();
    ready = { type: 'ready', ...(info === undefined ? {} : { info }) };
  } catch (error) {
    const variable = options.variableOf?.(error);
    ready = {
      type: 'init-failed',
      ...(variable === undefined ? {} : { variable }),
      message: error instanceof Error ? error.message : String(error),
    };
  }
  port.on('message', async ({ id, job }: JobRequest<Job>) => {
    let reply: WorkerReply<Ready>;
    try {
      reply = { type: 'result', id, ok: true, result: await options.run(job) };
    } catch (error) {
      reply = { type: 'result', id, ok: false, error: serializeError(error) };
    } finally {
      options.after?.(job);
    }
    port.postMessage(reply);
  });
  port.postMessage(ready);
}
