/**
 * Post-quantum keys as `/v2/keys/generate` writes them, and as the PEM key fields of `/v2/sign`
 * and `/v2/verify` read them: ML-KEM (FIPS 203), X-Wing, ML-DSA (FIPS 204) and SLH-DSA (FIPS 205).
 *
 * raw   The encodings of the `/v2/pq` routes: public keys raw; private keys as ML-KEM's 64-byte
 *       seed d ‖ z, ML-DSA's 32-byte seed ξ, SLH-DSA's whole 4n-byte secret key (it has no seed
 *       form) and X-Wing's 32-byte seed.
 * pem   SPKI `PUBLIC KEY` (RFC 5280) and PKCS#8 `PRIVATE KEY` (RFC 5958 v1) with parameters absent:
 *       - ML-KEM (2.16.840.1.101.3.4.4.1-3, RFC 9935 / draft-ietf-lamps-kyber-certificates) and
 *         ML-DSA (2.16.840.1.101.3.4.3.17-19, RFC 9881 / draft-ietf-lamps-dilithium-certificates):
 *         the private key is the `seed [0] OCTET STRING` choice of their private-key CHOICE. That
 *         form holds only the seed, so Node 22 and Node 24 write the same bytes for one key
 *         (OpenSSL's own default, the `both` form, also carries the expanded key).
 *       - SLH-DSA (2.16.840.1.101.3.4.3.20-31, RFC 9909): the 4n-byte secret key itself.
 *       - X-Wing (id-XWing 1.3.6.1.4.1.62253.25722, draft-connolly-cfrg-xwing-kem's ASN.1
 *         module): no ASN.1 wrapping, the 1216-byte public key and the 32-byte seed themselves.
 *       Read back: all three ML-KEM / ML-DSA choices (seed, expandedKey, both), the `both` form
 *       only when its expanded key is the one its seed expands to.
 * jwk   The AKP key type ({ kty: 'AKP', alg, pub, priv }, as registered by RFC 9964 for ML-DSA):
 *       `alg` ML-DSA-44/65/87 with `priv` the seed (RFC 9964); ML-KEM-512/768/1024 with `priv`
 *       the 64-byte seed (draft-ietf-jose-pqc-kem, and WebCrypto's "Modern Algorithms" draft that
 *       Node 24 implements); SLH-DSA-SHA2-128s … SLH-DSA-SHAKE-256f with `priv` the 4n-byte secret
 *       key (draft-ietf-cose-sphincs-plus). X-Wing has no published JWK form (the JOSE HPKE drafts
 *       bind AKP keys to whole HPKE suites, and the only X-Wing AKP in use is one library's
 *       experiment), so a JWK of it is refused rather than invented.
 *
 * Node 24 reads every PEM and JWK written here except X-Wing's (OpenSSL has no X-Wing); the tests
 * check that, and check the X-Wing forms against the draft's own CIRCL-generated fixtures.
 *
 * Where the work runs: key generation, signing and the consistency check of a `both` private key
 * are pure JavaScript on Node 22. Callers that must keep them off the event loop (the server) pass
 * a PostQuantumRunner whose functions run elsewhere; the default runs them here.
 */
