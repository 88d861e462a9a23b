import type { VerifyRequest } from '@crypto-service/client';
import type { Command } from '../command.ts';
import { parseCommand, required } from '../args.ts';
import { connect } from '../connection.ts';
import { readInput } from '../input.ts';
import { verdict } from '../results.ts';

const HELP = `Usage: crypto-service verify [file] --public-key <key> --signature <hex> [options]

Verifies a signature over a file, or over standard input.

Options:
  --public-key <key|@file>   hex (raw) or PEM (SPKI)
  --signature <hex|@file>    the signature that 'crypto-service sign' printed
  -a, --algorithm <id>       the algorithm it was made with (ed25519 by default)
  --context <text>           the context string it was made with, if any

Output: {"valid", "algorithm"}; with --plain, "valid" or "invalid". Exit status 3 when the
signature does not verify, so that 'if crypto-service verify …' works in scripts.`;

const OPTIONS = {
  'public-key': { type: 'string' },
  signature: { type: 'string' },
  algorithm: { type: 'string', short: 'a' },
  context: { type: 'string' },
} as const;

export const verify: Command = {
  name: 'verify',
  summary: 'verify a signature over a file or standard input',
  help: HELP,
  async run(context) {
    const { values, positionals } = parseCommand(context.args, OPTIONS, 1);
    const publicKey = await required(values['public-key'], 'public-key');
    const signature = await required(values.signature, 'signature');
    const message = await readInput(positionals[0], context);
    const { data } = await connect(values, context.env).verify({
      algorithm: values.algorithm as VerifyRequest['algorithm'],
      publicKey,
      signature,
      message: message.toString('base64'),
      context: values.context,
      encoding: 'base64',
    });
    return verdict(data.valid, data);
  },
};
