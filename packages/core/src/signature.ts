/**
 * Classical signatures: Ed25519 (RFC 8032, the default), Ed448 (RFC 8032, with an optional
 * context), ECDSA P-256 with SHA-256 and ECDSA P-384 with SHA-384 (FIPS 186-5).
 *
 * Wire encodings (contract §6), all raw bytes:
 * - Ed25519: private key = the 32-byte seed, public key 32 B, signature 64 B.
 * - Ed448: private key = the 57-byte seed, public key 57 B, signature 114 B.
 * - ECDSA: private key = the scalar d (32 / 48 B, big-endian), public key SEC1 uncompressed
 *   (65 / 97 B) or compressed (33 / 49 B), signature r ‖ s of fixed length (64 / 96 B, IEEE P1363,
 *   as in JOSE and WebCrypto). Signing is randomized (OpenSSL), so two signatures of one message
 *   differ; both verify.
 * A key field may also hold PEM text (PKCS#8 `PRIVATE KEY` / SPKI `PUBLIC KEY`), a convenience
 * for keys made by OpenSSL; it is read into the raw form above and checked the same way.
 *
 * Every classical scheme is an entry of SIGNATURE_SCHEMES: key and signature lengths, context
 * rule, sign, verify, generate and export. The post-quantum schemes, ML-DSA-44/65/87 (FIPS 204)
 * and the twelve SLH-DSA sets (FIPS 205), are those of ml-dsa.ts and slh-dsa.ts behind the same
 * entry points, in the encodings of `/v2/pq/*` (private key: ML-DSA's 32-byte seed or expanded
 * key, SLH-DSA's 4n-byte secret key; PEM as pq-keys.ts reads it); their work goes through a
 * PostQuantumRunner, which the server points at its offload. SIGNATURE_ALGORITHM_IDS lists both
 * kinds; the request schemas, `GET /v2/algorithms` and key generation are built from it.
 *
 * Backend: node:crypto (OpenSSL) on Node 22 and 24. Keys are imported from DER / JWK, which both
 * runtimes read (Node 22 has no 'raw-private' / 'raw-public' formats). One gap: Node 22 ignores
 * the Ed448 `context` option silently, so where a load-time test finds that, an Ed448 call with
 * a non-empty context goes to @noble/curves instead (same RFC 8032 output, strict decoding).
 */
import { createECDH, generateKeyPair, type KeyObject, type SignKeyObjectInput, type VerifyKeyObjectInput } from 'node:crypto';
import { createPrivateKey, createPublicKey, sign as nodeSign, verify as nodeVerify } from './node-crypto.ts';
import { ed448 } from '@noble/curves/ed448.js';
import { checkLength } from './checks.ts';
import { bytesToBase64Url } from './codec.ts';
import { wipe } from './ct.ts';
import { pemToDer } from './der.ts';
import { PublicKeyCache } from './public-key-cache.ts';
import { invalidInput, tryOr, tryOrThrow, unsupportedAlgorithm } from './errors.ts';
import { ML_DSA_ALGORITHM_IDS, ML_DSA_CONTEXT_MAX_BYTES, ML_DSA_PARAMETERS, ML_DSA_SEED_LENGTH, type MlDsaAlgorithm } from './ml-dsa.ts';
import { SLH_DSA_ALGORITHM_IDS, SLH_DSA_CONTEXT_MAX_BYTES, SLH_DSA_PARAMETERS, type SlhDsaAlgorithm } from './slh-dsa.ts';
import { DIRECT_POST_QUANTUM_RUNNER, postQuantumPublicKeyFromPem, type PostQuantumRunner } from './pq-keys.ts';
import { asBytes } from './views.ts';

// ---------------------------------------------------------------------------------------------
// Key formats shared with key generation (keys.ts)
// ---------------------------------------------------------------------------------------------

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
 * An asymmetric key type that key generation can produce: the signature schemes below, and the
 * key-agreement curves of keys.ts. `generate` returns the raw pair; `export` writes it as asked.
 */
export interface KeyPairScheme {
  readonly generate: () => Promise<RawKeyPair>;
  readonly export: (pair: RawKeyPair, format: KeyFormat) => EncodedKeyPair;
}

export interface SignatureScheme extends KeyPairScheme {
  readonly privateKeyLengths: readonly number[];
  readonly publicKeyLengths: readonly number[];
  readonly signatureLength: number;
  /** Longest context in bytes; 0 means the scheme takes no context at all. */
  readonly maxContextLength: number;
  /** Signs with a raw private key whose length was checked. `context` only where the scheme has one. */
  readonly sign: (privateKey: Uint8Array, message: Uint8Array, context: Uint8Array | undefined) => Promise<Uint8Array>;
  /** Verifies; the key and signature lengths were checked. A bad signature is false, not an error. */
  readonly verify: (publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array, context: Uint8Array | undefined) => Promise<boolean>;
  /** Reads PEM text into the raw key (the caller checks it like any raw key afterwards). */
  readonly fromPem: (pem: string, kind: 'private' | 'public') => Uint8Array;
}

