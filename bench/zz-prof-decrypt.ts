// throwaway: never committed
import { mkdtempSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { runLoad } from './lib/autocannon.ts';
import { benchApiKey, startProductionServer } from './lib/server-process.ts';
import { summariseProfile } from './lib/cpu-profile.ts';
const apiKey = benchApiKey();
const key = '00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff';
const route = process.argv[2] ?? 'bad';
const dir = mkdtempSync(join(tmpdir(), 'prof-'));
const server = await startProductionServer({ name: 'p', apiKey, logLevel: 'warn', nodeArgs: process.env.NOPROF ? [] : [`--cpu-prof`, `--cpu-prof-dir=${dir}`] });
const headers = { 'content-type': 'application/json', 'x-api-key': apiKey };
let body: string;
if (route === 'good') {
  const r = await fetch(`${server.url}/v2/encrypt`, { method: 'POST', headers, body: JSON.stringify({ key, plaintext: 'x'.repeat(64) }) });
  const { data } = await r.json() as any;
  body = JSON.stringify({ key, ciphertext: data.ciphertext });
} else if (route === 'shortkey') body = JSON.stringify({ key: '00', ciphertext: Buffer.alloc(24 + 64 + 16).toString('base64') });
else body = JSON.stringify({ key, ciphertext: Buffer.alloc(24 + 64 + 16).toString('base64') });
const first = await fetch(`${server.url}/v2/decrypt`, { method: 'POST', headers, body });
console.log(first.status, (await first.text()).slice(0, 100));
await runLoad({ url: `${server.url}/v2/decrypt`, method: 'POST', headers, body, connections: 10, duration: 2, pipelining: 1 });
const result = await runLoad({ url: `${server.url}/v2/decrypt`, method: 'POST', headers, body, connections: 10, duration: 5, pipelining: 1 });
console.log(route, result.answersPerSecond.toFixed(0), 'answers/s', result.statusCounts, 'server CPU µs/answer', (server as any).child.pid);
await server.stop();
if (process.env.NOPROF) process.exit(0);
const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))!;
console.log(summariseProfile(join(dir, file), 30, result.answers));
