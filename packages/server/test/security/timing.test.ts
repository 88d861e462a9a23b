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
 *   size, then compared in constant time with every configured key padded the same way), with keys
 *   of 1024 characters (below);
 * - HMAC verification from core (verifyHmac, HMAC-SHA-512: a 64-byte MAC compared in constant time).
 *
 * What counts as a leak, and why:
 * - |t| > 4.5 is dudect's own threshold: under the null hypothesis t is close to a standard normal,
 *   and |t| > 4.5 has a probability of about 7·10⁻⁶, so a value above it is not bad luck. The
 *   statistic is computed for 13 crops (none, the 50th … 99.9th percentiles as dudect does, and
 *   the 10th and 25th), which multiplies that small probability by at most 13. The two low crops
 *   are ours: dudect's trim only the slow tail, but on a shared VM the time of a call also spreads
 *   below its median, and the fastest measurements are the least disturbed, so a small leak
 *   stands out most there.
 * - And the class means far enough apart in that crop to be more than a few clock cycles: 4 ns
 *   (MIN_LEAK_NS) for HMAC, 3 ns (API_KEY_MIN_LEAK_NS) for the API key. With |t| alone, the
 *   harness is sensitive enough to flag differences of a fraction of a nanosecond to about a
 *   nanosecond and a half that are not early exits: on some machines and in some runs, either
 *   constant-time function shows one class slightly faster (for HMAC sometimes the first-byte
 *   class *slower*, the wrong way round for an early exit) at a large |t|, while an early exit
 *   differs by far more. Its cause is not known: it comes and goes between runs in one process,
 *   and does not grow with the length of the keys. One suspect is removed: the inputs are made
 *   without a branch on the class (a random branch just before the measured call leaves the
 *   class in the branch predictor's history, which can shift the call's time by class with no
 *   difference in the call itself).
 * - Keys of 1024 characters, the longest a 1024-byte room holds: the same code as for keys of
 *   43–64 characters (which get the smallest room, 256 bytes), over four times as many bytes, so
 *   that an early exit would stop 1023 bytes apart. That is what lets the 3 ns floor stand above
 *   the artifact: the subtlest plausible bug, Buffer.equals (memcmp, which stops at the first
 *   difference in steps of 16–32 bytes) in place of timingSafeEqual, differs by more than the
 *   floor over keys this long, where with shorter keys it would be too close to the artifact for
 *   any floor.
 *
 * Counts and noise:
 * - 25 000 measurements per class, one call each: enough for the controls below to stand out,
 *   few enough that a run takes about a second. HMAC verification and its control take 100 000,
 *   because one call costs microseconds with a spread of microseconds on a slow host, where
 *   25 000 can hide an early exit of a few dozen nanoseconds; four times the count halves what a
 *   crop resolves. Each run reports the difference of the class means under the median crop and
 *   the smallest difference it could have detected there (4.5 standard errors), and the crop
 *   that flags a leak, if any, so the harness's sensitivity is on record (t.diagnostic).
 * - A shared 2-core CI machine preempts us at random. Random interleaving makes that noise
 *   land on both classes alike, so it widens the spread (lowering |t|) rather than shifting one
 *   class; the inputs of both classes are made the same way, in the same memory, just before each
 *   measurement. What can still shift one class is a burst of interference that happens to be
 *   uneven; so a constant-time function is given up to 5 runs and passes if any run shows no leak.
 *   A real leak is systematic: it shows in every run.
 * - Power: the same rule must flag deliberately leaky comparisons: a JavaScript loop that stops
 *   at the first differing byte, over 4 KiB (microseconds between the classes) at |t| > 45, ten
 *   times the threshold; the same loop inside HMAC-SHA-512 verification, over the 64-byte MAC (a
 *   few dozen nanoseconds within microseconds of HMAC: the bug the constant-time test guards
 *   against); and the API-key padding compared by Buffer.equals (above). Each in one of up to 8
 *   runs, and the right way round (the first-byte class faster): noise lowers |t|, so one clear
 *   run proves the harness can see, and requiring it of every run would fail a noisy machine for
 *   the wrong reason. For the few nanoseconds of Buffer.equals, noise can also turn the sign, so
 *   a run that sees the first-byte class slower counts as one that did not see the leak, and the
 *   next is made.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { SECRET_SET_MINIMUM_BYTES, SecretSet, computeHmac, verifyHmac } from '@crypto-service/core';
import { matchesAnyApiKey } from '../../src/auth/authenticator.ts';

const THRESHOLD = 4.5;
const CONTROL_THRESHOLD = 10 * THRESHOLD;
/**
 * The smallest difference of the class means that counts as a leak (ns), for HMAC verification
 * and the 4 KiB control: above the artifact (see the header), well under what their early exits
 * differ by (dozens of nanoseconds and more).
 */
