/**
 * The post-quantum offload as shared infrastructure: `app.pqOffload`, for every route that runs
 * ML-KEM, X-Wing, ML-DSA or SLH-DSA (the `/v2/pq` routes, and the generic signature and key
 * routes through core's runner), with its queue metrics. Routes declare it as a dependency.
 */
import fp from 'fastify-plugin';
import { Counter, Gauge, type Registry } from 'prom-client';
import { PqOffload, type PqOffloadOptions } from '../pq-offload.ts';

export interface PqOffloadPluginOptions {
  /** The offload to use (tests pass a small one); by default one is built and closed with the app. */
  offload?: PqOffload;
  /** Sizes of the default offload (workers, queue) and the per-client cap, e.g. from the configuration. */
  queue?: Omit<PqOffloadOptions, 'execute'>;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Keeps post-quantum work off the event loop, behind a bounded queue (pq-offload.ts). */
    pqOffload: PqOffload;
  }
}

/** A Prometheus counter that reports a running total kept elsewhere, read at each scrape. */
function totalCounter(registry: Registry, name: string, help: string, total: () => number): void {
  let reported = 0;
  new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      const now = total();
      this.inc(now - reported);
      reported = now;
    },
  });
}

export default fp<PqOffloadPluginOptions>(
  async function pqOffload(app, options) {
    const offload = options.offload ?? new PqOffload(options.queue);
    if (options.offload === undefined) app.addHook('onClose', () => offload.close());
    app.decorate('pqOffload', offload);
    // They read the offload at scrape time, whether it was built here or passed in.
    totalCounter(
      app.metricsRegistry,
      'crypto_pq_queue_rejected_total',
      'Post-quantum jobs refused with 503 because the post-quantum queue was full',
      () => offload.rejected,
    );
    totalCounter(
      app.metricsRegistry,
      'crypto_pq_queue_dropped_total',
      'Post-quantum jobs dropped before they started because their request had ended (HANDLER_TIMEOUT_MS, or the client left)',
      () => offload.dropped,
    );
    totalCounter(
      app.metricsRegistry,
      'crypto_pq_queue_client_capped_total',
      'Post-quantum jobs refused with 429 because their client had MAX_HEAVY_JOBS_PER_CLIENT in flight',
      () => offload.capped,
    );
    new Gauge({
      name: 'crypto_pq_queue_jobs',
      help: 'Post-quantum jobs in the bounded queue (worker threads, or native SLH-DSA signing and key generation), by state (running, waiting)',
      labelNames: ['state'] as const,
      registers: [app.metricsRegistry],
      collect() {
        this.set({ state: 'running' }, offload.running);
        this.set({ state: 'waiting' }, offload.queued);
      },
    });
  },
  { name: 'pq-offload', dependencies: ['metrics'] },
);
