/** Builds apps for tests: a configuration from a plain environment object, logging off by default. */
import { loadConfig, type Config } from '../src/config.ts';
import { buildApp, type AppOptions } from '../src/app.ts';
import type { FastifyInstance } from 'fastify';

export const TEST_API_KEY = 'test-api-key-0123456789abcdef';
export const TEST_JWT_SECRET = 'test-jwt-secret-that-is-at-least-32-bytes-long';

export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', ...env });
}

export async function testApp(env: Record<string, string> = {}, options: AppOptions = {}): Promise<FastifyInstance> {
  return appWithConfig(testConfig(env), options);
}

/**
 * An app from a configuration as given, including values the environment could not set (a timeout
 * under its minimum, so that a test's margins are wide and its run short).
 */
export async function appWithConfig(config: Config, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = await buildApp(config, { quiet: options.logStream === undefined, ...options });
  await app.ready();
  // The start-up self-tests run after ready (their routes answer 503 meanwhile): tests start once they have finished.
  await app.selfTests.done;
  return app;
}

/** POST a JSON body the way a client would. */
export function postJson(app: FastifyInstance, url: string, body: unknown, headers: Record<string, string> = {}) {
  return app.inject({
    method: 'POST',
    url,
    payload: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...headers },
  });
}
