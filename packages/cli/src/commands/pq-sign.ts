import type { PqDsaSignRequest } from '@crypto-service/client';
import type { Command } from '../command.ts';
import { parseCommand, required } from '../args.ts';
import { connect } from '../connection.ts';
import { readInput } from '../input.ts';

const HELP = `Usage: crypto-service pq sign [file] --private-key <hex> [options]

Signs a file, or standard input, with ML-DSA (FIPS 204).

Options:
  --private-key <hex|@file> the private key that 'pq sign-keygen' printed
  -a, --algorithm <id>      ml-dsa-44, ml-dsa-65 (default) or ml-dsa-87: a 32-byte seed does
                            not say which, so give the one the key was generated for
  --context <text>          context string (at most 255 bytes)

Output: {"signature", "algorithm"}; with --plain, the hex signature.

Example:
  crypto-service pq sign notes.txt --private-key @ml-dsa.private -a ml-dsa-87 --plain > notes.sig`;

const OPTIONS = {
  'private-key': { type: 'string' },
  algorithm: { type: 'string', short: 'a' },
  context: { type: 'string' },
} as const;

export const pqSign: Command = {
  name: 'pq sign',
  summary: 'sign a file or standard input with ML-DSA',
  help: HELP,
  async run(context) {
    const { values, positionals } = parseCommand(context.args, OPTIONS, 1);
    const privateKey = await required(values['private-key'], 'private-key');
    const algorithm = values.algorithm as PqDsaSignRequest['algorithm'];
    const message = await readInput(positionals[0], context);
    const { data } = await connect(values, context.env).pqSign({
      privateKey,
      message: message.toString('base64'),
      algorithm,
      context: values.context,
      encoding: 'base64',
    });
    return { json: data, plain: data.signature };
  },
};
