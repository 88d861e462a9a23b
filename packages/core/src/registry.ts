/**
 * The algorithm registry: every identifier each route family accepts, in one place. It drives the
 * request schemas (packages/protocol), `GET /v2/algorithms` and the OpenAPI document, so that the
 * listing and the validation can never disagree. Each family's list comes from the parameter table
 * of its core module; families that have no implementation yet list nothing rather than promise.
 */
import { HASH_ALGORITHM_IDS } from './hash.ts';

export const ALGORITHM_REGISTRY = {
  hash: HASH_ALGORITHM_IDS,
  aead: [],
  signature: [],
  kdf: [],
  mac: [],
  password: [],
  keyWrap: [],
  sealedBox: [],
  kem: [],
  keyGeneration: [],
} as const satisfies Record<string, readonly string[]>;

export type AlgorithmFamily = keyof typeof ALGORITHM_REGISTRY;
