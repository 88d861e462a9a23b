import type { Command } from '../command.ts';
import { optional, parseCommand, required } from '../args.ts';
import { connect } from '../connection.ts';
import { readInput } from '../input.ts';

const HELP = `Usage: crypto-service encrypt [file] --key <hex> [options]

Encrypts a file, or standard input, with XChaCha20-Poly1305. Any bytes can be encrypted.

Options:
  --key <hex|@file>     the 32-byte key, hex ('crypto-service keys generate -a xchacha20-poly1305')
  --aad <text>          additional authenticated data: not encrypted, but needed to decrypt

Output: {"ciphertext", "algorithm"}; with --plain, the base64 ciphertext.

Example:
  crypto-service encrypt notes.txt --key @key.hex --plain > notes.enc`;

const OPTIONS = {
  key: { type: 'string' },
  aad: { type: 'string' },
} as const;

export const encrypt: Command = {
  name: 'encrypt',
  summary: 'encrypt a file or standard input (XChaCha20-Poly1305)',
  help: HELP,
  async run(context) {
    const { values, positionals } = parseCommand(context.args, OPTIONS, 1);
    const key = await required(values.key, 'key');
    const aad = await optional(values.aad, 'aad');
    const plaintext = await readInput(positionals[0], context);
    // Everything goes as base64 (`encoding` covers the AAD too), so binary input survives.
    const { data } = await connect(values, context.env).encrypt({
      key,
      plaintext: plaintext.toString('base64'),
      aad: aad === undefined ? undefined : Buffer.from(aad).toString('base64'),
      encoding: 'base64',
    });
    return { json: data, plain: data.ciphertext };
  },
};
