import type { Command } from '../command.ts';
import { parseCommand } from '../args.ts';
import { connect } from '../connection.ts';

const HELP = `Usage: crypto-service health [options]

Asks the service whether it is up (GET /health; no credential needed).

Output: {"status": "ok", "uptime"}; with --plain, "ok". Exit status 1 when the service does
not answer.`;

export const health: Command = {
  name: 'health',
  summary: 'check that the service is up',
  help: HELP,
  async run(context) {
    const { values } = parseCommand(context.args, {}, 0);
    const { data } = await connect(values, context.env).health();
    return { json: data, plain: data.status };
  },
};
