/**
 * Timing leaks, tested in the manner of dudect (Reparaz, Balasch, Verbauwhede, "Dude, is my code
 * constant time?", DATE 2017): two classes of input, measured interleaved in random order, the
 * measurements cropped at several percentiles, and Welch's t statistic computed for each crop; a
 * leak shows as a large |t|.
 *
 * The classes here: a candidate that differs from the secret in its FIRST byte, and one that
 * differs in its LAST byte. An early-exit comparison answers the first class sooner; a
 * constant-time one cannot tell them apart. Functions under test, called directly in this process:
 * - the API-key comparison of the authenticator (matchesAnyApiKey: the candidate padded to a fixed
 *   size, then compared in constant time with every configured key padded the same way), with
 *   64-character keys;
 * - HMAC verification from core (verifyHmac, HMAC-SHA-512: a 64-byte MAC compared in constant time).
 *
 * Thresholds and counts, and why:
 * - |t| < 4.5 is dudect's own threshold: under the null hypothesis t is close to a standard normal,
 *   and |t| > 4.5 has a probability of about 7·10⁻⁶, so a value above it is a leak, not bad luck.
 *   The statistic is the largest |t| over 11 crops (none, and the 50th … 99.9th percentiles, as
 *   dudect does), which multiplies that small probability by at most 11.
 * - 25 000 measurements per class, one call each: enough for the controls below to stand out,
 *   few enough that a run takes about a second. Each run reports the difference of the class means
 *   under the median crop and the smallest difference it could have detected there (4.5 standard
 *   errors: a few nanoseconds here), so the harness's sensitivity is on record (t.diagnostic).
 * - Noise: a shared 2-core CI machine preempts us at random. Random interleaving makes that noise
 *   land on both classes alike, so it widens the spread (lowering |t|) rather than shifting one
 *   class; the inputs of both classes are made the same way, in the same memory, just before each
 *   measurement. What can still shift one class is a burst of interference that happens to be
 *   uneven; so a constant-time function is given up to 5 runs and passes if any run stays under
 *   4.5. A real leak is systematic: it stays above the threshold in every run. (With 3 runs, the
 *   API-key comparison once failed all three on a busy machine, with class means 0.0–0.4 ns
 *   apart, a fraction of one clock cycle; it passed in every run before and after.)
 * - Power: the same harness must flag deliberately leaky comparisons (a JavaScript loop that stops
 *   at the first differing byte). Over 4 KiB (microseconds between the classes) it must reach
 *   |t| > 45, ten times the threshold; inside HMAC-SHA-512 verification, over the 64-byte MAC (a
 *   few dozen nanoseconds within microseconds of HMAC: the bug the constant-time test guards
 *   against), |t| > 4.5. Each in one of up to 5 runs: noise only ever lowers |t|, so one clear run
 *   proves the harness can see, and requiring it of every run would fail a noisy machine for the
 *   wrong reason. Observed on a 2-core machine at load 10–14: |t| in the thousands for 4 KiB every
 *   time; for the 64-byte MAC 90–210 on Node 22, and 7–25 on Node 24 (whose HMAC is slower and
 *   noisier here), where 2 runs in 12 stayed under 4.5 and the next run saw the leak. The
 *   constant-time functions never came above |t| = 3.2 in those runs.
 * The whole file takes a few seconds on Node 24 and Node 22.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { SecretSet, computeHmac, verifyHmac } from '@crypto-service/core';
import { matchesAnyApiKey } from '../../src/auth/authenticator.ts';

const THRESHOLD = 4.5;
const CONTROL_THRESHOLD = 10 * THRESHOLD;
const SAMPLES_PER_CLASS = 25_000;
const WARMUP_CALLS = 5_000;
/** Runs a constant-time function gets to stay under the threshold (a real leak fails them all). */
const ATTEMPTS = 5;
/** Runs a leaky control gets to show its leak (noise can hide a small one in a run or two). */
const POWER_ATTEMPTS = 5;
/** dudect's crops: keep the measurements under the 1 − 0.5^(10·(i+1)/10) percentile, i = 0 … 9. */
const CROP_PERCENTILES = Array.from({ length: 10 }, (_, i) => 1 - 0.5 ** ((10 * (i + 1)) / 10));
/** A crop must keep this many measurements of each class to count. */
const MIN_PER_CLASS = 1000;

type Class = 0 | 1;

