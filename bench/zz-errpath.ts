// throwaway: never committed. One production server, several request kinds alternated.
import { loadOnce, type Target } from './lib/alternate.ts';
import { benchApiKey, startProductionServer } from './lib/server-process.ts';
const apiKey = benchApiKey();
const key = '00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff';
const server = await startProductionServer({ name: 'p', apiKey, logLevel: 'warn' });
const headers = { 'content-type': 'application/json', 'x-api-key': apiKey };
const r = await fetch(`${server.url}/v2/encrypt`, { method: 'POST', headers, body: JSON.stringify({ key, plaintext: 'x'.repeat(64) }) });
const { data } = await r.json() as any;
const forged = Buffer.alloc(24 + 64 + 16).toString('base64');
const kinds: [string, string, object, number][] = [
  ['hash', '/v2/hash', { algorithm: 'sha256', data: 'x'.repeat(64) }, 200],
  ['decrypt ok', '/v2/decrypt', { key, ciphertext: data.ciphertext }, 200],
  ['decrypt forged', '/v2/decrypt', { key, ciphertext: forged }, 400],
  ['decrypt short key', '/v2/decrypt', { key: '00', ciphertext: forged }, 400],
  ['hash unknown field', '/v2/hash', { algorithm: 'sha256', data: 'x'.repeat(64), extra: 1 }, 400],
  ['hash bad encoding', '/v2/hash', { algorithm: 'sha256', data: 'zz', encoding: 'hex' }, 400],
];
const targets: Target[] = kinds.map(([name, path, body, expectedStatus]) => ({ name, url: `${server.url}${path}`, headers, body: JSON.stringify(body), pid: server.child.pid, expectedStatus }));
for (const t of targets) { const res = await fetch(t.url, { method: 'POST', headers, body: t.body }); console.log(t.name, res.status, (await res.text()).slice(0, 90)); await loadOnce(t, 10, 2); }
const cpu = new Map<string, number[]>();
for (let round = 0; round < 4; round++) {
  for (const t of round % 2 ? [...targets].reverse() : targets) {
    const res = await loadOnce(t, 10, 3);
    (cpu.get(t.name) ?? cpu.set(t.name, []).get(t.name)!).push(res.serverCpuUsPerRequest);
  }
}
for (const [name, values] of cpu) console.log(name.padEnd(20), values.map((v) => v.toFixed(1)).join(' '), ' median', values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!.toFixed(1));
await server.stop();
