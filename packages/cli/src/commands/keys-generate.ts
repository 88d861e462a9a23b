import type { KeyGenerateRequest } from '@crypto-service/client';
import type { Command } from '../command.ts';
import { parseCommand } from '../args.ts';
import { connect } from '../connection.ts';
import { lines } from '../results.ts';

const HELP = `Usage: crypto-service keys generate [options]

Generates a key pair (or a symmetric key) on the service.

Options:
  -a, --algorithm <id>  ed25519 (default), ed448, ecdsa-p256, ecdsa-p384, x25519, x448,
                        ml-dsa-65, …, or a symmetric id: xchacha20-poly1305, aes-256, hmac-sha256, …
                        ('crypto-service algorithms' lists them: keyGeneration)
  --format <format>     raw (hex, the form the other commands take; default), pem or jwk

Output: the service's key object; with --plain, the public key then the private key, one per
line (a PEM key takes several lines; a JWK is one line of JSON), or the symmetric key.`;

const OPTIONS = {
  algorithm: { type: 'string', short: 'a' },
  format: { type: 'string' },
} as const;

export const keysGenerate: Command = {
  name: 'keys generate',
  summary: 'generate a key pair or a symmetric key',
  help: HELP,
  async run(context) {
    const { values } = parseCommand(context.args, OPTIONS, 0);
    const { data } = await connect(values, context.env).generateKeyPair({
      algorithm: values.algorithm as KeyGenerateRequest['algorithm'],
      format: values.format as KeyGenerateRequest['format'],
    });
    return { json: data, plain: 'key' in data ? lines(data.key) : lines(data.publicKey, data.privateKey) };
  },
};
