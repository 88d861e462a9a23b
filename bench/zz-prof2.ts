// throwaway: never committed
import { mkdtempSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { runLoad } from './lib/autocannon.ts';
import { benchApiKey, startProductionServer } from './lib/server-process.ts';
import { summariseProfile } from './lib/cpu-profile.ts';
const apiKey = benchApiKey();
const kind = process.argv[2]!;
const bodies: Record<string, object> = {
  ok: { algorithm: 'sha256', data: 'x'.repeat(64) },
  badenc: { algorithm: 'sha256', data: 'zz', encoding: 'hex' },
  schema: { algorithm: 'sha256', data: 'x'.repeat(64), extra: 1 },
};
const dir = mkdtempSync(join(tmpdir(), 'prof-'));
const server = await startProductionServer({ name: 'p', apiKey, logLevel: 'warn', nodeArgs: [`--cpu-prof`, `--cpu-prof-dir=${dir}`] });
const headers = { 'content-type': 'application/json', 'x-api-key': apiKey };
const body = JSON.stringify(bodies[kind]);
await runLoad({ url: `${server.url}/v2/hash`, method: 'POST', headers, body, connections: 10, duration: 2, pipelining: 1 });
const result = await runLoad({ url: `${server.url}/v2/hash`, method: 'POST', headers, body, connections: 10, duration: 6, pipelining: 1 });
console.log(kind, result.answersPerSecond.toFixed(0), 'answers/s', result.statusCounts);
await server.stop();
const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))!;
console.log(summariseProfile(join(dir, file), 45, result.answers));
