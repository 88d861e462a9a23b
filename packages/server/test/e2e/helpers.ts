/**
 * End-to-end helpers: start the real server process (packages/server/src/server.ts) on the runtime
 * that runs the tests (process.execPath, so the same Node 22 or Node 24 that runs node:test), on a
 * free loopback port, with a controlled environment (nothing is inherited from the shell but PATH),
 * and talk to it over real sockets. It runs with the V8 flags `npm start` passes (src/v8-flags.ts),
 * so that the tests see the heap settings production has.
 *
 * The server logs pino JSON lines on stdout; startServer waits for Fastify's "Server listening at"
 * line, so it needs LOG_LEVEL=info (the default here) or debug.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { after } from 'node:test';
import { resolve } from 'node:path';
import { SERVER_V8_FLAGS } from '../../src/v8-flags.ts';

export const REPO_ROOT = resolve(import.meta.dirname, '../../../..');
export const SERVER_ENTRY = resolve(import.meta.dirname, '../../src/server.ts');

/** An environment for the server: a value of undefined removes one of the defaults. */
export type Env = Record<string, string | undefined>;

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** One pino log line as the server prints it. */
export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** What every server process gets unless the test says otherwise. */
export const DEFAULT_ENV: Readonly<Env> = { NODE_ENV: 'test', LOG_LEVEL: 'info', HOST: '127.0.0.1' };

function withTimeout<T>(promise: Promise<T>, ms: number, message: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(message())), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export function delay(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}

/** A TCP port that was free a moment ago: listen on port 0 on loopback, read the port, close. */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const probe = net.createServer();
  probe.listen(0, host);
  await once(probe, 'listening');
  const address = probe.address();
  probe.close();
  await once(probe, 'close');
  if (address === null || typeof address === 'string') throw new Error('could not read the probe port');
  return address.port;
}

// Every child started here, so that none outlives the test file even if a test forgets it (its
// pipes would otherwise keep the test process waiting): killed after the file's last test, and
// at exit.
const children = new Set<ChildProcess>();
const exits = new WeakMap<ChildProcess, Promise<Exit>>();
function killAll(): void {
  for (const child of children) child.kill('SIGKILL');
}
after(killAll);
process.on('exit', killAll);

function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/**
 * Resolves with the exit code and signal once the process has exited (and its output has been
 * read to the end, for processes started here); rejects if that takes longer than timeoutMs.
 */
export function waitForExit(child: ChildProcess, timeoutMs = 5000): Promise<Exit> {
  let exit = exits.get(child);
  if (exit === undefined) {
    exit = hasExited(child)
      ? Promise.resolve({ code: child.exitCode, signal: child.signalCode })
      : once(child, 'exit').then(([code, signal]) => ({
          code: code as number | null,
          signal: signal as NodeJS.Signals | null,
        }));
  }
  return withTimeout(exit, timeoutMs, () => `process ${child.pid} did not exit within ${timeoutMs} ms`);
}

