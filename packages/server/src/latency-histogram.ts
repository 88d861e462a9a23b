/**
 * A Prometheus histogram kept in plain arrays and read by prom-client's registry like any of its
 * own metrics: the request-latency histogram, observed once per request. prom-client's
 * Histogram.observe() checks the labels object and hashes it into a string on every call; here a
 * request adds to the arrays of its series, which the metrics plugin finds without building
 * anything.
 *
 * What a scrape sees is what prom-client's Histogram gives: per series (once it has an
 * observation) cumulative `_bucket{le="…"}` lines, `le="+Inf"`, `_sum` and `_count`, labels in
 * the same order, and the same JSON (aggregator `sum`) for the cluster primary to add up.
 */
import type { Metric } from 'prom-client';

/** One line of the exposition, as prom-client's registry reads it from get(). */
interface ReportedValue {
  labels: Record<string, string | number>;
  value: number;
  metricName: string;
}

export interface HistogramSeries {
  readonly labels: Readonly<Record<string, string>>;
  /** Observations per bucket, not cumulative; the last slot holds those above every bound. */
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

export class LatencyHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly name: string;
  readonly help: string;
  readonly #bounds: readonly number[];
  readonly #series: HistogramSeries[] = [];

  constructor(name: string, help: string, bounds: readonly number[]) {
    if (bounds.some((bound, index) => index > 0 && bound <= (bounds[index - 1] ?? -Infinity))) {
      throw new Error('histogram bounds must increase');
    }
    this.name = name;
    this.help = help;
    this.#bounds = [...bounds];
  }

  /** Registers the histogram with a registry, where prom-client's own metrics would be. */
  registerIn(registry: { registerMetric(metric: Metric): void }): this {
    registry.registerMetric(this as unknown as Metric);
    return this;
  }

  /** A new series with these labels; keep it and observe into it. */
  series(labels: Readonly<Record<string, string>>): HistogramSeries {
    const series: HistogramSeries = { labels, counts: new Float64Array(this.#bounds.length + 1), sum: 0, count: 0 };
    this.#series.push(series);
    return series;
  }

  observe(series: HistogramSeries, value: number): void {
    if (!Number.isFinite(value)) return;
    const bounds = this.#bounds;
    let index = 0;
    // `le` is inclusive: a value equal to a bound falls in that bound's bucket.
    while (index < bounds.length && value > (bounds[index] as number)) index++;
    series.counts[index] = (series.counts[index] as number) + 1;
    series.sum += value;
    series.count++;
  }

  /** What prom-client's registry reads, for the text exposition and for getMetricsAsJSON. */
  async get(): Promise<{ name: string; help: string; type: 'histogram'; values: ReportedValue[]; aggregator: 'sum' }> {
    const bucket = `${this.name}_bucket`;
    const values: ReportedValue[] = [];
    for (const series of this.#series) {
      if (series.count === 0) continue;
      let cumulative = 0;
      this.#bounds.forEach((bound, index) => {
        cumulative += series.counts[index] as number;
        values.push({ labels: { le: bound, ...series.labels }, value: cumulative, metricName: bucket });
      });
      values.push({ labels: { le: '+Inf', ...series.labels }, value: series.count, metricName: bucket });
      values.push({ labels: { ...series.labels }, value: series.sum, metricName: `${this.name}_sum` });
      values.push({ labels: { ...series.labels }, value: series.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** registry.resetMetrics(): every series back to no observations (and so out of the exposition). */
  reset(): void {
    for (const series of this.#series) {
      series.counts.fill(0);
      series.sum = 0;
      series.count = 0;
    }
  }
}
