/**
 * What the post-quantum modules (ml-kem.ts, ml-dsa.ts, slh-dsa.ts, xwing.ts) share: which backend
 * runs them, node:crypto's thread-pool forms as promises, a bounded cache of imported public
 * KeyObjects, and the PKCS#8 wrapping of the key forms that Node cannot import raw.
 *
 * Backends. Node 24 exposes OpenSSL 3.5's ML-KEM, ML-DSA and SLH-DSA. Node 22 links the same
 * OpenSSL but does not expose them, so @noble/post-quantum (pure JavaScript) runs there. The choice
 * is made once, at load, by trying the calls rather than by parsing the version, so a runtime that
 * gains or lacks the API is handled without a code change. Both backends use the raw FIPS 203/204/205
 * encodings, so keys, ciphertexts and signatures cross between them byte for byte
 * (test/pq-differential.test.ts proves it in both directions).
 */
import * as nodeCrypto from 'node:crypto';
import {
  generateKeyPair,
  type KeyObject,
  type KeyType,
  type SignKeyObjectInput,
  type VerifyKeyObjectInput,
} from 'node:crypto';
import { createPrivateKey, createPublicKey } from './node-crypto.ts';
import { asBuffer, asBytes } from './bytes.ts';
import { wipe } from './ct.ts';
import { DER_OCTET_STRING, derTlv, pkcs8Der } from './der.ts';
import { PublicKeyCache } from './public-key-cache.ts';
import { nativeSign as signNatively, nativeVerify as verifyNatively } from './signature-scheme.ts';

// encapsulate/decapsulate exist from Node 24.7: a named import of them would fail to link on
// Node 22, so they are read from the namespace object (undefined where absent).
const { encapsulate, decapsulate } = nodeCrypto as Partial<typeof nodeCrypto>;

/** `native`: node:crypto (OpenSSL). `noble`: @noble/post-quantum. */
export type PqBackend = 'native' | 'noble';

function works(probe: () => unknown): boolean {
  try {
    probe();
    return true;
  } catch {
    return false;
  }
}

/**
 * Which families node:crypto implements on this runtime. Each probe is one cheap call of the very
 * API the module uses (an all-zero seed or public key is a valid input).
 */
export const PQ_NATIVE_SUPPORT: Readonly<{ mlKem: boolean; mlDsa: boolean; slhDsa: boolean }> = Object.freeze({
  mlKem:
    typeof encapsulate === 'function' &&
    typeof decapsulate === 'function' &&
    works(() => createPrivateKey({ key: Buffer.alloc(64), format: 'raw-seed', asymmetricKeyType: 'ml-kem-512' })),
  mlDsa: works(() => createPrivateKey({ key: Buffer.alloc(32), format: 'raw-seed', asymmetricKeyType: 'ml-dsa-44' })),
  slhDsa: works(() =>
    createPublicKey({ key: Buffer.alloc(32), format: 'raw-public', asymmetricKeyType: 'slh-dsa-sha2-128f' }),
  ),
});

/**
 * The backend for one call: the caller's choice (tests run both), else native where it exists.
 * Asking for a native backend that this runtime lacks is a programming error, not a client one.
 */
export function selectBackend(requested: PqBackend | undefined, nativeAvailable: boolean, family: string): PqBackend {
  if (requested === undefined) return nativeAvailable ? 'native' : 'noble';
  if (requested === 'native' && !nativeAvailable) {
    throw new Error(`node:crypto on Node ${process.versions.node} has no ${family}; use the noble backend`);
  }
  return requested;
}

// ---------------------------------------------------------------------------------------------
// node:crypto's callback forms run in libuv's thread pool and so keep the event loop free: an
// SLH-DSA signature can take seconds.

export function nativeGenerateKeyPair(type: KeyType): Promise<{ publicKey: KeyObject; privateKey: KeyObject }> {
  // The overloads of generateKeyPair are per literal type; this module passes only PQ types.
  const generate = generateKeyPair as unknown as (
    type: KeyType,
    options: object,
    callback: (error: Error | null, publicKey: KeyObject, privateKey: KeyObject) => void,
  ) => void;
  return new Promise((resolve, reject) => {
    generate(type, {}, (error, publicKey, privateKey) => (error ? reject(error) : resolve({ publicKey, privateKey })));
  });
}

/** Signs on libuv's pool, with the FIPS 204 / 205 context where there is one. */
export function nativeSign(key: KeyObject, message: Uint8Array, context: Uint8Array | undefined): Promise<Uint8Array> {
  return signNatively(null, message, context === undefined ? key : ({ key, context } as SignKeyObjectInput), true);
}

