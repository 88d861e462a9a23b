/**
 * The batch form of the routes that take one: `client.batch.sign([body, …])` sends
 * `{ batch: [body, …] }` and resolves to `{ data: [entry, …] }`, one entry per item in order, each
 * `{ data }` (the single answer's data, typed as the single method's) or `{ error }` (the problem the
 * single request would have got). One item's failure never rejects the call; a refused batch (too
 * many items, too large, over the rate limit) rejects as a single call does.
 */
import type {
  BatchEntry,
  BatchResponse,
  DecryptRequest,
  DecryptResponse,
  EncryptRequest,
  EncryptResponse,
  HashRequest,
  HmacRequest,
  HmacResponse,
  HmacVerifyRequest,
  HmacVerifyResponse,
  KeyUnwrapRequest,
  KeyUnwrapResponse,
  KeyWrapRequest,
  KeyWrapResponse,
  PqDecapsulateRequest,
  PqDecapsulateResponse,
  PqDsaSignRequest,
  PqDsaSignResponse,
  PqDsaVerifyRequest,
  PqDsaVerifyResponse,
  PqEncapsulateRequest,
  PqEncapsulateResponse,
  SealedBoxOpenRequest,
  SealedBoxOpenResponse,
  SealedBoxSealRequest,
  SealedBoxSealResponse,
  SecretboxOpenRequest,
  SecretboxOpenResponse,
  SecretboxSealRequest,
  SecretboxSealResponse,
  SignRequest,
  SignResponse,
  VerifyRequest,
  VerifyResponse,
} from '@crypto-service/protocol';
import type { CallOptions, Transport } from './transport.ts';

export type { BatchEntry, BatchResponse };

/** The answer to a batch of a route whose single answer is `Single` (`{ data: … }`). */
export type BatchOf<Single extends { data: unknown }> = BatchResponse<Single['data']>;

/** The batch methods, named as the client's single methods of the same routes. */
export class BatchMethods {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** POST /v2/hash; each entry's data is the hex digest, as the service sends it. */
  hash(items: HashRequest[], options?: CallOptions): Promise<BatchResponse<string>> {
    return this.#post('/v2/hash', items, options);
  }

  encrypt(items: EncryptRequest[], options?: CallOptions): Promise<BatchOf<EncryptResponse>> {
    return this.#post('/v2/encrypt', items, options);
  }

  decrypt(items: DecryptRequest[], options?: CallOptions): Promise<BatchOf<DecryptResponse>> {
    return this.#post('/v2/decrypt', items, options);
  }

  sign(items: SignRequest[], options?: CallOptions): Promise<BatchOf<SignResponse>> {
    return this.#post('/v2/sign', items, options);
  }

  verify(items: VerifyRequest[], options?: CallOptions): Promise<BatchOf<VerifyResponse>> {
    return this.#post('/v2/verify', items, options);
  }

  mac(items: HmacRequest[], options?: CallOptions): Promise<BatchOf<HmacResponse>> {
    return this.#post('/v2/hmac', items, options);
  }

  macVerify(items: HmacVerifyRequest[], options?: CallOptions): Promise<BatchOf<HmacVerifyResponse>> {
    return this.#post('/v2/hmac/verify', items, options);
  }

  keyWrap(items: KeyWrapRequest[], options?: CallOptions): Promise<BatchOf<KeyWrapResponse>> {
    return this.#post('/v2/keys/wrap', items, options);
  }

  keyUnwrap(items: KeyUnwrapRequest[], options?: CallOptions): Promise<BatchOf<KeyUnwrapResponse>> {
    return this.#post('/v2/keys/unwrap', items, options);
  }

  secretboxSeal(items: SecretboxSealRequest[], options?: CallOptions): Promise<BatchOf<SecretboxSealResponse>> {
    return this.#post('/v2/secretbox/seal', items, options);
  }

  secretboxOpen(items: SecretboxOpenRequest[], options?: CallOptions): Promise<BatchOf<SecretboxOpenResponse>> {
    return this.#post('/v2/secretbox/open', items, options);
  }

  sealedboxSeal(items: SealedBoxSealRequest[], options?: CallOptions): Promise<BatchOf<SealedBoxSealResponse>> {
    return this.#post('/v2/sealedbox/seal', items, options);
  }

  sealedboxOpen(items: SealedBoxOpenRequest[], options?: CallOptions): Promise<BatchOf<SealedBoxOpenResponse>> {
    return this.#post('/v2/sealedbox/open', items, options);
  }

  /** POST /v2/pq/encapsulate (ML-KEM). */
  mlKemEncapsulate(items: PqEncapsulateRequest[], options?: CallOptions): Promise<BatchOf<PqEncapsulateResponse>> {
    return this.#post('/v2/pq/encapsulate', items, options);
  }

  /** POST /v2/pq/decapsulate (ML-KEM). */
  mlKemDecapsulate(items: PqDecapsulateRequest[], options?: CallOptions): Promise<BatchOf<PqDecapsulateResponse>> {
    return this.#post('/v2/pq/decapsulate', items, options);
  }

  /** POST /v2/pq/dsa/sign (ML-DSA). */
  pqSign(items: PqDsaSignRequest[], options?: CallOptions): Promise<BatchOf<PqDsaSignResponse>> {
    return this.#post('/v2/pq/dsa/sign', items, options);
  }

  /** POST /v2/pq/dsa/verify (ML-DSA). */
  pqVerify(items: PqDsaVerifyRequest[], options?: CallOptions): Promise<BatchOf<PqDsaVerifyResponse>> {
    return this.#post('/v2/pq/dsa/verify', items, options);
  }

  #post<T>(path: string, items: readonly object[], options: CallOptions | undefined): Promise<T> {
    return this.#transport.request('POST', path, { batch: items }, 'envelope', options) as Promise<T>;
  }
}

/** Whether a batch entry is a success, narrowing it to `{ data }`. */
export function isBatchSuccess<Data>(entry: BatchEntry<Data>): entry is { data: Data } {
  return 'data' in entry;
}