const MIN_LEAK_NS = 4;
/**
 * The same for the API-key comparison: above the artifact (see the header), under what a native
 * early exit over 1024-character keys differs by.
 */
const API_KEY_MIN_LEAK_NS = 3;
const SAMPLES_PER_CLASS = 25_000;
/**
 * HMAC-SHA-512 verification's measurements, and its early-exit control's: four times as many, as
 * one call costs microseconds with a spread of microseconds on a slow VM, and its early exit is a
 * few dozen nanoseconds (see the header). The check and its control take the same count, so that
 * the control measures the power the check has.
 */
const HMAC_SAMPLES_PER_CLASS = 100_000;
const WARMUP_CALLS = 5_000;
/** Runs a constant-time function gets to stay under the threshold (a real leak fails them all). */
const ATTEMPTS = 5;
/**
 * Runs a leaky control gets to show its leak (noise can hide a small one in several runs in a
 * row on a busy machine; the runs past the first are made only when needed, a few seconds at
 * most).
 */
const POWER_ATTEMPTS = 8;
/**
 * The crops: dudect's, which keep the measurements under the 1 − 0.5^(10·(i+1)/10) percentile,
 * i = 0 … 9 (the 50th to the 99.9th), and two of our own under the 10th and the 25th (see the
 * header: the least disturbed measurements, where a small leak stands out most on a noisy VM).
 */
const CROP_PERCENTILES = [0.1, 0.25, ...Array.from({ length: 10 }, (_, i) => 1 - 0.5 ** ((10 * (i + 1)) / 10))];
/** A crop must keep this many measurements of each class to count. */
const MIN_PER_CLASS = 1000;

type Class = 0 | 1;

interface Crop {
  /** Welch's t: negative when class 0 (a mismatch in the first byte) is the faster. */
  t: number;
  /** Difference of the class means, class 0 minus class 1 (ns). */
  differenceNs: number;
}

interface Run {
  /** Every crop that keeps enough of both classes, uncropped first. */
  crops: Crop[];
  /** The largest |t| over all crops. */
  t: number;
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
  const variance = [
    (sumSquares[0]! - n0 * mean[0] * mean[0]) / (n0 - 1),
    (sumSquares[1]! - n1 * mean[1] * mean[1]) / (n1 - 1),
  ] as const;
  const standardError = Math.sqrt(variance[0] / n0 + variance[1] / n1);
  return {
    t: (mean[0] - mean[1]) / standardError,
    standardError,
    difference: mean[0] - mean[1],
    enough: n0 >= MIN_PER_CLASS && n1 >= MIN_PER_CLASS,
  };
}

/**
 * Measures `operation`, one call per measurement (dudect measures single executions), on inputs of
 * the two classes in a random order. `prepare` makes the input of a class just before its
 * measurement, outside the timed region, so that both classes are fresh in the same way; for
 * bytes it rewrites one shared buffer, so that memory placement (alignment, cache lines) cannot
 * differ between the classes: with a separate buffer per class it can, enough to make HMAC
 * verification that is constant-time look like a borderline leak.
 */
function measure<T>(
  operation: (input: T) => unknown,
  prepare: (c: Class, random: number) => T,
  samplesPerClass: number,
): Run {
  const total = 2 * samplesPerClass;
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
  const crops: Crop[] = [];
  for (const limit of [Infinity, ...CROP_PERCENTILES.map(limitAt)]) {
    const result = welch(times, classes, limit);
    if (result.enough) crops.push({ t: result.t, differenceNs: result.difference });
  }
  const median = welch(times, classes, limitAt(0.5));
  const summary = median.enough ? median : welch(times, classes, Infinity);
  return {
    crops,
    t: Math.max(...crops.map((crop) => Math.abs(crop.t))),
    differenceNs: summary.difference,
    detectableNs: THRESHOLD * summary.standardError,
  };
}

/** Another byte value than `original`, picked by `random`. */
type ByteChange = (original: number, random: number) => number;
const anyOtherByte: ByteChange = (original, random) => (original + 1 + (random % 255)) & 0xff;

/**
 * Inputs of the two classes in one reused buffer: a copy of `secret` with one byte changed (by
 * `change`), at index 0 for class 0 and at the last index for class 1. The index is computed
 * without a branch on the class (class × last): a branch whose way is random sits in the branch
 * predictor's history when the measured call starts, and could shift its time by class with no
 * difference in the call itself (see the header).
 */
