/**
 * @crypto-service/vue: a Vue 3 plugin providing a CryptoClient, and composables that call the
 * service with their state in refs. For the browser (and SSR's client side): see the README.
 */
export { CRYPTO_CLIENT, cryptoService, provideCryptoClient, useCryptoClient } from './plugin.ts';
export type { CryptoServiceOptions } from './plugin.ts';
export { useCrypto } from './use-crypto.ts';
export type { CryptoCall } from './use-crypto.ts';
export { useDecrypt, useEncrypt, useHash, useSign, useVerify } from './operations.ts';
export type { CryptoArgs, CryptoMethod, CryptoResult } from './methods.ts';
