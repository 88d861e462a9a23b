/** The data a command works on: a file named on the command line, or standard input. */
import { readFile } from 'node:fs/promises';
import type { CommandContext } from './command.ts';
import { UsageError } from './command.ts';

/** The bytes of `file`, or of stdin when no file (or `-`) is given. */
export async function readInput(file: string | undefined, context: CommandContext): Promise<Buffer> {
  if (file !== undefined && file !== '-') {
    try {
      return await readFile(file);
    } catch (error) {
      throw new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  }
  // Waiting on a terminal for data that nobody is going to type would look like a hang.
  if (context.stdin.isTTY === true) throw new UsageError('no input: name a file, or pipe the data to standard input');
  const chunks: Buffer[] = [];
  for await (const chunk of context.stdin)
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks);
}

/** Text input with one final line break removed (what `echo` and a here-string add). */
export async function readLine(file: string | undefined, context: CommandContext): Promise<string> {
  return (await readInput(file, context)).toString('utf8').replace(/\r?\n$/, '');
}

/** Input holding an encoded value (base64 or hex): surrounding whitespace is not part of it. */
export async function readToken(file: string | undefined, context: CommandContext): Promise<string> {
  return (await readInput(file, context)).toString('utf8').trim();
}
