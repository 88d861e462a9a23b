/**
 * Where log lines go: standard output, through one batching writer per process (below). Kept apart
 * from logging.ts so that the cluster primary, which never loads Fastify, writes the same way.
 */
import { writeSync } from 'node:fs';
import type { DestinationStream } from 'pino';

/** A batch this large is written at once instead of waiting for the end of the event-loop turn. */
const MAX_BATCH_CHARS = 64 * 1024;
/** How long a full pipe (EAGAIN) is waited for before a batch is dropped. */
const FULL_PIPE_PATIENCE_MS = 1000;

/**
 * Log lines to a file descriptor, written synchronously, in batches: the lines of one event-loop
 * turn go out in one write(2) at the end of that turn (setImmediate), or at once when the batch
 * reaches 64 KiB, and whatever is left is written when the process exits, whatever the reason.
 *
 * Why not pino's writers: one synchronous write per line cost ≈ 30 µs per request at LOG_LEVEL=info
 * (a small request's whole pipeline is ≈ 40 µs), while under load one turn completes several
 * requests; pino's asynchronous writer retries a failed write every 100 ms forever, so with the
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
  #chars = 0;
  #scheduled = false;
  readonly #flushSoon = (): void => {
    this.#scheduled = false;
    this.flush();
  };

  constructor(fd: number) {
    this.#fd = fd;
  }

  write(line: string): void {
    this.#lines.push(line);
    this.#chars += line.length;
    if (this.#chars >= MAX_BATCH_CHARS) {
      this.flush();
    } else if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(this.#flushSoon);
    }
  }

  /** Writes every pending line now. */
  flush(): void {
    if (this.#lines.length === 0) return;
    const data = Buffer.from(this.#lines.length === 1 ? this.#lines[0]! : this.#lines.join(''), 'utf8');
    this.#lines = [];
    this.#chars = 0;
    writeFully(this.#fd, data);
  }
}

function writeFully(fd: number, data: Buffer): void {
  let offset = 0;
  let waitedMs = 0;
  while (offset < data.length) {
    try {
      offset += writeSync(fd, data, offset);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EAGAIN' || waitedMs >= FULL_PIPE_PATIENCE_MS) return; // dropped: see above
      Atomics.wait(PAUSE, 0, 0, 5);
      waitedMs += 5;
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
