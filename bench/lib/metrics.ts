/**
 * Reads a server's Prometheus text from GET /metrics (exempt from authentication and the rate
 * limit) into a map from the sample's name with its labels, exactly as printed, to its value:
 * `nodejs_heap_size_used_bytes`, `crypto_pq_queue_jobs{state="running"}`, …
 *
 * prom-client computes some default metrics at scrape time: reading resets the event-loop delay
 * histogram (nodejs_eventloop_lag_*), which bench/live-under-load.ts relies on.
 */
export async function scrapeMetrics(baseUrl: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line === '') continue;
    const space = line.lastIndexOf(' ');
    values.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return values;
}
