/**
 * Starts servers as child processes for the load benchmarks, so that the load generator (this
 * process) and the server under test each have their own event loop, as a real client and server
 * would. Both still share the machine's two cores: every load figure is "server + load generator
 * on 2 cores", which the reports say.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

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

/**
 * CPU time (user + system, every thread) that process `pid` has used so far, in ms, from
 * /proc/<pid>/stat; NaN where there is no /proc. Unlike throughput, a server's CPU time per request
 * barely moves when other processes take the machine's cores away, which makes it the steadier
 * figure on a shared box. Resolution: one clock tick (10 ms).
 */
export function processCpuMs(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces) start at field 3, "state".
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
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

async function waitUntilReady(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`exited with code ${child.exitCode} before answering`);
    try {
      const response = await fetch(url);
      await response.arrayBuffer();
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no answer from ${url} within ${timeoutMs} ms`);
}

/**
 * Runs `script` (a path relative to the repository root) on this runtime with `env`, and waits
 * until GET `readyPath` answers 200. The child's stdout (its JSON log lines) goes to a file, as
 * a container's would go to a collector, rather than through this process's event loop.
 */
export async function startServer(options: {
  name: string;
  script: string;
  env: Record<string, string>;
  port: number;
  nodeArgs?: string[];
  readyPath?: string;
}): Promise<ServerProcess> {
  const logFile = join(tmpdir(), `crypto-service-bench-${options.name.replace(/[^A-Za-z0-9-]+/g, '_')}-${process.pid}.log`);
  const out = openSync(logFile, 'w');
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), options.script], {
    cwd: REPO_ROOT,
    env: options.env,
    stdio: ['ignore', out, 'inherit'],
  });
  closeSync(out);
  const url = `http://${HOST}:${options.port}`;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    await waitUntilReady(`${url}${options.readyPath ?? '/live'}`, child, 30_000);
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
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
