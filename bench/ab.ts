/**
 * Did a change make the production server faster? This tree's server (uncommitted changes
 * included) against another commit's, driven in the same alternation with the same load, beside
 * this tree's bare baseline as a common reference.
 *
 *   node bench/ab.ts                                  this tree against HEAD (an uncommitted change)
 *   node bench/ab.ts --base HEAD~1                    the last commit's effect
 *   node bench/ab.ts --base d3c8c15 --workers 1,2     one process and a WORKERS=2 cluster of each
 *   node bench/ab.ts --generator autocannon --pipelining 1 --connections 10
 *   node bench/ab.ts --base 843e7a1~4 --route hmac --algorithm sha512 --size 4096
 *                                                     another route: hash, hmac, kdf (HKDF), seal, encrypt or sign
 *   node bench/ab.ts --route invalid                  a flood of bad input: 400s (also: undecryptable, bad-key)
 *   node bench/ab.ts --log-level info                 both servers at LOG_LEVEL=info (a log line per request)
 *   node bench/ab.ts --auth jwt                       production authenticated by an HS256 bearer token, not the API key
 *
 * Why a script of its own: a change to the request path saves a few per cent at most, and on the
 * shared benchmark machine two bench/load.ts runs of the same code differ by more than that. Only
 * servers measured in the same rounds can be compared at that resolution; even then two launches
 * of the same code differ by up to 3.5 % in CPU per request (docs/performance-history.md,
 * thirteenth pass), so a difference smaller than that is not one.
 *
 * The base commit is checked out in a temporary git worktree (removed at the end). Its
 * node_modules links to this tree's dependencies, except the workspace's own packages
 * (@crypto-service/*), which point at the worktree's: both servers run the same dependencies and
 * each its own code. A base whose package-lock.json differs is refused, since it would not run
 * with the dependencies it was written for.
 *
 * Servers, the production ones as bench/lib/server-process.ts starts them (productionEnv), on
 * /v2/hash of 64 bytes as in bench/load.ts's hash scenario (or --route hmac, kdf, seal, encrypt or
 * sign (Ed25519), with --algorithm and --size: the message's bytes; or a flood of bad input that every
 * production server answers with a 400: --route invalid, a hash request with an unknown field,
 * refused by the schema, --route undecryptable, an all-zero /v2/decrypt whose tag does not verify, or
 * --route bad-key, an ECDSA P-256 /v2/verify whose public key is not on the curve):
 * `base-W` and `this-W` for each W of --workers, and `bare-1` (bench/bare-server.ts of this tree,
 * one process, on /hash, or /encrypt for encrypt and /sign for sign). Reported: each server's median req/s and CPU
 * per request, its ratio to bare-1 round by round, and for each W this/base in req/s and in CPU
 * per request (medians of the rounds' ratios, with their range).
 */
import { execFileSync } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { alternate, checkedGenerator, failures, hashTargets, printRun, roundByRoundRatio as ratio, type HashServer, type RunResult } from './lib/alternate.ts';
import { codeRevision, describeMachine, loadAverage } from './lib/machine.ts';
import { benchApiKey, REPO_ROOT, startBareServer, startProductionServer } from './lib/server-process.ts';
import { formatCount, markdownTable, median, print } from './lib/stats.ts';

const { values: args } = parseArgs({
  options: {
    base: { type: 'string', default: 'HEAD' },
    workers: { type: 'string', default: '1' },
    generator: { type: 'string', default: 'light' },
    connections: { type: 'string', default: '10' },
    pipelining: { type: 'string', default: '32' },
    duration: { type: 'string', default: '4' },
    warmup: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '6' },
    route: { type: 'string', default: 'hash' },
    algorithm: { type: 'string' },
    size: { type: 'string', default: '64' },
    'log-level': { type: 'string', default: 'warn' },
    auth: { type: 'string', default: 'api-key' },
  },
});
if (args.auth !== 'api-key' && args.auth !== 'jwt') throw new Error(`--auth must be api-key or jwt (got ${args.auth})`);
const WORKER_COUNTS = args.workers.split(',').map(Number);
if (WORKER_COUNTS.some((count) => !Number.isInteger(count) || count < 1)) throw new Error(`--workers takes whole numbers ≥ 1, e.g. 1,2 (got ${args.workers})`);
const CONNECTIONS = Number(args.connections);
const PIPELINING = Number(args.pipelining);
const GENERATOR = checkedGenerator(args.generator, CONNECTIONS, PIPELINING);
const ROUNDS = Math.max(3, Number(args.rounds));