function controlledEnv(env: Env): NodeJS.ProcessEnv {
  // NODE_OPTIONS carries the export condition that makes the child run the sources, as this process does.
  const merged: Env = { PATH: process.env.PATH, NODE_OPTIONS: process.env.NODE_OPTIONS, ...DEFAULT_ENV, ...env };
  return Object.fromEntries(
    Object.entries(merged).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

/** The server process, its output, and ways to wait for it. */
export class ServerProcess {
  readonly process: ChildProcess;
  /** Resolves once the process has exited and its stdout and stderr are read to the end. */
  readonly exited: Promise<Exit>;
  /** Where it listens, from its "Server listening at" line; empty until ready() has seen it. */
  baseUrl = '';
  port = 0;

  #stdout = '';
  #stderr = '';
  #output = '';
  #partialLine = '';
  readonly #logs: LogLine[] = [];
  readonly #waiters = new Set<() => boolean>();
  #closed = false;

  constructor(env: Env = {}) {
    const child = spawn(process.execPath, [...SERVER_V8_FLAGS, SERVER_ENTRY], {
      cwd: REPO_ROOT,
      env: controlledEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.process = child;
    children.add(child);
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      this.#stdout += chunk;
      this.#output += chunk;
      this.#readLines(chunk);
    });
    child.stderr.on('data', (chunk: string) => {
      this.#stderr += chunk;
      this.#output += chunk;
    });
    this.exited = new Promise<Exit>((resolveExit) => {
      const finish = (exit: Exit) => {
        children.delete(child);
        this.#closed = true;
        this.#readLines('\n');
        this.#notify();
        resolveExit(exit);
      };
      child.once('close', (code, signal) => finish({ code, signal }));
      child.once('error', (error) => {
        this.#stderr += `spawn error: ${error.message}\n`;
        finish({ code: null, signal: null });
      });
    });
    exits.set(child, this.exited);
  }

  #readLines(chunk: string): void {
    const lines = (this.#partialLine + chunk).split('\n');
    this.#partialLine = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.startsWith('{')) continue;
      try {
        const parsed = JSON.parse(line) as unknown;
        if (typeof parsed === 'object' && parsed !== null && 'msg' in parsed) this.#logs.push(parsed as LogLine);
      } catch {
        // Not a log line; it stays in output().
      }
    }
    if (lines.length > 0) this.#notify();
  }

  #notify(): void {
    for (const waiter of this.#waiters) waiter();
  }

  get hasExited(): boolean {
    return hasExited(this.process);
  }

  /** stdout and stderr, in the order they arrived. */
  output(): string {
    return this.#output;
  }

  stdout(): string {
    return this.#stdout;
  }

  stderr(): string {
    return this.#stderr;
  }

  /** The JSON log lines printed so far. */
  logs(): LogLine[] {
    return [...this.#logs];
  }

  /** The first log line (already printed or still to come) that matches; rejects on timeout or exit. */
  async waitForLog(
    match: (line: LogLine) => boolean,
    timeoutMs = 5000,
    what = 'the expected log line',
  ): Promise<LogLine> {
    const [line] = await this.waitForLogs(match, 1, timeoutMs, what);
    return line as LogLine;
  }

  /**
   * The first `count` matching log lines, once that many are printed; rejects on timeout or exit.
   * (A response can reach the test before the log line written ahead of it: they travel on
   * different pipes. Wait for log lines rather than reading logs() right after a response.)
   */
  waitForLogs(
    match: (line: LogLine) => boolean,
    count: number,
    timeoutMs = 5000,
    what = `${count} matching log lines`,
  ): Promise<LogLine[]> {
    return new Promise<LogLine[]>((resolveLines, reject) => {
      const timer = setTimeout(() => {
        done();
        reject(new Error(`no ${what} within ${timeoutMs} ms; output so far:\n${this.output()}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.#waiters.delete(check);
      };
      const check = (): boolean => {
        const found = this.#logs.filter(match);
        if (found.length >= count) {
          done();
          resolveLines(found.slice(0, count));
          return true;
        }
        if (this.#closed) {
          done();
          reject(
            new Error(
              `the server exited (code ${this.process.exitCode}, signal ${this.process.signalCode}) before printing ${what}; output:\n${this.output()}`,
            ),
          );
          return true;
        }
        return false;
      };
      if (!check()) this.#waiters.add(check);
    });
  }

  /** Waits for "Server listening at <url>" and records the address. */
  async ready(timeoutMs = 30_000): Promise<this> {
    const prefix = 'Server listening at ';
    const line = await this.waitForLog((log) => log.msg.startsWith(prefix), timeoutMs, `"${prefix}…" line`);
    this.baseUrl = line.msg.slice(prefix.length).trim();
    this.port = Number(new URL(this.baseUrl).port);
    return this;
  }

  signal(signal: NodeJS.Signals): void {
    if (!this.process.kill(signal)) throw new Error(`could not send ${signal} to process ${this.process.pid}`);
  }

  /** SIGTERM, then SIGKILL if it has not exited within timeoutMs. */
  async stop(timeoutMs = 5000): Promise<Exit> {
    if (!this.hasExited) this.process.kill('SIGTERM');
    try {
      return await waitForExit(this.process, timeoutMs);
    } catch {
      this.process.kill('SIGKILL');
      return waitForExit(this.process, 2000);
    }
  }

  /** SIGKILL if still running: the clean-up for t.after, whatever state a failed test left. */
  async kill(): Promise<void> {
    if (!this.hasExited) this.process.kill('SIGKILL');
    await waitForExit(this.process, 2000).catch(() => undefined);
  }
}

export type StartedServer = ServerProcess;

/**
 * Starts the server on a free port (unless env.PORT says which) and resolves once it listens.
 * If it exits or stays silent instead, it is killed and the error carries its output. A port taken
 * between freePort() and the server's listen() is retried with another port.
 */
/** Waits until /ready answers 200 (the start-up self-tests have passed). */
export async function untilReady(server: StartedServer, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await request(`${server.baseUrl}/ready`)).status !== 200) {
    if (Date.now() > deadline) throw new Error(`${server.baseUrl} not ready within ${timeoutMs} ms`);
    await delay(100);
  }
}

export async function startServer(env: Env = {}, { readyTimeoutMs = 30_000 } = {}): Promise<StartedServer> {
  for (let attempt = 1; ; attempt += 1) {
    const port = env.PORT ?? String(await freePort());
    const server = new ServerProcess({ ...env, PORT: port });
    try {
      return await server.ready(readyTimeoutMs);
    } catch (error) {
      await server.kill();
      const portTaken = server.stderr().includes('already in use');
      if (portTaken && env.PORT === undefined && attempt < 3) continue;
      throw error;
    }
  }
}

export interface RunResult extends Exit {
  stdout: string;
  stderr: string;
}

/** Runs the server expecting it to stop by itself (a configuration error); kills it after timeoutMs. */
export async function runServerToExit(env: Env, timeoutMs = 10_000): Promise<RunResult> {
  const server = new ServerProcess({ PORT: String(await freePort()), ...env });
  try {
    const exit = await waitForExit(server.process, timeoutMs);
    return { ...exit, stdout: server.stdout(), stderr: server.stderr() };
  } catch (error) {
    await server.kill();
    throw new Error(`${(error as Error).message}; output:\n${server.output()}`, { cause: error });
  }
}

export interface HttpResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  json(): unknown;
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  /** The CA to trust for https (a self-signed certificate); otherwise the default trust store. */
  ca?: string | Buffer;
  timeoutMs?: number;
}

/** A request whose body the test writes piece by piece. `response` never rejects unobserved. */
export interface OpenRequest {
  /** Resolves once the chunk is handed to the socket. */
  write(chunk: string): Promise<void>;
  end(chunk?: string): void;
  response: Promise<HttpResponse>;
  destroy(): void;
}

/** Opens a request on a new connection (no agent, no keep-alive) and leaves the body to the caller. */
export function openRequest(url: string | URL, options: RequestOptions = {}): OpenRequest {
  const target = new URL(url);
  const timeoutMs = options.timeoutMs ?? 5000;
  const base = { method: options.method ?? 'GET', headers: options.headers ?? {}, agent: false as const };
  const req =
    target.protocol === 'https:'
      ? https.request(target, { ...base, ...(options.ca === undefined ? {} : { ca: options.ca }) })
      : http.request(target, base);
  const timer = setTimeout(
    () => req.destroy(new Error(`${base.method} ${target.href} timed out after ${timeoutMs} ms`)),
    timeoutMs,
  );
  const response = new Promise<HttpResponse>((resolveResponse, reject) => {
    req.once('error', reject);
    req.once('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.once('error', reject);
      res.once('end', () => {
        resolveResponse({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body,
          json: () => JSON.parse(body) as unknown,
        });
      });
    });
  }).finally(() => clearTimeout(timer));
  response.catch(() => undefined);
  return {
    write: (chunk) =>
      new Promise<void>((resolveWrite, reject) => {
        req.write(chunk, (error) => (error ? reject(error) : resolveWrite()));
      }),
    end: (chunk) => {
      if (chunk === undefined) req.end();
      else req.end(chunk);
    },
    response,
    destroy: () => req.destroy(),
  };
}

export function request(url: string | URL, options: RequestOptions & { body?: string } = {}): Promise<HttpResponse> {
  const open = openRequest(url, options);
  open.end(options.body);
  return open.response;
}

export function postJson(url: string | URL, body: unknown, options: RequestOptions = {}): Promise<HttpResponse> {
  return request(url, {
    ...options,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...options.headers },
    body: JSON.stringify(body),
  });
}

/** The outcome of a request as data: the status, or the error code if there was no response. */
export async function outcome(response: Promise<HttpResponse>): Promise<{ status: number } | { error: string }> {
  try {
    return { status: (await response).status };
  } catch (error) {
    return { error: (error as NodeJS.ErrnoException).code ?? (error as Error).message };
  }
}
