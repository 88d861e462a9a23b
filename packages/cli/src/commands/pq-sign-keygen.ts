import type { PqDsaKeygenRequest } from '@crypto-service/client';
import type { Command } from '../command.ts';
import { integer, parseCommand } from '../args.ts';
import { connect } from '../connection.ts';
import { lines } from '../results.ts';

const HELP = `Usage: crypto-service pq sign-keygen [options]

Generates an ML-DSA (FIPS 204) signing key pair.

Options:
  --level <n>           44, 65 (default) or 87

Output: {"publicKey", "secretKey", "algorithm"}; with --plain, the public key then the secret
key (the 32-byte seed), hex, one per line.`;

const OPTIONS = {
  level: { type: 'string' },
} as const;

export const pqSignKeygen: Command = {
  name: 'pq sign-keygen',
  summary: 'generate an ML-DSA key pair',
  help: HELP,
  async run(context) {
    const { values } = parseCommand(context.args, OPTIONS, 0);
    // The service says which levels exist (a 400 names them); the CLI only checks it is a number.
    const level = integer(values.level, 'level') as PqDsaKeygenRequest['level'];
    const { data } = await connect(values, context.env).pqSignKeygen({ level });
    return { json: data, plain: lines(data.publicKey, data.secretKey) };
  },
};