// ---------------------------------------------------------------------------------------------
// Small helpers: bytes, base64url, DER
// ---------------------------------------------------------------------------------------------

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.byteLength, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}

/** A JWK member as bytes, left-padded to `length` (RFC 7518 fixes the lengths; be lenient on read). */
function fromBase64url(text: string | undefined, length: number): Uint8Array {
  const bytes = asBytes(Buffer.from(text ?? '', 'base64url'));
  if (bytes.byteLength === length) return bytes;
  const out = new Uint8Array(length);
  out.set(bytes.subarray(Math.max(0, bytes.byteLength - length)), Math.max(0, length - bytes.byteLength));
  return out;
}

/** A DER TLV. Every structure built here is far below 64 KiB. */
function tlv(tag: number, ...content: Uint8Array[]): Uint8Array {
  const body = concat(...content);
  const n = body.byteLength;
  const length = n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : [0x82, n >> 8, n & 0xff];
  return concat(Uint8Array.of(tag, ...length), body);
}

const SEQUENCE = 0x30;
const OCTET_STRING = 0x04;
const BIT_STRING = 0x03;
const VERSION_0 = Uint8Array.of(0x02, 0x01, 0x00);
const NO_UNUSED_BITS = Uint8Array.of(0x00);

function hexBytes(hex: string): Uint8Array {
  return asBytes(Buffer.from(hex, 'hex'));
}

// ---------------------------------------------------------------------------------------------
// PEM input
// ---------------------------------------------------------------------------------------------

const PEM_PREFIX = '-----BEGIN';

/**
 * A key field of a request, as core takes it: PEM text where the value starts with
 * `-----BEGIN` (a convenience for keys made by OpenSSL), otherwise hex.
 */
export function decodeKeyField(text: string, field: string): KeyInput {
  if (text.startsWith(PEM_PREFIX)) return text;
  if (!/^(?:[0-9a-fA-F]{2})*$/.test(text)) {
    throw invalidInput(`${field.replace(/^\//, '')} must be hex, or PEM text (PKCS#8 private key / SPKI public key)`, field);
  }
  return asBytes(Buffer.from(text, 'hex'));
}

function fieldOf(kind: 'private' | 'public'): string {
  return kind === 'private' ? 'privateKey' : 'publicKey';
}

/**
 * Strict PEM: one block, the expected label, base64 body. Only PKCS#8 (`PRIVATE KEY`) and SPKI
 * (`PUBLIC KEY`) are read; other labels (`EC PRIVATE KEY`, `ENCRYPTED PRIVATE KEY`) are refused
 * with a hint rather than guessed at.
 */
function readPem(pem: string, kind: 'private' | 'public'): KeyObject {
  const field = fieldOf(kind);
  const der = pemToDer(pem, kind, field);
  try {
    return tryOrThrow(
      () =>
        kind === 'private'
          ? createPrivateKey({ key: Buffer.from(der.buffer, der.byteOffset, der.byteLength), format: 'der', type: 'pkcs8' })
          : createPublicKey({ key: Buffer.from(der.buffer, der.byteOffset, der.byteLength), format: 'der', type: 'spki' }),
      () => invalidInput(`${field} is not a readable PEM ${kind === 'private' ? 'PKCS#8 private' : 'SPKI public'} key`, `/${field}`),
    );
  } finally {
    if (kind === 'private') wipe(der);
  }
}

function wrongPemType(kind: 'private' | 'public', algorithm: string): never {
  throw invalidInput(`${fieldOf(kind)} is a PEM key of another algorithm, not ${algorithm}`, `/${fieldOf(kind)}`);
}

// ---------------------------------------------------------------------------------------------
// A small LRU of imported public keys
// ---------------------------------------------------------------------------------------------

/**
 * Imported public KeyObjects by algorithm and exact key bytes (public-key-cache.ts says why that is
 * safe). Importing costs about a third of an Ed25519 or P-256 verification (measured: 30-37 µs
 * against 90-100 µs), so repeated verifies against one key gain about 25 %.
 */
const PUBLIC_KEY_CACHE_SIZE = 256;
const publicKeyCache = new PublicKeyCache(PUBLIC_KEY_CACHE_SIZE);

function cachedPublicKey(algorithm: string, raw: Uint8Array, load: () => KeyObject): KeyObject {
  return publicKeyCache.get(algorithm, raw, load);
}

