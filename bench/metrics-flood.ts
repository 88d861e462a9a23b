/**
 * Does an unauthenticated /metrics flood still slow the API down?
 *
 * Starts the production server (a rate limit the flood never reaches, so that what is measured is
 * the scrape's own cost, not the limiter cutting it off; /metrics public, as without METRICS_TOKEN)
 * and probes an authenticated POST /v2/hash every 20 ms from a separate process, in alternating
 * rounds of three phases: idle, a /live flood, and a /metrics flood with `accept-encoding: br`,
 * each flood from autocannon in this process at --connections. The /live flood is the cheapest
 * public request: the gap between it and the /metrics flood is what a scrape still costs.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { Agent, request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  describeMachine,
  formatCount,
  formatMs,
  formatRatioRange,
  latencySummary,
  loadAverage,
  markdownTable,
  median,
  options,
  print,
} from './lib/common.ts';
import { benchApiKey, startProductionServer, type ServerProcess } from './lib/server-process.ts';

const opt = options({ duration: 8, rounds: 3, connections: 8 });
const INTERVAL_MS = 20;
/** The flood runs this much longer than the probe on each side, so that the probe sees only steady load. */
const RAMP_S = 1;
const HASH_BODY = JSON.stringify({ algorithm: 'sha256', data: 'abc' });

/** One authenticated /v2/hash on a kept-alive connection: its latency in ms, or undefined unless 200. */
const hashOnce = (url: string, apiKey: string, agent: Agent) =>
  new Promise<number | undefined>((resolve) => {
    const started = performance.now();
    const req = request(
      `${url}/v2/hash`,
      { method: 'POST', agent, timeout: 5000, headers: { 'content-type': 'application/json', 'x-api-key': apiKey } },
      (res) => res.resume().on('end', () => resolve(res.statusCode === 200 ? performance.now() - started : undefined)),
    );
    req.on('timeout', () => req.destroy()).on('error', () => resolve(undefined));
    req.end(HASH_BODY);
  });

// The probe runs in a process of its own, so that the flood generator's busy event loop cannot delay its timers.
if (process.env.HASH_PROBE !== undefined) {
  const [url = '', apiKey = '', seconds = ''] = process.env.HASH_PROBE.split(' ');
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const samples: number[] = [];
  let failed = 0;
  for (const end = performance.now() + Number(seconds) * 1000; performance.now() < end;) {
    const started = performance.now();
    const ms = await hashOnce(url, apiKey, agent);
    if (ms === undefined) failed += 1;
    else samples.push(ms);
    await sleep(Math.max(0, INTERVAL_MS - (performance.now() - started)));
  }
  await new Promise<void>((resolve) => process.stdout.write(JSON.stringify({ samples, failed }), () => resolve()));
  process.exit(0);
}

interface Probe {
  samples: number[];
  failed: number;
}

function probeHash(server: ServerProcess, apiKey: string, seconds: number): Promise<Probe> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, HASH_PROBE: `${server.url} ${apiKey} ${seconds}` };
    const child = spawn(process.execPath, [import.meta.filename], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out) as Probe) : reject(new Error(`probe exited with ${code}`)),
    );
  });
}

interface Flood {
  answers: number;
  statuses: Record<string, number>;
}
interface Autocannon {
  on(event: 'response', listener: (client: unknown, status: number) => void): void;
  then: PromiseLike<unknown>['then'];
}
const autocannon = createRequire(import.meta.url)('autocannon') as (options: object) => Autocannon;

async function flood(url: string, seconds: number): Promise<Flood> {
  const result: Flood = { answers: 0, statuses: {} };
  const instance = autocannon({
    url,
    method: 'GET',
    connections: opt.connections,
    duration: seconds,
    headers: { 'accept-encoding': 'br' },
  });
  instance.on('response', (_client, status) => {
    result.answers += 1;
    result.statuses[status] = (result.statuses[status] ?? 0) + 1;
  });
  await instance;
  return result;
}

const PHASES = ['idle', '/live flood', '/metrics flood'] as const;
type Phase = (typeof PHASES)[number];
const apiKey = benchApiKey();
const server = await startProductionServer('metrics-flood', apiKey);

print(`# Authenticated /v2/hash latency under a /metrics flood\n\n${describeMachine()}`);
print(`- production server: LOG_LEVEL=warn, rate limit never reached, METRICS_TOKEN unset (public /metrics)`);
print(
  `- probe: POST /v2/hash with the API key every ${INTERVAL_MS} ms on one kept-alive connection, from a separate process, ${opt.duration} s per phase`,
);
print(
  `- floods: GET /live and GET /metrics with accept-encoding: br, autocannon, ${opt.connections} connections; ${opt.rounds} rounds of idle, /live, /metrics\n`,
);

const p50s = new Map<Phase, number[]>(PHASES.map((phase) => [phase, []]));
const p99s = new Map<Phase, number[]>(PHASES.map((phase) => [phase, []]));
const floodRates = new Map<Phase, number[]>(PHASES.map((phase) => [phase, []]));
let probeFailures = 0;
try {
  await probeHash(server, apiKey, 1);
  for (let round = 1; round <= opt.rounds; round += 1) {
    for (const phase of PHASES) {
      const path = phase === '/live flood' ? '/live' : phase === '/metrics flood' ? '/metrics' : undefined;
      const running = path === undefined ? undefined : flood(`${server.url}${path}`, opt.duration + 2 * RAMP_S);
      if (running !== undefined) await sleep(RAMP_S * 1000);
      const probe = await probeHash(server, apiKey, opt.duration);
      const loadResult = await running;
      probeFailures += probe.failed;
      const summary = latencySummary(probe.samples);
      p50s.get(phase)!.push(summary.p50);
      p99s.get(phase)!.push(summary.p99);
      if (loadResult !== undefined) floodRates.get(phase)!.push(loadResult.answers / (opt.duration + 2 * RAMP_S));
      if (loadResult !== undefined && Object.keys(loadResult.statuses).some((status) => status !== '200')) {
        print(`round ${round}, ${phase}: flood statuses ${JSON.stringify(loadResult.statuses)}`);
      }
    }
    print(`round ${round}: done`);
  }
} finally {
  await server.stop();
}

const idle = p50s.get('idle')!;
print('\n## /v2/hash latency (client side), medians of the rounds\n');
print(
  markdownTable(
    ['Phase', 'p50', 'p99', 'p50 / idle p50 (same round)', 'flood answers/s'],
    PHASES.map((phase) => [
      phase,
      formatMs(median(p50s.get(phase)!)),
      formatMs(median(p99s.get(phase)!)),
      formatRatioRange(p50s.get(phase)!.map((p50, round) => p50 / idle[round]!)),
      phase === 'idle' ? '' : formatCount(median(floodRates.get(phase)!)),
    ]),
  ),
);
print(`\n- probe requests not answered 200: ${probeFailures}`);
print(`- load average (1/5/15 min) at the end: ${loadAverage()}`);