interface Run {
  /** The largest |t| over all crops. */
  t: number;
  /** That t with its sign: negative when class 0 (a mismatch in the first byte) is the faster. */
  signedT: number;
  /**
   * Difference of the class means, class 0 minus class 1 (ns), and the smallest difference that
   * could have been detected (4.5 standard errors), under the median crop; uncropped when the
   * median crop holds too few of one class (a large leak puts a whole class above the median).
   */
  differenceNs: number;
  detectableNs: number;
}

/** Welch's t statistic of the measurements of class 0 and class 1 that are at most `limit`. */
function welch(times: Float64Array, classes: Uint8Array, limit: number) {
  const n = [0, 0];
  const sum = [0, 0];
  const sumSquares = [0, 0];
  for (let i = 0; i < times.length; i++) {
    const value = times[i] as number;
    if (value > limit) continue;
    const c = classes[i] as Class;
    n[c]! += 1;
    sum[c]! += value;
    sumSquares[c]! += value * value;
  }
  const [n0, n1] = n as [number, number];
  const mean = [sum[0]! / n0, sum[1]! / n1] as const;
  const variance = [(sumSquares[0]! - n0 * mean[0] * mean[0]) / (n0 - 1), (sumSquares[1]! - n1 * mean[1] * mean[1]) / (n1 - 1)] as const;
  const standardError = Math.sqrt(variance[0] / n0 + variance[1] / n1);
  return { t: (mean[0] - mean[1]) / standardError, standardError, difference: mean[0] - mean[1], enough: n0 >= MIN_PER_CLASS && n1 >= MIN_PER_CLASS };
}

/**
 * Measures `operation`, one call per measurement (dudect measures single executions), on inputs of
 * the two classes in a random order. `prepare` makes the input of a class just before its
 * measurement, outside the timed region, so that both classes are fresh in the same way; for
 * bytes it rewrites one shared buffer, so that memory placement (alignment, cache lines) cannot
 * differ between the classes: with a separate buffer per class it did, and showed as |t| ≈ 4–5 for
 * HMAC verification that is constant-time.
 */
function measure<T>(operation: (input: T) => unknown, prepare: (c: Class, random: number) => T): Run {
  const total = 2 * SAMPLES_PER_CLASS;
  const classes = new Uint8Array(total);
  const coins = randomBytes(total);
  const randoms = randomBytes(total);
  for (let i = 0; i < total; i++) classes[i] = (coins[i] as number) & 1;
  // Warm the JIT on both classes alike.
  for (let i = 0; i < WARMUP_CALLS; i++) operation(prepare((i & 1) as Class, randoms[i] as number));
  const times = new Float64Array(total);
  let matches = 0;
  for (let i = 0; i < total; i++) {
    const input = prepare(classes[i] as Class, randoms[i] as number);
    const start = process.hrtime.bigint();
    const result = operation(input);
    const end = process.hrtime.bigint();
    times[i] = Number(end - start);
    if (result === true) matches += 1;
  }
  assert.equal(matches, 0, 'every candidate must be a mismatch');
  const sorted = Float64Array.from(times).sort();
  const limitAt = (percentile: number) => sorted[Math.min(total - 1, Math.floor(percentile * total))] as number;
  let signedT = 0;
  for (const limit of [Infinity, ...CROP_PERCENTILES.map(limitAt)]) {
    const result = welch(times, classes, limit);
    if (result.enough && Math.abs(result.t) > Math.abs(signedT)) signedT = result.t;
  }
  const median = welch(times, classes, limitAt(0.5));
  const summary = median.enough ? median : welch(times, classes, Infinity);
  return { t: Math.abs(signedT), signedT, differenceNs: summary.difference, detectableNs: THRESHOLD * summary.standardError };
}

/**
 * Inputs of the two classes in one reused buffer: a copy of `secret` with one byte changed (to a
 * random other value), at index 0 for class 0 and at the last index for class 1.
 */
function mismatching(secret: Uint8Array, buffer = new Uint8Array(secret.length)): (c: Class, random: number) => Uint8Array {
  const last = secret.length - 1;
  return (c, random) => {
    buffer.set(secret);
    const at = c === 0 ? 0 : last;
    buffer[at] = ((secret[at] as number) + 1 + (random % 255)) & 0xff;
    return buffer;
  };
}

const summary = (run: Run) => `|t| = ${run.t.toFixed(2)}; median crop: difference ${run.differenceNs.toFixed(1)} ns, detectable ${run.detectableNs.toFixed(1)} ns`;

