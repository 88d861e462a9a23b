/**
 * The entry point: read the configuration, build the app, listen, and shut down gracefully.
 *
 * On SIGTERM or SIGINT: readiness turns 503 at once, the listener stops accepting connections,
 * in-flight requests finish, and the process exits 0. If they have not finished after
 * SHUTDOWN_TIMEOUT_MS, the process exits 1 anyway, so that an orchestrator is never kept waiting.
 */
import { ConfigError, loadConfig, type Config } from './config.ts';
import { buildApp } from './app.ts';

function fail(message: string): never {
  process.stderr.write(`crypto-service: ${message}\n`);
  process.exit(1);
}

let config: Config;
try {
  config = loadConfig(process.env);
} catch (error) {
  if (error instanceof ConfigError) fail(`configuration error: ${error.message}`);
  throw error;
}

const app = await buildApp(config).catch((error: unknown) => fail(`cannot start: ${(error as Error).message}`));
for (const warning of config.warnings) app.log.warn(warning);

let shuttingDown = false;
async function shutdown(signal: NodeJS.Signals): Promise<void> {
  if (shuttingDown) return;
  shuttingDown = true;
  app.log.info({ signal, timeoutMs: config.shutdownTimeoutMs }, 'shutting down: draining in-flight requests');
  app.readiness.startDraining();
  const force = setTimeout(() => {
    app.log.error({ timeoutMs: config.shutdownTimeoutMs }, 'shutdown timed out: forcing exit');
    process.exit(1);
  }, config.shutdownTimeoutMs);
  force.unref();
  try {
    await app.close();
    app.log.info('shutdown complete');
    process.exit(0);
  } catch (error) {
    app.log.error({ err: error }, 'shutdown failed');
    process.exit(1);
  }
}
process.on('SIGTERM', (signal) => void shutdown(signal));
process.on('SIGINT', (signal) => void shutdown(signal));

try {
  await app.listen({ port: config.port, host: config.host });
} catch (error) {
  const code = (error as NodeJS.ErrnoException).code;
  const reason = code === 'EADDRINUSE' ? `port ${config.port} is already in use (PORT)` : code === 'EACCES' ? `no permission to listen on port ${config.port} (PORT)` : (error as Error).message;
  fail(`cannot listen on ${config.protocol}://${config.host}:${config.port}: ${reason}`);
}