// ---------------------------------------------------------------------------------------------
// Native sign / verify, on the calling thread or on libuv's pool
// ---------------------------------------------------------------------------------------------

/**
 * Sign with node:crypto. `threadPool` moves the work off the event loop: worth it above about
 * 0.1 ms (Ed448 0.14 ms, P-384 0.8 ms measured); below that (Ed25519 34 µs, P-256 50 µs) the
 * hop costs more than it frees (Ed25519 throughput 36 → 41 µs per signature).
 */
function nativeSign(hash: string | null, message: Uint8Array, key: SignKeyObjectInput, threadPool: boolean): Promise<Uint8Array> {
  if (!threadPool) return Promise.resolve(asBytes(nodeSign(hash, message, key)));
  return new Promise((resolve, reject) => {
    nodeSign(hash, message, key, (error, signature) => (error === null ? resolve(asBytes(signature)) : reject(error)));
  });
}

function nativeVerify(
  hash: string | null,
  message: Uint8Array,
  key: VerifyKeyObjectInput,
  signature: Uint8Array,
  threadPool: boolean,
): Promise<boolean> {
  if (!threadPool) return Promise.resolve(nodeVerify(hash, message, key, signature));
  return new Promise((resolve, reject) => {
    nodeVerify(hash, message, key, signature, (error, valid) => (error === null ? resolve(valid) : reject(error)));
  });
}

// ---------------------------------------------------------------------------------------------
// Octet key pairs: Ed25519, Ed448 (and X25519, X448 for keys.ts)
// ---------------------------------------------------------------------------------------------

/** An RFC 8410 curve: its OID under 1.3.101, JWK name (RFC 8037) and raw key lengths. */
export interface OkpCurve {
  readonly nodeType: 'ed25519' | 'ed448' | 'x25519' | 'x448';
  readonly jwkCurve: 'Ed25519' | 'Ed448' | 'X25519' | 'X448';
  /** Last byte of the OID 1.3.101.x: 110 X25519, 111 X448, 112 Ed25519, 113 Ed448. */
  readonly oidArc: number;
  readonly privateKeyLength: number;
  readonly publicKeyLength: number;
}

function okpAlgorithmIdentifier(curve: OkpCurve): Uint8Array {
  return tlv(SEQUENCE, Uint8Array.of(0x06, 0x03, 0x2b, 0x65, curve.oidArc));
}

/** RFC 8410 PKCS#8 (version 1, no public key): readable by Node 22 and 24 alike. */
export function okpPrivateKeyObject(curve: OkpCurve, raw: Uint8Array): KeyObject {
  const der = tlv(SEQUENCE, VERSION_0, okpAlgorithmIdentifier(curve), tlv(OCTET_STRING, tlv(OCTET_STRING, raw)));
  try {
    return createPrivateKey({ key: Buffer.from(der.buffer, der.byteOffset, der.byteLength), format: 'der', type: 'pkcs8' });
  } finally {
    wipe(der);
  }
}

/** RFC 8410 SubjectPublicKeyInfo. */
export function okpPublicKeyObject(curve: OkpCurve, raw: Uint8Array): KeyObject {
  const der = tlv(SEQUENCE, okpAlgorithmIdentifier(curve), tlv(BIT_STRING, NO_UNUSED_BITS, raw));
  return createPublicKey({ key: Buffer.from(der.buffer, der.byteOffset, der.byteLength), format: 'der', type: 'spki' });
}

function okpRawPublic(curve: OkpCurve, key: KeyObject): Uint8Array {
  return fromBase64url((key.export({ format: 'jwk' }) as Jwk).x, curve.publicKeyLength);
}

function okpRawPrivate(curve: OkpCurve, key: KeyObject): Uint8Array {
  return fromBase64url((key.export({ format: 'jwk' }) as Jwk).d, curve.privateKeyLength);
}

function exportKeyObjects(privateKey: KeyObject, publicKey: KeyObject, format: 'pem' | 'jwk'): EncodedKeyPair {
  if (format === 'pem') {
    return {
      publicKey: String(publicKey.export({ type: 'spki', format: 'pem' })),
      privateKey: String(privateKey.export({ type: 'pkcs8', format: 'pem' })),
    };
  }
  return { publicKey: publicKey.export({ format: 'jwk' }) as Jwk, privateKey: privateKey.export({ format: 'jwk' }) as Jwk };
}

