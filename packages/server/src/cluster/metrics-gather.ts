/**
 * /metrics in cluster mode, the primary's half (the worker's is metrics.ts): on a worker's scrape,
 * collect every listening worker's registry, merge them with prom-client's AggregatorRegistry.aggregate,
 * add the primary's own figures (cluster_workers, cluster_worker_restarts_total, and its process
 * metrics as cluster_primary_*), and send the text back.
 *
 * A worker that has not answered within the time limit is left out of that scrape rather than
 * holding it: `cluster_metrics_missing_workers` says how many were.
 */
import { AggregatorRegistry, Gauge, type Registry } from 'prom-client';
import { COLLECT_TIMEOUT_MS } from './metrics.ts';
import { MessageType, isMessage } from './role.ts';

export interface MetricsWorker {
  /** Stable while the worker lives (cluster's worker.id). */
  id: number;
  send(message: unknown): void;
}

interface Collection {
  waitingFor: Set<number>;
  reports: object[][];
  finish(): void;
}

export class MetricsGatherer {
  readonly #registry: Registry;
  readonly #workers: () => MetricsWorker[];
  readonly #timeoutMs: number;
  readonly #collections = new Map<number, Collection>();
  readonly #missing: Gauge;
  #nextId = 1;

  /**
   * `registry` holds the primary's own metrics; `workers` lists the workers to ask (the connected
   * ones) at the time of each scrape.
   */
  constructor(registry: Registry, workers: () => MetricsWorker[], timeoutMs = COLLECT_TIMEOUT_MS) {
    this.#registry = registry;
    this.#workers = workers;
    this.#timeoutMs = timeoutMs;
    this.#missing = new Gauge({
      name: 'cluster_metrics_missing_workers',
      help: `Workers whose figures are missing from this scrape (no answer within ${timeoutMs} ms)`,
      registers: [registry],
    });
  }

  /** Handles a scrape request or a worker's report; returns whether `message` was one. */
  handle(from: MetricsWorker, message: unknown): boolean {
    if (isMessage(message, MessageType.metricsScrape)) {
      const { id } = message;
      void this.gather().then(
        (text) => from.send({ type: MessageType.metricsScraped, id, text }),
        // Nothing to merge (a malformed report): the worker answers with its own figures.
        () => from.send({ type: MessageType.metricsScraped, id, text: null }),
      );
      return true;
    }
    if (isMessage(message, MessageType.metricsReport)) {
      const collection = this.#collections.get(message.id);
      if (collection === undefined || !collection.waitingFor.delete(from.id)) return true;
      if (Array.isArray(message.metrics)) collection.reports.push(message.metrics as object[]);
      if (collection.waitingFor.size === 0) collection.finish();
      return true;
    }
    return false;
  }

  /** Every worker's figures, merged, plus the primary's: Prometheus text. */
  async gather(): Promise<string> {
    const id = this.#nextId++;
    const workers = this.#workers();
    const reports = await new Promise<object[][]>((resolve) => {
      const collection: Collection = {
        waitingFor: new Set(workers.map((worker) => worker.id)),
        reports: [],
        finish: () => {
          clearTimeout(timer);
          this.#collections.delete(id);
          resolve(collection.reports);
        },
      };
      const timer = setTimeout(() => collection.finish(), this.#timeoutMs);
      this.#collections.set(id, collection);
      for (const worker of workers) worker.send({ type: MessageType.metricsCollect, id });
      if (workers.length === 0) collection.finish();
    });
    this.#missing.set(workers.length - reports.length);
    const merged = AggregatorRegistry.aggregate([...reports, await this.#registry.getMetricsAsJSON()]);
    return merged.metrics();
  }
}
