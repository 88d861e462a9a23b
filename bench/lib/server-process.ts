/**
 * Starts servers as child processes for the load benchmarks, so that the load generator (this
 * process) and the server under test each have their own event loop, as a real client and server
 * would. Both still share the machine's two cores: every load figure is "server + load generator
 * on 2 cores", which the reports say.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { createServer } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVER_V8_FLAGS } from '../../packages/server/src/v8-flags.ts';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const HOST = '127.0.0.1';

export interface ServerProcess {
  name: string;
  url: string;
  child: ChildProcess;
  logFile: string;
  /** SIGTERM (the server's graceful shutdown), then SIGKILL after `graceMs`. Resolves with the exit code. */
  stop(graceMs?: number): Promise<number | null>;
}

const CLOCK_TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim()) || 100;

interface ProcStat {
  /** R, S, D, …; Z for a zombie: ended, waiting for its parent (or init) to collect it. */
  state: string;
  ppid: number;
  /** user + system CPU time of every thread, in ms. */
  cpuMs: number;
  /** Start time in clock ticks since boot: with the pid, it names the process even if the pid is reused. */
  startTicks: string;
}

/** /proc/<pid>/stat, or undefined where there is no /proc or the process is gone. */
function readStat(pid: number): ProcStat | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces) start at field 3, "state".
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return {
      state: fields[0] ?? '',
      ppid: Number(fields[1]),
      cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND,
      startTicks: fields[19] ?? '',
    };
  } catch {
    return undefined;
  }
}

/** Whether this kernel lists a thread's children in /proc/<pid>/task/<tid>/children. */
const CHILDREN_FILES = existsSync(`/proc/${process.pid}/task/${process.pid}/children`);

/**
 * The direct children of `pid`: from /proc/<pid>/task/<tid>/children (every thread can fork), or,
 * where the kernel does not offer that file, by scanning every process's parent pid.
 */
function childrenOf(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return []; // gone, or no /proc at all
  }
  if (!CHILDREN_FILES) {
    return readdirSync('/proc').filter((entry) => /^\d+$/.test(entry)).map(Number).filter((candidate) => readStat(candidate)?.ppid === pid);
  }
  const children: number[] = [];
  for (const task of tasks) {
    try {
      const text = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      if (text !== '') children.push(...text.split(' ').map(Number));
    } catch {
      // The thread ended since the directory was read.
    }
  }
  return children;
}

/** `pid` and all its descendants (a cluster's primary and its workers), parents first. */
export function processTree(pid: number): number[] {
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) tree.push(...childrenOf(tree[i] as number));
  return tree;
}

/** CPU time used so far by each process of a tree, keyed by pid and start time. */
export type CpuSnapshot = Map<string, number>;

/**
 * CPU time (user + system, every thread) used so far by process `pid` and every descendant, from
 * /proc/<pid>/stat; empty where there is no /proc. Unlike throughput, a server's CPU time per
 * request barely moves when other processes take the machine's cores away, which makes it the
 * steadier figure on a shared box. Resolution: one clock tick (10 ms) per process.
 */
export function cpuSnapshot(pid: number | undefined): CpuSnapshot {
  const snapshot: CpuSnapshot = new Map();
  if (pid === undefined) return snapshot;
  for (const member of processTree(pid)) {
    const stat = readStat(member);
    if (stat !== undefined) snapshot.set(`${member}@${stat.startTicks}`, stat.cpuMs);
  }
  return snapshot;
}

/**
 * CPU time the tree used between two snapshots, in ms (only process `only`'s, if given); NaN
 * without /proc. A process that started in between counts in full; one that exited in between is
 * lost (a cluster worker that was replaced mid-run would make the figure low).
 */
export function cpuUsedMs(before: CpuSnapshot, after: CpuSnapshot, only?: number): number {
  if (after.size === 0) return Number.NaN;
  let total = 0;
  for (const [member, cpuMs] of after) {
    if (only === undefined || member.startsWith(`${only}@`)) total += cpuMs - (before.get(member) ?? 0);
  }
  return total;
}

