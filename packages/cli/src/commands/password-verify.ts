import type { Command } from '../command.ts';
import { parseCommand, required } from '../args.ts';
import { connect } from '../connection.ts';
import { readLine } from '../input.ts';
import { verdict } from '../results.ts';

const HELP = `Usage: crypto-service password verify [file] --hash <phc> [options]

Checks a password, read from standard input (or a file; one final line break is removed),
against an Argon2 PHC string.

Options:
  --hash <phc|@file>    the PHC string that 'password hash' printed ($argon2id$v=19$…)

Output: {"valid", "needsRehash"}; with --plain, "valid" or "invalid". Exit status 3 when the
password does not match.`;

const OPTIONS = {
  hash: { type: 'string' },
} as const;

export const passwordVerify: Command = {
  name: 'password verify',
  summary: 'check a password from standard input against a hash',
  help: HELP,
  async run(context) {
    const { values, positionals } = parseCommand(context.args, OPTIONS, 1);
    const hash = await required(values.hash, 'hash');
    const password = await readLine(positionals[0], context);
    const { data } = await connect(values, context.env).passwordVerify({ password, hash });
    return verdict(data.valid, data);
  },
};