import { createPrivateKey } from './node-crypto.ts';
import { checkLength } from './checks.ts';
import { bytesToBase64Url } from './codec.ts';
import { constantTimeEqual, wipe } from './ct.ts';
import {
  DER_CONTEXT_0,
  DER_OCTET_STRING,
  DER_SEQUENCE,
  derTlv,
  derToPem,
  oidContent,
  parsePkcs8,
  parseSpki,
  pemToDer,
  pkcs8Der,
  readInnerElements,
  sameOid,
  spkiDer,
} from './der.ts';
import { invalidInput, tryOr, unsupportedAlgorithm } from './errors.ts';
import {
  ML_KEM_ALGORITHM_IDS,
  ML_KEM_PARAMETERS,
  ML_KEM_SEED_LENGTH,
  mlKemKeygen,
  type MlKemAlgorithm,
} from './ml-kem.ts';
import {
  ML_DSA_ALGORITHM_IDS,
  ML_DSA_PARAMETERS,
  ML_DSA_SEED_LENGTH,
  mlDsaKeygen,
  mlDsaSign,
  mlDsaVerify,
  type MlDsaAlgorithm,
} from './ml-dsa.ts';
import {
  SLH_DSA_ALGORITHM_IDS,
  SLH_DSA_PARAMETERS,
  slhDsaKeygen,
  slhDsaSign,
  slhDsaVerify,
  type SlhDsaAlgorithm,
} from './slh-dsa.ts';
import {
  XWING_ALGORITHM,
  XWING_PUBLIC_KEY_LENGTH,
  XWING_SEED_LENGTH,
  xwingKeygen,
  type XWingAlgorithm,
} from './xwing.ts';
import { PQ_NATIVE_SUPPORT, selectBackend, type PqBackend } from './pq-common.ts';
import { asBuffer } from './bytes.ts';
import type { EncodedKey, Jwk, KeyFormat } from './key-format.ts';

export type PostQuantumKeyAlgorithm = MlKemAlgorithm | XWingAlgorithm | MlDsaAlgorithm | SlhDsaAlgorithm;

interface KeyTypeCommon {
  /** DER content of the algorithm's OBJECT IDENTIFIER. */
  readonly oid: Uint8Array;
  readonly publicKeyLength: number;
  /** The private key as key generation returns it: the seed, or SLH-DSA's whole secret key. */
  readonly privateKeyLength: number;
  /** `alg` of the AKP JWK; undefined where no published JWK form exists. */
  readonly jwkAlg: string | undefined;
}

/** A family whose PKCS#8 private key is the seed / expandedKey / both CHOICE of the LAMPS drafts. */
interface SeededKeyType extends KeyTypeCommon {
  readonly expandedLength: number;
  /** The expanded private key of a seed (noble: the FIPS encoding), for the `both` form's check. */
  readonly expand: (seed: Uint8Array) => Uint8Array;
  readonly native: () => boolean;
}

export type PostQuantumKeyType =
  | (SeededKeyType & { readonly family: 'ml-kem'; readonly algorithm: MlKemAlgorithm })
  | (SeededKeyType & { readonly family: 'ml-dsa'; readonly algorithm: MlDsaAlgorithm })
  | (KeyTypeCommon & { readonly family: 'slh-dsa'; readonly algorithm: SlhDsaAlgorithm })
  | (KeyTypeCommon & { readonly family: 'x-wing' });

/** `slh-dsa-sha2-128s` → `SLH-DSA-SHA2-128s`, the spelling of the SLH-DSA JOSE names and of FIPS 205. */
function slhDsaJwkAlg(algorithm: SlhDsaAlgorithm): string {
  const [, , hash = '', size = ''] = algorithm.split('-');
  return `SLH-DSA-${hash.toUpperCase()}-${size}`;
}

