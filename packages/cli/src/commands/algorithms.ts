import type { Command } from '../command.ts';
import { parseCommand } from '../args.ts';
import { connect } from '../connection.ts';

const HELP = `Usage: crypto-service algorithms [options]

Lists every algorithm identifier the service accepts, by family.

Output: {"hash": [...], "aead": [...], …}; with --plain, one line per family:
"<family>: <id> <id> …".`;

export const algorithms: Command = {
  name: 'algorithms',
  summary: 'list the algorithms the service accepts',
  help: HELP,
  async run(context) {
    const { values } = parseCommand(context.args, {}, 0);
    const { data } = await connect(values, context.env).algorithms();
    const plain = Object.entries(data)
      .map(([family, ids]) => `${family}: ${ids.join(' ')}`)
      .join('\n');
    return { json: data, plain };
  },
};
