import type { Command } from '../command.ts';
import { parseCommand, required } from '../args.ts';
import { connect } from '../connection.ts';
import { streamInput } from '../stream-input.ts';

const HELP = `Usage: crypto-service stream encrypt [file] --key <hex> [options]

Encrypts a file, or standard input, of any length, as libsodium's
crypto_secretstream_xchacha20poly1305 in 64 KiB chunks: the output goes to standard output as it
is produced, and neither side holds the whole payload. 'stream decrypt', or libsodium, opens it.

Options:
  --key <hex|@file>     the 32-byte key, hex ('crypto-service keys generate -a xchacha20-poly1305')

Output: the bytes, raw, on standard output (--plain changes nothing).

Example:
  crypto-service stream encrypt --key @key.hex < backup.tar > backup.tar.enc`;

const OPTIONS = {
  key: { type: 'string' },
} as const;

export const streamEncrypt: Command = {
  name: 'stream encrypt',
  summary: 'encrypt a stream of any length (libsodium secretstream)',
  help: HELP,
  async run(context) {
    const { values, positionals } = parseCommand(context.args, OPTIONS, 1);
    const key = await required(values.key, 'key');
    const data = await streamInput(positionals[0], context);
    return { stream: await connect(values, context.env).streamEncrypt({ key, data }) };
  },
};
