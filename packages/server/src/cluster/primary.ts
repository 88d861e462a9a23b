/**
 * Cluster mode (WORKERS > 1): this process forks the workers, each of which runs the
 * ordinary server (server.ts) on the same port, and supervises them. It serves no HTTP itself.
 *
 * - Start: N workers are forked; once each listens, one "cluster ready" line. A worker that exits
 *   before the whole cluster is up (a port in use, a key that cannot be read) stops everything:
 *   exit 1.
 * - A worker that dies later is replaced, at most max(5, N) times within 60 s; one more and the
 *   primary stops every worker and exits 1, rather than fork in a loop.
 * - SIGTERM or SIGINT: each worker is sent SIGTERM and drains through its own shutdown (readiness
 *   503, listener closed, in-flight requests finished, exit 0). The primary exits 0 once every
 *   worker has exited 0, 1 otherwise; at SHUTDOWN_TIMEOUT_MS plus a margin it kills whatever is
 *   left and exits 1. Repeated signals are ignored (Ctrl-C reaches every process of the group: the
 *   workers ignore SIGINT and wait for the primary's SIGTERM, see server.ts).
 * - The primary keeps the host's rate-limit counters (rate-limit-host.ts) and merges the workers'
 *   metrics for /metrics (metrics-gather.ts).
 */
import cluster, { type Worker } from 'node:cluster';
import { fileURLToPath } from 'node:url';
import pino, { type Logger } from 'pino';
import { stdoutDestination } from '../log-destination.ts';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { Config, LogLevel } from '../config.ts';
import { MetricsGatherer, type MetricsWorker } from './metrics-gather.ts';
import { RateLimitHost } from './rate-limit-host.ts';
import { RestartBudget } from './restart-budget.ts';
import { WORKER_MARKER_VARIABLE } from './role.ts';
import { moduleUrl } from '../module-url.ts';

/** What every worker runs: the ordinary server entry point. */
export const SERVER_ENTRY = fileURLToPath(moduleUrl('../server', import.meta.url));
/** Beyond SHUTDOWN_TIMEOUT_MS, the time a worker gets to exit after its own forced exit. */
export const SHUTDOWN_MARGIN_MS = 2000;
export const RESTART_WINDOW_MS = 60_000;
const MIN_RESTARTS_PER_WINDOW = 5;

type Phase = 'starting' | 'running' | 'stopping';

/**
 * pino JSON lines on standard output, as the workers write them (logging.ts), with `role: primary`,
 * through the same writer: a dead log reader can never hold up the exit.
 */
function primaryLogger(level: LogLevel): Logger {
  return pino({ level }, stdoutDestination()).child({ role: 'primary' });
}

function ignoreError(): void {}

class ClusterPrimary {
  readonly #config: Config;
  readonly #log: Logger;
  readonly #budget: RestartBudget;
  readonly #rateLimits: RateLimitHost;
  readonly #metrics: MetricsGatherer;
  readonly #restarts: Counter;
  /** Live workers by id: cluster.workers keeps a dead one until its IPC channel has closed too. */
  readonly #workers = new Map<number, Worker>();
  readonly #endpoints = new Map<number, MetricsWorker>();
  /** Workers that have listened at least once: only they had requests to drain. */
  readonly #listening = new Set<number>();
  #phase: Phase = 'starting';
  #exitCode = 0;