/** Generation and export for an RFC 8410 curve; keys.ts uses it for X25519 and X448 too. */
export function okpKeyPairScheme(curve: OkpCurve): KeyPairScheme {
  return {
    generate: () =>
      new Promise((resolve, reject) => {
        // The asynchronous form draws the key on libuv's pool, off the event loop.
        generateKeyPair(curve.nodeType as 'ed25519', {}, (error, publicKey, privateKey) => {
          if (error !== null) return reject(error);
          resolve({ publicKey: okpRawPublic(curve, publicKey), privateKey: okpRawPrivate(curve, privateKey) });
        });
      }),
    export: (pair, format) => {
      if (format === 'raw') return { publicKey: pair.publicKey, privateKey: pair.privateKey };
      return exportKeyObjects(okpPrivateKeyObject(curve, pair.privateKey), okpPublicKeyObject(curve, pair.publicKey), format);
    },
  };
}

/** PEM → raw for an RFC 8410 curve, refusing a key of another type. */
export function okpFromPem(curve: OkpCurve, pem: string, kind: 'private' | 'public'): Uint8Array {
  const key = readPem(pem, kind);
  if (key.asymmetricKeyType !== curve.nodeType) wrongPemType(kind, curve.nodeType);
  return kind === 'private' ? okpRawPrivate(curve, key) : okpRawPublic(curve, key);
}

const ED25519: OkpCurve = { nodeType: 'ed25519', jwkCurve: 'Ed25519', oidArc: 112, privateKeyLength: 32, publicKeyLength: 32 };
const ED448: OkpCurve = { nodeType: 'ed448', jwkCurve: 'Ed448', oidArc: 113, privateKeyLength: 57, publicKeyLength: 57 };

function eddsaPublicKey(curve: OkpCurve, raw: Uint8Array): KeyObject {
  return cachedPublicKey(curve.nodeType, raw, () =>
    tryOrThrow(
      () => okpPublicKeyObject(curve, raw),
      () => invalidInput(`publicKey is not a valid ${curve.nodeType} public key`, '/publicKey'),
    ),
  );
}

const ed25519Scheme: SignatureScheme = {
  privateKeyLengths: [ED25519.privateKeyLength],
  publicKeyLengths: [ED25519.publicKeyLength],
  signatureLength: 64,
  maxContextLength: 0,
  sign: async (privateKey, message) => nativeSign(null, message, { key: okpPrivateKeyObject(ED25519, privateKey) }, false),
  verify: async (publicKey, message, signature) => nativeVerify(null, message, { key: eddsaPublicKey(ED25519, publicKey) }, signature, false),
  fromPem: (pem, kind) => okpFromPem(ED25519, pem, kind),
  ...okpKeyPairScheme(ED25519),
};

/**
 * RFC 8032 Ed448 on @noble/curves: the fallback for an Ed448 context where the runtime's own
 * Ed448 has none (Node 22). Strict decoding (zip215: false), as RFC 8032 §5.2.7 and OpenSSL.
 * Exported so that the tests run it against the same vectors on every runtime.
 */
export const ed448Noble = {
  sign(privateKey: Uint8Array, message: Uint8Array, context: Uint8Array): Uint8Array {
    return ed448.sign(message, privateKey, { context });
  },
  verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array, context: Uint8Array): boolean {
    // noble throws on an undecodable point or scalar: for a verifier that is simply "invalid".
    return tryOr(
      () => ed448.verify(signature, message, publicKey, { context, zip215: false }),
      () => false,
    );
  },
};

/**
 * Whether this runtime's Ed448 honours `context`. Node 22 accepts the option and ignores it, so
 * the test signs RFC 8032 §7.4's "1 octet with context" example and compares with the published
 * signature: only a runtime that applies the context reproduces it.
 */
export const NATIVE_ED448_CONTEXT: boolean = (() => {
  const seed = hexBytes('c4eab05d357007c632f3dbb48489924d552b08fe0c353a0d4a1f00acda2c463afbea67c5e8d2877c5e3bc397a659949ef8021e954e0a12274e');
  const expected = 'd4f8f6131770dd46f40867d6fd5d5055de43541f8c5e35abbcd001b32a89f7d2151f7647f11d8ca2ae279fb842d607217fce6e042f6815ea000c85741de5c8da1144a6a1aba7f96de42505d7a7298524fda538fccbbb754f578c1cad10d54d0d5428407e85dcbc98a49155c13764e66c3c00';
  try {
    const signature = nodeSign(null, Uint8Array.of(0x03), { key: okpPrivateKeyObject(ED448, seed), context: hexBytes('666f6f') } as SignKeyObjectInput);
    return signature.toString('hex') === expected;
  } catch {
    return false;
  }
})();