function buildKeyTypes(): Record<PostQuantumKeyAlgorithm, PostQuantumKeyType> {
  const table = {} as Record<PostQuantumKeyAlgorithm, PostQuantumKeyType>;
  for (const id of ML_KEM_ALGORITHM_IDS) {
    const spec = ML_KEM_PARAMETERS[id];
    table[id] = {
      family: 'ml-kem',
      algorithm: id,
      oid: spec.oid,
      publicKeyLength: spec.publicKeyLength,
      privateKeyLength: ML_KEM_SEED_LENGTH,
      expandedLength: spec.expandedSecretKeyLength,
      jwkAlg: `ML-KEM-${spec.level}`,
      expand: (seed) => spec.noble.keygen(seed).secretKey,
      native: () => PQ_NATIVE_SUPPORT.mlKem,
    };
  }
  table[XWING_ALGORITHM] = {
    family: 'x-wing',
    oid: oidContent('1.3.6.1.4.1.62253.25722'),
    publicKeyLength: XWING_PUBLIC_KEY_LENGTH,
    privateKeyLength: XWING_SEED_LENGTH,
    jwkAlg: undefined,
  };
  for (const id of ML_DSA_ALGORITHM_IDS) {
    const spec = ML_DSA_PARAMETERS[id];
    table[id] = {
      family: 'ml-dsa',
      algorithm: id,
      oid: spec.oid,
      publicKeyLength: spec.publicKeyLength,
      privateKeyLength: ML_DSA_SEED_LENGTH,
      expandedLength: spec.expandedSecretKeyLength,
      jwkAlg: `ML-DSA-${spec.level}`,
      expand: (seed) => spec.noble.keygen(seed).secretKey,
      native: () => PQ_NATIVE_SUPPORT.mlDsa,
    };
  }
  for (const id of SLH_DSA_ALGORITHM_IDS) {
    const spec = SLH_DSA_PARAMETERS[id];
    table[id] = {
      family: 'slh-dsa',
      algorithm: id,
      oid: spec.oid,
      publicKeyLength: 2 * spec.n,
      privateKeyLength: 4 * spec.n,
      jwkAlg: slhDsaJwkAlg(id),
    };
  }
  return table;
}

/** Every post-quantum key type, by its identifier. */
export const POST_QUANTUM_KEY_TYPES: Readonly<Record<PostQuantumKeyAlgorithm, PostQuantumKeyType>> =
  Object.freeze(buildKeyTypes());
/** In the order `/v2/keys/generate` lists them: KEMs, then signatures. */
export const POST_QUANTUM_KEY_ALGORITHM_IDS: readonly PostQuantumKeyAlgorithm[] = [
  ...ML_KEM_ALGORITHM_IDS,
  XWING_ALGORITHM,
  ...ML_DSA_ALGORITHM_IDS,
  ...SLH_DSA_ALGORITHM_IDS,
];

export function isPostQuantumKeyAlgorithm(id: string): id is PostQuantumKeyAlgorithm {
  return Object.hasOwn(POST_QUANTUM_KEY_TYPES, id);
}

function keyTypeOf(algorithm: string): PostQuantumKeyType {
  if (!isPostQuantumKeyAlgorithm(algorithm))
    throw unsupportedAlgorithm(`'${algorithm}' is not a post-quantum key type`, '/algorithm');
  return POST_QUANTUM_KEY_TYPES[algorithm];
}

// ---------------------------------------------------------------------------------------------
// Where the work runs

/**
 * The expensive post-quantum functions that key generation and signing call. The default runs
 * them on the calling thread; the server passes one that runs them through its offload (worker
 * threads on Node 22), with the same signatures.
 */
export interface PostQuantumRunner {
  readonly mlKemKeygen: typeof mlKemKeygen;
  readonly xwingKeygen: typeof xwingKeygen;
  readonly mlDsaKeygen: typeof mlDsaKeygen;
  readonly slhDsaKeygen: typeof slhDsaKeygen;
  readonly mlDsaSign: typeof mlDsaSign;
  readonly mlDsaVerify: typeof mlDsaVerify;
  readonly slhDsaSign: typeof slhDsaSign;
  readonly slhDsaVerify: typeof slhDsaVerify;
  readonly privateKeyFromPem: typeof postQuantumPrivateKeyFromPem;
}

// ---------------------------------------------------------------------------------------------
// PEM input

function wrongAlgorithm(field: string, algorithm: string) {
  return invalidInput(`${field} is a PEM key of another algorithm, not ${algorithm}`, `/${field}`);
}

/** The raw public key inside SPKI PEM text of `algorithm`. */
export function postQuantumPublicKeyFromPem(algorithm: string, pem: string, field = 'publicKey'): Uint8Array {
  const type = keyTypeOf(algorithm);
  const { oid, key } = parseSpki(pemToDer(pem, 'public', field), field);
  if (!sameOid(oid, type.oid)) throw wrongAlgorithm(field, algorithm);
  return checkLength(key, type.publicKeyLength, field).slice();
}

