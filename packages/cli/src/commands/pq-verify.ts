import type { PqDsaVerifyRequest } from '@crypto-service/client';
import type { Command } from '../command.ts';
import { parseCommand, required } from '../args.ts';
import { connect } from '../connection.ts';
import { readInput } from '../input.ts';
import { verdict } from '../results.ts';

const HELP = `Usage: crypto-service pq verify [file] --public-key <hex> --signature <hex> [options]

Verifies an ML-DSA signature over a file, or over standard input.

Options:
  --public-key <hex|@file>  the public key that 'pq sign-keygen' printed (its length gives the
                            parameter set)
  --signature <hex|@file>   the signature that 'pq sign' printed
  -a, --algorithm <id>      ml-dsa-44, ml-dsa-65 or ml-dsa-87, if you want it checked against the key
  --context <text>          the context string it was made with, if any

Output: {"valid", "algorithm"}; with --plain, "valid" or "invalid". Exit status 3 when the
signature does not verify.`;

const OPTIONS = {
  'public-key': { type: 'string' },
  signature: { type: 'string' },
  algorithm: { type: 'string', short: 'a' },
  context: { type: 'string' },
} as const;

export const pqVerify: Command = {
  name: 'pq verify',
  summary: 'verify an ML-DSA signature',
  help: HELP,
  async run(context) {
    const { values, positionals } = parseCommand(context.args, OPTIONS, 1);
    const publicKey = await required(values['public-key'], 'public-key');
    const signature = await required(values.signature, 'signature');
    const algorithm = values.algorithm as PqDsaVerifyRequest['algorithm'];
    const message = await readInput(positionals[0], context);
    const { data } = await connect(values, context.env).pqVerify({
      publicKey,
      signature,
      message: message.toString('base64'),
      algorithm,
      context: values.context,
      encoding: 'base64',
    });
    return verdict(data.valid, data);
  },
};