const ed448Scheme: SignatureScheme = {
  privateKeyLengths: [ED448.privateKeyLength],
  publicKeyLengths: [ED448.publicKeyLength],
  signatureLength: 114,
  maxContextLength: 255,
  sign: async (privateKey, message, context) => {
    if (context === undefined || context.byteLength === 0) {
      // Ed448 always hashes a context; none and the empty one are the same signature.
      return nativeSign(null, message, { key: okpPrivateKeyObject(ED448, privateKey) }, true);
    }
    if (!NATIVE_ED448_CONTEXT) return ed448Noble.sign(privateKey, message, context);
    return nativeSign(null, message, { key: okpPrivateKeyObject(ED448, privateKey), context } as SignKeyObjectInput, true);
  },
  verify: async (publicKey, message, signature, context) => {
    if (context !== undefined && context.byteLength > 0) {
      if (!NATIVE_ED448_CONTEXT) return ed448Noble.verify(publicKey, message, signature, context);
      return nativeVerify(null, message, { key: eddsaPublicKey(ED448, publicKey), context } as VerifyKeyObjectInput, signature, true);
    }
    return nativeVerify(null, message, { key: eddsaPublicKey(ED448, publicKey) }, signature, true);
  },
  fromPem: (pem, kind) => okpFromPem(ED448, pem, kind),
  ...okpKeyPairScheme(ED448),
};

// ---------------------------------------------------------------------------------------------
// ECDSA on the NIST curves
// ---------------------------------------------------------------------------------------------

interface EcdsaCurve {
  readonly id: 'ecdsa-p256' | 'ecdsa-p384';
  /** OpenSSL's name, for createECDH. */
  readonly opensslName: 'prime256v1' | 'secp384r1';
  readonly jwkCurve: 'P-256' | 'P-384';
  readonly hash: 'sha256' | 'sha384';
  /** Field and scalar size in bytes. */
  readonly size: number;
  /** DER of the curve's OID (SEC 2 / RFC 5480). */
  readonly curveOid: Uint8Array;
  readonly threadPool: boolean;
}

const EC_PUBLIC_KEY_OID = hexBytes('06072a8648ce3d0201');

const P256: EcdsaCurve = {
  id: 'ecdsa-p256', opensslName: 'prime256v1', jwkCurve: 'P-256', hash: 'sha256', size: 32,
  curveOid: hexBytes('06082a8648ce3d030107'), threadPool: false,
};
const P384: EcdsaCurve = {
  id: 'ecdsa-p384', opensslName: 'secp384r1', jwkCurve: 'P-384', hash: 'sha384', size: 48,
  curveOid: hexBytes('06052b81040022'), threadPool: true,
};

/**
 * SEC1 point → KeyObject, through an RFC 5480 SubjectPublicKeyInfo (OpenSSL reads compressed
 * points there and checks that the point is on the curve). The first byte is checked here:
 * OpenSSL would also take the "hybrid" forms 0x06 / 0x07, which the contract does not offer.
 */
function ecPublicKey(curve: EcdsaCurve, point: Uint8Array): KeyObject {
  const prefix = point[0];
  const shapeOk = point.byteLength === 2 * curve.size + 1 ? prefix === 0x04 : prefix === 0x02 || prefix === 0x03;
  if (!shapeOk) {
    throw invalidInput(
      `publicKey must be a SEC1 point: 0x04 ‖ x ‖ y (${2 * curve.size + 1} bytes) or 0x02/0x03 ‖ x (${curve.size + 1} bytes)`,
      '/publicKey',
    );
  }
  return cachedPublicKey(curve.id, point, () => ecPublicKeyObject(curve, point));
}

function ecPublicKeyObject(curve: EcdsaCurve, point: Uint8Array): KeyObject {
  const der = tlv(SEQUENCE, tlv(SEQUENCE, EC_PUBLIC_KEY_OID, curve.curveOid), tlv(BIT_STRING, NO_UNUSED_BITS, point));
  return tryOrThrow(
    () => createPublicKey({ key: Buffer.from(der.buffer, der.byteOffset, der.byteLength), format: 'der', type: 'spki' }),
    () => invalidInput(`publicKey is not a point on ${curve.jwkCurve}`, '/publicKey'),
  );
}

/**
 * Scalar → KeyObject, through a JWK (both runtimes read it). createECDH computes the public point
 * that the JWK needs and refuses a scalar outside [1, n-1], which PKCS#8 import would accept.
 */
function ecPrivateKey(curve: EcdsaCurve, d: Uint8Array): KeyObject {
  const ecdh = createECDH(curve.opensslName);
  tryOrThrow(
    () => ecdh.setPrivateKey(d),
    () => invalidInput(`privateKey is not a ${curve.jwkCurve} private key: the scalar must be from 1 to n-1`, '/privateKey'),
  );
  const point = asBytes(ecdh.getPublicKey());
  return createPrivateKey({ key: ecJwk(curve, point, d), format: 'jwk' });
}