/** Verifies on libuv's pool, with the FIPS 204 / 205 context where there is one. */
export function nativeVerify(
  key: KeyObject,
  message: Uint8Array,
  signature: Uint8Array,
  context: Uint8Array | undefined,
): Promise<boolean> {
  return verifyNatively(
    null,
    message,
    context === undefined ? key : ({ key, context } as VerifyKeyObjectInput),
    signature,
    true,
  );
}

export function nativeEncapsulate(key: KeyObject): Promise<{ sharedKey: Uint8Array; ciphertext: Uint8Array }> {
  return new Promise((resolve, reject) => {
    if (encapsulate === undefined) throw new Error('node:crypto has no encapsulate on this runtime');
    encapsulate(key, (error, result) => {
      if (error) reject(error);
      else resolve({ sharedKey: asBytes(result.sharedKey), ciphertext: asBytes(result.ciphertext) });
    });
  });
}

export function nativeDecapsulate(key: KeyObject, ciphertext: Uint8Array): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    if (decapsulate === undefined) throw new Error('node:crypto has no decapsulate on this runtime');
    decapsulate(key, ciphertext, (error, sharedKey) => {
      if (error) reject(error);
      else resolve(asBytes(sharedKey));
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Imported public keys, cached (public-key-cache.ts says why that is safe). Importing a raw key
// costs about as much as the operation itself for the fast schemes (an ML-DSA public key import
// expands the matrix A). 256 entries: a few MB at most, whatever a caller sends.

export const NATIVE_PUBLIC_KEY_CACHE_SIZE = 256;
const publicKeyCache = new PublicKeyCache(NATIVE_PUBLIC_KEY_CACHE_SIZE);

/** A node:crypto public key from raw bytes, through the cache. Throws what createPublicKey throws. */
export function importNativePublicKey(type: KeyType, bytes: Uint8Array): KeyObject {
  return publicKeyCache.get(type, bytes, () =>
    createPublicKey({ key: asBuffer(bytes), format: 'raw-public', asymmetricKeyType: type }),
  );
}

/** How many public keys the cache holds now (for tests of its bound). */
export function nativePublicKeyCacheSize(): number {
  return publicKeyCache.size;
}

// ---------------------------------------------------------------------------------------------
// PKCS#8 for the expanded private keys. Node imports ML-KEM and ML-DSA private keys raw only as
// seeds (`raw-seed`; `raw-private` is refused for them). OpenSSL does accept the expanded key in
// PKCS#8, as the `expandedKey` choice of the IETF LAMPS private-key structure
// (draft-ietf-lamps-kyber-certificates, draft-ietf-lamps-dilithium-certificates):
//   PrivateKeyInfo ::= SEQUENCE { version INTEGER 0, algorithm SEQUENCE { OID },
//                                 privateKey OCTET STRING { expandedKey OCTET STRING } }
// and checks it on import (ML-KEM: H(ek) inside dk; ML-DSA: tr and t0 against ρ, s1, s2).

/**
 * PKCS#8 DER of an expanded private key. `oid` is the DER content of the algorithm's OBJECT
 * IDENTIFIER (e.g. 2.16.840.1.101.3.4.4.2 for ML-KEM-768). The caller wipes the result.
 */
export function expandedKeyPkcs8(oid: Uint8Array, expandedKey: Uint8Array): Uint8Array {
  const inner = derTlv(DER_OCTET_STRING, expandedKey);
  try {
    return pkcs8Der(oid, inner);
  } finally {
    wipe(inner);
  }
}

/** A private KeyObject from expanded-key PKCS#8 DER. Throws what createPrivateKey throws. */
export function importExpandedPrivateKey(oid: Uint8Array, expandedKey: Uint8Array): KeyObject {
  const der = expandedKeyPkcs8(oid, expandedKey);
  try {
    return createPrivateKey({ key: asBuffer(der), format: 'der', type: 'pkcs8' });
  } finally {
    wipe(der);
  }
}

/** A private KeyObject from a raw seed (ML-KEM 64 B, ML-DSA 32 B) or raw private key (SLH-DSA). */
export function importRawPrivateKey(type: KeyType, format: 'raw-seed' | 'raw-private', bytes: Uint8Array): KeyObject {
  return createPrivateKey({ key: asBuffer(bytes), format, asymmetricKeyType: type });
}

/** The raw export of a key (`raw-public`, `raw-seed`, `raw-private`) as bytes. */
export function exportRaw(key: KeyObject, format: 'raw-public' | 'raw-seed' | 'raw-private'): Uint8Array {
  return asBytes(key.export({ format }));
}
