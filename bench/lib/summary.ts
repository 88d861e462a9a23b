/**
 * The figures a benchmark's targets are judged on, as JSON: written by bench/load.ts,
 * bench/live-under-load.ts and bench/soak.ts when given `--summary FILE`, and read by
 * bench/targets.ts, which runs the four target measurements and judges them in one table. The
 * scripts' printed tables stay the full record; a summary holds only what a verdict needs, so that
 * the judging script never parses printed text.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { median } from './stats.ts';

/** A statistic over rounds: the median the tables quote, with the lowest and highest round. */
export interface Spread {
  median: number;
  min: number;
  max: number;
}

export function spreadOf(values: readonly number[]): Spread {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
}

export interface LoadSummary {
  kind: 'load';
  command: string;
  rounds: number;
  launches: number;
  scenarios: {
    name: string;
    path: string;
    /** Per server name (production, bare; or prod-1, prod-N, bare-1, bare-N): medians over rounds. */
    servers: Record<string, { requestsPerSecond: number; cpuUsPerRequest: number; p50Ms: number; p99Ms: number }>;
    /** a ÷ b round by round: req/s, and b's CPU per request ÷ a's (above 1: a is cheaper). */
    ratios: { of: string; to: string; requestsPerSecond: Spread; cpu: Spread }[];
    /** Non-2xx answers, connection errors and timeouts, over every server and round (the table's Non-2xx). */
    failures: number;
    /** With --workers: the highest prod-N/bare-1 the cores allowed each round, and prod-N's share of it (medians). */
    ceiling?: { overBare: number; clusterShare: number };
  }[];
  loadAverageAtEnd: string;
}

export interface LiveSummary {
  kind: 'live';
  command: string;
  phases: {
    name: string;
    /** The load's title ("Argon2id", "SLH-DSA sha2-128s"), absent for the idle phases. */
    load?: string;
    connections?: number;
    /** Over the probes answered 200: a probe that failed or timed out has no latency. */
    p50Ms: number;
    p99Ms: number;
    maxMs: number;
    /** Probes sent, and those not answered 200 (another status, an error or a 5 s timeout). */
    probes: number;
    probeFailures: number;
    /** The load's answers a second with status 200, and its 503 refusals in the phase. */
    okPerSecond?: number;
    refusals?: number;
  }[];
  loadAverageAtEnd: string;
}

export interface SoakSummary {
  kind: 'soak';
  command: string;
  durationSeconds: number;
  /** Resident memory, the windows' floors (lowest sample) after warm-up and at the end, in bytes. */
  floorWarmBytes: number;
  floorEndBytes: number;
  floorGrowthPercent: number;
  medianGrowthPercent: number;
  maxBytes: number;
  trendBytesPerMinute: number;
  answersPerSecond: number;
  answers: number;
  /** Non-2xx answers, connection errors and timeouts. */
  failures: number;
  loadAverageAtEnd: string;
}

export type Summary = LoadSummary | LiveSummary | SoakSummary;

/** This script's command line as a user would type it (without --summary), for the summary's record. */
export function commandLine(): string {
  const args = process.argv.slice(2);
  const kept = args.filter((arg, i) => arg !== '--summary' && args[i - 1] !== '--summary' && !arg.startsWith('--summary='));
  const script = (process.argv[1] ?? '').replace(`${process.cwd()}/`, '');
  return ['node', script, ...kept].join(' ');
}

/** Writes the summary when the script was given --summary FILE; does nothing otherwise. */
export function writeSummary(path: string | undefined, summary: Summary): void {
  if (path !== undefined) writeFileSync(path, `${JSON.stringify(summary, null, 2)}\n`);
}

export function readSummary<Kind extends Summary['kind']>(path: string, kind: Kind): Extract<Summary, { kind: Kind }> {
  const summary = JSON.parse(readFileSync(path, 'utf8')) as Summary;
  if (summary.kind !== kind) throw new Error(`${path} holds a ${summary.kind} summary, not ${kind}`);
  return summary as Extract<Summary, { kind: Kind }>;
}
