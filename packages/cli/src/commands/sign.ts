import type { SignRequest } from '@crypto-service/client';
import type { Command } from '../command.ts';
import { parseCommand, required } from '../args.ts';
import { connect } from '../connection.ts';
import { readInput } from '../input.ts';

const HELP = `Usage: crypto-service sign [file] --private-key <key> [options]

Signs a file, or standard input.

Options:
  --private-key <key|@file>  hex (raw, as 'keys generate' prints it) or PEM (PKCS#8)
  -a, --algorithm <id>       ed25519 (default), ed448, ecdsa-p256, ecdsa-p384, ml-dsa-65, slh-dsa-…
  --context <text>           context string (ed448, ML-DSA, SLH-DSA)

Output: {"signature", "algorithm"}; with --plain, the hex signature.

Example:
  crypto-service sign release.tar.gz --private-key @signing.key --plain > release.sig`;

const OPTIONS = {
  'private-key': { type: 'string' },
  algorithm: { type: 'string', short: 'a' },
  context: { type: 'string' },
} as const;

export const sign: Command = {
  name: 'sign',
  summary: 'sign a file or standard input',
  help: HELP,
  async run(context) {
    const { values, positionals } = parseCommand(context.args, OPTIONS, 1);
    const privateKey = await required(values['private-key'], 'private-key');
    const message = await readInput(positionals[0], context);
    const { data } = await connect(values, context.env).sign({
      algorithm: values.algorithm as SignRequest['algorithm'],
      privateKey,
      message: message.toString('base64'),
      context: values.context,
      encoding: 'base64',
    });
    return { json: data, plain: data.signature };
  },
};