const git = (...gitArgs: string[]) => execFileSync('git', gitArgs, { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
const WORKSPACE_SCOPE = '@crypto-service';

/**
 * Checks `ref` out in a new worktree under the system's temporary directory, with a node_modules of
 * links: this tree's dependencies, the worktree's own workspace packages.
 */
function checkOut(ref: string): string {
  const lockfile = readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8');
  if (git('show', `${ref}:package-lock.json`) !== lockfile.trim()) {
    throw new Error(`${ref} has other dependencies (package-lock.json differs): compare it from a checkout of its own after npm ci`);
  }
  const worktree = join(mkdtempSync(join(tmpdir(), 'crypto-service-ab-')), 'tree');
  git('worktree', 'add', '--detach', worktree, ref);
  const shared = join(REPO_ROOT, 'node_modules');
  const own = join(worktree, 'node_modules');
  mkdirSync(join(own, WORKSPACE_SCOPE), { recursive: true });
  for (const entry of readdirSync(shared)) {
    if (entry !== WORKSPACE_SCOPE) symlinkSync(join(shared, entry), join(own, entry));
  }
  for (const directory of readdirSync(join(worktree, 'packages'))) {
    const { name } = JSON.parse(readFileSync(join(worktree, 'packages', directory, 'package.json'), 'utf8')) as { name: string };
    symlinkSync(join('..', '..', 'packages', directory), join(own, name));
    // What Node will load for the package: the worktree's copy, not this tree's.
    if (!realpathSync(join(own, name)).startsWith(realpathSync(worktree))) throw new Error(`${name} in the worktree does not resolve to its own packages/${directory}`);
  }
  return worktree;
}

function removeWorktree(worktree: string): void {
  git('worktree', 'remove', '--force', worktree);
  rmSync(join(worktree, '..'), { recursive: true, force: true });
}

const baseCommit = git('rev-parse', '--short', args.base);
const thisTree = codeRevision();
const apiKey = benchApiKey();
/**
 * --auth jwt: the production servers also get JWT_SECRET and are sent an HS256 bearer token (no
 * scope claim: every scope; an hour to live) instead of the API key, so each request goes through
 * the token's verification. Signed here with node:crypto (RFC 7515's JWS compact form).
 */
const JWT_SECRET = randomBytes(32).toString('hex');
function benchToken(): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const signingInput = `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ sub: 'bench', exp: Math.floor(Date.now() / 1000) + 3600 })}`;
  return `${signingInput}.${createHmac('sha256', JWT_SECRET).update(signingInput).digest('base64url')}`;
}
const CREDENTIALS: Record<string, string> = args.auth === 'jwt' ? { authorization: `Bearer ${benchToken()}` } : { 'x-api-key': apiKey };
const AUTH_ENV: Record<string, string> = args.auth === 'jwt' ? { JWT_SECRET } : {};
const SIZE = Number(args.size);
if (!Number.isInteger(SIZE) || SIZE < 1) throw new Error(`--size must be a whole number ≥ 1 (got ${args.size})`);
/** The message of every route: 64 bytes of text by default, repeated or cut to --size. */
const MESSAGE = 'The quick brown fox jumps over the lazy dog, 64 bytes of message'.repeat(Math.ceil(SIZE / 64)).slice(0, SIZE);
const KEY_HEX = '00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff';

/**
 * The production route, its request body and what the line says; and the bare server's route and
 * body for bare-1, the common reference (the bare server has no HMAC or KDF route: it hashes the
 * same message then).
 */
function routeUnderTest(route: string): { path: string; body: object; what: string; barePath: string; bareBody: object; expectedStatus?: number } {
  const hashBody = { algorithm: 'sha256', data: MESSAGE };
  switch (route) {
    case 'hash': {
      const algorithm = args.algorithm ?? 'sha256';
      return { path: '/v2/hash', body: { algorithm, data: MESSAGE }, what: `${algorithm} of ${SIZE} B`, barePath: '/hash', bareBody: hashBody };
    }
    case 'hmac': {
      const algorithm = args.algorithm ?? 'sha256';
      return { path: '/v2/hmac', body: { algorithm, key: KEY_HEX, data: MESSAGE }, what: `HMAC-${algorithm} of ${SIZE} B`, barePath: '/hash', bareBody: hashBody };
    }
    case 'kdf': {
      const algorithm = args.algorithm ?? 'hkdf-sha256';
      return { path: '/v2/kdf', body: { algorithm, password: MESSAGE, salt: KEY_HEX, keyLength: 32, params: { info: 'context' } }, what: `${algorithm}, ${SIZE}-byte input, 32-byte key`, barePath: '/hash', bareBody: hashBody };
    }
    case 'seal': {
      // A fixed recipient (RFC 7748 §6.1's Bob), as a service sealing to one party's key would.
      const recipientPublicKey = 'de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f';
      return { path: '/v2/sealedbox/seal', body: { recipientPublicKey, plaintext: MESSAGE }, what: `sealed box of ${SIZE} B to one recipient`, barePath: '/hash', bareBody: hashBody };
    }
    case 'sign': {
      // Ed25519 with RFC 8032 §7.1's first secret key: core imports it for every request, as a caller's key would be.
      const body = { privateKey: '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60', message: MESSAGE };
      return { path: '/v2/sign', body: { algorithm: 'ed25519', ...body }, what: `Ed25519 signature of ${SIZE} B`, barePath: '/sign', bareBody: body };
    }
    case 'encrypt': {
      const body = { key: KEY_HEX, plaintext: MESSAGE };
      return { path: '/v2/encrypt', body, what: `XChaCha20-Poly1305 seal of ${SIZE} B`, barePath: '/encrypt', bareBody: body };
    }
    // Floods of bad input, every answer a 400 problem: what refusing costs the event loop.
    case 'invalid': {
      // An unknown field: refused by the route's schema, before the handler.
      return { path: '/v2/hash', body: { algorithm: 'sha256', data: MESSAGE, extra: 1 }, what: 'a hash request its schema refuses (an unknown field), 400', barePath: '/hash', bareBody: hashBody, expectedStatus: 400 };
    }
    case 'undecryptable': {
      // Well-formed, but the tag does not verify: refused by core (DECRYPTION_FAILED) after the AEAD ran.
      const ciphertext = Buffer.alloc(24 + SIZE + 16).toString('base64');
      return { path: '/v2/decrypt', body: { key: KEY_HEX, ciphertext }, what: `XChaCha20-Poly1305 open of ${SIZE} B whose tag does not verify, 400`, barePath: '/hash', bareBody: hashBody, expectedStatus: 400 };
    }
    case 'bad-key': {
      // A P-256 public key off the curve: refused by core (INVALID_INPUT) when OpenSSL will not import it.
      const publicKey = `04${'01'.repeat(64)}`;
      return { path: '/v2/verify', body: { algorithm: 'ecdsa-p256', publicKey, message: MESSAGE, signature: '00'.repeat(64) }, what: 'an ECDSA P-256 verify whose public key is off the curve, 400', barePath: '/hash', bareBody: hashBody, expectedStatus: 400 };
    }
    default:
      throw new Error(`--route must be hash, hmac, kdf, seal, encrypt, sign, invalid, undecryptable or bad-key (got ${route})`);
  }
}
const ROUTE = routeUnderTest(args.route);

print(`# A/B: the production server of this tree (${thisTree}) against ${args.base} (${baseCommit})\n\n${describeMachine()}`);
print(`- ${GENERATOR === 'light' ? 'the light load generator (bench/lib/light-load.ts)' : 'autocannon'} in this process, ${CONNECTIONS} connections${PIPELINING > 1 ? ` with ${PIPELINING} requests pipelined on each` : ''}, ${args.duration} s per run, ${args.warmup} s warm-up, ${ROUNDS} alternating rounds; POST ${ROUTE.path} (${ROUTE.what}); bare-1 on ${ROUTE.barePath}`);
print(`- servers: bare-1 (bench/bare-server.ts of this tree), and base-W, this-W for WORKERS=${WORKER_COUNTS.join(', ')}; production authenticated by ${args.auth === 'jwt' ? 'an HS256 bearer token' : 'the API key'}\n`);

const worktree = checkOut(args.base);
const servers: HashServer[] = [];
// Interrupted: stop the servers (each drains on SIGTERM; a cluster's primary stops its workers)
// and remove the worktree before leaving.
process.once('SIGINT', () => {
  for (const { server } of servers) server.child.kill('SIGTERM');
  removeWorktree(worktree);
  process.exit(130);
});
try {
  servers.push({ server: await startBareServer({ name: 'bare-1' }), path: ROUTE.barePath, body: JSON.stringify(ROUTE.bareBody) });
  for (const workers of WORKER_COUNTS) {
    for (const [label, root] of [['base', worktree], ['this', REPO_ROOT]] as const) {
      const server = await startProductionServer({ name: `${label}-${workers}`, apiKey, logLevel: args['log-level'], extra: { WORKERS: String(workers), ...AUTH_ENV }, root });
      servers.push({ server, path: ROUTE.path, ...(ROUTE.expectedStatus === undefined ? {} : { expectedStatus: ROUTE.expectedStatus }) });
    }
  }
  const targets = hashTargets(servers, apiKey, JSON.stringify(ROUTE.body)).map((target) =>
    target.name === 'bare-1' ? target : { ...target, headers: { 'content-type': 'application/json', ...CREDENTIALS } });
  const results = await alternate(targets, {
    connections: CONNECTIONS,
    generator: GENERATOR,
    pipelining: PIPELINING,
    duration: Number(args.duration),
    warmup: Number(args.warmup),
    rounds: ROUNDS,
    onRun: printRun,
  });
  report(results);
} finally {
  for (const { server } of servers) await server.stop();
  removeWorktree(worktree);
}

function report(results: Map<string, RunResult[]>): void {
  // A flood of bad input is counted in answers (all of them 400s; bare-1's all 200s).
  const requestsPerSecond = (run: RunResult) => (ROUTE.expectedStatus === undefined ? run.requestsPerSecond : run.answersPerSecond);
  const UNIT = ROUTE.expectedStatus === undefined ? 'req/s' : 'answers/s';
  const cpu = (run: RunResult) => run.serverCpuUsPerRequest;
  print(`\n## Results (medians of ${ROUNDS} rounds)\n`);
  print(markdownTable(
    ['Server', UNIT, 'server CPU/request', `${UNIT} ÷ bare-1 (range)`, 'unexpected answers and errors'],
    [...results].map(([name, runs]) => [
      name,
      formatCount(median(runs.map(requestsPerSecond))),
      `${median(runs.map(cpu)).toFixed(2)} µs`,
      name === 'bare-1' ? '1' : ratio(results, name, 'bare-1', requestsPerSecond),
      String(runs.reduce((sum, run) => sum + failures(run, name === 'bare-1' ? undefined : ROUTE.expectedStatus), 0)),
    ]),
  ));
  print('');
  print(markdownTable(
    ['WORKERS', `this/base ${UNIT} (range)`, 'this/base CPU per request (range)'],
    WORKER_COUNTS.map((workers) => [String(workers), ratio(results, `this-${workers}`, `base-${workers}`, requestsPerSecond), ratio(results, `this-${workers}`, `base-${workers}`, cpu)]),
  ));
  print('\n- a CPU ratio below 1 means this tree spends less per request; two launches of the same code differ by up to 3.5 % here');
  print(`- load average (1/5/15 min) at the end: ${loadAverage()}`);
}