/** Whether the `both` form's expanded key is the one its seed expands to. */
function bothFormIsConsistent(
  type: SeededKeyType,
  seed: Uint8Array,
  expanded: Uint8Array,
  der: Uint8Array,
  backend: PqBackend | undefined,
): boolean {
  if (selectBackend(backend, type.native(), 'this key type') === 'native') {
    // OpenSSL regenerates the key from the seed and refuses a `both` key whose expanded part differs.
    return tryOr(
      () => {
        createPrivateKey({ key: asBuffer(der), format: 'der', type: 'pkcs8' });
        return true;
      },
      () => false,
    );
  }
  const fromSeed = type.expand(seed);
  try {
    return constantTimeEqual(fromSeed, expanded);
  } finally {
    wipe(fromSeed);
  }
}

/** The private key of an ML-KEM / ML-DSA PKCS#8 privateKey: the seed, or the expanded key alone. */
function seededPrivateKey(
  type: SeededKeyType,
  algorithm: string,
  octets: Uint8Array,
  der: Uint8Array,
  field: string,
  backend: PqBackend | undefined,
): Uint8Array {
  const seedLength = type.privateKeyLength;
  const [choice, ...extra] = readInnerElements(octets) ?? [];
  if (choice !== undefined && extra.length === 0) {
    if (choice.tag === DER_CONTEXT_0 && choice.content.byteLength === seedLength) return choice.content.slice();
    if (choice.tag === DER_OCTET_STRING && choice.content.byteLength === type.expandedLength)
      return choice.content.slice();
    if (choice.tag === DER_SEQUENCE) {
      const [seed, expanded, ...rest] = readInnerElements(choice.content) ?? [];
      if (
        seed?.tag === DER_OCTET_STRING &&
        seed.content.byteLength === seedLength &&
        expanded?.tag === DER_OCTET_STRING &&
        expanded.content.byteLength === type.expandedLength &&
        rest.length === 0
      ) {
        if (!bothFormIsConsistent(type, seed.content, expanded.content, der, backend)) {
          throw invalidInput(
            `${field} is not a valid ${algorithm} private key: its expanded key is not the one its seed expands to`,
            `/${field}`,
          );
        }
        // The seed is the key; the expanded form is only its cache.
        return seed.content.slice();
      }
    }
  }
  throw invalidInput(
    `${field} is not a ${algorithm} private key: PKCS#8 must hold the ${seedLength}-byte seed, the ${type.expandedLength}-byte expanded key, or both`,
    `/${field}`,
  );
}

/**
 * The raw private key inside PKCS#8 PEM text of `algorithm`: the seed (ML-KEM, ML-DSA, X-Wing;
 * also from the `both` form, after checking its expanded key against it), the expanded key where
 * only that is given, or SLH-DSA's secret key. Asynchronous because it is a job of the server's
 * offload: the `both` check expands the seed, pure JavaScript on Node 22.
 */
export async function postQuantumPrivateKeyFromPem(
  algorithm: string,
  pem: string,
  options: { field?: string; backend?: PqBackend } = {},
): Promise<Uint8Array> {
  const field = options.field ?? 'privateKey';
  const type = keyTypeOf(algorithm);
  const der = pemToDer(pem, 'private', field);
  try {
    const { oid, key } = parsePkcs8(der, field);
    if (!sameOid(oid, type.oid)) throw wrongAlgorithm(field, algorithm);
    if (type.family === 'ml-kem' || type.family === 'ml-dsa')
      return seededPrivateKey(type, algorithm, key, der, field, options.backend);
    return checkLength(key, type.privateKeyLength, field).slice();
  } finally {
    wipe(der);
  }
}

// ---------------------------------------------------------------------------------------------
// Generation and output

export interface PostQuantumKeyPair {
  readonly publicKey: Uint8Array;
  /** The seed, or SLH-DSA's whole secret key. */
  readonly privateKey: Uint8Array;
}