/** Resident memory of process `pid` (VmRSS of /proc/<pid>/status), in bytes; NaN without /proc. */
export function residentBytes(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((entry) => entry.startsWith('VmRSS:'));
    // "VmRSS:	  123456 kB"
    return line === undefined ? Number.NaN : Number(line.split(/\s+/)[1]) * 1024;
  } catch {
    return Number.NaN;
  }
}

/** A port that was free a moment ago (the kernel picks it; the tiny race is acceptable for a benchmark). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, HOST, () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** A fresh API key per run: nothing secret, but no fixed credential lives in the repository either. */
export function benchApiKey(): string {
  return randomBytes(24).toString('hex');
}

/**
 * The production configuration: NODE_ENV=production, an API key, and a rate limit so high that the
 * limiter runs (its hook and headers are part of the cost) but never refuses. The environment is
 * built from scratch rather than inherited, so that a stray JWT_SECRET or CORS_ORIGIN in the
 * caller's shell cannot change what is measured.
 */
export function productionEnv(options: { port: number; apiKey: string; logLevel: string; extra?: Record<string, string> }): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    NODE_ENV: 'production',
    HOST,
    PORT: String(options.port),
    CRYPTO_API_KEY: options.apiKey,
    LOG_LEVEL: options.logLevel,
    RATE_LIMIT_MAX: '10000000',
    ...options.extra,
  };
}

interface ProcessIdentity { pid: number; startTicks: string }

function identify(pids: number[]): ProcessIdentity[] {
  return pids.flatMap((pid) => {
    const stat = readStat(pid);
    return stat === undefined ? [] : [{ pid, startTicks: stat.startTicks }];
  });
}

/** Still the same process (not a reused pid) and still running (not a zombie)? */
function alive(identity: ProcessIdentity): boolean {
  const stat = readStat(identity.pid);
  return stat !== undefined && stat.startTicks === identity.startTicks && stat.state !== 'Z' && stat.state !== 'X';
}

/**
 * Waits up to `graceMs` for the processes a server started to end with it, then SIGKILLs those
 * still running: a cluster primary that died before its workers would otherwise leave them behind.
 */
