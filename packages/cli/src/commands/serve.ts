import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { constants } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { SERVER_V8_FLAGS } from '@crypto-service/server/v8-flags';
import { UsageError, type Command } from '../command.ts';
import { integer } from '../args.ts';

const HELP = `Usage: crypto-service serve [options]

Starts the service in the foreground, on the Node.js that runs this command, with the server's
configuration variables (PORT, HOST, CRYPTO_API_KEY, JWT_SECRET, …; see the README). Stops
gracefully on SIGINT (Ctrl-C) or SIGTERM.

Options:
  --port <n>            sets PORT (default 3000)
  --host <address>      sets HOST (default localhost)
  -h, --help            this help

Exit status: the server's (0 after a clean shutdown; 1 when it cannot start).`;

/** The server's entry point: its source in this repository, its build where the package is installed. */
function serverEntry(): string {
  return fileURLToPath(import.meta.resolve('@crypto-service/server/main'));
}

export const serve: Command = {
  name: 'serve',
  summary: 'start the service in the foreground',
  help: HELP,
  async run(context) {
    let values: { port?: string | undefined; host?: string | undefined };
    try {
      ({ values } = parseArgs({
        args: context.args,
        options: { port: { type: 'string' }, host: { type: 'string' } },
        strict: true,
      }));
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    const port = integer(values.port, 'port', 0, 65_535);
    const env = {
      ...context.env,
      ...(port === undefined ? {} : { PORT: String(port) }),
      ...(values.host === undefined ? {} : { HOST: values.host }),
    };
    // With the V8 flags of `npm start`, so that the heap behaves as in production.
    const child = spawn(process.execPath, [...SERVER_V8_FLAGS, serverEntry()], { stdio: 'inherit', env });
    // A signal sent to this process only (kill <pid>, a supervisor) must reach the server, whose
    // own handler drains in-flight requests; Ctrl-C reaches both, and the server ignores the repeat.
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    try {
      const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
      return { exitCode: code ?? 128 + (signal === null ? 0 : constants.signals[signal]) };
    } finally {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
    }
  },
};
