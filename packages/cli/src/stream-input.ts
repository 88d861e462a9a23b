/** The data of a stream command as a Web ReadableStream: a file named on the command line, or stdin, read as sent. */
import { createReadStream } from 'node:fs';
import { access } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { CommandContext } from './command.ts';
import { UsageError } from './command.ts';

export async function streamInput(
  file: string | undefined,
  context: CommandContext,
): Promise<ReadableStream<Uint8Array>> {
  if (file !== undefined && file !== '-') {
    try {
      await access(file);
    } catch (error) {
      throw new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    return Readable.toWeb(createReadStream(file)) as ReadableStream<Uint8Array>;
  }
  // Waiting on a terminal for data that nobody is going to type would look like a hang.
  if (context.stdin.isTTY === true) throw new UsageError('no input: name a file, or pipe the data to standard input');
  return Readable.toWeb(context.stdin) as ReadableStream<Uint8Array>;
}
