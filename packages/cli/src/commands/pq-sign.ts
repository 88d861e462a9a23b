import type { PqDsaSignRequest } from '@crypto-service/client';
import type { Command } from '../command.ts';
import { integer, parseCommand, required } from '../args.ts';
import { connect } from '../connection.ts';
import { readInput } from '../input.ts';

const HELP = `Usage: crypto-service pq sign [file] --secret-key <hex> [options]

Signs a file, or standard input, with ML-DSA (FIPS 204).

Options:
  --secret-key <hex|@file>  the secret key that 'pq sign-keygen' printed
  --level <n>               44, 65 (default) or 87: a 32-byte seed does not say which
  --context <text>          context string (at most 255 bytes)

Output: {"signature", "algorithm"}; with --plain, the hex signature.`;

const OPTIONS = {
  'secret-key': { type: 'string' },
  level: { type: 'string' },
  context: { type: 'string' },
} as const;

export const pqSign: Command = {
  name: 'pq sign',
  summary: 'sign a file or standard input with ML-DSA',
  help: HELP,
  async run(context) {
    const { values, positionals } = parseCommand(context.args, OPTIONS, 1);
    const secretKey = await required(values['secret-key'], 'secret-key');
    const level = integer(values.level, 'level') as PqDsaSignRequest['level'];
    const message = await readInput(positionals[0], context);
    const { data } = await connect(values, context.env).pqSign({
      secretKey,
      message: message.toString('base64'),
      level,
      context: values.context,
      encoding: 'base64',
    });
    return { json: data, plain: data.signature };
  },
};
