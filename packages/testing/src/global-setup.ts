/**
 * One service for a whole test run, for Vitest's and Jest's global setup. The setup starts it in
 * the runner's main process and publishes it through environment variables, which the test
 * workers inherit; a test file then calls `connectToCryptoService()`.
 *
 *   Vitest: globalSetup: ['./crypto-service.setup.ts'], with
 *           export { default } from '@crypto-service/testing/global-setup';
 *   Jest:   globalSetup and globalTeardown files exporting `default` and `globalTeardown`.
 */
import { CryptoClient } from '@crypto-service/client';
import { startCryptoService, type CryptoService, type StartOptions } from './service.ts';

export const URL_VARIABLE = 'CRYPTO_SERVICE_URL';
export const API_KEY_VARIABLE = 'CRYPTO_SERVICE_API_KEY';

const RUNNING = Symbol.for('@crypto-service/testing/global-service');
type GlobalWithService = typeof globalThis & { [RUNNING]?: CryptoService };

/** Starts the service and sets CRYPTO_SERVICE_URL and CRYPTO_SERVICE_API_KEY; returns the teardown. */
export default async function globalSetup(options: StartOptions = {}): Promise<() => Promise<void>> {
  // Vitest passes its own context object as the first argument: only a plain options object counts.
  const startOptions = isStartOptions(options) ? options : {};
  const service = await startCryptoService(startOptions);
  (globalThis as GlobalWithService)[RUNNING] = service;
  process.env[URL_VARIABLE] = service.url;
  if (service.apiKey !== undefined) process.env[API_KEY_VARIABLE] = service.apiKey;
  return globalTeardown;
}

/** Stops the service globalSetup started (Jest's globalTeardown; Vitest uses setup's return value). */
export async function globalTeardown(): Promise<void> {
  const holder = globalThis as GlobalWithService;
  const service = holder[RUNNING];
  delete holder[RUNNING];
  await service?.close();
}

/** In a test file: the service the global setup started, from the environment it published. */
export function connectToCryptoService(): { url: string; apiKey: string | undefined; client: CryptoClient } {
  const url = process.env[URL_VARIABLE];
  if (url === undefined) {
    throw new Error(
      `${URL_VARIABLE} is not set: add @crypto-service/testing/global-setup to the runner's global setup`,
    );
  }
  const apiKey = process.env[API_KEY_VARIABLE];
  return { url, apiKey, client: new CryptoClient({ baseUrl: url, apiKey }) };
}

function isStartOptions(value: unknown): value is StartOptions {
  if (typeof value !== 'object' || value === null) return false;
  const allowed = new Set(['env', 'client', 'startTimeoutMs', 'onLog']);
  return Object.keys(value).every((key) => allowed.has(key));
}
