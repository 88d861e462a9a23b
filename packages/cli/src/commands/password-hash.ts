import type { Command } from '../command.ts';
import { integer, parseCommand } from '../args.ts';
import { connect } from '../connection.ts';
import { readLine } from '../input.ts';

const HELP = `Usage: crypto-service password hash [file] [options]

Hashes a password with Argon2id. The password is read from standard input (or a file), never
from the command line, where other users could see it; one final line break is removed.

Options:
  --time-cost <t>       passes (default 3; at least 2)
  --memory-cost <KiB>   memory (default 65536; at least 19456)
  --parallelism <p>     lanes (default 4)

Output: {"hash", "algorithm", "params"}; with --plain, the PHC string.

Example:
  printf '%s' "$PASSWORD" | crypto-service password hash --plain`;

const OPTIONS = {
  'time-cost': { type: 'string' },
  'memory-cost': { type: 'string' },
  parallelism: { type: 'string' },
} as const;

export const passwordHash: Command = {
  name: 'password hash',
  summary: 'hash a password (Argon2id) read from standard input',
  help: HELP,
  async run(context) {
    const { values, positionals } = parseCommand(context.args, OPTIONS, 1);
    const timeCost = integer(values['time-cost'], 'time-cost');
    const memoryCost = integer(values['memory-cost'], 'memory-cost');
    const parallelism = integer(values.parallelism, 'parallelism');
    const password = await readLine(positionals[0], context);
    const { data } = await connect(values, context.env).passwordHash({ password, timeCost, memoryCost, parallelism });
    return { json: data, plain: data.hash };
  },
};
