/**
 * What a classical signature scheme provides (eddsa.ts, ecdsa.ts), and what they share: signing and
 * verifying with node:crypto on the calling thread or on libuv's pool, and one cache of imported
 * public keys.
 */
import type { KeyObject, SignKeyObjectInput, VerifyKeyObjectInput } from 'node:crypto';
import { sign, verify } from './node-crypto.ts';
import { asBytes } from './bytes.ts';
import type { PemKind } from './der.ts';
import type { KeyPairScheme } from './key-format.ts';
import { PublicKeyCache } from './public-key-cache.ts';
import type { PrivateKeyScope } from './private-key-scope.ts';

export interface SignatureScheme extends KeyPairScheme {
  readonly privateKeyLengths: readonly number[];
  readonly publicKeyLengths: readonly number[];
  readonly signatureLength: number;
  /** Longest context in bytes; 0 means the scheme takes no context at all. */
  readonly maxContextLength: number;
  /**
   * Signs with a raw private key whose length was checked. `context` only where the scheme has one;
   * `keys` imports the key once for all the signatures of a batch.
   */
  readonly sign: (
    privateKey: Uint8Array,
    message: Uint8Array,
    context: Uint8Array | undefined,
    keys?: PrivateKeyScope,
  ) => Promise<Uint8Array>;
  /** Verifies; the key and signature lengths were checked. A bad signature is false, not an error. */
  readonly verify: (
    publicKey: Uint8Array,
    message: Uint8Array,
    signature: Uint8Array,
    context: Uint8Array | undefined,
  ) => Promise<boolean>;
  /** Reads PEM text into the raw key (the caller checks it like any raw key afterwards). */
  readonly fromPem: (pem: string, kind: PemKind) => Uint8Array;
}

/**
 * Imported public KeyObjects by algorithm and exact key bytes (public-key-cache.ts says why that is
 * safe): an import costs a large part of a verification, so repeated verifies against one key
 * gain from it.
 */
const publicKeyCache = new PublicKeyCache(256);

/** The public key for `algorithm` and `raw`, imported by `load` on a miss. Throws what `load` throws. */
export function cachedPublicKey(algorithm: string, raw: Uint8Array, load: () => KeyObject): KeyObject {
  return publicKeyCache.get(algorithm, raw, load);
}

/**
 * Signs with node:crypto. `threadPool` moves the work off the event loop: worth it for the slower
 * schemes (Ed448, P-384); for the fast ones the hop costs more than it frees (docs/performance.md).
 */
export function nativeSign(
  hash: string | null,
  message: Uint8Array,
  key: KeyObject | SignKeyObjectInput,
  threadPool: boolean,
): Promise<Uint8Array> {
  if (!threadPool) return Promise.resolve(asBytes(sign(hash, message, key)));
  return new Promise((resolve, reject) => {
    sign(hash, message, key, (error, signature) => (error === null ? resolve(asBytes(signature)) : reject(error)));
  });
}

/** Verifies with node:crypto, on libuv's pool when `threadPool` (as nativeSign). */
export function nativeVerify(
  hash: string | null,
  message: Uint8Array,
  key: KeyObject | VerifyKeyObjectInput,
  signature: Uint8Array,
  threadPool: boolean,
): Promise<boolean> {
  if (!threadPool) return Promise.resolve(verify(hash, message, key, signature));
  return new Promise((resolve, reject) => {
    verify(hash, message, key, signature, (error, valid) => (error === null ? resolve(valid) : reject(error)));
  });
}
