/**
 * Signatures: the entry points of `/v2/sign` and `/v2/verify`, which dispatch each algorithm to
 * its scheme. The classical schemes are eddsa.ts's (Ed25519, the default, and Ed448 with an
 * optional context) and ecdsa.ts's (P-256 with SHA-256, P-384 with SHA-384); the post-quantum ones
 * are ML-DSA-44/65/87 (ml-dsa.ts, FIPS 204) and the twelve SLH-DSA sets (slh-dsa.ts, FIPS 205), in
 * the encodings of `/v2/pq/*` (private key: ML-DSA's 32-byte seed or expanded key, SLH-DSA's
 * 4n-byte secret key; PEM as pq-keys.ts reads it). Post-quantum work goes through a
 * PostQuantumRunner, which the server points at its offload.
 *
 * A key field may also hold PEM text (PKCS#8 `PRIVATE KEY` / SPKI `PUBLIC KEY`), a convenience
 * for keys made by OpenSSL; it is read into the raw form and checked the same way.
 * SIGNATURE_ALGORITHM_IDS lists both kinds; the request schemas, `GET /v2/algorithms` and key
 * generation are built from it.
 */
import { checkLength } from './checks.ts';
import { wipe } from './ct.ts';
import type { PemKind } from './der.ts';
import { ECDSA_P256_SCHEME, ECDSA_P384_SCHEME } from './ecdsa.ts';
import { ED25519_SCHEME, ED448_SCHEME } from './eddsa.ts';
import { invalidInput, unsupportedAlgorithm } from './errors.ts';
import { keyField, type KeyInput } from './key-format.ts';
import {
  ML_DSA_ALGORITHM_IDS,
  ML_DSA_CONTEXT_MAX_BYTES,
  ML_DSA_PARAMETERS,
  ML_DSA_SEED_LENGTH,
  type MlDsaAlgorithm,
} from './ml-dsa.ts';
import { DIRECT_POST_QUANTUM_RUNNER, postQuantumPublicKeyFromPem, type PostQuantumRunner } from './pq-keys.ts';
import type { SignatureScheme } from './signature-scheme.ts';
import type { PrivateKeyScope } from './private-key-scope.ts';
import {
  SLH_DSA_ALGORITHM_IDS,
  SLH_DSA_CONTEXT_MAX_BYTES,
  SLH_DSA_PARAMETERS,
  type SlhDsaAlgorithm,
} from './slh-dsa.ts';

/** Every classical signature scheme, by its identifier. Ed25519 is the default. */
export const SIGNATURE_SCHEMES = {
  ed25519: ED25519_SCHEME,
  ed448: ED448_SCHEME,
  'ecdsa-p256': ECDSA_P256_SCHEME,
  'ecdsa-p384': ECDSA_P384_SCHEME,
} as const satisfies Record<string, SignatureScheme>;

export type ClassicalSignatureAlgorithm = keyof typeof SIGNATURE_SCHEMES;
export const CLASSICAL_SIGNATURE_ALGORITHM_IDS = Object.keys(SIGNATURE_SCHEMES) as ClassicalSignatureAlgorithm[];
export type PostQuantumSignatureAlgorithm = MlDsaAlgorithm | SlhDsaAlgorithm;
export const POST_QUANTUM_SIGNATURE_ALGORITHM_IDS: readonly PostQuantumSignatureAlgorithm[] = [
  ...ML_DSA_ALGORITHM_IDS,
  ...SLH_DSA_ALGORITHM_IDS,
];
export type SignatureAlgorithm = ClassicalSignatureAlgorithm | PostQuantumSignatureAlgorithm;
/** Every identifier `/v2/sign` and `/v2/verify` accept: the registry's `signature` family. */
export const SIGNATURE_ALGORITHM_IDS: readonly SignatureAlgorithm[] = [
  ...CLASSICAL_SIGNATURE_ALGORITHM_IDS,
  ...POST_QUANTUM_SIGNATURE_ALGORITHM_IDS,
];
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
  /** Imported private keys shared by the signatures of one batch (classical schemes); none by default. */
  keys?: PrivateKeyScope;
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
    throw invalidInput(
      `context must be at most ${maxContextLength} bytes of UTF-8 (got ${context.byteLength})`,
      '/context',
    );
  }
}

