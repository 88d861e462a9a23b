/**
 * The micro-benchmark loop: calibrate a batch size, then time several rounds of that batch and
 * keep the per-round rates. Two functions that are compared run in alternating rounds (A B, B A,
 * A B, …), so that a slow stretch of the shared machine hits both rather than one of them, and
 * the ratio is taken round by round.
 *
 * Each round is timed twice: by the wall clock (the figure a caller waits for, and the default)
 * and by the process's CPU time (process.cpuUsage, every thread of the process: what the work
 * costs, and much less sensitive to other processes taking the CPU away). `--clock cpu` reports the
 * second.
 */
import { median, spreadPercent } from './stats.ts';

/** One operation. It may return a promise (asynchronous operations are awaited one at a time). */
export type Operation = () => unknown;

export type Clock = 'wall' | 'cpu';

export interface MeasureOptions {
  /** Timed rounds; the figure is their median. At least 5. */
  rounds: number;
  /** Target length of one round in ms; 0 means one call per round (for slow operations). */
  roundMs: number;
  /** Which clock the rates are computed from. */
  clock: Clock;
}

interface Timing {
  wallMs: number;
  cpuMs: number;
}

export interface Measurement {
  /** Operations per second by the chosen clock, one entry per round. */
  perRound: number[];
  opsPerSecond: number;
  spread: number;
  /** The same by wall clock and by CPU time, for the JSON output. */
  wallPerRound: number[];
  cpuPerRound: number[];
}

export interface Comparison {
  a: Measurement;
  b: Measurement;
  /** Per-round ratio a/b (higher means A is faster). */
  ratios: number[];
  ratio: number;
}

// Results go here so that the engine cannot drop a call whose result is never used.
let sink: unknown;

function isPromise(value: unknown): value is Promise<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** Runs `count` calls and returns the elapsed time. Synchronous operations are not awaited. */
async function timeBatch(operation: Operation, count: number, asynchronous: boolean): Promise<Timing> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  if (asynchronous) {
    for (let i = 0; i < count; i++) sink = await operation();
  } else {
    for (let i = 0; i < count; i++) sink = operation();
  }
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { wallMs, cpuMs: (used.user + used.system) / 1000 };
}

interface Prepared {
  operation: Operation;
  asynchronous: boolean;
  batch: number;
}

/** Finds whether the operation is asynchronous and how many calls fill a round; this is also its warm-up. */
async function prepare(operation: Operation, roundMs: number): Promise<Prepared> {
  const first = operation();
  const asynchronous = isPromise(first);
  if (asynchronous) sink = await first;
  if (roundMs === 0) {
    // Slow operations (Argon2id, scrypt): one warm-up call more, then one call per round.
    await timeBatch(operation, 1, asynchronous);
    return { operation, asynchronous, batch: 1 };
  }
  let batch = 1;
  for (;;) {
    const elapsed = (await timeBatch(operation, batch, asynchronous)).wallMs;
    if (elapsed >= roundMs / 4) {
      return { operation, asynchronous, batch: Math.max(1, Math.ceil((batch * roundMs) / elapsed)) };
    }
    batch *= elapsed < roundMs / 40 ? 10 : 2;
  }
}

/** One timed round of a prepared operation: its rate by wall clock and by CPU time, in ops/s. */
async function round(prepared: Prepared): Promise<{ wall: number; cpu: number }> {
  const { wallMs, cpuMs } = await timeBatch(prepared.operation, prepared.batch, prepared.asynchronous);
  // CPU time is counted in whole microseconds at best: never divide by zero.
  return { wall: (prepared.batch * 1000) / wallMs, cpu: (prepared.batch * 1000) / Math.max(cpuMs, 0.001) };
}

class Rounds {
  readonly wall: number[] = [];
  readonly cpu: number[] = [];
  add(rates: { wall: number; cpu: number }): void {
    this.wall.push(rates.wall);
    this.cpu.push(rates.cpu);
  }
  summarise(clock: Clock): Measurement {
    const perRound = clock === 'cpu' ? this.cpu : this.wall;
    return { perRound, opsPerSecond: median(perRound), spread: spreadPercent(perRound), wallPerRound: this.wall, cpuPerRound: this.cpu };
  }
}

export async function measure(operation: Operation, options: MeasureOptions): Promise<Measurement> {
  const prepared = await prepare(operation, options.roundMs);
  const rounds = new Rounds();
  for (let i = 0; i < options.rounds; i++) rounds.add(await round(prepared));
  return rounds.summarise(options.clock);
}

/** Measures A and B in alternating order, round by round, and the median of the per-round ratios A/B. */
export async function compare(a: Operation, b: Operation, options: MeasureOptions): Promise<Comparison> {
  const preparedA = await prepare(a, options.roundMs);
  const preparedB = await prepare(b, options.roundMs);
  const roundsA = new Rounds();
  const roundsB = new Rounds();
  for (let i = 0; i < options.rounds; i++) {
    if (i % 2 === 0) {
      roundsA.add(await round(preparedA));
      roundsB.add(await round(preparedB));
    } else {
      roundsB.add(await round(preparedB));
      roundsA.add(await round(preparedA));
    }
  }
  const resultA = roundsA.summarise(options.clock);
  const resultB = roundsB.summarise(options.clock);
  const ratios = resultA.perRound.map((rate, i) => rate / (resultB.perRound[i] as number));
  return { a: resultA, b: resultB, ratios, ratio: median(ratios) };
}
