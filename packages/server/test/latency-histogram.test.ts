/**
 * The request-latency histogram (src/latency-histogram.ts) against prom-client's own
 * Histogram, fed the same observations: the exposition text, the JSON the cluster primary adds up,
 * and a reset must come out the same.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AggregatorRegistry, Histogram, Registry } from 'prom-client';
import { LatencyHistogram } from '../src/latency-histogram.ts';

const NAME = 'http_request_duration_seconds';
const HELP = 'HTTP request latency by method, route template and status code';
const BOUNDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Label sets and values, including values equal to a bound (`le` is inclusive), 0 and above every bound. */
const OBSERVATIONS: [Record<string, string>, number][] = [
  [{ method: 'POST', route: '/v2/hash', status_code: '200' }, 0.0003],
  [{ method: 'POST', route: '/v2/hash', status_code: '200' }, 0.0005],
  [{ method: 'POST', route: '/v2/hash', status_code: '200' }, 0.0123],
  [{ method: 'POST', route: '/v2/hash', status_code: '400' }, 0],
  [{ method: 'GET', route: 'unmatched', status_code: '404' }, 0.25],
  [{ method: 'POST', route: '/v2/hash', status_code: '200' }, 42],
  [{ method: 'GET', route: 'unmatched', status_code: '404' }, 1e-7],
  [{ method: 'POST', route: '/v2/password/hash', status_code: '200' }, 2.5000001],
];

function bothRegistries() {
  const reference = new Registry();
  const histogram = new Histogram({
    name: NAME,
    help: HELP,
    labelNames: ['method', 'route', 'status_code'],
    buckets: BOUNDS,
    registers: [reference],
  });
  const ours = new Registry();
  const latency = new LatencyHistogram(NAME, HELP, BOUNDS).registerIn(ours);
  const series = new Map<string, ReturnType<typeof latency.series>>();
  for (const [labels, value] of OBSERVATIONS) {
    histogram.observe(labels, value);
    const key = JSON.stringify(labels);
    if (!series.has(key)) series.set(key, latency.series(labels));
    latency.observe(series.get(key)!, value);
  }
  return { reference, ours, histogram, latency, series };
}

test("the exposition text is prom-client's, line for line", async () => {
  const { reference, ours } = bothRegistries();
  const expected = await reference.metrics();
  assert.match(expected, /_bucket\{le="0\.0005",method="POST",route="\/v2\/hash",status_code="200"\} 2$/m);
  assert.equal(await ours.metrics(), expected);
});

test('the JSON a cluster primary aggregates adds up to the same text', async () => {
  const one = bothRegistries();
  const two = bothRegistries();
  const expected = await AggregatorRegistry.aggregate([
    await one.reference.getMetricsAsJSON(),
    await two.reference.getMetricsAsJSON(),
  ]).metrics();
  const actual = await AggregatorRegistry.aggregate([
    await one.ours.getMetricsAsJSON(),
    await two.ours.getMetricsAsJSON(),
  ]).metrics();
  assert.match(expected, /_count\{method="POST",route="\/v2\/hash",status_code="200"\} 8$/m);
  assert.equal(actual, expected);
});

test('after resetMetrics no series is exposed until observed again, as with prom-client', async () => {
  const { reference, ours, histogram, latency, series } = bothRegistries();
  reference.resetMetrics();
  ours.resetMetrics();
  assert.equal(await ours.metrics(), await reference.metrics());
  assert.doesNotMatch(await ours.metrics(), /_count/);
  const labels = { method: 'POST', route: '/v2/hash', status_code: '200' };
  histogram.observe(labels, 0.002);
  latency.observe(series.get(JSON.stringify(labels))!, 0.002);
  assert.equal(await ours.metrics(), await reference.metrics());
});

test('bounds must increase', () => {
  assert.throws(() => new LatencyHistogram(NAME, HELP, [0.1, 0.1]), /increase/);
  assert.throws(() => new LatencyHistogram(NAME, HELP, [1, 0.5]), /increase/);
});
