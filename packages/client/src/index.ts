/**
 * @crypto-service/client: a typed, fetch-based client for crypto-service, with no runtime
 * dependency and no Node-only API, for Node (22.18+, 24) and browsers (through a bundler; see the
 * package README).
 */
export { CryptoClient } from './client.ts';
export { BatchMethods, isBatchSuccess } from './batch.ts';
export type { BatchEntry, BatchOf, BatchResponse } from './batch.ts';
export {
  CryptoApiError,
  CryptoClientError,
  CryptoNetworkError,
  CryptoResponseError,
  CryptoTimeoutError,
} from './errors.ts';
export type { ApiProblem } from './errors.ts';
export { SYMMETRIC_KEY_ALGORITHMS } from './key-generation.ts';
export type {
  EncodedKey,
  GeneratedKey,
  GeneratedKeyPair,
  GeneratedSecretKey,
  KeyFormat,
  KeyGenerationAlgorithm,
  KeyGenerationRequest,
  KeyPairAlgorithm,
  SymmetricKeyAlgorithm,
} from './key-generation.ts';
export type { CallOptions, ClientOptions, FetchLike } from './transport.ts';
export type { StreamRequest } from './stream.ts';
export type { RetryOptions } from './retry.ts';
export type * from './types.ts';