  constructor(config: Config, log: Logger) {
    this.#config = config;
    this.#log = log;
    this.#budget = new RestartBudget(Math.max(MIN_RESTARTS_PER_WINDOW, config.workers), RESTART_WINDOW_MS);
    this.#rateLimits = new RateLimitHost({
      max: config.rateLimit.max,
      windowMs: config.rateLimit.windowMs,
      workers: config.workers,
    });

    const registry = new Registry();
    // The primary's own process figures, under their own names: merged into the workers' they would
    // dilute the averages (event-loop lag) with an idle process's.
    collectDefaultMetrics({ register: registry, prefix: 'cluster_primary_' });
    const workers = this.#workers;
    new Gauge({
      name: 'cluster_workers',
      help: 'Server processes (cluster workers) running under this primary',
      registers: [registry],
      collect() {
        this.set(workers.size);
      },
    });
    this.#restarts = new Counter({
      name: 'cluster_worker_restarts_total',
      help: 'Workers replaced after exiting on their own',
      registers: [registry],
    });
    // Only workers that listen have their app (and its registry) up: one still starting would only
    // make every scrape wait for the time limit.
    this.#metrics = new MetricsGatherer(registry, () =>
      [...this.#listening].flatMap((id) => this.#endpoints.get(id) ?? []),
    );
  }

  start(): void {
    cluster.setupPrimary({ exec: SERVER_ENTRY, args: [] });
    cluster.on('message', (worker, message) => this.#onMessage(worker, message));
    cluster.on('listening', (worker, address) => this.#onListening(worker, address));
    cluster.on('exit', (worker, code, signal) => this.#onExit(worker, code, signal as NodeJS.Signals | null));
    process.on('SIGTERM', (signal) => this.#stop(`received ${signal}`, { signal }));
    process.on('SIGINT', (signal) => this.#stop(`received ${signal}`, { signal }));
    this.#log.info({ workers: this.#config.workers }, `starting ${this.#config.workers} workers`);
    for (let index = 0; index < this.#config.workers; index += 1) this.#fork();
  }

  #fork(): void {
    const worker = cluster.fork({ [WORKER_MARKER_VARIABLE]: '1' });
    // A send to a worker that has just died reports here; the exit handler deals with the death.
    worker.on('error', ignoreError);
    this.#workers.set(worker.id, worker);
    this.#endpoints.set(worker.id, {
      id: worker.id,
      send: (message) => {
        if (worker.isConnected()) worker.send(message as object, undefined, {}, ignoreError);
      },
    });
    this.#log.info({ worker: worker.id, workerPid: worker.process.pid }, 'worker started');
  }

  #onMessage(worker: Worker, message: unknown): void {
    const endpoint = this.#endpoints.get(worker.id);
    if (endpoint === undefined) return;
    try {
      if (this.#rateLimits.handle(endpoint, message)) return;
      this.#metrics.handle(endpoint, message);
    } catch (error) {
      // A bad message must not take the primary, and with it every worker, down.
      this.#log.error({ err: error, worker: worker.id }, 'could not handle a message from a worker');
    }
  }

  #onListening(worker: Worker, address: { address: string; port: number }): void {
    if (this.#listening.has(worker.id)) return; // Its second address (localhost: IPv4 and IPv6).
    this.#listening.add(worker.id);
    if (this.#phase === 'starting' && this.#listening.size === this.#config.workers) {
      this.#phase = 'running';
      const pids = [...this.#workers.values()].map((each) => each.process.pid);
      this.#log.info(
        { workers: this.#config.workers, workerPids: pids, port: address.port },
        `cluster ready: ${this.#config.workers} workers listening`,
      );
    } else if (this.#phase === 'running') {
      this.#log.info({ worker: worker.id, workerPid: worker.process.pid }, 'replacement worker listening');
    }
  }

  #onExit(worker: Worker, code: number | null, signal: NodeJS.Signals | null): void {
    this.#workers.delete(worker.id);
    this.#endpoints.delete(worker.id);
    const listened = this.#listening.delete(worker.id);
    const fields = { worker: worker.id, workerPid: worker.process.pid, code, signal };

    if (this.#phase === 'stopping') {
      // A worker that never listened had nothing to drain, however it ended.
      const clean = code === 0 || !listened;
      if (!clean) this.#exitCode = 1;
      this.#log[clean ? 'info' : 'error'](fields, 'worker exited');
      if (this.#workers.size === 0)
        this.#exit(this.#exitCode === 0 ? 'shutdown complete' : 'shutdown complete, not clean');
      return;
    }
    if (this.#phase === 'starting') {
      this.#log.error(fields, 'a worker exited before the cluster was up: stopping');
      this.#stop('a worker could not start', { failed: true });
      return;
    }
    if (!this.#budget.tryRestart(Date.now())) {
      this.#log.error(
        { ...fields, restarts: this.#budget.max, windowMs: this.#budget.windowMs },
        `workers keep exiting (more than ${this.#budget.max} restarts within ${this.#budget.windowMs / 1000} s): stopping`,
      );
      this.#stop('restart budget exhausted', { failed: true });
      return;
    }
    this.#restarts.inc();
    this.#log[code === 0 ? 'warn' : 'error'](fields, 'worker exited; starting a replacement');
    this.#fork();
  }

  #stop(reason: string, { signal, failed = false }: { signal?: NodeJS.Signals; failed?: boolean }): void {
    if (this.#phase === 'stopping') {
      if (signal !== undefined) this.#log.debug({ signal }, 'already shutting down: signal ignored');
      return;
    }
    this.#phase = 'stopping';
    if (failed) this.#exitCode = 1;
    const timeoutMs = this.#config.shutdownTimeoutMs + SHUTDOWN_MARGIN_MS;
    this.#log.info(
      { signal, reason, timeoutMs: this.#config.shutdownTimeoutMs },
      'shutting down: draining every worker',
    );
    const workers = [...this.#workers.values()];
    // The signal rather than worker.kill(), which would first cut the IPC channel that the
    // draining worker still needs for its rate-limit counts.
    for (const worker of workers) worker.process.kill('SIGTERM');
    if (workers.length === 0) {
      this.#exit('shutdown complete');
      return;
    }
    setTimeout(() => this.#forceExit(timeoutMs), timeoutMs);
  }

  #forceExit(timeoutMs: number): void {
    const remaining = [...this.#workers.values()];
    this.#log.error(
      { timeoutMs, workerPids: remaining.map((worker) => worker.process.pid) },
      'shutdown timed out: killing the remaining workers',
    );
    for (const worker of remaining) worker.process.kill('SIGKILL');
    this.#exitCode = 1;
    // #onExit exits once they are reaped, so that no worker outlives the primary; or after a
    // second, whichever comes first.
    setTimeout(() => this.#exit('forced exit'), 1000).unref();
  }

  #exit(message: string): void {
    this.#log[this.#exitCode === 0 ? 'info' : 'error']({ exitCode: this.#exitCode }, message);
    this.#rateLimits.close();
    process.exit(this.#exitCode);
  }
}

/** Runs this process as the cluster primary; `config` was validated before any worker exists. */
export function runPrimary(config: Config): void {
  const log = primaryLogger(config.logLevel);
  // Logged here, once, rather than by every worker (server.ts skips them in a worker).
  for (const warning of config.warnings) log.warn(warning);
  new ClusterPrimary(config, log).start();
}
