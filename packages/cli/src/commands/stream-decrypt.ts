import type { Command } from '../command.ts';
import { parseCommand, required } from '../args.ts';
import { connect } from '../connection.ts';
import { streamInput } from '../stream-input.ts';

const HELP = `Usage: crypto-service stream decrypt [file] --key <hex> [options]

Decrypts the output of 'stream encrypt' (or of libsodium's secretstream in 64 KiB chunks),
writing the plaintext to standard output as each chunk is verified. If the ciphertext is
damaged, reordered or truncated, the service aborts the stream: the command then fails (exit
status 1) and what it wrote so far is incomplete and must be discarded.

Options:
  --key <hex|@file>     the 32-byte key, hex ('crypto-service keys generate -a xchacha20-poly1305')

Output: the bytes, raw, on standard output (--plain changes nothing).

Example:
  crypto-service stream decrypt --key @key.hex < backup.tar.enc > backup.tar || rm backup.tar`;

const OPTIONS = {
  key: { type: 'string' },
} as const;

export const streamDecrypt: Command = {
  name: 'stream decrypt',
  summary: "decrypt the output of 'stream encrypt'",
  help: HELP,
  async run(context) {
    const { values, positionals } = parseCommand(context.args, OPTIONS, 1);
    const key = await required(values.key, 'key');
    const data = await streamInput(positionals[0], context);
    return { stream: await connect(values, context.env).streamDecrypt({ key, data }) };
  },
};
