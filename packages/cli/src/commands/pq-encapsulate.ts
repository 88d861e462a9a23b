import type { Command } from '../command.ts';
import { parseCommand, required } from '../args.ts';
import { connect } from '../connection.ts';
import { lines } from '../results.ts';

const HELP = `Usage: crypto-service pq encapsulate --public-key <hex> [options]

Makes a fresh shared secret for the holder of an X-Wing key pair, and the ciphertext that lets
them recover it.

Options:
  --public-key <hex|@file>  the X-Wing public key that 'pq keygen' printed (1216 bytes, hex)

Output: {"ciphertext", "sharedSecret", "algorithm"}; with --plain, the ciphertext then the shared
secret, hex, one per line.`;

const OPTIONS = {
  'public-key': { type: 'string' },
} as const;

export const pqEncapsulate: Command = {
  name: 'pq encapsulate',
  summary: 'make a shared secret for an X-Wing public key',
  help: HELP,
  async run(context) {
    const { values } = parseCommand(context.args, OPTIONS, 0);
    const publicKey = await required(values['public-key'], 'public-key');
    const { data } = await connect(values, context.env).pqEncapsulate({ publicKey });
    return { json: data, plain: lines(data.ciphertext, data.sharedSecret) };
  },
};
