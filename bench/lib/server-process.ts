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
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { SERVER_V8_FLAGS } from '@crypto-service/server/v8-flags';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const HOST = '127.0.0.1';
const CLOCK_TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim()) || 100;

export interface ServerProcess {
  name: string;
  url: string;
  child: ChildProcess;
  /** SIGTERM (the server's graceful shutdown), SIGKILL after 15 s, then any descendant left over. */
  stop(): Promise<void>;
}

/** /proc/<pid>/stat: state (Z for a zombie), CPU ms of every thread, and the start time that tells a reused pid apart. */
function readStat(pid: number): { state: string; cpuMs: number; id: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may contain spaces: the fields after it start at "state".
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cpuMs = ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
    return { state: fields[0] ?? '', cpuMs, id: `${pid}@${fields[19]}` };
  } catch {
    return undefined;
  }
}

/** `pid` and its descendants (a cluster's primary and its workers), from every thread's children file. */
export function processTree(pid: number): number[] {
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) {
    try {
      for (const task of readdirSync(`/proc/${tree[i]}/task`)) {
        const text = readFileSync(`/proc/${tree[i]}/task/${task}/children`, 'utf8').trim();
        if (text !== '') tree.push(...text.split(' ').map(Number));
      }
    } catch {
      // The process or thread ended meanwhile.
    }
  }
  return tree;
}

/** CPU ms used so far by each process of a tree, keyed by pid@start time; empty without /proc. */
export type CpuSnapshot = Map<string, number>;

export function cpuSnapshot(pid: number): CpuSnapshot {
  const stats = processTree(pid).map(readStat);
  return new Map(stats.flatMap((stat) => (stat === undefined ? [] : [[stat.id, stat.cpuMs] as const])));
}

/** CPU ms the tree (or process `only`) used between snapshots; a process that exited in between is lost. */
export function cpuUsedMs(before: CpuSnapshot, after: CpuSnapshot, only?: number): number {
  if (after.size === 0) return Number.NaN;
  let total = 0;
  for (const [id, cpuMs] of after)
    if (only === undefined || id.startsWith(`${only}@`)) total += cpuMs - (before.get(id) ?? 0);
  return total;
}

/** Resident memory (VmRSS) of `pid` in bytes; NaN without /proc. */
export function residentBytes(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match === null ? Number.NaN : Number(match[1]) * 1024;
  } catch {
    return Number.NaN;
  }
}

/** A port that was free a moment ago; the race with other processes is acceptable for a benchmark. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().once('error', reject);
    server.listen(0, HOST, () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject()));
    });
  });
}

/** A fresh API key per run, so that no fixed credential lives in the repository. */
export const benchApiKey = () => randomBytes(24).toString('hex');

/** GET `url` on a new connection, which a cluster hands to its next worker: the status, 0 if none. */
function statusOf(url: string): Promise<number> {
  return new Promise((resolve) => {
    const request = httpGet(url, { agent: false, timeout: 5000 }, (response) => {
      response.resume().on('end', () => resolve(response.statusCode ?? 0));
    });
    request.on('timeout', () => request.destroy()).on('error', () => resolve(0));
  });
}

/**
 * Runs `script` with the V8 flags of `npm start`, the bare baseline included, so that ratios compare
 * request pipelines rather than heap settings. Ready once GET `readyPath` has answered 200 on
 * 2 × `workers` new connections in a row, which every worker of a cluster has then most likely
 * served. The environment is built from scratch, so that a stray variable in the caller's shell
 * cannot change what is measured; stdout goes to a file in $TMPDIR.
 */
async function startServer(name: string, script: string, env: Record<string, string>, readyPath: string) {
  const port = await freePort();
  const logFile = join(tmpdir(), `crypto-service-bench-${name.replace(/[^A-Za-z0-9-]+/g, '_')}-${process.pid}.log`);
  const out = openSync(logFile, 'w');
  const child = spawn(process.execPath, [...SERVER_V8_FLAGS, script], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_OPTIONS: process.env.NODE_OPTIONS ?? '',
      HOST,
      PORT: String(port),
      ...env,
    },
    stdio: ['ignore', out, 'inherit'],
  });
  closeSync(out);
  const url = `http://${HOST}:${port}`;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const answers = 2 * (Number(env.WORKERS ?? env.BARE_WORKERS) || 1);
  const deadline = Date.now() + 30_000;
  for (let inARow = 0; inARow < answers;) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} server did not start (exit code ${child.exitCode}; log: ${logFile})`);
    }
    inARow = (await statusOf(`${url}${readyPath}`)) === 200 ? inARow + 1 : 0;
    if (inARow === 0) await sleep(100);
  }
  const stop = async () => {
    if (child.exitCode !== null) return;
    const descendants = processTree(child.pid as number)
      .slice(1)
      .flatMap((pid) => readStat(pid)?.id ?? []);
    const alive = (id: string) => {
      const stat = readStat(Number(id.split('@')[0]));
      return stat?.id === id && stat.state !== 'Z' && stat.state !== 'X';
    };
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
    // Whatever the server started (a cluster's workers) that outlives it by 5 s is killed.
    for (let waited = 0; descendants.some(alive) && waited < 5000; waited += 100) await sleep(100);
    for (const id of descendants.filter(alive)) {
      try {
        process.kill(Number(id.split('@')[0]), 'SIGKILL');
      } catch {
        // It ended in between.
      }
    }
  };
  return { name, url, child, stop };
}

/**
 * The real entry point, packages/server/src/server.ts, in production configuration: an API key and
 * a rate limit so high that the limiter runs but never refuses. Ready when `/ready` says so, since
 * the routes answer 503 until the start-up self-tests have passed.
 */
export function startProductionServer(
  name: string,
  apiKey: string,
  env: Record<string, string> = {},
): Promise<ServerProcess> {
  return startServer(
    name,
    'packages/server/src/server.ts',
    { NODE_ENV: 'production', CRYPTO_API_KEY: apiKey, LOG_LEVEL: 'warn', RATE_LIMIT_MAX: '10000000', ...env },
    '/ready',
  );
}

/** bench/bare-server.ts: one process, or `workers` behind node:cluster. */
export function startBareServer(name: string, workers: number): Promise<ServerProcess> {
  return startServer(name, 'bench/bare-server.ts', { BARE_WORKERS: String(workers) }, '/live');
}