function rawKey(scheme: SignatureScheme, key: KeyInput, kind: PemKind): Uint8Array {
  const raw = typeof key === 'string' ? scheme.fromPem(key, kind) : key;
  const field = keyField(kind);
  return checkLength(raw, kind === 'private' ? scheme.privateKeyLengths : scheme.publicKeyLengths, field);
}

// ---------------------------------------------------------------------------------------------
// ML-DSA and SLH-DSA behind the same entry points

interface PostQuantumSignatureScheme {
  readonly privateKeyLengths: readonly number[];
  readonly publicKeyLength: number;
  readonly signatureLength: number;
  readonly maxContextLength: number;
  readonly sign: (
    runner: PostQuantumRunner,
    privateKey: Uint8Array,
    message: Uint8Array,
    context: Uint8Array | undefined,
  ) => Promise<Uint8Array>;
  readonly verify: (
    runner: PostQuantumRunner,
    publicKey: Uint8Array,
    message: Uint8Array,
    signature: Uint8Array,
    context: Uint8Array | undefined,
  ) => Promise<boolean>;
}

function postQuantumScheme(algorithm: PostQuantumSignatureAlgorithm): PostQuantumSignatureScheme {
  if (Object.hasOwn(ML_DSA_PARAMETERS, algorithm)) {
    const spec = ML_DSA_PARAMETERS[algorithm as MlDsaAlgorithm];
    return {
      privateKeyLengths: [ML_DSA_SEED_LENGTH, spec.expandedSecretKeyLength],
      publicKeyLength: spec.publicKeyLength,
      signatureLength: spec.signatureLength,
      maxContextLength: ML_DSA_CONTEXT_MAX_BYTES,
      sign: async (runner, privateKey, message, context) =>
        (await runner.mlDsaSign(privateKey, message, { algorithm, context })).signature,
      verify: async (runner, publicKey, message, signature, context) =>
        (await runner.mlDsaVerify(publicKey, message, signature, { algorithm, context })).valid,
    };
  }
  const spec = SLH_DSA_PARAMETERS[algorithm as SlhDsaAlgorithm];
  return {
    privateKeyLengths: [4 * spec.n],
    publicKeyLength: 2 * spec.n,
    signatureLength: spec.signatureLength,
    maxContextLength: SLH_DSA_CONTEXT_MAX_BYTES,
    sign: async (runner, privateKey, message, context) =>
      (await runner.slhDsaSign(privateKey, message, { algorithm, context })).signature,
    verify: async (runner, publicKey, message, signature, context) =>
      (await runner.slhDsaVerify(publicKey, message, signature, { algorithm, context })).valid,
  };
}

async function postQuantumSign(
  algorithm: PostQuantumSignatureAlgorithm,
  privateKey: KeyInput,
  message: Uint8Array,
  options: SignatureOptions,
): Promise<Uint8Array> {
  const scheme = postQuantumScheme(algorithm);
  const runner = options.runner ?? DIRECT_POST_QUANTUM_RUNNER;
  checkContext(algorithm, scheme.maxContextLength, options.context);
  const raw =
    typeof privateKey === 'string'
      ? await runner.privateKeyFromPem(algorithm, privateKey, { field: 'privateKey' })
      : privateKey;
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
    return await scheme.sign(raw, message, options.context, options.keys);
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
  if (isPostQuantumSignatureAlgorithm(algorithm))
    return postQuantumVerify(algorithm, publicKey, message, signature, options);
  const scheme = schemeOf(algorithm);
  checkContext(algorithm, scheme.maxContextLength, options.context);
  const raw = rawKey(scheme, publicKey, 'public');
  checkLength(signature, scheme.signatureLength, 'signature');
  return scheme.verify(raw, message, signature, options.context);
}
