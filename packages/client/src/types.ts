/**
 * The types of every request and response, re-exported for the client's users. They come from
 * packages/protocol (the schemas the server validates against) through `export type`, so they are
 * erased at run time and the client carries no dependency.
 */
import type { HashRequest } from '@crypto-service/protocol';

export type {
  AlgorithmsResponse,
  DecryptRequest,
  DecryptResponse,
  EncryptRequest,
  EncryptResponse,
  ErrorCode,
  FieldError,
  HashRequest,
  HealthResponse,
  HmacRequest,
  HmacResponse,
  HmacVerifyRequest,
  HmacVerifyResponse,
  Jwk,
  KdfRequest,
  KdfResponse,
  KeyGenerateRequest,
  KeyGenerateResponse,
  KeyPairData,
  KeyUnwrapRequest,
  KeyUnwrapResponse,
  KeyWrapRequest,
  KeyWrapResponse,
  LiveResponse,
  MultiRecipientDecryptRequest,
  MultiRecipientDecryptResponse,
  MultiRecipientEncryptRequest,
  MultiRecipientEncryptResponse,
  MultiRecipientEnvelopeData,
  MultiRecipientKey,
  MultiRecipientSlot,
  PasswordDecryptRequest,
  PasswordDecryptResponse,
  PasswordEncryptRequest,
  PasswordEncryptResponse,
  PasswordHashRequest,
  PasswordHashResponse,
  PasswordVerifyRequest,
  PasswordVerifyResponse,
  PqDecapsulateRequest,
  PqDecapsulateResponse,
  PqDsaKeygenRequest,
  PqDsaKeygenResponse,
  PqDsaSignRequest,
  PqDsaSignResponse,
  PqDsaVerifyRequest,
  PqDsaVerifyResponse,
  PqEncapsulateRequest,
  PqEncapsulateResponse,
  PqHybridDecapsulateRequest,
  PqHybridDecapsulateResponse,
  PqHybridEncapsulateRequest,
  PqHybridEncapsulateResponse,
  PqHybridKeygenRequest,
  PqHybridKeygenResponse,
  PqKeygenRequest,
  PqKeygenResponse,
  PqSlhDsaKeygenRequest,
  PqSlhDsaKeygenResponse,
  PqSlhDsaSignRequest,
  PqSlhDsaSignResponse,
  PqSlhDsaVerifyRequest,
  PqSlhDsaVerifyResponse,
  Problem,
  ReadyResponse,
  SealedBoxOpenPqRequest,
  SealedBoxOpenPqResponse,
  SealedBoxOpenRequest,
  SealedBoxOpenResponse,
  SealedBoxSealPqRequest,
  SealedBoxSealPqResponse,
  SealedBoxSealRequest,
  SealedBoxSealResponse,
  SecretboxOpenRequest,
  SecretboxOpenResponse,
  SecretboxSealRequest,
  SecretboxSealResponse,
  SecretKeyData,
  SignRequest,
  SignResponse,
  V1DecryptRequest,
  V1DecryptResponse,
  V1EncryptRequest,
  V1EncryptResponse,
  V1GenerateRequest,
  V1GenerateResponse,
  V1RevokeRequest,
  V1RevokeResponse,
  V1SignRequest,
  V1SignResponse,
  V1VerifyRequest,
  V1VerifyResponse,
  VerifyRequest,
  VerifyResponse,
} from '@crypto-service/protocol';

/** Every method resolves to `{ data: T }`, the service's success envelope. */
export interface Envelope<T> {
  data: T;
}

/**
 * What `hash` returns in `data`. The service answers `{ data: "<hex digest>" }`; the client adds
 * what it knows, so that callers read `data.digest` rather than a bare string.
 */
export interface HashResult {
  /** The digest, lowercase hex. */
  digest: string;
  /** The algorithm that was asked for. */
  algorithm: HashRequest['algorithm'];
  /** The digest's length in bytes. */
  length: number;
}
