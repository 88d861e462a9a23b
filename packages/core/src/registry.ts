/**
 * The algorithm registry: every identifier each route family accepts, in one place. It drives the
 * request schemas (packages/protocol), `GET /v2/algorithms` and the OpenAPI document, so that the
 * listing and the validation can never disagree. Each family's list comes from the parameter table
 * of its core module.
 */
import { HASH_ALGORITHM_IDS } from './hash.ts';
import { AEAD_ALGORITHM_IDS } from './aead.ts';
import { SIGNATURE_ALGORITHM_IDS } from './signature.ts';
import { KDF_ALGORITHM_IDS } from './kdf.ts';
import { MAC_ALGORITHM_IDS } from './mac.ts';
import { PASSWORD_ALGORITHM_IDS } from './password.ts';
import { KEY_WRAP_ALGORITHM_IDS } from './keywrap.ts';
import { SEALED_BOX_ALGORITHM_IDS } from './sealedbox.ts';
import { ML_KEM_ALGORITHM_IDS } from './ml-kem.ts';
import { XWING_ALGORITHM } from './xwing.ts';
import { KEY_GENERATION_IDS } from './key-generation.ts';

/**
 * The `kem` family: X25519 (the classical multi-recipient slot, DHKEM(X25519) in HPKE), ML-KEM
 * (`/v2/pq/keygen|encapsulate|decapsulate`, by level) and X-Wing, `x25519-ml-kem-768`
 * (`/v2/pq/hybrid/*`, the hybrid multi-recipient slot and the post-quantum sealed box). Every one
 * is also a `/v2/keys/generate` identifier.
 */
export const KEM_ALGORITHM_IDS: readonly string[] = ['x25519', ...ML_KEM_ALGORITHM_IDS, XWING_ALGORITHM];

export const ALGORITHM_REGISTRY = {
  hash: HASH_ALGORITHM_IDS,
  aead: AEAD_ALGORITHM_IDS,
  signature: SIGNATURE_ALGORITHM_IDS,
  kdf: KDF_ALGORITHM_IDS,
  mac: MAC_ALGORITHM_IDS,
  password: PASSWORD_ALGORITHM_IDS,
  keyWrap: KEY_WRAP_ALGORITHM_IDS,
  sealedBox: SEALED_BOX_ALGORITHM_IDS,
  kem: KEM_ALGORITHM_IDS,
  keyGeneration: KEY_GENERATION_IDS,
} as const satisfies Record<string, readonly string[]>;

export type AlgorithmFamily = keyof typeof ALGORITHM_REGISTRY;
