/**
 * The micro-benchmark loop: calibrate a batch size, then time several rounds of that batch and
 * keep the per-round rates. Two compared operations run in alternating rounds (A B, B A, …), so
 * that a slow stretch of the shared machine hits both, and their ratio is taken round by round.
 *
 * Rates come from the wall clock (what a caller waits for) or, with `clock: 'cpu'`, from the
 * process's CPU time, which other processes on the machine disturb much less.
 */
import { median, spreadPercent } from './stats.ts';

/** One operation. It may return a promise: asynchronous operations are awaited one at a time. */
export type Operation = () => unknown;

export type Clock = 'wall' | 'cpu';

export interface MeasureOptions {
  /** Timed rounds; the figure is their median. */
  rounds: number;
  /** Target length of one round in ms; 0 means one call per round (for slow operations). */
  roundMs: number;
  clock: Clock;
}

export interface Measurement {
  /** Operations per second, one entry per round. */
  perRound: number[];
  opsPerSecond: number;
  /** Half the min–max range of the rounds, as a percentage of the median. */
  spread: number;
}

export interface Comparison {
  a: Measurement;
  b: Measurement;
  /** Per-round ratio a/b (above 1: A is faster). */
  ratios: number[];
  ratio: number;
}

// Results go here so that the engine cannot drop a call whose result is never used.
let _sink: unknown;

interface Prepared {
  operation: Operation;
  asynchronous: boolean;
  batch: number;
}

/** The rate of `count` calls by the chosen clock, in ops/s. Synchronous operations are not awaited. */
async function timeBatch(prepared: Omit<Prepared, 'batch'>, count: number, clock: Clock): Promise<number> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  if (prepared.asynchronous) {
    for (let i = 0; i < count; i++) _sink = await prepared.operation();
  } else {
    for (let i = 0; i < count; i++) _sink = prepared.operation();
  }
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  // CPU time is counted in whole microseconds at best: never divide by zero.
  const ms = clock === 'cpu' ? Math.max((used.user + used.system) / 1000, 0.001) : wallMs;
  return (count * 1000) / ms;
}

/** Finds whether the operation is asynchronous and how many calls fill a round; this is also its warm-up. */
async function prepare(operation: Operation, roundMs: number): Promise<Prepared> {
  const first = operation();
  const asynchronous = typeof (first as { then?: unknown } | null)?.then === 'function';
  if (asynchronous) _sink = await first;
  if (roundMs === 0) {
    await timeBatch({ operation, asynchronous }, 1, 'wall');
    return { operation, asynchronous, batch: 1 };
  }
  let batch = 1;
  for (;;) {
    const elapsed = (batch * 1000) / (await timeBatch({ operation, asynchronous }, batch, 'wall'));
    if (elapsed >= roundMs / 4)
      return { operation, asynchronous, batch: Math.max(1, Math.ceil((batch * roundMs) / elapsed)) };
    batch *= elapsed < roundMs / 40 ? 10 : 2;
  }
}

function summarise(perRound: number[]): Measurement {
  return { perRound, opsPerSecond: median(perRound), spread: spreadPercent(perRound) };
}

export async function measure(operation: Operation, options: MeasureOptions): Promise<Measurement> {
  const prepared = await prepare(operation, options.roundMs);
  const rates: number[] = [];
  for (let i = 0; i < options.rounds; i++) rates.push(await timeBatch(prepared, prepared.batch, options.clock));
  return summarise(rates);
}

/** Measures A and B in alternating order and takes the median of the per-round ratios A/B. */
export async function compare(a: Operation, b: Operation, options: MeasureOptions): Promise<Comparison> {
  const prepared = [await prepare(a, options.roundMs), await prepare(b, options.roundMs)] as const;
  const rates: [number[], number[]] = [[], []];
  for (let i = 0; i < options.rounds; i++) {
    for (const which of i % 2 === 0 ? ([0, 1] as const) : ([1, 0] as const))
      rates[which].push(await timeBatch(prepared[which], prepared[which].batch, options.clock));
  }
  const ratios = rates[0].map((rate, i) => rate / (rates[1][i] as number));
  return { a: summarise(rates[0]), b: summarise(rates[1]), ratios, ratio: median(ratios) };
}
