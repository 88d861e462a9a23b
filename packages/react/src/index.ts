'use client';
/**
 * @crypto-service/react: a provider holding a CryptoClient and hooks that call the service from
 * client components. Client-side only: server components call @crypto-service/client directly.
 */
export { CryptoProvider, useCryptoClient } from './provider.ts';
export type { CryptoProviderProps } from './provider.ts';
export { useCrypto } from './use-crypto.ts';
export type { CryptoCall, CryptoState } from './use-crypto.ts';
export { useDecrypt, useEncrypt, useHash, useSign, useVerify } from './operations.ts';
export type { CryptoArgs, CryptoMethod, CryptoResult } from './methods.ts';