function ecJwk(curve: EcdsaCurve, uncompressed: Uint8Array, d?: Uint8Array): Jwk & { kty: 'EC' } {
  const jwk: Jwk & { kty: 'EC' } = {
    kty: 'EC',
    crv: curve.jwkCurve,
    x: bytesToBase64Url(uncompressed.subarray(1, 1 + curve.size)),
    y: bytesToBase64Url(uncompressed.subarray(1 + curve.size)),
  };
  if (d !== undefined) jwk.d = bytesToBase64Url(d);
  return jwk;
}

function ecRawPublic(curve: EcdsaCurve, key: KeyObject): Uint8Array {
  const jwk = key.export({ format: 'jwk' }) as Jwk;
  return concat(Uint8Array.of(0x04), fromBase64url(jwk.x, curve.size), fromBase64url(jwk.y, curve.size));
}

function ecRawPrivate(curve: EcdsaCurve, key: KeyObject): Uint8Array {
  return fromBase64url((key.export({ format: 'jwk' }) as Jwk).d, curve.size);
}

function ecdsaScheme(curve: EcdsaCurve): SignatureScheme {
  return {
    privateKeyLengths: [curve.size],
    publicKeyLengths: [curve.size + 1, 2 * curve.size + 1],
    signatureLength: 2 * curve.size,
    maxContextLength: 0,
    sign: async (privateKey, message) =>
      nativeSign(curve.hash, message, { key: ecPrivateKey(curve, privateKey), dsaEncoding: 'ieee-p1363' }, curve.threadPool),
    verify: async (publicKey, message, signature) =>
      nativeVerify(curve.hash, message, { key: ecPublicKey(curve, publicKey), dsaEncoding: 'ieee-p1363' }, signature, curve.threadPool),
    fromPem: (pem, kind) => {
      const key = readPem(pem, kind);
      if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== curve.opensslName) wrongPemType(kind, curve.id);
      return kind === 'private' ? ecRawPrivate(curve, key) : ecRawPublic(curve, key);
    },
    generate: () =>
      new Promise((resolve, reject) => {
        generateKeyPair('ec', { namedCurve: curve.opensslName }, (error, publicKey, privateKey) => {
          if (error !== null) return reject(error);
          resolve({ publicKey: ecRawPublic(curve, publicKey), privateKey: ecRawPrivate(curve, privateKey) });
        });
      }),
    export: (pair, format) => {
      if (format === 'raw') return { publicKey: pair.publicKey, privateKey: pair.privateKey };
      // Uncached: a freshly generated key is not one that verification will see again soon.
      return exportKeyObjects(ecPrivateKey(curve, pair.privateKey), ecPublicKeyObject(curve, pair.publicKey), format);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The table and the entry points
// ---------------------------------------------------------------------------------------------

/** Every classical signature scheme, by the identifier of the contract. Ed25519 is the default. */
export const SIGNATURE_SCHEMES = {
  ed25519: ed25519Scheme,
  ed448: ed448Scheme,
  'ecdsa-p256': ecdsaScheme(P256),
  'ecdsa-p384': ecdsaScheme(P384),
} as const satisfies Record<string, SignatureScheme>;

export type ClassicalSignatureAlgorithm = keyof typeof SIGNATURE_SCHEMES;
export const CLASSICAL_SIGNATURE_ALGORITHM_IDS = Object.keys(SIGNATURE_SCHEMES) as ClassicalSignatureAlgorithm[];
export type PostQuantumSignatureAlgorithm = MlDsaAlgorithm | SlhDsaAlgorithm;
export const POST_QUANTUM_SIGNATURE_ALGORITHM_IDS: readonly PostQuantumSignatureAlgorithm[] = [...ML_DSA_ALGORITHM_IDS, ...SLH_DSA_ALGORITHM_IDS];
export type SignatureAlgorithm = ClassicalSignatureAlgorithm | PostQuantumSignatureAlgorithm;
/** Every identifier `/v2/sign` and `/v2/verify` accept: the registry's `signature` family. */
export const SIGNATURE_ALGORITHM_IDS: readonly SignatureAlgorithm[] = [...CLASSICAL_SIGNATURE_ALGORITHM_IDS, ...POST_QUANTUM_SIGNATURE_ALGORITHM_IDS];
export const DEFAULT_SIGNATURE_ALGORITHM: SignatureAlgorithm = 'ed25519';

/** Longest context any scheme takes (RFC 8032 and FIPS 204/205 all stop at 255 bytes). */
export const SIGNATURE_CONTEXT_MAX_BYTES = 255;

export function isSignatureAlgorithm(id: string): id is SignatureAlgorithm {
  return Object.hasOwn(SIGNATURE_SCHEMES, id) || isPostQuantumSignatureAlgorithm(id);
}

export function isPostQuantumSignatureAlgorithm(id: string): id is PostQuantumSignatureAlgorithm {
  return Object.hasOwn(ML_DSA_PARAMETERS, id) || Object.hasOwn(SLH_DSA_PARAMETERS, id);
}

export interface SignatureOptions {
  /** RFC 8032 / FIPS 204 / FIPS 205 context string; refused by schemes that have none. */
  context?: Uint8Array;
  /** Where ML-DSA and SLH-DSA work runs (the server's offload); on the calling thread by default. */
  runner?: PostQuantumRunner;
}

function schemeOf(algorithm: string): SignatureScheme {
  if (!Object.hasOwn(SIGNATURE_SCHEMES, algorithm)) {
    throw unsupportedAlgorithm(`unsupported signature algorithm '${algorithm}'`, '/algorithm');
  }
  return SIGNATURE_SCHEMES[algorithm as ClassicalSignatureAlgorithm];
}

function checkContext(algorithm: string, maxContextLength: number, context: Uint8Array | undefined): void {
  if (context === undefined) return;
  if (maxContextLength === 0) {
    // Even an empty one: Ed25519 with a context is Ed25519ctx, another scheme, so refuse rather than guess.
    throw invalidInput(`${algorithm} takes no context; leave context out`, '/context');
  }
  if (context.byteLength > maxContextLength) {
    throw invalidInput(`context must be at most ${maxContextLength} bytes of UTF-8 (got ${context.byteLength})`, '/context');
  }
}

function rawKey(scheme: SignatureScheme, key: KeyInput, kind: 'private' | 'public'): Uint8Array {
  const raw = typeof key === 'string' ? scheme.fromPem(key, kind) : key;
  const field = fieldOf(kind);
  return checkLength(raw, kind === 'private' ? scheme.privateKeyLengths : scheme.publicKeyLengths, field);
}

// ---------------------------------------------------------------------------------------------
// ML-DSA and SLH-DSA behind the same entry points

interface PostQuantumSignatureScheme {
  readonly privateKeyLengths: readonly number[];
  readonly publicKeyLength: number;
  readonly signatureLength: number;
  readonly maxContextLength: number;
  readonly sign: (runner: PostQuantumRunner, privateKey: Uint8Array, message: Uint8Array, context: Uint8Array | undefined) => Promise<Uint8Array>;
  readonly verify: (runner: PostQuantumRunner, publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array, context: Uint8Array | undefined) => Promise<boolean>;
}

/**
 * The fields of `/v2/sign` and `/v2/verify`, which ml-dsa.ts and slh-dsa.ts name in their errors:
 * the key is `privateKey` there, and the parameter set is part of `algorithm`. Lengths are checked
 * here first, so a key of another parameter set is "privateKey must be …", never a level mismatch.
 */
const ML_DSA_FIELDS = { secretKey: 'privateKey', publicKey: 'publicKey', signature: 'signature', context: 'context', level: 'algorithm' };
const SLH_DSA_FIELDS = { secretKey: 'privateKey', publicKey: 'publicKey', signature: 'signature', context: 'context', variant: 'algorithm' };

function postQuantumScheme(algorithm: PostQuantumSignatureAlgorithm): PostQuantumSignatureScheme {
  if (Object.hasOwn(ML_DSA_PARAMETERS, algorithm)) {
    const spec = ML_DSA_PARAMETERS[algorithm as MlDsaAlgorithm];
    return {
      privateKeyLengths: [ML_DSA_SEED_LENGTH, spec.expandedSecretKeyLength],
      publicKeyLength: spec.publicKeyLength,
      signatureLength: spec.signatureLength,
      maxContextLength: ML_DSA_CONTEXT_MAX_BYTES,
      sign: async (runner, privateKey, message, context) =>
        (await runner.mlDsaSign(privateKey, message, { level: spec.level, context, fields: ML_DSA_FIELDS })).signature,
      verify: async (runner, publicKey, message, signature, context) =>
        (await runner.mlDsaVerify(publicKey, message, signature, { level: spec.level, context, fields: ML_DSA_FIELDS })).valid,
    };
  }
  const spec = SLH_DSA_PARAMETERS[algorithm as SlhDsaAlgorithm];
  return {
    privateKeyLengths: [4 * spec.n],
    publicKeyLength: 2 * spec.n,
    signatureLength: spec.signatureLength,
    maxContextLength: SLH_DSA_CONTEXT_MAX_BYTES,
    sign: async (runner, privateKey, message, context) =>
      (await runner.slhDsaSign(privateKey, message, { variant: spec.variant, context, fields: SLH_DSA_FIELDS })).signature,
    verify: async (runner, publicKey, message, signature, context) =>
      (await runner.slhDsaVerify(publicKey, message, signature, { variant: spec.variant, context, fields: SLH_DSA_FIELDS })).valid,
  };
}

async function postQuantumSign(algorithm: PostQuantumSignatureAlgorithm, privateKey: KeyInput, message: Uint8Array, options: SignatureOptions): Promise<Uint8Array> {
  const scheme = postQuantumScheme(algorithm);
  const runner = options.runner ?? DIRECT_POST_QUANTUM_RUNNER;
  checkContext(algorithm, scheme.maxContextLength, options.context);
  const raw = typeof privateKey === 'string' ? await runner.privateKeyFromPem(algorithm, privateKey, { field: 'privateKey' }) : privateKey;
  try {
    checkLength(raw, scheme.privateKeyLengths, 'privateKey');
    return await scheme.sign(runner, raw, message, options.context);
  } finally {
    // A key read from PEM is our own copy; raw bytes belong to the caller, who wipes them.
    if (typeof privateKey === 'string') wipe(raw);
  }
}

async function postQuantumVerify(
  algorithm: PostQuantumSignatureAlgorithm,
  publicKey: KeyInput,
  message: Uint8Array,
  signature: Uint8Array,
  options: SignatureOptions,
): Promise<boolean> {
  const scheme = postQuantumScheme(algorithm);
  checkContext(algorithm, scheme.maxContextLength, options.context);
  const raw = typeof publicKey === 'string' ? postQuantumPublicKeyFromPem(algorithm, publicKey) : publicKey;
  checkLength(raw, scheme.publicKeyLength, 'publicKey');
  checkLength(signature, scheme.signatureLength, 'signature');
  return scheme.verify(options.runner ?? DIRECT_POST_QUANTUM_RUNNER, raw, message, signature, options.context);
}

// ---------------------------------------------------------------------------------------------

/** Signs `message`; the signature is in the scheme's raw encoding (r ‖ s for ECDSA). */
export async function signMessage(
  algorithm: string,
  privateKey: KeyInput,
  message: Uint8Array,
  options: SignatureOptions = {},
): Promise<Uint8Array> {
  if (isPostQuantumSignatureAlgorithm(algorithm)) return postQuantumSign(algorithm, privateKey, message, options);
  const scheme = schemeOf(algorithm);
  checkContext(algorithm, scheme.maxContextLength, options.context);
  const raw = rawKey(scheme, privateKey, 'private');
  try {
    return await scheme.sign(raw, message, options.context);
  } finally {
    // A key read from PEM is our own copy; raw bytes belong to the caller, who wipes them.
    if (typeof privateKey === 'string') wipe(raw);
  }
}

/**
 * Verifies `signature` over `message`. A malformed key or a signature of the wrong length is an
 * INVALID_INPUT error; a well-formed signature that does not verify is `false`.
 */
export async function verifySignature(
  algorithm: string,
  publicKey: KeyInput,
  message: Uint8Array,
  signature: Uint8Array,
  options: SignatureOptions = {},
): Promise<boolean> {
  if (isPostQuantumSignatureAlgorithm(algorithm)) return postQuantumVerify(algorithm, publicKey, message, signature, options);
  const scheme = schemeOf(algorithm);
  checkContext(algorithm, scheme.maxContextLength, options.context);
  const raw = rawKey(scheme, publicKey, 'public');
  checkLength(signature, scheme.signatureLength, 'signature');
  return scheme.verify(raw, message, signature, options.context);
}

/**
 * ECDSA verification of a DER (X9.62 `ECDSA-Sig-Value`) signature, with the same key import as
 * verifySignature. DER is not a wire format of this service: this exists for the Wycheproof
 * suite, whose ECDSA vectors are DER. Any signature OpenSSL cannot parse as strict DER is false.
 */
export async function verifyEcdsaDer(
  algorithm: 'ecdsa-p256' | 'ecdsa-p384',
  publicKey: Uint8Array,
  message: Uint8Array,
  derSignature: Uint8Array,
): Promise<boolean> {
  const curve = algorithm === 'ecdsa-p256' ? P256 : P384;
  checkLength(publicKey, SIGNATURE_SCHEMES[algorithm].publicKeyLengths, 'publicKey');
  const key = ecPublicKey(curve, publicKey);
  return tryOr(
    () => nodeVerify(curve.hash, message, { key, dsaEncoding: 'der' }, derSignature),
    () => false,
  );
}
