/**
 * The entry point: read the configuration, build the app, listen, and shut down gracefully.
 *
 * On SIGTERM or SIGINT: readiness turns 503 at once, the listener stops accepting connections,
 * in-flight requests finish, and the process exits 0. If they have not finished after
 * SHUTDOWN_TIMEOUT_MS, the process exits 1 anyway, so that an orchestrator is never kept waiting.
 *
 * WORKERS > 1: this process becomes the cluster primary (cluster/primary.ts), which forks the
 * workers; each worker runs this same file and serves as below. The configuration is validated
 * here first, in the primary, so that a bad value stops the start once, before any worker exists.
 */
// First, so that Node settles its async-context implementation before anything else runs
// (async-context.ts says why).
import { settleAsyncContext } from './async-context.ts';
import cluster from 'node:cluster';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { answerMetricsCollection } from './cluster/metrics.ts';
import { isClusterWorker } from './cluster/role.ts';

settleAsyncContext();

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

if (cluster.isPrimary && config.workers > 1) {
  // The primary serves no HTTP: it loads the supervisor alone, not the app and its crypto libraries.
  const { runPrimary } = await import('./cluster/primary.ts');
  runPrimary(config);
} else {
  await serve(config);
}

async function serve(config: Config): Promise<void> {
  const clusterWorker = isClusterWorker();
  // Ctrl-C sends SIGINT to every process of the terminal's group, the workers included: they leave
  // it to the primary, which relays it as SIGTERM to each of them, so that the whole cluster drains
  // once, in step, and the primary knows when it is over.
  if (clusterWorker) process.on('SIGINT', () => {});

  // Before the app exists, so that the start-up self-tests' Argon2id already runs at this priority.
  const { lowerThreadPoolPriority } = await import('./thread-priority.ts');
  const loweredThreads = await lowerThreadPoolPriority(config.heavyWorkNice);

  const { buildApp } = await import('./app.ts');
  const app = await buildApp(config).catch((error: unknown) => fail(`cannot start: ${(error as Error).message}`));
  // In cluster mode the primary has logged them, once for all workers.
  if (!clusterWorker) for (const warning of config.warnings) app.log.warn(warning);
  if (clusterWorker) answerMetricsCollection(app.metricsRegistry);
  if (config.heavyWorkNice > 0 && loweredThreads === 0 && process.platform === 'linux') {
    app.log.warn(
      { nice: config.heavyWorkNice },
      "HEAVY_WORK_NICE: no thread of libuv's pool could be lowered in priority; heavy work runs at the event loop's priority",
    );
  } else {
    app.log.debug(
      { threads: loweredThreads, nice: config.heavyWorkNice },
      'heavy-work threads lowered in priority (HEAVY_WORK_NICE)',
    );
  }

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
  if (!clusterWorker) process.on('SIGINT', (signal) => void shutdown(signal));

  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    // A stop requested while listen() was under way: the shutdown under way decides the exit.
    if (shuttingDown) return;
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'EADDRINUSE'
        ? `port ${config.port} is already in use (PORT)`
        : code === 'EACCES'
          ? `no permission to listen on port ${config.port} (PORT)`
          : (error as Error).message;
    fail(`cannot listen on ${config.protocol}://${config.host}:${config.port}: ${reason}`);
  }
}
