/**
 * Key formats: how keys are written (raw bytes, PEM, JWK) and the readers and writers that the
 * classical schemes share. The DER and PEM structures themselves are der.ts's; the post-quantum
 * forms are pq-keys.ts's.
 *
 * raw  the scheme's own encoding (hex on the wire): Ed25519's seed, an ECDSA scalar, a SEC1 point…
 * pem  one unencrypted PKCS#8 `PRIVATE KEY` or SPKI `PUBLIC KEY` block
 * jwk  a JSON Web Key (RFC 7517)
 */
import type { KeyObject } from 'node:crypto';
import { createPrivateKey, createPublicKey } from './node-crypto.ts';
import { asBuffer, asBytes } from './bytes.ts';
import { wipe } from './ct.ts';
import { pemToDer, type PemKind } from './der.ts';
import { invalidInput, tryOrThrow } from './errors.ts';

/** How generated keys are written: raw bytes (hex on the wire), PEM (PKCS#8 / SPKI) or a JWK. */
export type KeyFormat = 'raw' | 'pem' | 'jwk';
export const KEY_FORMATS: readonly KeyFormat[] = ['raw', 'pem', 'jwk'];

/**
 * A JSON Web Key (RFC 7517): OKP (RFC 8037), EC (RFC 7518 §6.2), oct (RFC 7518 §6.4) or AKP
 * (RFC 9964: `alg`, `pub`, `priv`) for the post-quantum keys. A type alias, not an interface, so
 * that it is assignable to node:crypto's JsonWebKey.
 */
export type Jwk = {
  kty: string;
  crv?: string;
  x?: string;
  y?: string;
  d?: string;
  k?: string;
  alg?: string;
  pub?: string;
  priv?: string;
};

/** One key in a requested format: bytes for raw, PEM text, or a JWK object. */
export type EncodedKey = Uint8Array | string | Jwk;

/** A key pair in the scheme's raw encoding (the form sign and verify take). */
export interface RawKeyPair {
  readonly publicKey: Uint8Array;
  readonly privateKey: Uint8Array;
}

export interface EncodedKeyPair {
  readonly publicKey: EncodedKey;
  readonly privateKey: EncodedKey;
}

/** A key field as the caller sent it: raw bytes, or PEM text (PKCS#8 private / SPKI public). */
export type KeyInput = Uint8Array | string;

/**
 * An asymmetric key type that key generation can produce: the signature schemes, and the
 * key-agreement curves of key-generation.ts. `generate` returns the raw pair; `export` writes it
 * as asked.
 */
export interface KeyPairScheme {
  readonly generate: () => Promise<RawKeyPair>;
  readonly export: (pair: RawKeyPair, format: KeyFormat) => EncodedKeyPair;
}

const PEM_PREFIX = '-----BEGIN';

/**
 * A key field of a request, as core takes it: PEM text where the value starts with
 * `-----BEGIN` (a convenience for keys made by OpenSSL), otherwise hex.
 */
export function decodeKeyField(text: string, field: string): KeyInput {
  if (text.startsWith(PEM_PREFIX)) return text;
  if (!/^(?:[0-9a-fA-F]{2})*$/.test(text)) {
    throw invalidInput(
      `${field.replace(/^\//, '')} must be hex, or PEM text (PKCS#8 private key / SPKI public key)`,
      field,
    );
  }
  return asBytes(Buffer.from(text, 'hex'));
}

/** The request field that carries a key of this kind in `/v2/sign` and `/v2/verify`. */
export function keyField(kind: PemKind): 'privateKey' | 'publicKey' {
  return kind === 'private' ? 'privateKey' : 'publicKey';
}

/** A JWK member as bytes, left-padded to `length` (RFC 7518 fixes the lengths; be lenient on read). */
export function jwkMemberBytes(text: string | undefined, length: number): Uint8Array {
  const bytes = asBytes(Buffer.from(text ?? '', 'base64url'));
  if (bytes.byteLength === length) return bytes;
  const out = new Uint8Array(length);
  out.set(bytes.subarray(Math.max(0, bytes.byteLength - length)), Math.max(0, length - bytes.byteLength));
  return out;
}

/**
 * A classical key from PEM text, through node:crypto: one block with the expected label (der.ts
 * refuses other labels with a hint), then an error naming the key's field if OpenSSL cannot read it.
 */
export function readPemKey(pem: string, kind: PemKind): KeyObject {
  const field = keyField(kind);
  const der = pemToDer(pem, kind, field);
  try {
    return tryOrThrow(
      () =>
        kind === 'private'
          ? createPrivateKey({ key: asBuffer(der), format: 'der', type: 'pkcs8' })
          : createPublicKey({ key: asBuffer(der), format: 'der', type: 'spki' }),
      () =>
        invalidInput(
          `${field} is not a readable PEM ${kind === 'private' ? 'PKCS#8 private' : 'SPKI public'} key`,
          `/${field}`,
        ),
    );
  } finally {
    if (kind === 'private') wipe(der);
  }
}

/** Refuses a PEM key that node:crypto read as another algorithm than the one asked for. */
export function wrongPemKeyType(kind: PemKind, algorithm: string): never {
  throw invalidInput(`${keyField(kind)} is a PEM key of another algorithm, not ${algorithm}`, `/${keyField(kind)}`);
}

/** A pair of node:crypto keys as PEM text (PKCS#8 / SPKI) or as JWKs. */
export function exportKeyObjects(privateKey: KeyObject, publicKey: KeyObject, format: 'pem' | 'jwk'): EncodedKeyPair {
  if (format === 'pem') {
    return {
      publicKey: String(publicKey.export({ type: 'spki', format: 'pem' })),
      privateKey: String(privateKey.export({ type: 'pkcs8', format: 'pem' })),
    };
  }
  return {
    publicKey: publicKey.export({ format: 'jwk' }) as Jwk,
    privateKey: privateKey.export({ format: 'jwk' }) as Jwk,
  };
}
