/**
 * Runs the CLI as its users do: a separate process (the runtime that runs the tests, so Node 22
 * and Node 24 are both covered), talking over HTTP to the real service started in this process.
 * The child gets a controlled environment: nothing from the shell but PATH, so that a
 * CRYPTO_API_KEY exported by the developer cannot change a result.
 */
import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';

export const REPO_ROOT = resolve(import.meta.dirname, '../../..');
export const MAIN = join(REPO_ROOT, 'packages/cli/src/main.ts');
export const BIN = join(REPO_ROOT, 'node_modules/.bin/crypto-service');

export interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: string;
  /** stdout as text, without its final line break. */
  text: string;
}

export interface RunOptions {
  input?: string | Uint8Array;
  env?: Record<string, string>;
  /** Runs this executable instead of `node main.ts` (for the installed bin). */
  executable?: string;
  timeoutMs?: number;
}

/**
 * The runtime's directory first on PATH: `#!/usr/bin/env node` then finds this very runtime. And
 * this process's NODE_OPTIONS, whose export condition makes the child run the sources too.
 */
export function childEnv(env: Record<string, string> = {}): Record<string, string> {
  const options: Record<string, string> =
    process.env.NODE_OPTIONS === undefined ? {} : { NODE_OPTIONS: process.env.NODE_OPTIONS };
  return { PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`, ...options, ...env };
}

/** Runs crypto-service with `args`; resolves when it exits (never rejects on a non-zero status). */
export function cli(args: string[], options: RunOptions = {}): Promise<Run> {
  const [command, commandArgs] =
    options.executable === undefined ? [process.execPath, [MAIN, ...args]] : [options.executable, args];
  // Asynchronous on purpose: the service answering the child runs in this process's event loop.
  const child = spawn(command, commandArgs, {
    cwd: REPO_ROOT,
    env: childEnv(options.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const stdout: Buffer[] = [];
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr += chunk;
  });
  child.stdin.end(options.input ?? '');
  const timeoutMs = options.timeoutMs ?? 30_000;
  return new Promise((resolveRun, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`crypto-service ${args.join(' ')} did not finish within ${timeoutMs} ms; stderr: ${stderr}`));
    }, timeoutMs);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const out = Buffer.concat(stdout);
      resolveRun({ code, signal, stdout: out, stderr, text: out.toString('utf8').replace(/\n$/, '') });
    });
  });
}

/** The parsed JSON that a run printed. */
export function json(run: Run): Record<string, unknown> {
  return JSON.parse(run.stdout.toString('utf8')) as Record<string, unknown>;
}
