/**
 * crypto-service: the command-line front end. This file finds the
 * command, runs it, prints its result and sets the exit status; each command lives in its own
 * file under commands/, its help beside it.
 *
 * Output is written and the exit status set without process.exit(), so that a large result
 * piped to another program is never cut off.
 */
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { CryptoApiError, CryptoClientError } from '@crypto-service/client';
import { EXIT, UsageError, type Command, type CommandContext, type Output } from './command.ts';
import { COMMANDS, GROUPS } from './commands/index.ts';
import { commandHelp, groupHelp, programHelp } from './help.ts';

const PROGRAM = 'crypto-service';

type Invocation =
  | { kind: 'help'; text: string; exitCode: number }
  | { kind: 'version' }
  | { kind: 'command'; command: Command; args: string[] };

/**
 * Whether a flag is on the line, before any `--`. Read here, ahead of the command's own parsing,
 * because help must work on an otherwise wrong line. A flag's spelling cannot be another option's
 * value: parseArgs refuses `--aad --plain` as ambiguous (`--aad=--plain` is one token).
 */
function hasFlag(args: readonly string[], ...spellings: string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((arg) => spellings.includes(arg));
}

function isHelp(args: readonly string[]): boolean {
  return hasFlag(args, '--help', '-h');
}

/** The command words come first (`pq sign …`); everything after them is the command's to parse. */
function resolve(argv: readonly string[]): Invocation {
  const [first, second] = argv;
  if (first === undefined) return { kind: 'help', text: programHelp(COMMANDS), exitCode: EXIT.USAGE };
  if (first === '--help' || first === '-h' || first === 'help')
    return { kind: 'help', text: programHelp(COMMANDS), exitCode: EXIT.OK };
  if (first === '--version') return { kind: 'version' };
  if (first.startsWith('-'))
    throw new UsageError(`the command comes first: ${PROGRAM} <command> [options] (not ${first})`);
  if (GROUPS.has(first)) {
    const command =
      second === undefined ? undefined : COMMANDS.find((candidate) => candidate.name === `${first} ${second}`);
    if (command === undefined) {
      if (second === undefined || isHelp([second]))
        return {
          kind: 'help',
          text: groupHelp(first, COMMANDS),
          exitCode: second === undefined ? EXIT.USAGE : EXIT.OK,
        };
      throw new UsageError(`unknown command: ${first} ${second}; '${PROGRAM} ${first} --help' lists them`);
    }
    return { kind: 'command', command, args: argv.slice(2) };
  }
  const command = COMMANDS.find((candidate) => candidate.name === first);
  if (command === undefined) throw new UsageError(`unknown command: ${first}; '${PROGRAM} --help' lists them`);
  return { kind: 'command', command, args: argv.slice(1) };
}

function print(output: Output, plain: boolean): void {
  if (!plain) {
    process.stdout.write(`${JSON.stringify(output.json, null, 2)}\n`);
  } else if (typeof output.plain === 'string') {
    process.stdout.write(`${output.plain}\n`);
  } else {
    process.stdout.write(output.plain);
  }
}

/** The one line (or few) that stderr gets for a failure, and the exit status that goes with it. */
function report(error: unknown, commandName: string | undefined): number {
  if (error instanceof UsageError) {
    const help = commandName === undefined ? `${PROGRAM} --help` : `${PROGRAM} ${commandName} --help`;
    process.stderr.write(`${PROGRAM}: ${error.message}\nSee '${help}'.\n`);
    return EXIT.USAGE;
  }
  if (error instanceof CryptoApiError) {
    const fields = (error.body.errors ?? []).map((field) => `\n  ${field.field}: ${field.message}`).join('');
    process.stderr.write(`${PROGRAM}: ${error.status}: ${error.body.error}${fields}\n`);
    return EXIT.API_ERROR;
  }
  if (error instanceof CryptoClientError) {
    process.stderr.write(`${PROGRAM}: ${error.message}\n`);
    return EXIT.API_ERROR;
  }
  process.stderr.write(
    `${PROGRAM}: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  return EXIT.API_ERROR;
}

async function main(argv: readonly string[]): Promise<number> {
  let invocation: Invocation;
  try {
    invocation = resolve(argv);
  } catch (error) {
    return report(error, undefined);
  }
  if (invocation.kind === 'help') {
    (invocation.exitCode === EXIT.OK ? process.stdout : process.stderr).write(`${invocation.text}\n`);
    return invocation.exitCode;
  }
  if (invocation.kind === 'version') {
    const { version } = createRequire(import.meta.url)('../package.json') as { version: string };
    process.stdout.write(`${version}\n`);
    return EXIT.OK;
  }
  const { command, args } = invocation;
  if (isHelp(args)) {
    process.stdout.write(`${commandHelp(command)}\n`);
    return EXIT.OK;
  }
  const context: CommandContext = { args, env: process.env, stdin: process.stdin };
  try {
    const result = await command.run(context);
    if ('stream' in result) {
      await pipeline(Readable.fromWeb(result.stream as NodeReadableStream<Uint8Array>), process.stdout, { end: false });
      return EXIT.OK;
    }
    if ('json' in result) print(result, hasFlag(args, '--plain'));
    return result.exitCode ?? EXIT.OK;
  } catch (error) {
    return report(error, command.name);
  }
}

process.exitCode = await main(process.argv.slice(2));
