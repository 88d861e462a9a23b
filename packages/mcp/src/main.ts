/**
 * crypto-service-mcp: reads the command line and serves MCP over stdio or Streamable HTTP. Every
 * message of its own goes to stderr, because stdout is the protocol's channel on stdio.
 */
import { createRequire } from 'node:module';
import { HELP, parseInvocation, UsageError, type Invocation } from './config.ts';
import { startMcpHttpServer } from './http.ts';
import { serveStdio } from './stdio.ts';

const PROGRAM = 'crypto-service-mcp';

async function main(argv: readonly string[]): Promise<number> {
  let invocation: Invocation;
  try {
    invocation = parseInvocation(argv, process.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${PROGRAM}: ${error.message}\nSee '${PROGRAM} --help'.\n`);
    return 2;
  }
  if (invocation.kind === 'help') {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  if (invocation.kind === 'version') {
    const { version } = createRequire(import.meta.url)('../package.json') as { version: string };
    process.stdout.write(`${version}\n`);
    return 0;
  }
  if (invocation.kind === 'stdio') {
    await serveStdio(invocation.options);
    return 0;
  }
  try {
    const server = await startMcpHttpServer(invocation.options);
    process.stderr.write(`${PROGRAM}: MCP over Streamable HTTP at ${server.url}\n`);
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void server.close());
    return 0;
  } catch (error) {
    process.stderr.write(`${PROGRAM}: ${(error as Error).message}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
