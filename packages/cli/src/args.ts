/**
 * Argument parsing for every command: node:util's parseArgs, strict (an unknown option is a usage
 * error, never ignored), with the common options accepted anywhere on the line.
 */
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { readFile } from 'node:fs/promises';
import { UsageError } from './command.ts';

/** Options that every command takes: where the service is, how to authenticate, how to print. */
export const COMMON_OPTIONS = {
  url: { type: 'string' },
  'api-key': { type: 'string' },
  token: { type: 'string' },
  timeout: { type: 'string' },
  retry: { type: 'boolean' },
  plain: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsOptionsConfig;

export const COMMON_HELP = `Common options:
  --url <url>          the service (env CRYPTO_SERVICE_URL; default http://localhost:3000)
  --api-key <key>      sent as x-api-key (env CRYPTO_API_KEY)
  --token <jwt>        sent as Authorization: Bearer (env CRYPTO_SERVICE_TOKEN)
  --timeout <ms>       give up on a request after this long (default: no limit)
  --retry              retry on 429 and 503, as Retry-After says (up to 3 attempts)
  --plain              print the bare result for shell pipelines instead of JSON
  -h, --help           this help

A value written @path is read from that file (trailing whitespace removed), so that keys and
signatures need not appear on the command line.

Exit status: 0 ok; 1 the service answered with an error or could not be reached (message on
stderr); 2 usage error; 3 a verification ran and the answer is "not valid".`;

/** Parses a command's arguments: its own options, the common ones, and at most `maxPositionals` operands. */
export function parseCommand<const O extends ParseArgsOptionsConfig>(
  args: string[],
  options: O,
  maxPositionals: number,
) {
  const config = { args, options: { ...COMMON_OPTIONS, ...options }, strict: true, allowPositionals: true } as const;
  let parsed: ReturnType<typeof parseArgs<typeof config>>;
  try {
    parsed = parseArgs(config);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (parsed.positionals.length > maxPositionals) {
    const extra = parsed.positionals.slice(maxPositionals).join(' ');
    throw new UsageError(maxPositionals === 0 ? `unexpected argument: ${extra}` : `too many arguments: ${extra}`);
  }
  return parsed;
}

/** An option that must be given; `@path` values are read from the file. */
export async function required(value: string | undefined, option: string): Promise<string> {
  if (value === undefined || value === '') throw new UsageError(`--${option} is required`);
  return fromFileIfAt(value, option);
}

/** An option that may be given; `@path` values are read from the file. */
export async function optional(value: string | undefined, option: string): Promise<string | undefined> {
  return value === undefined ? undefined : fromFileIfAt(value, option);
}

async function fromFileIfAt(value: string, option: string): Promise<string> {
  if (!value.startsWith('@')) return value;
  const path = value.slice(1);
  try {
    return (await readFile(path, 'utf8')).trimEnd();
  } catch (error) {
    throw new UsageError(
      `--${option}: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
}

/** A whole number option within bounds, or undefined when absent. */
export function integer(
  value: string | undefined,
  option: string,
  min = 1,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new UsageError(`--${option} must be a whole number from ${min} to ${max}, not '${value}'`);
  }
  return Number(value);
}
