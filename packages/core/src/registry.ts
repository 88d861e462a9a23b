/**
 * The algorithm registry: every identifier each route family accepts, in one place. It drives the
 * request schemas (packages/protocol), `GET /v2/algorithms` and the OpenAPI document, so that the
 * listing and the validation can never disagree. Each family's list comes from the parameter table
 * of its core module, and every route of a family accepts each of its identifiers, spelled as here.
 */
import { HASH_ALGORITHM_IDS } from './hash.ts';
import { AEAD_ALGORITHM_IDS } from './aead.ts';
import { SIGNATURE_ALGORITHM_IDS } from './signature.ts';
import { KDF_ALGORITHM_IDS } from './kdf.ts';
import { MAC_ALGORITHM_IDS } from './mac.ts';
import { PASSWORD_ALGORITHM_IDS, PASSWORD_ENCRYPTION_ALGORITHM_IDS } from './password.ts';
import { KEY_WRAP_ALGORITHM_IDS } from './keywrap.ts';
import { SEALED_BOX_ALGORITHM_IDS } from './sealedbox.ts';
import { PQ_SEALED_BOX_ALGORITHM_IDS } from './sealedbox-pq.ts';
import { MULTI_RECIPIENT_ALGORITHM_IDS, RECIPIENT_TYPES } from './multi-recipient.ts';
import { ML_KEM_ALGORITHM_IDS } from './ml-kem.ts';
import { ML_DSA_ALGORITHM_IDS } from './ml-dsa.ts';
import { SLH_DSA_ALGORITHM_IDS } from './slh-dsa.ts';
import { XWING_ALGORITHM_IDS } from './xwing.ts';
import { KEY_GENERATION_IDS } from './key-generation.ts';

export const ALGORITHM_REGISTRY = {
  hash: HASH_ALGORITHM_IDS,
  aead: AEAD_ALGORITHM_IDS,
  signature: SIGNATURE_ALGORITHM_IDS,
  mlDsa: ML_DSA_ALGORITHM_IDS,
  slhDsa: SLH_DSA_ALGORITHM_IDS,
  mlKem: ML_KEM_ALGORITHM_IDS,
  hybridKem: XWING_ALGORITHM_IDS,
  kdf: KDF_ALGORITHM_IDS,
  mac: MAC_ALGORITHM_IDS,
  password: PASSWORD_ALGORITHM_IDS,
  passwordEncryption: PASSWORD_ENCRYPTION_ALGORITHM_IDS,
  keyWrap: KEY_WRAP_ALGORITHM_IDS,
  sealedBox: SEALED_BOX_ALGORITHM_IDS,
  pqSealedBox: PQ_SEALED_BOX_ALGORITHM_IDS,
  multiRecipient: MULTI_RECIPIENT_ALGORITHM_IDS,
  recipientType: RECIPIENT_TYPES,
  keyGeneration: KEY_GENERATION_IDS,
} as const satisfies Record<string, readonly string[]>;

export type AlgorithmFamily = keyof typeof ALGORITHM_REGISTRY;
