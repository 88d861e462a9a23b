/**
 * Starts the servers under test as child processes, so that the load generator (this process) and
 * each server have their own event loop, as a real client and server would; reads their CPU time
 * and memory from /proc.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVER_V8_FLAGS } from '@crypto-service/server/v8-flags';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const HOST = '127.0.0.1';

export interface ServerProcess {
  name: string;
  url: string;
  child: ChildProcess;
  /** SIGTERM (the server's graceful shutdown), then SIGKILL after `graceMs`. Resolves with the exit code. */
  stop(graceMs?: number): Promise<number | null>;
}

const CLOCK_TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim()) || 100;

interface ProcStat {
  /** Z for a zombie: ended, not yet collected by its parent. */
  state: string;
  /** User + system CPU time of every thread, in ms. */
  cpuMs: number;
  /** With the pid, names the process even if the pid is reused. */
  startTicks: string;
}

/** /proc/<pid>/stat, or undefined where there is no /proc or the process is gone. */
function readStat(pid: number): ProcStat | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may contain spaces: the fields after it start at "state".
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return {
      state: fields[0] ?? '',
      cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND,
      startTicks: fields[19] ?? '',
    };
  } catch {
    return undefined;
  }
}

/** The direct children of `pid`, from each of its threads' children file, since any thread can fork. */
function childrenOf(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
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
 * without /proc. A process that exited in between is lost, so a replaced worker makes it low.
 */
export function cpuUsedMs(before: CpuSnapshot, after: CpuSnapshot, only?: number): number {
  if (after.size === 0) return Number.NaN;
  let total = 0;
  for (const [member, cpuMs] of after) {
    if (only === undefined || member.startsWith(`${only}@`)) total += cpuMs - (before.get(member) ?? 0);
  }
  return total;
}

/** Resident memory of process `pid` (VmRSS), in bytes; NaN without /proc. */
export function residentBytes(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((entry) => entry.startsWith('VmRSS:'));
    return line === undefined ? Number.NaN : Number(line.split(/\s+/)[1]) * 1024;
  } catch {
    return Number.NaN;
  }
}

/** A port that was free a moment ago; the race with other processes is acceptable for a benchmark. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, HOST, () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** A fresh API key per run, so that no fixed credential lives in the repository. */
export function benchApiKey(): string {
  return randomBytes(24).toString('hex');
}

interface ProcessIdentity {
  pid: number;
  startTicks: string;
}

function alive(identity: ProcessIdentity): boolean {
  const stat = readStat(identity.pid);
  return stat !== undefined && stat.startTicks === identity.startTicks && stat.state !== 'Z' && stat.state !== 'X';
}

/** Kills whatever a server started (a cluster's workers) that outlives it by `graceMs`. */
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

/** GET `url` on a new connection, which a cluster hands to its next worker: the status, 0 if none. */
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

async function waitUntilReady(url: string, child: ChildProcess, answers: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  let inARow = 0;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`exited with code ${child.exitCode} before answering`);
    inARow = (await statusOf(url)) === 200 ? inARow + 1 : 0;
    if (inARow >= answers) return;
    if (inARow === 0) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no ${answers} answers 200 in a row from ${url} within 30 s`);
}

/**
 * Runs `script` (relative to the repository root) with the V8 flags of `npm start`, the bare
 * baseline included, so that ratios compare request pipelines rather than heap settings. Ready
 * once GET `readyPath` has answered 200 on `readyAnswers` new connections in a row, which every
 * worker of a cluster has then most likely served. The child's stdout goes to a file in $TMPDIR.
 */
async function startServer(options: {
  name: string;
  script: string;
  env: Record<string, string>;
  port: number;
  readyPath: string;
  readyAnswers: number;
}): Promise<ServerProcess> {
  const logFile = join(
    tmpdir(),
    `crypto-service-bench-${options.name.replace(/[^A-Za-z0-9-]+/g, '_')}-${process.pid}.log`,
  );
  const out = openSync(logFile, 'w');
  const child = spawn(process.execPath, [...SERVER_V8_FLAGS, options.script], {
    cwd: REPO_ROOT,
    env: options.env,
    stdio: ['ignore', out, 'inherit'],
  });
  closeSync(out);
  const url = `http://${HOST}:${options.port}`;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    await waitUntilReady(`${url}${options.readyPath}`, child, options.readyAnswers);
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`${options.name} server did not start: ${(error as Error).message} (log: ${logFile})`, {
      cause: error,
    });
  }
  return {
    name: options.name,
    url,
    child,
    async stop(graceMs = 15_000) {
      if (child.exitCode !== null) return child.exitCode;
      const descendants =
        child.pid === undefined
          ? []
          : processTree(child.pid)
              .slice(1)
              .flatMap((pid) => {
                const stat = readStat(pid);
                return stat === undefined ? [] : [{ pid, startTicks: stat.startTicks }];
              });
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
 * The real server entry point, packages/server/src/server.ts, in production configuration: an
 * API key, and a rate limit so high that the limiter runs but never refuses. The environment is
 * built from scratch so that a stray variable in the caller's shell cannot change what is
 * measured. Ready when `/ready` says so, since the routes answer 503 until the start-up self-tests
 * have passed.
 */
export async function startProductionServer(options: {
  name: string;
  apiKey: string;
  logLevel: string;
  extra?: Record<string, string>;
}): Promise<ServerProcess> {
  const port = await freePort();
  const workers = Number(options.extra?.WORKERS ?? '1') || 1;
  return startServer({
    name: options.name,
    script: 'packages/server/src/server.ts',
    port,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'production',
      HOST,
      PORT: String(port),
      CRYPTO_API_KEY: options.apiKey,
      LOG_LEVEL: options.logLevel,
      RATE_LIMIT_MAX: '10000000',
      ...options.extra,
    },
    readyPath: '/ready',
    readyAnswers: 2 * workers,
  });
}

/** bench/bare-server.ts: one process, or `workers` behind node:cluster. */
export async function startBareServer(options: { name: string; workers: number }): Promise<ServerProcess> {
  const port = await freePort();
  return startServer({
    name: options.name,
    script: 'bench/bare-server.ts',
    port,
    env: { PATH: process.env.PATH ?? '', PORT: String(port), BARE_WORKERS: String(options.workers) },
    readyPath: '/live',
    readyAnswers: 2 * options.workers,
  });
}
