import type { HashRequest } from '@crypto-service/client';
import type { Command } from '../command.ts';
import { integer, parseCommand } from '../args.ts';
import { connect } from '../connection.ts';
import { readInput } from '../input.ts';

const HELP = `Usage: crypto-service hash [file] [options]

Hashes a file, or standard input when no file (or -) is given. The bytes are sent exactly as
they are (base64 on the wire), so binary files hash correctly.

Options:
  -a, --algorithm <id>  sha256 (default), sha384, sha512, sha3-256, blake2b-512, blake3, …
                        ('crypto-service algorithms' lists them all)
  --length <bytes>      output length, for blake3, shake128 and shake256 only

Output: {"digest", "algorithm", "length"}; with --plain, the hex digest.

Example:
  crypto-service hash --plain release.tar.gz`;

const OPTIONS = {
  algorithm: { type: 'string', short: 'a' },
  length: { type: 'string' },
} as const;

export const hash: Command = {
  name: 'hash',
  summary: 'hash a file or standard input',
  help: HELP,
  async run(context) {
    const { values, positionals } = parseCommand(context.args, OPTIONS, 1);
    const length = integer(values.length, 'length');
    const bytes = await readInput(positionals[0], context);
    const { data } = await connect(values, context.env).hash({
      // The service is the authority on algorithm names: an unknown one comes back as its 400.
      algorithm: (values.algorithm ?? 'sha256') as HashRequest['algorithm'],
      data: bytes.toString('base64'),
      encoding: 'base64',
      length,
    });
    return { json: data, plain: data.digest };
  },
};