/** Up to `attempts` runs; `done` says when a run settles the question. Every run is reported. */
function runs<T>(t: { diagnostic: (message: string) => void }, attempts: number, operation: (input: T) => unknown, prepare: (c: Class, random: number) => T, done: (run: Run) => boolean): Run[] {
  const results: Run[] = [];
  for (let attempt = 0; attempt < attempts; attempt++) {
    const run = measure(operation, prepare);
    results.push(run);
    t.diagnostic(`run ${attempt + 1}: ${summary(run)}`);
    if (done(run)) break;
  }
  return results;
}

/** Passes when any of up to ATTEMPTS runs shows no leak (a real leak shows in every run). */
function assertConstantTime<T>(t: { diagnostic: (message: string) => void }, operation: (input: T) => unknown, prepare: (c: Class, random: number) => T): void {
  const results = runs(t, ATTEMPTS, operation, prepare, (run) => run.t < THRESHOLD);
  assert.ok(results.some((run) => run.t < THRESHOLD), `first-byte and last-byte mismatches are told apart in every run: ${results.map(summary).join('; ')}`);
}

/** Passes when any of up to POWER_ATTEMPTS runs shows the leak above `threshold` (noise only lowers |t|). */
function assertLeakSeen<T>(t: { diagnostic: (message: string) => void }, operation: (input: T) => unknown, prepare: (c: Class, random: number) => T, threshold: number): void {
  const results = runs(t, POWER_ATTEMPTS, operation, prepare, (run) => run.t > threshold);
  const clear = results.find((run) => run.t > threshold);
  assert.ok(clear !== undefined, `the leak was not seen above ${threshold}: ${results.map(summary).join('; ')}`);
  // And the right way round: a mismatch in the first byte is the faster class.
  assert.ok(clear.signedT < 0, summary(clear));
}

/** An early-exit comparison: what the constant-time ones must not be. */
function leakyEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) return false;
  }
  return true;
}

test('the harness has power: a 4 KiB early-exit comparison is flagged at ten times the threshold', (t) => {
  const secret = randomBytes(4096);
  assertLeakSeen(t, (candidate: Uint8Array) => leakyEqual(candidate, secret), mismatching(secret), CONTROL_THRESHOLD);
});

test('the harness has power where it matters: HMAC-SHA-512 verification with an early-exit comparison of the 64-byte MAC is flagged', (t) => {
  // The same work as verifyHmac, with the one difference a careless implementation would have: a
  // few dozen nanoseconds inside microseconds of HMAC, which the crops bring out.
  const key = randomBytes(64);
  const data = randomBytes(64);
  const mac = computeHmac('sha512', key, data);
  assertLeakSeen(t, (candidate: Uint8Array) => leakyEqual(computeHmac('sha512', key, data), candidate), mismatching(mac), THRESHOLD);
});

test('API-key comparison (authenticator): no difference between a mismatch in the first and in the last byte', (t) => {
  // A 64-character key as an operator would make it (32 random bytes, hex), and a second key
  // configured beside it (a rotation window): the candidate is compared with both.
  const key = randomBytes(32).toString('hex');
  const apiKeys = new SecretSet([Buffer.from(key, 'utf8'), Buffer.from(randomBytes(32).toString('hex'), 'utf8')]);
  assert.equal(matchesAnyApiKey(key, apiKeys), true);
  // The candidate is a header value: a fresh string of printable ASCII for every measurement (a
  // flat string, read into UTF-8 the same way for both classes).
  const bytes = mismatching(Buffer.from(key, 'latin1'), Buffer.alloc(key.length));
  const printable = (c: Class, random: number) => {
    const candidate = bytes(c, random) as Buffer;
    const at = c === 0 ? 0 : key.length - 1;
    candidate[at] = 0x21 + ((candidate[at] as number) % 94);
    if (candidate[at] === key.charCodeAt(at)) candidate[at] = candidate[at] === 0x21 ? 0x22 : 0x21;
    return candidate.toString('latin1');
  };
  assertConstantTime(t, (candidate: string) => matchesAnyApiKey(candidate, apiKeys), printable);
});

test('HMAC-SHA-512 verification (core): no difference between a mismatch in the first and in the last byte of the MAC', (t) => {
  const key = randomBytes(64);
  const data = randomBytes(64);
  const mac = computeHmac('sha512', key, data);
  assert.equal(mac.length, 64);
  assert.equal(verifyHmac('sha512', key, data, mac), true);
  assertConstantTime(t, (candidate: Uint8Array) => verifyHmac('sha512', key, data, candidate), mismatching(mac));
});
