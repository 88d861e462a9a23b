/**
 * Where log lines go: standard output, through one batching writer per process (below). Kept apart
 * from logging.ts so that the cluster primary, which never loads Fastify, writes the same way.
 */
import { writeSync } from 'node:fs';
import type { DestinationStream } from 'pino';

/**
 * The most one write(2) carries (whole lines only; a longer line goes alone): PIPE_BUF on Linux,
 * the size up to which a write to a pipe is atomic. Several processes share one stdout pipe in
 * cluster mode (the primary and every worker); bigger writes could interleave mid-line and break
 * the JSON lines a log shipper reads.
 */
const MAX_BATCH_BYTES = 4096;
/** How long a full pipe (EAGAIN) is waited for before a batch is dropped. */
const FULL_PIPE_PATIENCE_MS = 1000;

/**
 * Log lines to a file descriptor, written synchronously, in batches: the lines of one event-loop
 * turn go out together at the end of that turn (setImmediate), in writes of whole lines of at most
 * 4 KiB each (atomic on a pipe shared with other processes), and whatever is left is written when
 * the process exits, whatever the reason.
 *
 * Why not pino's writers: one synchronous write per line costs about as much as a small request's
 * whole pipeline, while under load one turn completes several requests; pino's asynchronous
 * writer retries a failed write every 100 ms forever, so with the
 * reader of stdout gone (a dead log shipper) SIGTERM, and even the forced exit after
 * SHUTDOWN_TIMEOUT_MS, would never end the process. Here a write error drops the batch (losing log
 * lines is better than hanging), and a full pipe is waited for at most a second per batch.
 *
 * What can be lost: on SIGKILL (or an out-of-memory kill) the lines of the current turn, which
 * nobody could have read yet; nothing on a normal exit, process.exit() or an uncaught exception.
 */
export class BatchedLineWriter implements DestinationStream {
  readonly #fd: number;
  #lines: string[] = [];
  #bytes = 0;
  #scheduled = false;
  readonly #flushSoon = (): void => {
    this.#scheduled = false;
    this.flush();
  };

  constructor(fd: number) {
    this.#fd = fd;
  }

  write(line: string): void {
    const bytes = Buffer.byteLength(line, 'utf8');
    if (this.#bytes + bytes > MAX_BATCH_BYTES) this.flush();
    this.#lines.push(line);
    this.#bytes += bytes;
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(this.#flushSoon);
    }
  }

  /** Writes every pending line now (at most 4 KiB of them, see write); then calls `callback`, if any (pino's flush). */
  flush(callback?: (error?: Error) => void): void {
    if (this.#lines.length > 0) {
      const data = Buffer.from(this.#lines.length === 1 ? this.#lines[0]! : this.#lines.join(''), 'utf8');
      this.#lines = [];
      this.#bytes = 0;
      this.#writeFully(data);
    }
    callback?.();
  }

  /**
   * True once a full pipe has been waited for in vain: later batches are tried once, not waited
   * for, until a write goes through again. A stuck reader then costs one second, not one per batch.
   */
  #stalled = false;

  #writeFully(data: Buffer): void {
    let offset = 0;
    let waitedMs = 0;
    while (offset < data.length) {
      try {
        offset += writeSync(this.#fd, data, offset);
        this.#stalled = false;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'EAGAIN' || this.#stalled || waitedMs >= FULL_PIPE_PATIENCE_MS) {
          if (code === 'EAGAIN') this.#stalled = true;
          return; // dropped: see above
        }
        Atomics.wait(PAUSE, 0, 0, 5);
        waitedMs += 5;
      }
    }
  }
}
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

let stdoutWriter: BatchedLineWriter | undefined;

/** One writer for standard output per process (every app of the process shares it). */
export function stdoutDestination(): BatchedLineWriter {
  if (stdoutWriter === undefined) {
    const writer = new BatchedLineWriter(1);
    process.on('exit', () => writer.flush());
    stdoutWriter = writer;
  }
  return stdoutWriter;
}