function mismatching(
  secret: Uint8Array,
  buffer = new Uint8Array(secret.length),
  change: ByteChange = anyOtherByte,
): (c: Class, random: number) => Uint8Array {
  const last = secret.length - 1;
  return (c, random) => {
    buffer.set(secret);
    const at = c * last;
    buffer[at] = change(secret[at] as number, random);
    return buffer;
  };
}

/** What a run must show to count as a leak. */
interface Rule {
  /** |t| above this (dudect's 4.5, or ten times it for a control that leaks by microseconds). */
  threshold: number;
  /** The class means at least this far apart (ns). */
  floorNs: number;
  /** Only a leak the way an early exit makes one: the first-byte class faster (t < 0). */
  firstFaster: boolean;
}

/** The crop of `run` that shows a leak under `rule`, if any (the one with the largest |t|). */
function leakIn(run: Run, rule: Rule): Crop | undefined {
  let leak: Crop | undefined;
  for (const crop of run.crops) {
    if (Math.abs(crop.t) <= rule.threshold || Math.abs(crop.differenceNs) < rule.floorNs) continue;
    if (rule.firstFaster && crop.t >= 0) continue;
    if (leak === undefined || Math.abs(crop.t) > Math.abs(leak.t)) leak = crop;
  }
  return leak;
}

function summary(run: Run, rule: Rule): string {
  const leak = leakIn(run, rule);
  const name = rule.firstFaster ? 'early exit' : 'leak';
  const verdict =
    leak === undefined
      ? `no ${name} past both limits (|t| ${rule.threshold}, ${rule.floorNs} ns)`
      : `${name}: t = ${leak.t.toFixed(2)}, difference ${leak.differenceNs.toFixed(1)} ns`;
  return `|t| = ${run.t.toFixed(2)}; median crop: difference ${run.differenceNs.toFixed(1)} ns, detectable ${run.detectableNs.toFixed(1)} ns; ${verdict}`;
}

/** Up to `attempts` runs; `done` says when a run settles the question. Every run is reported. */
function runs<T>(
  t: { diagnostic: (message: string) => void },
  attempts: number,
  rule: Rule,
  operation: (input: T) => unknown,
  prepare: (c: Class, random: number) => T,
  samplesPerClass: number,
  done: (run: Run) => boolean,
): Run[] {
  const results: Run[] = [];
  for (let attempt = 0; attempt < attempts; attempt++) {
    const run = measure(operation, prepare, samplesPerClass);
    results.push(run);
    t.diagnostic(`run ${attempt + 1}: ${summary(run, rule)}`);
    if (done(run)) break;
  }
  return results;
}

/**
 * Passes when any of up to ATTEMPTS runs shows no leak past |t| 4.5 and `floorNs` (a real leak
 * shows in every run).
 */
function assertConstantTime<T>(
  t: { diagnostic: (message: string) => void },
  operation: (input: T) => unknown,
  prepare: (c: Class, random: number) => T,
  floorNs: number,
  samplesPerClass = SAMPLES_PER_CLASS,
): void {
  const rule: Rule = { threshold: THRESHOLD, floorNs, firstFaster: false };
  const noLeak = (run: Run) => leakIn(run, rule) === undefined;
  const results = runs(t, ATTEMPTS, rule, operation, prepare, samplesPerClass, noLeak);
  assert.ok(
    results.some(noLeak),
    `first-byte and last-byte mismatches are told apart in every run: ${results.map((run) => summary(run, rule)).join('; ')}`,
  );
}

/**
 * Passes when any of up to POWER_ATTEMPTS runs shows the early exit past `threshold` and
 * `floorNs`, the right way round: a mismatch in the first byte is the faster class. Noise only
 * lowers |t| for a large leak; for a few nanoseconds it can also flip it (see the header), and
 * such a run counts as one that did not see the leak.
 */
function assertLeakSeen<T>(
  t: { diagnostic: (message: string) => void },
  operation: (input: T) => unknown,
  prepare: (c: Class, random: number) => T,
  threshold: number,
  floorNs: number,
  samplesPerClass = SAMPLES_PER_CLASS,
): void {
  const rule: Rule = { threshold, floorNs, firstFaster: true };
  const seen = (run: Run) => leakIn(run, rule) !== undefined;
  const results = runs(t, POWER_ATTEMPTS, rule, operation, prepare, samplesPerClass, seen);
  assert.ok(
    results.some(seen),
    `no run saw the first-byte class faster past |t| ${threshold} and ${floorNs} ns: ${results.map((run) => summary(run, rule)).join('; ')}`,
  );
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
  assertLeakSeen(
    t,
    (candidate: Uint8Array) => leakyEqual(candidate, secret),
    mismatching(secret),
    CONTROL_THRESHOLD,
    MIN_LEAK_NS,
  );
});

