import type { Command } from '../command.ts';
import { parseCommand, required } from '../args.ts';
import { connect } from '../connection.ts';

const HELP = `Usage: crypto-service pq decapsulate --private-key <hex> --ciphertext <hex> [options]

Recovers the shared secret from an X-Wing ciphertext.

Options:
  --private-key <hex|@file> the 32-byte X-Wing private key that 'pq keygen' printed
  --ciphertext <hex|@file>  the ciphertext that 'pq encapsulate' printed (1120 bytes, hex)

Output: {"sharedSecret", "algorithm"}; with --plain, the shared secret, hex.`;

const OPTIONS = {
  'private-key': { type: 'string' },
  ciphertext: { type: 'string' },
} as const;

export const pqDecapsulate: Command = {
  name: 'pq decapsulate',
  summary: 'recover the shared secret from an X-Wing ciphertext',
  help: HELP,
  async run(context) {
    const { values } = parseCommand(context.args, OPTIONS, 0);
    const privateKey = await required(values['private-key'], 'private-key');
    const ciphertext = await required(values.ciphertext, 'ciphertext');
    const { data } = await connect(values, context.env).pqDecapsulate({ privateKey, ciphertext });
    return { json: data, plain: data.sharedSecret };
  },
};
