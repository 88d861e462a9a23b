/** @crypto-service/testing: the real crypto-service for an application's tests. */
export { startCryptoService } from './service.ts';
export type { CryptoService, StartOptions } from './service.ts';
export { generateFixtures } from './fixtures.ts';
export type { Fixtures } from './fixtures.ts';
export { connectToCryptoService, API_KEY_VARIABLE, URL_VARIABLE } from './global-setup.ts';