async function reap(started: ProcessIdentity[], graceMs: number): Promise<void> {
  const deadline = Date.now() + graceMs;
  while (started.some(alive) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  for (const leftover of started.filter(alive)) {
    try {
      process.kill(leftover.pid, 'SIGKILL');
    } catch {
      // It ended in between.
    }
  }
}

/** GET `url` on a new connection (a cluster hands each new connection to a worker in turn): its status, 0 if none. */
function statusOf(url: string): Promise<number> {
  return new Promise((resolve) => {
    const request = httpGet(url, { agent: false, timeout: 5000 }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(0));
  });
}

/** Waits until GET `url` has answered 200 `answers` times in a row, each on a new connection. */
async function waitUntilReady(url: string, child: ChildProcess, timeoutMs: number, answers: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let inARow = 0;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`exited with code ${child.exitCode} before answering`);
    inARow = (await statusOf(url)) === 200 ? inARow + 1 : 0;
    if (inARow >= answers) return;
    if (inARow === 0) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no ${answers} answers 200 in a row from ${url} within ${timeoutMs} ms`);
}

/**
 * Runs `script` (a path relative to the repository root) on this runtime with `env`, and waits
 * until GET `readyPath` answers 200 (`readyAnswers` times in a row on new connections, so that
 * every worker of a cluster is likely to have answered). The child's stdout (its JSON log lines)
 * goes to a file, as a container's would go to a collector, rather than through this process's
 * event loop.
 *
 * Every server, the bare baselines included, runs with the V8 flags of `npm start`
 * (packages/server/src/v8-flags.ts), then `nodeArgs`: ratios then compare request pipelines, not
 * heap settings. `launcher`: a command that runs Node in its turn (valgrind, for
 * bench/instructions.ts); the child is then the launcher's process.
 */
export async function startServer(options: {
  name: string;
  script: string;
  env: Record<string, string>;
  port: number;
  nodeArgs?: string[];
  launcher?: readonly string[];
  readyPath?: string;
  readyAnswers?: number;
  readyTimeoutMs?: number;
}): Promise<ServerProcess> {
  const logFile = join(tmpdir(), `crypto-service-bench-${options.name.replace(/[^A-Za-z0-9-]+/g, '_')}-${process.pid}.log`);
  const out = openSync(logFile, 'w');
  const nodeCommand = [process.execPath, ...SERVER_V8_FLAGS, ...(options.nodeArgs ?? []), options.script];
  const [command, ...args] = [...(options.launcher ?? []), ...nodeCommand] as [string, ...string[]];
  const child = spawn(command, args, {
    cwd: REPO_ROOT,
    env: options.env,
    stdio: ['ignore', out, 'inherit'],
  });
  closeSync(out);
  const url = `http://${HOST}:${options.port}`;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    await waitUntilReady(`${url}${options.readyPath ?? '/live'}`, child, options.readyTimeoutMs ?? 30_000, options.readyAnswers ?? 1);
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`${options.name} server did not start: ${(error as Error).message} (log: ${logFile})`);
  }
  return {
    name: options.name,
    url,
    child,
    logFile,
    async stop(graceMs = 15_000) {
      if (child.exitCode !== null) return child.exitCode;
      // A cluster's workers are the child's own children: note them now, so that none outlives it.
      const descendants = child.pid === undefined ? [] : identify(processTree(child.pid).slice(1));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const code = await exited;
      clearTimeout(timer);
      await reap(descendants, 5000);
      return code;
    },
  };
}

/**
 * packages/server/src/server.ts with productionEnv on a free port, ready when `/ready` says so:
 * `/live` answers as soon as the server listens, but the routes answer 503 until the start-up
 * self-tests have passed, and `/ready` waits for them. A cluster (`WORKERS` in `extra`) must
 * answer 200 on twice as many new connections in a row as it has workers. `root`: the checkout
 * whose server to run (bench/ab.ts runs another commit's); this repository by default.
 */
export async function startProductionServer(options: {
  name: string;
  apiKey: string;
  logLevel: string;
  extra?: Record<string, string>;
  nodeArgs?: string[];
  root?: string;
}): Promise<ServerProcess> {
  const port = await freePort();
  const workersSetting = options.extra?.WORKERS ?? '1';
  const workers = workersSetting.toLowerCase() === 'auto' ? availableParallelism() : Number(workersSetting) || 1;
  const script = 'packages/server/src/server.ts';
  return startServer({
    name: options.name,
    script: options.root === undefined ? script : join(options.root, script),
    port,
    env: productionEnv({ port, apiKey: options.apiKey, logLevel: options.logLevel, extra: options.extra }),
    nodeArgs: options.nodeArgs,
    readyPath: '/ready',
    readyAnswers: 2 * workers,
  });
}

/**
 * bench/bare-server.ts on a free port: one process, or `workers` behind node:cluster
 * (BARE_WORKERS), ready once `/live` has answered on 2 × workers new connections in a row.
 */
export async function startBareServer(options: { name: string; workers?: number; nodeArgs?: string[] }): Promise<ServerProcess> {
  const port = await freePort();
  const workers = options.workers ?? 1;
  return startServer({
    name: options.name,
    script: 'bench/bare-server.ts',
    port,
    env: { PATH: process.env.PATH ?? '', PORT: String(port), BARE_WORKERS: String(workers) },
    nodeArgs: options.nodeArgs,
    readyAnswers: 2 * workers,
  });
}
