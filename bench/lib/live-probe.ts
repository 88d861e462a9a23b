/**
 * A child process of bench/live-under-load.ts: GET /live one request at a time, every
 * `intervalMs`, for `durationMs`, each on a new TCP connection (as an orchestrator's HTTP probe
 * does), and print the latencies as JSON on stdout.
 *
 *   node bench/lib/live-probe.ts <url> <intervalMs> <durationMs>
 *
 * It is a process of its own so that the load generator's busy event loop cannot delay the probe's
 * timers or its measurement: what it reports is the server's answer time (plus CPU contention,
 * which is the point of the measurement).
 */
import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

const [url = 'http://127.0.0.1:3000/live', intervalText = '50', durationText = '10000'] = process.argv.slice(2);
const intervalMs = Number(intervalText);
const durationMs = Number(durationText);
const TIMEOUT_MS = 5000;

function probe(): Promise<{ ms: number; status: number }> {
  return new Promise((resolve) => {
    const start = performance.now();
    const req = request(url, { agent: false, timeout: TIMEOUT_MS }, (res) => {
      res.resume();
      res.on('end', () => resolve({ ms: performance.now() - start, status: res.statusCode ?? 0 }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ ms: performance.now() - start, status: 0 }));
    req.end();
  });
}

const samples: number[] = [];
const statuses: Record<string, number> = {};
const end = performance.now() + durationMs;
while (performance.now() < end) {
  const started = performance.now();
  const { ms, status } = await probe();
  statuses[status] = (statuses[status] ?? 0) + 1;
  if (status === 200) samples.push(ms);
  // Every intervalMs from the start of the previous probe, or at once if that one took longer.
  await sleep(Math.max(0, intervalMs - (performance.now() - started)));
}
process.stdout.write(`${JSON.stringify({ samples, statuses })}\n`);
