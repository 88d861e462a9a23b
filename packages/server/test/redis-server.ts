/**
 * A real Redis for tests: Debian's redis-server on a free loopback port, in a temporary directory,
 * with persistence off (`--save '' --appendonly no`). It can be stopped and started again on the
 * same port, or frozen (SIGSTOP) to play a server that no longer answers, to simulate outages.
 * Every server started here is killed, and its directory removed, after the test file's last test.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { freePort } from './e2e/helpers.ts';

export const REDIS_SERVER_BIN = process.env.REDIS_SERVER_BIN ?? '/usr/bin/redis-server';

export interface RedisServerOptions {
  /** Extra command-line options, e.g. ['--requirepass', 'secret']. */
  args?: string[];
}

const servers = new Set<RedisServer>();
after(async () => {
  await Promise.all([...servers].map((server) => server.destroy()));
});

/** Answers true once something on the port replies to PING like a Redis (PONG, or NOAUTH with a password). */
function answersPing(port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let reply = '';
    const finish = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => finish(false));
    socket.once('error', () => finish(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString('latin1');
      if (reply.includes('\r\n')) finish(reply.startsWith('+PONG') || reply.startsWith('-NOAUTH'));
    });
  });
}

export class RedisServer {
  readonly port: number;
  readonly dir: string;
  readonly #args: string[];
  #process: ChildProcess | undefined;
  #output = '';

  constructor(port: number, dir: string, args: string[]) {
    this.port = port;
    this.dir = dir;
    this.#args = args;
  }

  /** redis://127.0.0.1:<port>, with a password if given. */
  url(password?: string): string {
    return password === undefined
      ? `redis://127.0.0.1:${this.port}`
      : `redis://:${encodeURIComponent(password)}@127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.#process !== undefined && this.#process.exitCode === null && this.#process.signalCode === null;
  }

  /** What the server printed (its log goes to stdout): shown when it fails to start. */
  output(): string {
    return this.#output;
  }

  /** Starts the server (again) on its port and resolves once it answers PING. */
  async start(timeoutMs = 10_000): Promise<void> {
    if (this.running) throw new Error(`redis-server on port ${this.port} is already running`);
    this.#output = '';
    const child = spawn(
      REDIS_SERVER_BIN,
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        this.dir,
        '--daemonize',
        'no',
        '--logfile',
        '',
        ...this.#args,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.#process = child;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (this.#output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (this.#output += chunk));
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (!this.running) throw new Error(`redis-server exited at start (port ${this.port}):\n${this.#output}`);
      if (await answersPing(this.port)) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await this.stop('SIGKILL');
    throw new Error(`redis-server did not answer PING on port ${this.port} within ${timeoutMs} ms:\n${this.#output}`);
  }

  /** Stops the server (SIGTERM: a clean shutdown; SIGKILL: a crash) and waits until it has exited. */
  async stop(signal: 'SIGTERM' | 'SIGKILL' = 'SIGKILL'): Promise<void> {
    const child = this.#process;
    if (child === undefined || !this.running) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGCONT');
    child.kill(signal);
    await exited;
  }

  /** The process stops answering but keeps its connections open: a hung or overloaded server. */
  freeze(): void {
    this.#process?.kill('SIGSTOP');
  }

  thaw(): void {
    this.#process?.kill('SIGCONT');
  }

  async destroy(): Promise<void> {
    servers.delete(this);
    await this.stop('SIGKILL');
    await rm(this.dir, { recursive: true, force: true });
  }
}

/** Starts a redis-server on a free loopback port; fails with a clear message if there is none installed. */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  if (!existsSync(REDIS_SERVER_BIN)) {
    throw new Error(
      `${REDIS_SERVER_BIN} not found: these tests need a real Redis (Debian: apt-get install redis-server; CI installs it)`,
    );
  }
  const dir = await mkdtemp(join(tmpdir(), 'crypto-service-redis-'));
  for (let attempt = 1; ; attempt += 1) {
    // A port free a moment ago may be taken by the time redis-server binds it: try another.
    const server = new RedisServer(await freePort(), dir, options.args ?? []);
    servers.add(server);
    try {
      await server.start();
      return server;
    } catch (error) {
      servers.delete(server);
      await server.stop('SIGKILL');
      if (attempt >= 3 || !server.output().includes('Address already in use')) {
        await rm(dir, { recursive: true, force: true });
        throw error;
      }
    }
  }
}
