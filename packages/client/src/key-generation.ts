/**
 * The result type of `generateKeyPair`, computed from the request: a symmetric algorithm gives
 * `{ key }`, every other algorithm a pair `{ publicKey, privateKey }`, and the format says whether
 * the keys are strings (raw hex, PEM) or JWK objects. Callers then read the fields they asked for
 * without a cast or an `in` check.
 */
import type { Jwk, KeyGenerateRequest } from '@crypto-service/protocol';

/** Every identifier `POST /v2/keys/generate` accepts (the keyGeneration family of GET /v2/algorithms). */
export type KeyGenerationAlgorithm = NonNullable<KeyGenerateRequest['algorithm']>;
/** raw (hex), pem or jwk. */
export type KeyFormat = NonNullable<KeyGenerateRequest['format']>;

/**
 * The key generation identifiers that name a symmetric key, answered as `{ key }`. The service
 * publishes no such list, so it is kept here; a test compares it with what the service answers
 * for every identifier of its keyGeneration family.
 */
export const SYMMETRIC_KEY_ALGORITHMS = [
  'xchacha20-poly1305',
  'aes-128',
  'aes-192',
  'aes-256',
  'hmac-sha256',
  'hmac-sha384',
  'hmac-sha512',
  'hmac-sha3-256',
  'hmac-sha3-384',
  'hmac-sha3-512',
] as const satisfies readonly KeyGenerationAlgorithm[];

export type SymmetricKeyAlgorithm = (typeof SYMMETRIC_KEY_ALGORITHMS)[number];
export type KeyPairAlgorithm = Exclude<KeyGenerationAlgorithm, SymmetricKeyAlgorithm>;

/** A key as the format writes it: a JWK object for jwk, a string (hex or PEM) otherwise. */
export type EncodedKey<F extends KeyFormat> = F extends 'jwk' ? Jwk : string;

/** A generated key pair, in the request's algorithm and format. */
export interface GeneratedKeyPair<
  A extends KeyGenerationAlgorithm = KeyPairAlgorithm,
  F extends KeyFormat = KeyFormat,
> {
  algorithm: A;
  format: F;
  publicKey: EncodedKey<F>;
  privateKey: EncodedKey<F>;
}

/** A generated symmetric key, in the request's algorithm and format. */
export interface GeneratedSecretKey<
  A extends KeyGenerationAlgorithm = SymmetricKeyAlgorithm,
  F extends KeyFormat = KeyFormat,
> {
  algorithm: A;
  format: F;
  key: EncodedKey<F>;
}

/**
 * What `generateKeyPair` answers for algorithm A and format F. A union of algorithms (a value only
 * known at run time) gives the union of both shapes, which the caller then tells apart with `'key' in data`.
 */
export type GeneratedKey<A extends KeyGenerationAlgorithm, F extends KeyFormat> = A extends SymmetricKeyAlgorithm
  ? GeneratedSecretKey<A, F>
  : GeneratedKeyPair<A, F>;

/** The request of `generateKeyPair`, its fields typed by the literals the caller passes. */
export interface KeyGenerationRequest<A extends KeyGenerationAlgorithm, F extends KeyFormat> {
  /** ed25519 when omitted. */
  algorithm?: A;
  /** raw (hex) when omitted. */
  format?: F;
}
