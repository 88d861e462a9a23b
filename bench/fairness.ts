/**
 * Does one client at its limit starve another of password hashing?
 *
 * Starts the production server (queues and MAX_HEAVY_JOBS_PER_CLIENT at their defaults) behind a
 * trusted proxy, so that two clients can be told apart by X-Forwarded-For. Client B sends default
 * `/v2/password/hash` requests one after another: first alone (idle), then while client A keeps as
 * many maximum-cost Argon2id jobs in flight as it may (a made-up PHC string with m = 256 MiB,
 * t = 10 sent to `/v2/password/verify`, each sent again the moment it is answered). The rate limit
 * is set out of reach, so that A's only bounds are the per-client cap and the queue. Idle and
 * loaded rounds alternate; the figures are medians.
 */
import { Agent, request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { ARGON2_MAX } from '@crypto-service/core';
import { describeMachine, formatMs, formatRatio, markdownTable, median, options, print } from './lib/common.ts';
import { benchApiKey, startProductionServer } from './lib/server-process.ts';

const opt = options({ rounds: 3, samples: 15, warmup: 2 });
const ATTACKER = '203.0.113.1';
const VICTIM = '203.0.113.2';
const MAX_PHC = `$argon2id$v=19$m=${ARGON2_MAX.m},t=${ARGON2_MAX.t},p=1$c29tZXNhbHRzb21lc2FsdA$${'A'.repeat(43)}`;

const apiKey = benchApiKey();
const server = await startProductionServer('fairness', apiKey, { TRUSTED_PROXY_CIDRS: '127.0.0.1' });
const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/** POSTs `body` as the client at `address`: the status and the time to the whole answer, in ms. */
function post(path: string, body: unknown, address: string): Promise<{ status: number; ms: number }> {
  const payload = JSON.stringify(body);
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request(
      `${server.url}${path}`,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
          'x-api-key': apiKey,
          'x-forwarded-for': address,
        },
      },
      (res) => res.resume().on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started })),
    );
    req.on('error', () => resolve({ status: 0, ms: performance.now() - started }));
    req.end(payload);
  });
}

/** B's default hashes, one after another: latencies and statuses. */
async function victim(samples: number) {
  const ms: number[] = [];
  const statuses: Record<string, number> = {};
  for (let i = 0; i < samples; i += 1) {
    const result = await post('/v2/password/hash', { password: 'correct horse battery staple' }, VICTIM);
    statuses[result.status] = (statuses[result.status] ?? 0) + 1;
    if (result.status === 200) ms.push(result.ms);
  }
  return { ms, statuses };
}

/** A: `slots` loops, each sending the largest job again as soon as it is answered, until stopped. */
function attacker(slots: number) {
  let running = true;
  const statuses: Record<string, number> = {};
  const loops = Array.from({ length: slots }, async () => {
    while (running) {
      const { status } = await post('/v2/password/verify', { password: 'x', hash: MAX_PHC }, ATTACKER);
      statuses[status] = (statuses[status] ?? 0) + 1;
      // A refused request is retried after a pause, as Retry-After asks, so that A keeps its quota full.
      if (status !== 200) await sleep(50);
    }
  });
  return {
    statuses,
    stop: async () => {
      running = false;
      await Promise.all(loops);
    },
  };
}

const rows: string[][] = [];
const idle: number[] = [];
const loaded: number[] = [];
const victimStatuses: Record<string, number> = {};
const attackerStatuses: Record<string, number> = {};
try {
  await victim(3); // warm-up
  for (let round = 1; round <= opt.rounds; round += 1) {
    const alone = await victim(opt.samples);
    // Two more loops than the cap, so that A is always at its cap and some of its requests are refused.
    const flood = attacker(10);
    await sleep(opt.warmup * 1000);
    const crowded = await victim(opt.samples);
    await flood.stop();
    for (const [status, count] of Object.entries(crowded.statuses))
      victimStatuses[status] = (victimStatuses[status] ?? 0) + count;
    for (const [status, count] of Object.entries(flood.statuses))
      attackerStatuses[status] = (attackerStatuses[status] ?? 0) + count;
    idle.push(median(alone.ms));
    loaded.push(median(crowded.ms));
    rows.push([
      String(round),
      formatMs(median(alone.ms)),
      formatMs(median(crowded.ms)),
      formatMs(Math.max(...crowded.ms)),
      formatRatio(median(crowded.ms) / median(alone.ms)),
    ]);
  }
} finally {
  agent.destroy();
  await server.stop();
}

print(`# Fairness of the password queue\n\n${describeMachine()}\n`);
print(
  markdownTable(['round', "B's hash, idle (p50)", 'B, while A floods (p50)', 'B, while A floods (max)', 'ratio'], rows),
);
const ratios = loaded.map((value, index) => value / (idle[index] as number));
print(
  `\nMedian of the rounds: idle ${formatMs(median(idle))}, under A's flood ${formatMs(median(loaded))}: ` +
    `${formatRatio(median(ratios))} (rounds ${formatRatio(Math.min(...ratios))} to ${formatRatio(Math.max(...ratios))}).`,
);
print(`B's statuses under the flood: ${JSON.stringify(victimStatuses)}; A's: ${JSON.stringify(attackerStatuses)}.`);
