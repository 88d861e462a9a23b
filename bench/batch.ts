/**
 * Batches against the primitives in process: batches of --items Ed25519 signatures, HMAC-SHA-256
 * computations and XChaCha20-Poly1305 encryptions of 64-byte messages sent to the production
 * server (one process, --in-flight batches outstanding on kept-alive connections), against the same
 * core calls the service makes (the key decoded for every item) made in this process, in
 * alternating rounds. Operations a second, median of the rounds, and the ratio round by round.
 * Ed25519 is compared twice: with the private key imported for every call, as a client signing one
 * message per request makes core do, and imported once per batch, as the service does.
 */
import { Agent, request } from 'node:http';
import { randomBytes } from 'node:crypto';
import { computeHmac, hexToBytes, PrivateKeyScope, signMessage, utf8ToBytes, xchachaSeal } from '@crypto-service/core';
import { describeMachine, formatCount, formatRatioRange, markdownTable, median, options, print } from './lib/common.ts';
import { benchApiKey, startProductionServer } from './lib/server-process.ts';

const opt = options({ items: 256, rounds: 5, 'round-ms': 2000, 'in-flight': 2 });
const KEY = randomBytes(32).toString('hex');
const MESSAGES = Array.from({ length: opt.items }, () => randomBytes(48).toString('base64'));

interface Scenario {
  name: string;
  url: string;
  item: (message: string) => Record<string, unknown>;
  /** The same work in process, for one message; `keys` is one batch's private keys. */
  inProcess: (message: string, keys: PrivateKeyScope) => unknown;
}

const keyBytes = () => hexToBytes(KEY, '/key');
const SCENARIOS: Scenario[] = [
  {
    name: 'Ed25519 sign, against a key import per call',
    url: '/v2/sign',
    item: (message) => ({ privateKey: KEY, message }),
    inProcess: (message) => signMessage('ed25519', keyBytes(), utf8ToBytes(message, '/message')),
  },
  {
    name: 'Ed25519 sign, against a key import per batch',
    url: '/v2/sign',
    item: (message) => ({ privateKey: KEY, message }),
    inProcess: (message, keys) => signMessage('ed25519', keyBytes(), utf8ToBytes(message, '/message'), { keys }),
  },
  {
    name: 'HMAC-SHA-256',
    url: '/v2/hmac',
    item: (data) => ({ algorithm: 'hmac-sha256', key: KEY, data }),
    inProcess: (data) => computeHmac('hmac-sha256', keyBytes(), utf8ToBytes(data, '/data')),
  },
  {
    name: 'XChaCha20-Poly1305 encrypt',
    url: '/v2/encrypt',
    item: (plaintext) => ({ key: KEY, plaintext }),
    inProcess: (plaintext) => xchachaSeal(keyBytes(), utf8ToBytes(plaintext, '/plaintext')),
  },
];

/** Operations a second of `work` called back to back for `ms` (awaited: signMessage is async). */
async function inProcessRate(work: Scenario['inProcess'], ms: number): Promise<number> {
  let done = 0;
  const end = performance.now() + ms;
  const started = performance.now();
  while (performance.now() < end) {
    const keys = new PrivateKeyScope();
    for (const message of MESSAGES) await work(message, keys);
    done += MESSAGES.length;
  }
  return (done * 1000) / (performance.now() - started);
}

function post(url: string, apiKey: string, agent: Agent, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'x-api-key': apiKey } },
      (res) => res.resume().on('end', () => resolve(res.statusCode ?? 0)),
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Items a second through the service: batches back to back, --in-flight at a time, for `ms`. */
async function serviceRate(url: string, apiKey: string, agent: Agent, body: string, ms: number): Promise<number> {
  let batches = 0;
  const started = performance.now();
  const end = started + ms;
  await Promise.all(
    Array.from({ length: opt['in-flight'] }, async () => {
      while (performance.now() < end) {
        const status = await post(url, apiKey, agent, body);
        if (status !== 200) throw new Error(`${url} answered ${status}`);
        batches += 1;
      }
    }),
  );
  return (batches * opt.items * 1000) / (performance.now() - started);
}

print('# Batches against the primitives in process\n');
print(describeMachine());
print(
  `- ${opt.items} items of 64 bytes per batch, ${opt['in-flight']} batches in flight, ${opt.rounds} rounds of ${opt['round-ms']} ms each way\n`,
);

const apiKey = benchApiKey();
const server = await startProductionServer('batch', apiKey, { WORKERS: '1' });
const agent = new Agent({ keepAlive: true, maxSockets: opt['in-flight'] });
const rows: string[][] = [];
try {
  for (const scenario of SCENARIOS) {
    const body = JSON.stringify({ batch: MESSAGES.map(scenario.item) });
    const url = `${server.url}${scenario.url}`;
    // Warm both sides up before the first round.
    await serviceRate(url, apiKey, agent, body, 500);
    await inProcessRate(scenario.inProcess, 300);
    const service: number[] = [];
    const local: number[] = [];
    for (let round = 0; round < opt.rounds; round++) {
      local.push(await inProcessRate(scenario.inProcess, opt['round-ms'] / 2));
      service.push(await serviceRate(url, apiKey, agent, body, opt['round-ms']));
    }
    const ratios = service.map((rate, index) => rate / local[index]!);
    rows.push([scenario.name, formatCount(median(service)), formatCount(median(local)), formatRatioRange(ratios)]);
  }
} finally {
  agent.destroy();
  await server.stop();
}
print(markdownTable(['operation', 'service (items/s)', 'in process (ops/s)', 'ratio (median, range)'], rows));
