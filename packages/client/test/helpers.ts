/**
 * The real service for the client's tests: the app built from @crypto-service/server, listening
 * on a free loopback port in this process, so that the client talks HTTP through real fetch.
 */
import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { MockTimers } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '@crypto-service/server';
import { testConfig } from '../../server/test/helpers.ts';

export { TEST_API_KEY, TEST_JWT_SECRET } from '../../server/test/helpers.ts';

export interface Service {
  app: FastifyInstance;
  baseUrl: string;
  close(): Promise<void>;
}

/** Starts the service with the given environment; the caller closes it (t.after, or a suite's after). */
export async function startService(env: Record<string, string> = {}): Promise<Service> {
  const app = await buildApp(testConfig(env), { quiet: true });
  await app.listen({ port: 0, host: '127.0.0.1' });
  // Its routes answer 503 until the start-up self-tests have run (they start once it listens).
  await app.selfTests.done;
  const { port } = app.server.address() as AddressInfo;
  return { app, baseUrl: `http://127.0.0.1:${port}`, close: () => app.close() };
}

/** A loopback URL where nothing listens: a port that was just free, closed again. */
export async function deadUrl(): Promise<string> {
  const probe = net.createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  probe.close();
  await once(probe, 'close');
  return `http://127.0.0.1:${port}`;
}

/** An HS256 JWT with the given claims, valid for a minute: what an identity provider would issue. */
export function hs256Token(secret: string, claims: Record<string, unknown> = {}): string {
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const unsigned = `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode({ sub: 'client-test', iat: now, exp: now + 60, ...claims })}`;
  return `${unsigned}.${createHmac('sha256', secret).update(unsigned).digest('base64url')}`;
}

export interface RecordedRequest {
  url: string;
  method: string;
  headers: Headers;
  body: string | undefined;
}

/**
 * A fetch that answers every request with the given responses in turn (the last one repeats),
 * recording what was asked. For what a real server cannot easily be made to do.
 */
export function scriptedFetch(responses: (() => Response)[]) {
  const requests: RecordedRequest[] = [];
  const fetch = async (url: string, init: RequestInit): Promise<Response> => {
    requests.push({
      url,
      method: init.method ?? 'GET',
      headers: new Headers(init.headers),
      body: typeof init.body === 'string' ? init.body : undefined,
    });
    const next = responses[Math.min(requests.length, responses.length) - 1];
    if (next === undefined) throw new Error('scriptedFetch needs at least one response');
    return next();
  };
  return { fetch, requests };
}

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): () => Response {
  return () =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

/** One turn of the real event loop: pending promises and I/O callbacks get to run. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Moves node:test's mock clock on in small steps until `done()` holds, letting promises and real
 * I/O run between steps, so that a client's wait passes at once without knowing when it began.
 */
export async function advanceClockUntil(
  timers: MockTimers,
  done: () => boolean,
  stepMs = 50,
  maxMs = 600_000,
): Promise<void> {
  for (let elapsed = 0; !done(); elapsed += stepMs) {
    if (elapsed > maxMs) throw new Error(`the condition did not hold within ${maxMs} ms of mock time`);
    await nextTurn();
    if (!done()) timers.tick(stepMs);
  }
}
