/**
 * Option parsing, statistics, formatting, the machine description and the /metrics reader that the
 * scripts share. Medians rather than means throughout: on a shared, noisy machine one round that lost
 * the CPU to a neighbour should move a figure as little as possible.
 */
import { availableParallelism, cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';

type Parsed<T> = { [K in keyof T]: T[K] extends number ? number : T[K] extends string ? string : string | undefined };

/** The script's --options with their defaults; an option whose default is a number takes a number ≥ 0. */
export function options<T extends Record<string, number | string | undefined>>(defaults: T): Parsed<T> {
  const { values } = parseArgs({
    options: Object.fromEntries(Object.keys(defaults).map((name) => [name, { type: 'string' as const }])),
  });
  const result: Record<string, unknown> = {};
  for (const [name, fallback] of Object.entries(defaults)) {
    const text = values[name] as string | undefined;
    const value = typeof fallback === 'number' && text !== undefined ? Number(text) : (text ?? fallback);
    if (typeof fallback === 'number' && !((value as number) >= 0))
      throw new Error(`--${name} takes a number ≥ 0 (got ${text})`);
    result[name] = value;
  }
  return result as Parsed<T>;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** Nearest-rank p50, p99 and maximum of latency samples in ms. */
export function latencySummary(samples: ArrayLike<number>): { count: number; p50: number; p99: number; max: number } {
  const sorted = Float64Array.from(samples).sort();
  const at = (p: number) => (sorted.length === 0 ? Number.NaN : (sorted[Math.ceil(p * sorted.length) - 1] as number));
  return { count: sorted.length, p50: at(0.5), p99: at(0.99), max: at(1) };
}

/** 1234567 → "1.23 M", 45678 → "45.7 k", 12.345 → "12.3". */
export function formatCount(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  if (Math.abs(value) >= 1e6) return `${(value / 1e6).toPrecision(3)} M`;
  if (Math.abs(value) >= 1e3) return `${(value / 1e3).toPrecision(3)} k`;
  return value >= 100 ? value.toFixed(0) : value.toPrecision(3);
}

export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return 'n/a';
  if (ms < 1) return `${(ms * 1000).toPrecision(3)} µs`;
  return ms < 1000 ? `${ms.toPrecision(3)} ms` : `${(ms / 1000).toPrecision(3)} s`;
}

export const formatRatio = (ratio: number) => (Number.isFinite(ratio) ? `${ratio.toFixed(2)}×` : 'n/a');

/** Round-by-round ratios as their median and range: "0.72× (0.68–0.78)". */
export function formatRatioRange(ratios: readonly number[]): string {
  return `${formatRatio(median(ratios))} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`;
}

export const formatMiB = (bytes: number) => (Number.isFinite(bytes) ? `${(bytes / 2 ** 20).toFixed(1)} MiB` : 'n/a');

/** A markdown table; the columns after the first hold figures and are right-aligned. */
export function markdownTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join(' | ')} |`;
  const rule = `|${widths.map((width, i) => `${'-'.repeat(width + 1)}${i === 0 ? '-' : ':'}`).join('|')}|`;
  return [line(headers), rule, ...rows.map(line)].join('\n');
}

export function print(text: string): void {
  process.stdout.write(`${text}\n`);
}

export const loadAverage = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

/** Printed first by every script: a figure without its machine, runtime and load cannot be compared. */
export function describeMachine(): string {
  return [
    `- machine: ${availableParallelism()} CPUs, ${cpus()[0]?.model ?? 'unknown'}`,
    `- runtime: Node ${process.version}, OpenSSL ${process.versions.openssl}, V8 ${process.versions.v8}`,
    `- load average (1/5/15 min) at start: ${loadAverage()}; date: ${new Date().toISOString()}`,
  ].join('\n');
}

/** GET /metrics as a map from each sample's name with its labels, as printed, to its value. */
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
