/**
 * Small statistics and formatting helpers shared by the benchmark scripts.
 *
 * Medians rather than means throughout: the machine is a shared, noisy 2-core box, and one round
 * that lost the CPU to a neighbour should move a figure as little as possible.
 */

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** Nearest-rank percentile (p in 0..100) of values that are already sorted ascending. */
export function percentileSorted(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] as number;
}

/** Latency summary of raw samples (milliseconds). Sorts a copy. */
export function latencySummary(samples: ArrayLike<number>): {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
} {
  const sorted = Float64Array.from(samples).sort();
  return {
    count: sorted.length,
    p50: percentileSorted(sorted, 50),
    p90: percentileSorted(sorted, 90),
    p99: percentileSorted(sorted, 99),
    max: sorted.length === 0 ? Number.NaN : (sorted[sorted.length - 1] as number),
  };
}

/** Half the min–max range as a percentage of the median: a blunt but honest noise indicator. */
export function spreadPercent(values: readonly number[]): number {
  if (values.length < 2) return 0;
  return ((Math.max(...values) - Math.min(...values)) / 2 / median(values)) * 100;
}

/** 1234567 → "1.23 M", 45678 → "45.7 k", 12.345 → "12.3". Three significant digits. */
export function formatCount(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  const units: [number, string][] = [
    [1e9, ' G'],
    [1e6, ' M'],
    [1e3, ' k'],
  ];
  for (const [scale, suffix] of units) {
    if (Math.abs(value) >= scale) return `${(value / scale).toPrecision(3)}${suffix}`;
  }
  return value >= 100 ? value.toFixed(0) : value.toPrecision(3);
}

/** A duration in milliseconds with a unit that keeps three significant digits readable. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return 'n/a';
  if (ms < 1) return `${(ms * 1000).toPrecision(3)} µs`;
  if (ms < 1000) return `${ms.toPrecision(3)} ms`;
  return `${(ms / 1000).toPrecision(3)} s`;
}

export function formatRatio(ratio: number): string {
  return Number.isFinite(ratio) ? `${ratio.toFixed(2)}×` : 'n/a';
}

/** Round-by-round ratios as their median and range: "0.72× (0.68–0.78)". */
export function formatRatioRange(ratios: readonly number[]): string {
  return `${formatRatio(median(ratios))} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`;
}

/** A signed percentage with one decimal: "+2.7 %", "-0.5 %" ("n/a" for no figure). */
export function formatPercent(value: number): string {
  return Number.isFinite(value) ? `${value >= 0 ? '+' : ''}${value.toFixed(1)} %` : 'n/a';
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} B`;
}

/** A GitHub-flavoured markdown table; columns after the first are right-aligned (numbers), or with `allText` left-aligned like the first. */
export function markdownTable(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  options: { allText?: boolean } = {},
): string {
  // The first column names the row; the others hold figures, right-aligned, unless every column is text.
  const leftAligned = (column: number) => column === 0 || options.allText === true;
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, column) => (leftAligned(column) ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join(' | ')} |`;
  const rule = `|${widths.map((width, column) => (leftAligned(column) ? `${'-'.repeat(width + 1)}-` : `${'-'.repeat(width + 1)}:`)).join('|')}|`;
  return [line(headers), rule, ...rows.map(line)].join('\n');
}

/** One line of a script's report on stdout. */
export function print(text: string): void {
  process.stdout.write(`${text}\n`);
}

/** Bytes as MiB with one decimal: resident memory, heap. */
export function formatMiB(bytes: number): string {
  return Number.isFinite(bytes) ? `${(bytes / (1024 * 1024)).toFixed(1)} MiB` : 'n/a';
}

/** Least-squares slope of ys over xs (NaN with fewer than two points): the trend under the noise. */
export function slope(xs: readonly number[], ys: readonly number[]): number {
  const n = Math.min(xs.length, ys.length);
  if (n < 2) return Number.NaN;
  const meanX = xs.slice(0, n).reduce((sum, x) => sum + x, 0) / n;
  const meanY = ys.slice(0, n).reduce((sum, y) => sum + y, 0) / n;
  let covariance = 0;
  let variance = 0;
  for (let i = 0; i < n; i++) {
    covariance += ((xs[i] as number) - meanX) * ((ys[i] as number) - meanY);
    variance += ((xs[i] as number) - meanX) ** 2;
  }
  return variance === 0 ? Number.NaN : covariance / variance;
}
