import type { PqDsaKeygenRequest } from '@crypto-service/client';
import type { Command } from '../command.ts';
import { parseCommand } from '../args.ts';
import { connect } from '../connection.ts';
import { lines } from '../results.ts';

const HELP = `Usage: crypto-service pq sign-keygen [options]

Generates an ML-DSA (FIPS 204) signing key pair.

Options:
  -a, --algorithm <id>  ml-dsa-44, ml-dsa-65 (default) or ml-dsa-87

Output: {"publicKey", "privateKey", "algorithm"}; with --plain, the public key then the private
key (the 32-byte seed), hex, one per line.

Example:
  crypto-service pq sign-keygen --algorithm ml-dsa-87 --plain > ml-dsa.keys`;

const OPTIONS = {
  algorithm: { type: 'string', short: 'a' },
} as const;

export const pqSignKeygen: Command = {
  name: 'pq sign-keygen',
  summary: 'generate an ML-DSA key pair',
  help: HELP,
  async run(context) {
    const { values } = parseCommand(context.args, OPTIONS, 0);
    // The service is the authority on identifiers: an unknown one comes back as its 400, which lists them.
    const algorithm = values.algorithm as PqDsaKeygenRequest['algorithm'];
    const { data } = await connect(values, context.env).pqSignKeygen({ algorithm });
    return { json: data, plain: lines(data.publicKey, data.privateKey) };
  },
};
