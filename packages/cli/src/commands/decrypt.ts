import type { Command } from '../command.ts';
import { optional, parseCommand, required } from '../args.ts';
import { connect } from '../connection.ts';
import { readToken } from '../input.ts';

const HELP = `Usage: crypto-service decrypt [file] --key <hex> [options]

Decrypts the base64 ciphertext that 'crypto-service encrypt' printed, read from a file or from
standard input.

Options:
  --key <hex|@file>     the 32-byte key, hex
  --aad <text>          the additional authenticated data given to encrypt

Output: {"plaintext", "encoding"}: the plaintext as text ("utf8") when it is UTF-8, else as
base64 ("base64"); with --plain, the plaintext's bytes exactly.

Example:
  crypto-service decrypt notes.enc --key @key.hex --plain > notes.txt`;

const OPTIONS = {
  key: { type: 'string' },
  aad: { type: 'string' },
} as const;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

export const decrypt: Command = {
  name: 'decrypt',
  summary: 'decrypt what encrypt produced',
  help: HELP,
  async run(context) {
    const { values, positionals } = parseCommand(context.args, OPTIONS, 1);
    const key = await required(values.key, 'key');
    const aad = await optional(values.aad, 'aad');
    const ciphertext = await readToken(positionals[0], context);
    const { data } = await connect(values, context.env).decrypt({
      key,
      ciphertext,
      aad: aad === undefined ? undefined : Buffer.from(aad).toString('base64'),
      encoding: 'base64',
    });
    const bytes = Buffer.from(data, 'base64');
    return { json: asJson(bytes), plain: bytes };
  },
};

/** JSON cannot carry bytes: text when the plaintext is UTF-8, base64 when it is not. */
function asJson(bytes: Buffer): { plaintext: string; encoding: 'utf8' | 'base64' } {
  try {
    return { plaintext: strictUtf8.decode(bytes), encoding: 'utf8' };
  } catch {
    return { plaintext: bytes.toString('base64'), encoding: 'base64' };
  }
}
