/**
 * /metrics in cluster mode, the worker's half (the primary's is metrics-gather.ts).
 *
 * A scrape reaches one worker, chosen by the connection; it asks the primary, which collects every
 * worker's registry and merges them (prom-client's AggregatorRegistry rules: counters, histograms
 * and gauges summed, the event-loop-lag gauges averaged or min/max, process_start_time_seconds
 * omitted, nodejs_version_info taken from the first worker), so the scrape shows the host's totals
 * whichever worker answers. The primary adds its own figures under names of their own
 * (cluster_*, cluster_primary_*). Outside cluster mode, and as a fallback when the primary does not
 * answer in time, the exposition is this process's own registry.
 */
import type { Registry } from 'prom-client';
import { processChannel, type PrimaryChannel } from './channel.ts';
import { MessageType, isMessage } from './role.ts';

/** How long the primary waits for the workers' figures; the ones that have not arrived are left out. */
export const COLLECT_TIMEOUT_MS = 1000;
/** How long a worker waits for the primary's merged text before answering with its own figures. */
export const SCRAPE_TIMEOUT_MS = COLLECT_TIMEOUT_MS + 1000;

export interface Exposition {
  contentType: string;
  body: string;
}

/**
 * The scrapes this worker has asked the primary for, by id, with ONE listener per channel however
 * many scrapes are waiting (/metrics is exempt from the rate limit: a listener per scrape could
 * pile up).
 */
class ScrapeRequests {
  readonly #channel: PrimaryChannel;
  readonly #waiting = new Map<number, (text: string | undefined) => void>();
  #nextId = 1;
  #unsubscribe: (() => void) | undefined;

  constructor(channel: PrimaryChannel) {
    this.#channel = channel;
  }

  ask(timeoutMs: number): Promise<string | undefined> {
    const id = this.#nextId++;
    this.#unsubscribe ??= this.#channel.subscribe((message) => {
      if (!isMessage(message, MessageType.metricsScraped)) return;
      this.#waiting.get(message.id)?.(typeof message.text === 'string' ? message.text : undefined);
    });
    return new Promise((resolve) => {
      const finish = (text: string | undefined) => {
        clearTimeout(timer);
        this.#waiting.delete(id);
        if (this.#waiting.size === 0) {
          this.#unsubscribe?.();
          this.#unsubscribe = undefined;
        }
        resolve(text);
      };
      const timer = setTimeout(() => finish(undefined), timeoutMs);
      this.#waiting.set(id, finish);
      try {
        this.#channel.send({ type: MessageType.metricsScrape, id });
      } catch {
        finish(undefined);
      }
    });
  }
}

const scrapeRequests = new WeakMap<PrimaryChannel, ScrapeRequests>();

/**
 * The text for a /metrics scrape: the whole host's figures in cluster mode, this process's
 * otherwise. Never waits longer than SCRAPE_TIMEOUT_MS.
 */
export async function metricsExposition(
  registry: Registry,
  channel: PrimaryChannel | undefined = processChannel(),
  timeoutMs = SCRAPE_TIMEOUT_MS,
): Promise<Exposition> {
  if (channel === undefined) return { contentType: registry.contentType, body: await registry.metrics() };
  const merged = await askPrimary(channel, timeoutMs);
  if (merged !== undefined) return { contentType: registry.contentType, body: merged };
  const own = await registry.metrics();
  return {
    contentType: registry.contentType,
    body: `# The cluster's merged figures are unavailable (no answer from the primary within ${timeoutMs} ms, or nothing to merge): these are this worker's (pid ${process.pid}) alone.\n${own}`,
  };
}

function askPrimary(channel: PrimaryChannel, timeoutMs: number): Promise<string | undefined> {
  let requests = scrapeRequests.get(channel);
  if (requests === undefined) {
    requests = new ScrapeRequests(channel);
    scrapeRequests.set(channel, requests);
  }
  return requests.ask(timeoutMs);
}

/**
 * Answers the primary's requests for this worker's figures, from `registry` (each app has its own,
 * app.metricsRegistry, rather than prom-client's global one). Returns the function that stops it.
 */
export function answerMetricsCollection(
  registry: Registry,
  channel: PrimaryChannel | undefined = processChannel(),
): () => void {
  if (channel === undefined) return () => {};
  return channel.subscribe((message) => {
    if (!isMessage(message, MessageType.metricsCollect)) return;
    const { id } = message;
    const report = (metrics: unknown) => {
      try {
        channel.send({ type: MessageType.metricsReport, id, metrics });
      } catch {
        // The primary is gone: nobody is waiting for these figures.
      }
    };
    // A failing collect() leaves this worker out of the scrape, at once rather than at the timeout.
    registry.getMetricsAsJSON().then(report, () => report(null));
  });
}
