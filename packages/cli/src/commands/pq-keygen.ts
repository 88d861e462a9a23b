import type { Command } from '../command.ts';
import { parseCommand } from '../args.ts';
import { connect } from '../connection.ts';
import { lines } from '../results.ts';

const HELP = `Usage: crypto-service pq keygen [options]

Generates a hybrid post-quantum key-encapsulation key pair: X-Wing (X25519 + ML-KEM-768).

Output: {"publicKey", "privateKey", "algorithm"}; with --plain, the public key then the private
key (the 32-byte seed), hex, one per line.`;

export const pqKeygen: Command = {
  name: 'pq keygen',
  summary: 'generate a hybrid X25519 + ML-KEM-768 (X-Wing) key pair',
  help: HELP,
  async run(context) {
    const { values } = parseCommand(context.args, {}, 0);
    const { data } = await connect(values, context.env).pqGenerateKeyPair();
    return { json: data, plain: lines(data.publicKey, data.privateKey) };
  },
};