test('the harness has power where it matters: HMAC-SHA-512 verification with an early-exit comparison of the 64-byte MAC is flagged', (t) => {
  // The same work as verifyHmac, with the one difference a careless implementation would have: a
  // few dozen nanoseconds inside microseconds of HMAC, which the crops bring out.
  const key = randomBytes(64);
  const data = randomBytes(64);
  const mac = computeHmac('hmac-sha512', key, data);
  assertLeakSeen(
    t,
    (candidate: Uint8Array) => leakyEqual(computeHmac('hmac-sha512', key, data), candidate),
    mismatching(mac),
    THRESHOLD,
    MIN_LEAK_NS,
    HMAC_SAMPLES_PER_CLASS,
  );
});

/**
 * API keys of 1024 characters, the longest a SecretSet's 1024-byte room holds (four times the
 * smallest room, SECRET_SET_MINIMUM_BYTES, which 43–64-character keys get): the same code as for
 * those keys, over more bytes, so that an early-exit comparison would stop 1023 bytes apart. That
 * is what gives the test its power over the artifact (see the header). The second key stands for a
 * rotation window: the candidate is compared with both.
 */
const API_KEY_CHARACTERS = 4 * SECRET_SET_MINIMUM_BYTES;

function apiKeyFixture() {
  const newKey = () => randomBytes(API_KEY_CHARACTERS / 2).toString('hex');
  const key = newKey();
  const apiKeys = new SecretSet([Buffer.from(key, 'utf8'), Buffer.from(newKey(), 'utf8')]);
  assert.equal(key.length, API_KEY_CHARACTERS);
  // The padded size: the 4-byte length, a room of exactly the key's length, 4 bytes of slack.
  assert.equal(apiKeys.paddedBytes, 4 + API_KEY_CHARACTERS + 4);
  assert.equal(matchesAnyApiKey(key, apiKeys), true);
  // The candidate is a header value: a fresh string of printable ASCII for every measurement (a
  // flat string, read into UTF-8 the same way for both classes). The changed character is another
  // printable one, picked without a branch: adding 1–93 modulo the 94 printable characters never
  // lands on the key's own.
  const otherPrintable: ByteChange = (original, random) => 0x21 + ((original - 0x21 + 1 + (random % 93)) % 94);
  const bytes = mismatching(Buffer.from(key, 'latin1'), Buffer.alloc(key.length), otherPrintable);
  const candidate = (c: Class, random: number) => (bytes(c, random) as Buffer).toString('latin1');
  for (let random = 0; random < 256; random++) {
    const [first, last] = [candidate(0, random), candidate(1, random)];
    assert.ok(
      first !== key && first.slice(1) === key.slice(1) && last !== key && last.slice(0, -1) === key.slice(0, -1),
    );
  }
  return { key, apiKeys, candidate };
}

test('the harness has power for API keys: the same padding with a native early-exit comparison (Buffer.equals) is flagged', (t) => {
  // What SecretSet.matches would be with Buffer.equals (memcmp, which stops at the first
  // difference) in place of timingSafeEqual: the subtlest plausible bug, a few nanoseconds.
  const { key, apiKeys, candidate } = apiKeyFixture();
  const padded = Buffer.alloc(apiKeys.paddedBytes);
  padded.writeUInt32BE(key.length, 0);
  padded.write(key, 4, 'latin1');
  const scratch = Buffer.alloc(padded.length);
  const leakyMatches = (presented: string) => {
    scratch.writeUInt32BE(scratch.write(presented, 4, 'utf8'), 0);
    const equal = scratch.equals(padded);
    scratch.fill(0);
    return equal;
  };
  assertLeakSeen(t, leakyMatches, candidate, THRESHOLD, API_KEY_MIN_LEAK_NS);
});

test('API-key comparison (authenticator): no difference between a mismatch in the first and in the last byte', (t) => {
  const { apiKeys, candidate } = apiKeyFixture();
  assertConstantTime(t, (presented: string) => matchesAnyApiKey(presented, apiKeys), candidate, API_KEY_MIN_LEAK_NS);
});

test('HMAC-SHA-512 verification (core): no difference between a mismatch in the first and in the last byte of the MAC', (t) => {
  const key = randomBytes(64);
  const data = randomBytes(64);
  const mac = computeHmac('hmac-sha512', key, data);
  assert.equal(mac.length, 64);
  assert.equal(verifyHmac('hmac-sha512', key, data, mac), true);
  assertConstantTime(
    t,
    (candidate: Uint8Array) => verifyHmac('hmac-sha512', key, data, candidate),
    mismatching(mac),
    MIN_LEAK_NS,
    HMAC_SAMPLES_PER_CLASS,
  );
});
