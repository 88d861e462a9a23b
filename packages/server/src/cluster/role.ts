/**
 * Which part this process plays in cluster mode (WORKERS > 1).
 *
 * The primary marks the workers it forks with an environment variable, so that a worker of some
 * other cluster manager (pm2's cluster mode also runs the server as a node:cluster worker) is not
 * taken for one of ours: that process has no primary of ours to ask for shared rate-limit counts or
 * metrics, and runs exactly as a single process would.
 */
import cluster from 'node:cluster';

export const WORKER_MARKER_VARIABLE = 'CRYPTO_SERVICE_CLUSTER_WORKER';

/** True in a worker forked by cluster/primary.ts. */
export function isClusterWorker(): boolean {
  return cluster.isWorker && process.env[WORKER_MARKER_VARIABLE] === '1' && typeof process.send === 'function';
}

/** Message types on the IPC channel between the primary and its workers (cluster's own use `cmd`). */
export const MessageType = {
  /** worker → primary: rate-limit units to consume, a batch. */
  rateLimitConsume: 'crypto-service:rate-limit:consume',
  /** primary → worker: the window counts, in the batch's order. */
  rateLimitCounts: 'crypto-service:rate-limit:counts',
  /** worker → primary: a /metrics scrape wants every worker's figures. */
  metricsScrape: 'crypto-service:metrics:scrape',
  /** primary → worker: the aggregated exposition text. */
  metricsScraped: 'crypto-service:metrics:scraped',
  /** primary → worker: send your registry's figures. */
  metricsCollect: 'crypto-service:metrics:collect',
  /** worker → primary: this worker's registry as JSON. */
  metricsReport: 'crypto-service:metrics:report',
} as const;

/** Every message of ours is an object with a `type` from MessageType and a numeric correlation `id`. */
export interface Message {
  type: string;
  id: number;
  [field: string]: unknown;
}

export function isMessage(value: unknown, type: string): value is Message {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Message).type === type &&
    typeof (value as Message).id === 'number'
  );
}
