/**
 * The typed client: one method per route of the service. Each method sends its body as JSON and
 * resolves to `{ data: T }`, T being the server's own schema type; a failure rejects with one of
 * the errors of errors.ts.
 */
import type {
  AlgorithmsResponse,
  DecryptRequest,
  DecryptResponse,
  EncryptRequest,
  EncryptResponse,
  HashRequest,
  HealthResponse,
  HmacRequest,
  HmacResponse,
  HmacVerifyRequest,
  HmacVerifyResponse,
  KdfRequest,
  KdfResponse,
  KeyUnwrapRequest,
  KeyUnwrapResponse,
  KeyWrapRequest,
  KeyWrapResponse,
  LiveResponse,
  MultiRecipientDecryptRequest,
  MultiRecipientDecryptResponse,
  MultiRecipientEncryptRequest,
  MultiRecipientEncryptResponse,
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
import type { Envelope, HashResult } from './types.ts';
import type { GeneratedKey, KeyFormat, KeyGenerationAlgorithm, KeyGenerationRequest } from './key-generation.ts';
import { Transport, type CallOptions, type ClientOptions } from './transport.ts';
import { BatchMethods } from './batch.ts';
import type { StreamRequest } from './stream.ts';

export class CryptoClient {
  readonly #transport: Transport;
  /** The batch form of the routes that take one (batch.ts): `client.batch.sign([body, …])`. */
  readonly batch: BatchMethods;

  constructor(options: ClientOptions) {
    this.#transport = new Transport(options);
    this.batch = new BatchMethods(this.#transport);
  }

  // --- The main operations and probes -----------------------------------------------------

  /** POST /v2/hash. The service sends the hex digest as `data`; the client returns it as `data.digest`. */
  async hash(body: HashRequest, options?: CallOptions): Promise<Envelope<HashResult>> {
    const { data: digest } = await this.#post<Envelope<string>>('/v2/hash', body, options);
    return { data: { digest, algorithm: body.algorithm, length: digest.length / 2 } };
  }

  encrypt(body: EncryptRequest, options?: CallOptions): Promise<EncryptResponse> {
    return this.#post('/v2/encrypt', body, options);
  }

  decrypt(body: DecryptRequest, options?: CallOptions): Promise<DecryptResponse> {
    return this.#post('/v2/decrypt', body, options);
  }

  sign(body: SignRequest, options?: CallOptions): Promise<SignResponse> {
    return this.#post('/v2/sign', body, options);
  }

  verify(body: VerifyRequest, options?: CallOptions): Promise<VerifyResponse> {
    return this.#post('/v2/verify', body, options);
  }

  kdf(body: KdfRequest, options?: CallOptions): Promise<KdfResponse> {
    return this.#post('/v2/kdf', body, options);
  }

  /** POST /v2/hmac */
  mac(body: HmacRequest, options?: CallOptions): Promise<HmacResponse> {
    return this.#post('/v2/hmac', body, options);
  }

  /** POST /v2/hmac/verify (constant-time on the server; a mismatch is `valid: false`, not an error). */
  macVerify(body: HmacVerifyRequest, options?: CallOptions): Promise<HmacVerifyResponse> {
    return this.#post('/v2/hmac/verify', body, options);
  }

  passwordHash(body: PasswordHashRequest, options?: CallOptions): Promise<PasswordHashResponse> {
    return this.#post('/v2/password/hash', body, options);
  }

  passwordVerify(body: PasswordVerifyRequest, options?: CallOptions): Promise<PasswordVerifyResponse> {
    return this.#post('/v2/password/verify', body, options);
  }

  passwordEncrypt(body: PasswordEncryptRequest, options?: CallOptions): Promise<PasswordEncryptResponse> {
    return this.#post('/v2/password/encrypt', body, options);
  }

  passwordDecrypt(body: PasswordDecryptRequest, options?: CallOptions): Promise<PasswordDecryptResponse> {
    return this.#post('/v2/password/decrypt', body, options);
  }

  /**
   * POST /v2/keys/generate; without a body, an Ed25519 key pair in raw (hex) form. The result's type
   * follows the request: `{ publicKey, privateKey }` for a key pair, `{ key }` for a symmetric
   * algorithm, strings for raw and pem, JWK objects for jwk.
   */
  generateKeyPair<const A extends KeyGenerationAlgorithm = 'ed25519', const F extends KeyFormat = 'raw'>(
    body: KeyGenerationRequest<A, F> = {},
    options?: CallOptions,
  ): Promise<Envelope<GeneratedKey<A, F>>> {
    return this.#post('/v2/keys/generate', body, options);
  }

  keyWrap(body: KeyWrapRequest, options?: CallOptions): Promise<KeyWrapResponse> {
    return this.#post('/v2/keys/wrap', body, options);
  }

  keyUnwrap(body: KeyUnwrapRequest, options?: CallOptions): Promise<KeyUnwrapResponse> {
    return this.#post('/v2/keys/unwrap', body, options);
  }

  /**
   * POST /v2/stream/encrypt: `data` (a Web ReadableStream, or bytes) of any length, encrypted as
   * libsodium secretstream; resolves with the ciphertext's stream once the answer starts. Only a
   * stream read to its end is complete: one that errors was aborted and must be discarded.
   */
  streamEncrypt(body: StreamRequest, options?: CallOptions): Promise<ReadableStream<Uint8Array>> {
    return this.#transport.stream('/v2/stream/encrypt', body, options);
  }

  /**
   * POST /v2/stream/decrypt: the output of streamEncrypt (or of libsodium in 64 KiB chunks). The
   * plaintext arrives as it is verified; if the stream errors, the ciphertext was damaged or cut
   * and what was read so far must not be used.
   */
  streamDecrypt(body: StreamRequest, options?: CallOptions): Promise<ReadableStream<Uint8Array>> {
    return this.#transport.stream('/v2/stream/decrypt', body, options);
  }

  secretboxSeal(body: SecretboxSealRequest, options?: CallOptions): Promise<SecretboxSealResponse> {
    return this.#post('/v2/secretbox/seal', body, options);
  }

  secretboxOpen(body: SecretboxOpenRequest, options?: CallOptions): Promise<SecretboxOpenResponse> {
    return this.#post('/v2/secretbox/open', body, options);
  }

  sealedboxSeal(body: SealedBoxSealRequest, options?: CallOptions): Promise<SealedBoxSealResponse> {
    return this.#post('/v2/sealedbox/seal', body, options);
  }

  sealedboxOpen(body: SealedBoxOpenRequest, options?: CallOptions): Promise<SealedBoxOpenResponse> {
    return this.#post('/v2/sealedbox/open', body, options);
  }

  /** POST /v2/pq/hybrid/keygen: an X-Wing (X25519 + ML-KEM-768) key pair; the body may be omitted. */
  pqGenerateKeyPair(body: PqHybridKeygenRequest = {}, options?: CallOptions): Promise<PqHybridKeygenResponse> {
    return this.#post('/v2/pq/hybrid/keygen', body, options);
  }

  /** POST /v2/pq/hybrid/encapsulate */
  pqEncapsulate(body: PqHybridEncapsulateRequest, options?: CallOptions): Promise<PqHybridEncapsulateResponse> {
    return this.#post('/v2/pq/hybrid/encapsulate', body, options);
  }

  /** POST /v2/pq/hybrid/decapsulate */
  pqDecapsulate(body: PqHybridDecapsulateRequest, options?: CallOptions): Promise<PqHybridDecapsulateResponse> {
    return this.#post('/v2/pq/hybrid/decapsulate', body, options);
  }

  /** POST /v2/pq/dsa/keygen: an ML-DSA key pair (ml-dsa-65 by default). */
  pqSignKeygen(body: PqDsaKeygenRequest = {}, options?: CallOptions): Promise<PqDsaKeygenResponse> {
    return this.#post('/v2/pq/dsa/keygen', body, options);
  }

  /** POST /v2/pq/dsa/sign */
  pqSign(body: PqDsaSignRequest, options?: CallOptions): Promise<PqDsaSignResponse> {
    return this.#post('/v2/pq/dsa/sign', body, options);
  }

  /** POST /v2/pq/dsa/verify */
  pqVerify(body: PqDsaVerifyRequest, options?: CallOptions): Promise<PqDsaVerifyResponse> {
    return this.#post('/v2/pq/dsa/verify', body, options);
  }

  /** POST /v2/pq/hash-sign/keygen: an SLH-DSA key pair (the same service as /v2/pq/slh-dsa). */
  pqHashSignKeygen(body: PqSlhDsaKeygenRequest = {}, options?: CallOptions): Promise<PqSlhDsaKeygenResponse> {
    return this.#post('/v2/pq/hash-sign/keygen', body, options);
  }

  /** POST /v2/pq/hash-sign/sign */
  pqHashSign(body: PqSlhDsaSignRequest, options?: CallOptions): Promise<PqSlhDsaSignResponse> {
    return this.#post('/v2/pq/hash-sign/sign', body, options);
  }

  /** POST /v2/pq/hash-sign/verify */
  pqHashVerify(body: PqSlhDsaVerifyRequest, options?: CallOptions): Promise<PqSlhDsaVerifyResponse> {
    return this.#post('/v2/pq/hash-sign/verify', body, options);
  }

  /** GET /v2/algorithms: every identifier each route family accepts. */
  algorithms(options?: CallOptions): Promise<AlgorithmsResponse> {
    return this.#transport.request(
      'GET',
      '/v2/algorithms',
      undefined,
      'envelope',
      options,
    ) as Promise<AlgorithmsResponse>;
  }

  /** GET /health (no credential needed); the probe's JSON becomes `data`. */
  health(options?: CallOptions): Promise<Envelope<HealthResponse>> {
    return this.#probe('/health', options);
  }

  // --- The other /v2 routes ---------------------------------------------------------------

  /** POST /v2/sealedbox/seal-pq: HPKE with X-Wing. */
  sealedboxSealPq(body: SealedBoxSealPqRequest, options?: CallOptions): Promise<SealedBoxSealPqResponse> {
    return this.#post('/v2/sealedbox/seal-pq', body, options);
  }

  /** POST /v2/sealedbox/open-pq */
  sealedboxOpenPq(body: SealedBoxOpenPqRequest, options?: CallOptions): Promise<SealedBoxOpenPqResponse> {
    return this.#post('/v2/sealedbox/open-pq', body, options);
  }

  /** POST /v2/multi-recipient/encrypt */
  multiRecipientEncrypt(
    body: MultiRecipientEncryptRequest,
    options?: CallOptions,
  ): Promise<MultiRecipientEncryptResponse> {
    return this.#post('/v2/multi-recipient/encrypt', body, options);
  }

  /** POST /v2/multi-recipient/decrypt: the envelope from multiRecipientEncrypt plus one recipient's private key. */
  multiRecipientDecrypt(
    body: MultiRecipientDecryptRequest,
    options?: CallOptions,
  ): Promise<MultiRecipientDecryptResponse> {
    return this.#post('/v2/multi-recipient/decrypt', body, options);
  }

  /** POST /v2/pq/keygen: an ML-KEM key pair (ml-kem-768 by default). */
  mlKemKeygen(body: PqKeygenRequest = {}, options?: CallOptions): Promise<PqKeygenResponse> {
    return this.#post('/v2/pq/keygen', body, options);
  }

  /** POST /v2/pq/encapsulate */
  mlKemEncapsulate(body: PqEncapsulateRequest, options?: CallOptions): Promise<PqEncapsulateResponse> {
    return this.#post('/v2/pq/encapsulate', body, options);
  }

  /** POST /v2/pq/decapsulate */
  mlKemDecapsulate(body: PqDecapsulateRequest, options?: CallOptions): Promise<PqDecapsulateResponse> {
    return this.#post('/v2/pq/decapsulate', body, options);
  }

  /** POST /v2/pq/slh-dsa/keygen */
  slhDsaKeygen(body: PqSlhDsaKeygenRequest = {}, options?: CallOptions): Promise<PqSlhDsaKeygenResponse> {
    return this.#post('/v2/pq/slh-dsa/keygen', body, options);
  }

  /** POST /v2/pq/slh-dsa/sign */
  slhDsaSign(body: PqSlhDsaSignRequest, options?: CallOptions): Promise<PqSlhDsaSignResponse> {
    return this.#post('/v2/pq/slh-dsa/sign', body, options);
  }

  /** POST /v2/pq/slh-dsa/verify */
  slhDsaVerify(body: PqSlhDsaVerifyRequest, options?: CallOptions): Promise<PqSlhDsaVerifyResponse> {
    return this.#post('/v2/pq/slh-dsa/verify', body, options);
  }

  /** GET /live (no credential needed). */
  live(options?: CallOptions): Promise<Envelope<LiveResponse>> {
    return this.#probe('/live', options);
  }

  /** GET /ready (no credential needed); not ready is a CryptoApiError with status 503 and `body.checks`. */
  ready(options?: CallOptions): Promise<Envelope<ReadyResponse>> {
    return this.#probe('/ready', options);
  }

  /** GET /metrics (no credential needed): Prometheus text exposition as `data`. */
  async metrics(options?: CallOptions): Promise<Envelope<string>> {
    const text = await this.#transport.request('GET', '/metrics', undefined, 'text', options);
    return { data: text as string };
  }

  // --- /v1, deprecated OpenPGP ------------------------------------------------------------

  /** POST /v1/generate */
  v1Generate(body: V1GenerateRequest, options?: CallOptions): Promise<V1GenerateResponse> {
    return this.#post('/v1/generate', body, options);
  }

  /** POST /v1/encrypt */
  v1Encrypt(body: V1EncryptRequest, options?: CallOptions): Promise<V1EncryptResponse> {
    return this.#post('/v1/encrypt', body, options);
  }

  /** POST /v1/decrypt */
  v1Decrypt(body: V1DecryptRequest, options?: CallOptions): Promise<V1DecryptResponse> {
    return this.#post('/v1/decrypt', body, options);
  }

  /** POST /v1/sign */
  v1Sign(body: V1SignRequest, options?: CallOptions): Promise<V1SignResponse> {
    return this.#post('/v1/sign', body, options);
  }

  /** POST /v1/verify */
  v1Verify(body: V1VerifyRequest, options?: CallOptions): Promise<V1VerifyResponse> {
    return this.#post('/v1/verify', body, options);
  }

  /** POST /v1/revoke */
  v1Revoke(body: V1RevokeRequest, options?: CallOptions): Promise<V1RevokeResponse> {
    return this.#post('/v1/revoke', body, options);
  }

  // The response types are the server's schemas; the body is checked to be a `{ data }` object,
  // and its contents are trusted to match them, as the server validates its own responses.
  #post<T>(path: string, body: object, options: CallOptions | undefined): Promise<T> {
    return this.#transport.request('POST', path, body, 'envelope', options) as Promise<T>;
  }

  async #probe<T>(path: string, options: CallOptions | undefined): Promise<Envelope<T>> {
    const document = await this.#transport.request('GET', path, undefined, 'document', options);
    return { data: document as T };
  }
}
