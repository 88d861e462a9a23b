/**
 * What do the pipeline's features cost on their own? bare-1 (bench/bare-server.ts), the same bare
 * Fastify with those features done inline in its handler by the production server's own code
 * (bench/features-server.ts: security headers, rate limit, API-key check, metrics, per-request
 * logger), and the production server, in the same alternation and under the same load.
 *
 *   node bench/features.ts                                  all features against bare and production
 *   node bench/features.ts --variants "all;security-headers,rate-limit;metrics"
 *   node bench/features.ts --generator light --pipelining 32
 *
 * Why: the one-process target (production ≥ 0.8× bare) asks how much the pipeline costs, and
 * docs/performance-history.md found that cost spread thinly over many small items. A server that
 * does the features with next to no pipeline around them (no schemas, gates or hook chain beyond
 * the metrics plugin's own two hooks, see features-server.ts) is about the floor any restructuring
 * of the pipeline could reach: what it costs is what the contract and the mission ask for, and only
 * the rest is how the pipeline is built.
 *
 * Defaults: autocannon, 10 connections, no pipelining (bench/load.ts's load for the target),
 * 8 rounds of 4 s. Reported: each server's median req/s and CPU per request, its req/s ratio to
 * bare-1 round by round, and its CPU per request beyond bare-1's.
 */
import { parseArgs } from 'node:util';
import { alternate, checkedGenerator, failures, hashTargets, printRun, roundByRoundRatio, type HashServer, type RunResult } from './lib/alternate.ts';
import { describeMachine, loadAverage } from './lib/machine.ts';
import { benchApiKey, freePort, productionEnv, startBareServer, startProductionServer, startServer, type ServerProcess } from './lib/server-process.ts';
import { formatCount, markdownTable, median, print } from './lib/stats.ts';

const { values: args } = parseArgs({
  options: {
    variants: { type: 'string', default: 'all' },
    generator: { type: 'string', default: 'autocannon' },
    connections: { type: 'string', default: '10' },
    pipelining: { type: 'string', default: '1' },
    duration: { type: 'string', default: '4' },
    warmup: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '8' },
  },
});
// Each variant once: two servers of one name would share a row of results. An unknown feature
// stops its server at start (features-server.ts checks the names), before any load is run.
const VARIANTS = [...new Set(args.variants.split(';').map((variant) => variant.trim()).filter(Boolean))];
const CONNECTIONS = Number(args.connections);
const PIPELINING = Number(args.pipelining);
const GENERATOR = checkedGenerator(args.generator, CONNECTIONS, PIPELINING);
const ROUNDS = Math.max(3, Number(args.rounds));
const LOG_LEVEL = 'warn';

const apiKey = benchApiKey();
const body = JSON.stringify({ algorithm: 'sha256', data: 'The quick brown fox jumps over the lazy dog, 64 bytes of message' });

/** features-server.ts with `features`, configured as the production server is (productionEnv). */
async function startFeaturesServer(features: string): Promise<ServerProcess> {
  const port = await freePort();
  return startServer({
    name: `features: ${features}`,
    script: 'bench/features-server.ts',
    port,
    env: { ...productionEnv({ port, apiKey, logLevel: LOG_LEVEL }), FEATURES: features },
  });
}

print(`# The pipeline's features on their own: bare, bare with the features inline, production\n\n${describeMachine()}`);
print(`- ${GENERATOR === 'light' ? 'the light load generator (bench/lib/light-load.ts)' : 'autocannon'} in this process, ${CONNECTIONS} connections${PIPELINING > 1 ? ` with ${PIPELINING} requests pipelined on each` : ''}, ${args.duration} s per run, ${args.warmup} s warm-up, ${ROUNDS} alternating rounds; POST /hash and /v2/hash (SHA-256 of 64 B)`);
print(`- servers: bare-1 (bench/bare-server.ts), features-server.ts with ${VARIANTS.map((variant) => `"${variant}"`).join(', ')}, production (LOG_LEVEL=${LOG_LEVEL}, an API key, a rate limit that never refuses)\n`);

const servers: HashServer[] = [];
try {
  servers.push({ server: await startBareServer({ name: 'bare-1' }), path: '/hash' });
  for (const variant of VARIANTS) servers.push({ server: await startFeaturesServer(variant), path: '/hash' });
  servers.push({ server: await startProductionServer({ name: 'production', apiKey, logLevel: LOG_LEVEL }), path: '/v2/hash' });
  const load = { connections: CONNECTIONS, generator: GENERATOR, pipelining: PIPELINING };
  report(await alternate(hashTargets(servers, apiKey, body), { ...load, duration: Number(args.duration), warmup: Number(args.warmup), rounds: ROUNDS, onRun: printRun }));
} finally {
  for (const { server } of servers) await server.stop();
}

function report(results: Map<string, RunResult[]>): void {
  const requestsPerSecond = (run: RunResult) => run.requestsPerSecond;
  const cpu = (run: RunResult) => run.serverCpuUsPerRequest;
  const bareRuns = results.get('bare-1') ?? [];
  // CPU beyond bare-1's, round by round: a slow stretch of the host raises both servers of a round.
  const extraCpu = (runs: RunResult[]) => median(runs.map((run, round) => cpu(run) - cpu(bareRuns[round] as RunResult)));
  const signedUs = (us: number) => `${us >= 0 ? '+' : ''}${us.toFixed(2)} µs`;
  print(`\n## Results (medians of ${ROUNDS} rounds)\n`);
  print(markdownTable(
    ['Server', 'req/s', 'server CPU/request', 'req/s ÷ bare-1 (range)', 'CPU/request beyond bare-1', 'non-2xx and errors'],
    [...results].map(([name, runs]) => [
      name,
      formatCount(median(runs.map(requestsPerSecond))),
      `${median(runs.map(cpu)).toFixed(2)} µs`,
      name === 'bare-1' ? '1' : roundByRoundRatio(results, name, 'bare-1', requestsPerSecond),
      name === 'bare-1' ? '' : signedUs(extraCpu(runs)),
      String(runs.reduce((sum, run) => sum + failures(run), 0)),
    ]),
  ));
  print('\n- "features: all" is about the floor for any pipeline that does the same work: what is left between it and production is what the pipeline itself costs');
  print(`- load average (1/5/15 min) at the end: ${loadAverage()}`);
}
