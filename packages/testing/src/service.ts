/**
 * startCryptoService: the real service in a child process on a free loopback port, with a fresh
 * API key, for an application's tests. A child process rather than the test runner's own event
 * loop, so that the service runs exactly as deployed and a test's timers or mocks cannot reach it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { CryptoClient, type ClientOptions } from '@crypto-service/client';

export interface StartOptions {
  /**
   * Configuration variables for the service (docs/configuration.md of the service), on top of the
   * defaults here: NODE_ENV=test, HOST=127.0.0.1, a free port, and a generated CRYPTO_API_KEY.
   * A value of undefined removes a default, e.g. `{ CRYPTO_API_KEY: undefined }` for anonymous access.
   */
  env?: Record<string, string | undefined>;
  /** Options for the returned client, other than baseUrl and apiKey. */
  client?: Omit<ClientOptions, 'baseUrl' | 'apiKey'>;
  /** How long to wait for the service to be ready, in milliseconds (default 60,000). */
  startTimeoutMs?: number;
  /** Called with each line the service logs (pino JSON); by default the lines are kept quiet. */
  onLog?: (line: string) => void;
}

export interface CryptoService {
  /** The service's base URL, e.g. http://127.0.0.1:41234. */
  url: string;
  /** The generated API key, or undefined when the options removed it. */
  apiKey: string | undefined;
  /** A client for the service, authenticated with apiKey. */
  client: CryptoClient;
  /** A new client for the service with other options (another credential, a retry policy …). */
  createClient(options?: Omit<ClientOptions, 'baseUrl'>): CryptoClient;
  /** Everything the service has logged so far, one pino JSON line per entry. */
  logs(): readonly string[];
  /** Stops the service (SIGTERM, then SIGKILL after 10 s) and waits for it to exit. */
  close(): Promise<void>;
}

const LISTENING = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/;
const KILL_AFTER_MS = 10_000;

/**
 * The server's entry point as the installed package resolves it (its build, or its sources here).
 * require.resolve, because Vitest's module runner has no resolve() on import.meta.
 */
function serverEntry(): string {
  return createRequire(import.meta.url).resolve('@crypto-service/server/main');
}

/** The runtime flags the child needs to resolve the server as this process does (export conditions). */
function conditionFlags(): string[] {
  return process.execArgv.filter((flag) => flag.startsWith('--conditions') || flag.startsWith('-C'));
}

function environment(apiKey: string, overrides: StartOptions['env'] = {}): NodeJS.ProcessEnv {
  const env: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    NODE_OPTIONS: process.env.NODE_OPTIONS,
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    HOST: '127.0.0.1',
    PORT: '0',
    CRYPTO_API_KEY: apiKey,
    ...overrides,
  };
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

function waitForListening(child: ChildProcess, lines: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`the service did not listen within ${timeoutMs} ms`)), timeoutMs);
    const onLine = (line: string): void => {
      const match = LISTENING.exec(line);
      if (match !== null) done(() => resolve(match[1]!));
    };
    const onExit = (code: number | null): void =>
      fail(new Error(`the service exited with ${code} before listening:\n${lines.slice(-20).join('\n')}`));
    function done(settle: () => void): void {
      clearTimeout(timer);
      child.off('exit', onExit);
      lineEvents.off('line', onLine);
      settle();
    }
    function fail(error: Error): void {
      done(() => reject(error));
    }
    const lineEvents = child as ChildProcess & NodeJS.EventEmitter;
    lineEvents.on('line', onLine);
    child.once('exit', onExit);
  });
}

async function waitForReady(url: string, deadline: number): Promise<void> {
  // Listening comes before the start-up self-tests have passed; /ready says when they have.
  for (;;) {
    const status = await fetch(`${url}/ready`).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) return;
    if (Date.now() > deadline) throw new Error(`the service was not ready (GET /ready: ${status})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Emits each complete line of a text stream as a 'line' event on the child. */
function splitLines(child: ChildProcess, lines: string[], onLog: ((line: string) => void) | undefined): void {
  for (const stream of [child.stdout, child.stderr]) {
    let pending = '';
    stream?.setEncoding('utf8').on('data', (chunk: string) => {
      pending += chunk;
      let newline: number;
      while ((newline = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, newline);
        pending = pending.slice(newline + 1);
        lines.push(line);
        onLog?.(line);
        child.emit('line', line);
      }
    });
  }
}

export async function startCryptoService(options: StartOptions = {}): Promise<CryptoService> {
  const timeoutMs = options.startTimeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  const generatedKey = randomBytes(32).toString('hex');
  const env = environment(generatedKey, options.env);
  const apiKey = env.CRYPTO_API_KEY;
  const child = spawn(process.execPath, [...conditionFlags(), serverEntry()], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  splitLines(child, lines, options.onLog);
  const exited = once(child, 'exit');
  // A test run that ends without close() must not leave the service behind.
  const killOnExit = (): void => void child.kill('SIGKILL');
  process.once('exit', killOnExit);
  void exited.then(() => process.off('exit', killOnExit));
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS);
    await exited;
    clearTimeout(killer);
  };
  try {
    const url = await waitForListening(child, lines, timeoutMs);
    await waitForReady(url, deadline);
    const createClient = (clientOptions: Omit<ClientOptions, 'baseUrl'> = {}): CryptoClient =>
      new CryptoClient({ ...clientOptions, baseUrl: url });
    return {
      url,
      apiKey,
      client: createClient({ ...options.client, apiKey }),
      createClient,
      logs: () => [...lines],
      close: stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
