/**
 * What every command is: a name, its help, and a run function that turns arguments into output.
 * Commands never write to stdout or exit themselves; main.ts prints what they return, so that
 * each command can be read (and tested) as a plain function of its arguments.
 */
import type { Readable } from 'node:stream';

/** Exit statuses (documented in the top-level help). */
export const EXIT = {
  OK: 0,
  /** The service answered with an error, or could not be reached in time. */
  API_ERROR: 1,
  /** The command line is wrong: unknown command or option, missing value, unreadable input file. */
  USAGE: 2,
  /** A verification ran and its answer is no (`valid: false`), so that `if crypto-service verify …` works. */
  NOT_VALID: 3,
} as const;

export interface Output {
  /** What is printed by default, as indented JSON. */
  json: unknown;
  /** What `--plain` prints: text (a newline is added) or raw bytes (written as they are). */
  plain: string | Uint8Array;
  exitCode?: number;
}

/** Bytes written to stdout as they arrive; an error midway is the command's failure. */
export interface StreamOutput {
  stream: ReadableStream<Uint8Array>;
}

export interface CommandContext {
  /** The arguments after the command's name. */
  args: string[];
  env: NodeJS.ProcessEnv;
  stdin: Readable & { isTTY?: boolean };
}

export interface Command {
  /** One or two words: `hash`, `keys generate`, `pq sign`. */
  name: string;
  /** One line for the command list. */
  summary: string;
  /** The full help: usage, options, output. The common options are appended by main.ts. */
  help: string;
  /** Output to print, bytes to stream to stdout (`stream …`), or just an exit status (`serve`). */
  run(context: CommandContext): Promise<Output | StreamOutput | { exitCode: number }>;
}

/** A mistake on the command line: exit status 2, with the message and a pointer to --help. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