/** A fresh key pair of `algorithm`, in the raw encodings. */
export async function generatePostQuantumKeyPair(
  algorithm: string,
  runner: PostQuantumRunner = DIRECT_POST_QUANTUM_RUNNER,
): Promise<PostQuantumKeyPair> {
  const type = keyTypeOf(algorithm);
  switch (type.family) {
    case 'ml-kem': {
      const keys = await runner.mlKemKeygen(type.algorithm);
      return { publicKey: keys.publicKey, privateKey: keys.secretKey };
    }
    case 'ml-dsa': {
      const keys = await runner.mlDsaKeygen(type.algorithm);
      return { publicKey: keys.publicKey, privateKey: keys.secretKey };
    }
    case 'slh-dsa': {
      const keys = await runner.slhDsaKeygen(type.algorithm);
      return { publicKey: keys.publicKey, privateKey: keys.secretKey };
    }
    case 'x-wing': {
      const keys = await runner.xwingKeygen();
      // The seed is the private key; what it expands to is not handed out.
      wipe(keys.x25519PrivateKey, keys.mlKemSecretKey);
      return { publicKey: keys.publicKey, privateKey: keys.secretKey };
    }
  }
}

/** Refuses, before any work, a format that `algorithm` has no published form in. */
export function checkPostQuantumKeyFormat(algorithm: string, format: KeyFormat): void {
  if (format === 'jwk' && keyTypeOf(algorithm).jwkAlg === undefined) {
    throw invalidInput(
      `${algorithm} has no published JWK form (no JOSE specification defines one for a bare X-Wing key); ask for format raw or pem`,
      '/format',
    );
  }
}

/** The PKCS#8 DER of a raw private key. The caller wipes it. */
export function postQuantumPrivateKeyDer(algorithm: string, privateKey: Uint8Array): Uint8Array {
  const type = keyTypeOf(algorithm);
  checkLength(privateKey, type.privateKeyLength, 'privateKey');
  if (type.family === 'ml-kem' || type.family === 'ml-dsa') {
    const seed = derTlv(DER_CONTEXT_0, privateKey);
    try {
      return pkcs8Der(type.oid, seed);
    } finally {
      wipe(seed);
    }
  }
  return pkcs8Der(type.oid, privateKey);
}

/** The SPKI DER of a raw public key. */
export function postQuantumPublicKeyDer(algorithm: string, publicKey: Uint8Array): Uint8Array {
  const type = keyTypeOf(algorithm);
  return spkiDer(type.oid, checkLength(publicKey, type.publicKeyLength, 'publicKey'));
}

/** A raw key pair in `format`: raw bytes, PEM text, or AKP JWKs. */
export function exportPostQuantumKeyPair(
  algorithm: string,
  pair: PostQuantumKeyPair,
  format: KeyFormat,
): { publicKey: EncodedKey; privateKey: EncodedKey } {
  const type = keyTypeOf(algorithm);
  checkPostQuantumKeyFormat(algorithm, format);
  if (format === 'raw') return { publicKey: pair.publicKey, privateKey: pair.privateKey };
  if (format === 'pem') {
    const der = postQuantumPrivateKeyDer(algorithm, pair.privateKey);
    try {
      return {
        publicKey: derToPem(postQuantumPublicKeyDer(algorithm, pair.publicKey), 'public'),
        privateKey: derToPem(der, 'private'),
      };
    } finally {
      wipe(der);
    }
  }
  const publicJwk: Jwk = { kty: 'AKP', alg: type.jwkAlg, pub: bytesToBase64Url(pair.publicKey) };
  return { publicKey: publicJwk, privateKey: { ...publicJwk, priv: bytesToBase64Url(pair.privateKey) } };
}

/** The functions as they are, on the calling thread. */
export const DIRECT_POST_QUANTUM_RUNNER: PostQuantumRunner = Object.freeze({
  mlKemKeygen,
  xwingKeygen,
  mlDsaKeygen,
  slhDsaKeygen,
  mlDsaSign,
  mlDsaVerify,
  slhDsaSign,
  slhDsaVerify,
  privateKeyFromPem: postQuantumPrivateKeyFromPem,
});
