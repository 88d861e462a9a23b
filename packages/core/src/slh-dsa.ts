/**
 * SLH-DSA (FIPS 205): the twelve parameter sets SLH-DSA-{SHA2,SHAKE}-{128,192,256}{s,f}, pure
 * signatures with an optional context string, for `/v2/pq/slh-dsa/*` (and `/v2/pq/hash-sign/*`).
 *
 * Encodings: the public key is PK.seed ‖ PK.root (2n bytes) and the secret key
 * SK.seed ‖ SK.prf ‖ PK.seed ‖ PK.root (4n bytes), FIPS 205 §9.1, the same on both backends.
 * SLH-DSA has no seed form. Lengths are shared between parameter sets (the SHA2 and SHAKE sets of
 * one security level, and their s and f variants), so `algorithm` names the set:
 * `slh-dsa-sha2-128f` by default (the fastest to sign). Signatures of any other length than the set's are INVALID_INPUT.
 *
 * Signing is hedged (FIPS 205 §9.2: opt_rand is fresh randomness), the default of both backends;
 * the deterministic variant (opt_rand = PK.seed) exists for tests only, on the noble backend
 * (node:crypto has no input for it). A context is at most 255 bytes.
 *
 * Cost: signing takes from milliseconds (the `f` sets) to seconds (the `s` sets), and pure
 * JavaScript is several times slower still. Everything here is asynchronous: node:crypto's
 * thread-pool forms on Node 24; on Node 22 the server runs these calls in worker threads (its
 * post-quantum offload), since noble's work is synchronous. The secret key's PK.root
 * is not recomputed on input (that is a key generation's work); neither backend does, and a wrong
 * one yields signatures that do not verify.
 */
import { randomFillSync } from 'node:crypto';
import {
  slh_dsa_sha2_128f,
  slh_dsa_sha2_128s,
  slh_dsa_sha2_192f,
  slh_dsa_sha2_192s,
  slh_dsa_sha2_256f,
  slh_dsa_sha2_256s,
  slh_dsa_shake_128f,
  slh_dsa_shake_128s,
  slh_dsa_shake_192f,
  slh_dsa_shake_192s,
  slh_dsa_shake_256f,
  slh_dsa_shake_256s,
} from '@noble/post-quantum/slh-dsa.js';
import { checkLength } from './checks.ts';
import { wipe } from './ct.ts';
import { invalidInput, unsupportedAlgorithm } from './errors.ts';
import {
  PQ_NATIVE_SUPPORT,
  exportRaw,
  importNativePublicKey,
  importRawPrivateKey,
  nativeGenerateKeyPair,
  nativeSign,
  nativeVerify,
  selectBackend,
  type PqBackend,
} from './pq-common.ts';
import { oidContent } from './der.ts';

interface SlhDsaSpec {
  /** The security parameter n in bytes (FIPS 205 Table 2). */
  readonly n: 16 | 24 | 32;
  readonly signatureLength: number;
  /** DER content of the NIST OID (2.16.840.1.101.3.4.3.20 … 31, RFC 9909), for PKCS#8 / SPKI. */
  readonly oid: Uint8Array;
  readonly noble: typeof slh_dsa_sha2_128f;
}

/** FIPS 205 Table 2. The algorithm registry and the request schemas are built from its keys. */
export const SLH_DSA_PARAMETERS = {
  'slh-dsa-sha2-128s': {
    n: 16,
    signatureLength: 7856,
    oid: oidContent('2.16.840.1.101.3.4.3.20'),
    noble: slh_dsa_sha2_128s,
  },
  'slh-dsa-sha2-128f': {
    n: 16,
    signatureLength: 17088,
    oid: oidContent('2.16.840.1.101.3.4.3.21'),
    noble: slh_dsa_sha2_128f,
  },
  'slh-dsa-sha2-192s': {
    n: 24,
    signatureLength: 16224,
    oid: oidContent('2.16.840.1.101.3.4.3.22'),
    noble: slh_dsa_sha2_192s,
  },
  'slh-dsa-sha2-192f': {
    n: 24,
    signatureLength: 35664,
    oid: oidContent('2.16.840.1.101.3.4.3.23'),
    noble: slh_dsa_sha2_192f,
  },
  'slh-dsa-sha2-256s': {
    n: 32,
    signatureLength: 29792,
    oid: oidContent('2.16.840.1.101.3.4.3.24'),
    noble: slh_dsa_sha2_256s,
  },
  'slh-dsa-sha2-256f': {
    n: 32,
    signatureLength: 49856,
    oid: oidContent('2.16.840.1.101.3.4.3.25'),
    noble: slh_dsa_sha2_256f,
  },
  'slh-dsa-shake-128s': {
    n: 16,
    signatureLength: 7856,
    oid: oidContent('2.16.840.1.101.3.4.3.26'),
    noble: slh_dsa_shake_128s,
  },
  'slh-dsa-shake-128f': {
    n: 16,
    signatureLength: 17088,
    oid: oidContent('2.16.840.1.101.3.4.3.27'),
    noble: slh_dsa_shake_128f,
  },
  'slh-dsa-shake-192s': {
    n: 24,
    signatureLength: 16224,
    oid: oidContent('2.16.840.1.101.3.4.3.28'),
    noble: slh_dsa_shake_192s,
  },
  'slh-dsa-shake-192f': {
    n: 24,
    signatureLength: 35664,
    oid: oidContent('2.16.840.1.101.3.4.3.29'),
    noble: slh_dsa_shake_192f,
  },
  'slh-dsa-shake-256s': {
    n: 32,
    signatureLength: 29792,
    oid: oidContent('2.16.840.1.101.3.4.3.30'),
    noble: slh_dsa_shake_256s,
  },
  'slh-dsa-shake-256f': {
    n: 32,
    signatureLength: 49856,
    oid: oidContent('2.16.840.1.101.3.4.3.31'),
    noble: slh_dsa_shake_256f,
  },
} as const satisfies Record<string, SlhDsaSpec>;

export type SlhDsaAlgorithm = keyof typeof SLH_DSA_PARAMETERS;
export const SLH_DSA_ALGORITHM_IDS = Object.keys(SLH_DSA_PARAMETERS) as SlhDsaAlgorithm[];
export const SLH_DSA_DEFAULT_ALGORITHM: SlhDsaAlgorithm = 'slh-dsa-sha2-128f';
export const SLH_DSA_CONTEXT_MAX_BYTES = 255;

export interface SlhDsaKeyPair {
  algorithm: SlhDsaAlgorithm;
  /** PK.seed ‖ PK.root, 2n bytes. */
  publicKey: Uint8Array;
  /** SK.seed ‖ SK.prf ‖ PK.seed ‖ PK.root, 4n bytes. */
  secretKey: Uint8Array;
}

export interface SlhDsaOptions {
  /** The parameter set; `slh-dsa-sha2-128f` by default. */
  algorithm?: string;
  /** Tests choose; otherwise node:crypto where the runtime has it. */
  backend?: PqBackend;
  /**
   * The request fields that errors name, where a caller calls them otherwise. Defaults: the names
   * of `/v2/pq/slh-dsa/*` and `/v2/sign`.
   */
  fields?: Partial<SlhDsaFields>;
}

export interface SlhDsaFields {
  secretKey: string;
  publicKey: string;
  signature: string;
  context: string;
  algorithm: string;
}

const DEFAULT_FIELDS: SlhDsaFields = {
  secretKey: 'privateKey',
  publicKey: 'publicKey',
  signature: 'signature',
  context: 'context',
  algorithm: 'algorithm',
};

function fieldsOf(options: SlhDsaOptions | undefined): SlhDsaFields {
  return { ...DEFAULT_FIELDS, ...options?.fields };
}

export interface SlhDsaSignOptions extends SlhDsaOptions {
  context?: Uint8Array;
  /** Tests only: the deterministic variant (opt_rand = PK.seed); selects the noble backend. */
  deterministic?: boolean;
}

export interface SlhDsaVerifyOptions extends SlhDsaOptions {
  context?: Uint8Array;
}

function backendFor(options: SlhDsaOptions | undefined): PqBackend {
  return selectBackend(options?.backend, PQ_NATIVE_SUPPORT.slhDsa, 'SLH-DSA');
}

/**
 * The parameter set named by `algorithm` (an identifier of GET /v2/algorithms, slhDsa), or the
 * default one when none is given; any other name is refused with the list of valid ones.
 */
export function slhDsaAlgorithm(algorithm: string | undefined, field = 'algorithm'): SlhDsaAlgorithm {
  const id = algorithm ?? SLH_DSA_DEFAULT_ALGORITHM;
  if (!Object.hasOwn(SLH_DSA_PARAMETERS, id)) {
    throw unsupportedAlgorithm(`${field} must be one of: ${SLH_DSA_ALGORITHM_IDS.join(', ')}`, `/${field}`);
  }
  return id as SlhDsaAlgorithm;
}

function checkContext(context: Uint8Array | undefined, field: string): void {
  if (context !== undefined && context.byteLength > SLH_DSA_CONTEXT_MAX_BYTES) {
    throw invalidInput(
      `${field} must be at most ${SLH_DSA_CONTEXT_MAX_BYTES} bytes of UTF-8 (got ${context.byteLength})`,
      `/${field}`,
    );
  }
}

/**
 * A key pair of `algorithm`. With `options.seed` (SK.seed ‖ SK.prf ‖ PK.seed, 3n bytes) the key pair
 * is the deterministic one of slh_keygen_internal; node:crypto takes no seed, so a seed selects
 * the noble backend.
 */
export async function slhDsaKeygen(
  algorithmName?: string,
  options?: SlhDsaOptions & { seed?: Uint8Array },
): Promise<SlhDsaKeyPair> {
  const algorithm = slhDsaAlgorithm(algorithmName ?? options?.algorithm, fieldsOf(options).algorithm);
  const spec: SlhDsaSpec = SLH_DSA_PARAMETERS[algorithm];
  const seed = options?.seed;
  if (seed !== undefined) {
    if (options?.backend === 'native')
      throw new Error('node:crypto cannot generate SLH-DSA keys from a seed; use the noble backend');
    checkLength(seed, 3 * spec.n, 'seed');
    return { algorithm, ...spec.noble.keygen(seed) };
  }
  if (backendFor(options) === 'native') {
    const { publicKey, privateKey } = await nativeGenerateKeyPair(algorithm);
    return {
      algorithm,
      publicKey: exportRaw(publicKey, 'raw-public'),
      secretKey: exportRaw(privateKey, 'raw-private'),
    };
  }
  const fresh = randomFillSync(new Uint8Array(3 * spec.n));
  try {
    return { algorithm, ...spec.noble.keygen(fresh) };
  } finally {
    wipe(fresh);
  }
}

/** Signs `message` with a secret key of `options.algorithm` (hedged). */
export async function slhDsaSign(
  secretKey: Uint8Array,
  message: Uint8Array,
  options?: SlhDsaSignOptions,
): Promise<{ algorithm: SlhDsaAlgorithm; signature: Uint8Array }> {
  const fields = fieldsOf(options);
  const algorithm = slhDsaAlgorithm(options?.algorithm, fields.algorithm);
  const spec: SlhDsaSpec = SLH_DSA_PARAMETERS[algorithm];
  if (secretKey.byteLength !== 4 * spec.n) {
    throw invalidInput(
      `${fields.secretKey} must be ${4 * spec.n} bytes for ${algorithm} (got ${secretKey.byteLength})`,
      `/${fields.secretKey}`,
    );
  }
  const context = options?.context;
  checkContext(context, fields.context);
  let backend: PqBackend;
  if (options?.deterministic === true) {
    if (options.backend === 'native')
      throw new Error('node:crypto cannot sign deterministically; use the noble backend');
    backend = 'noble';
  } else {
    backend = backendFor(options);
  }
  if (backend === 'native') {
    // Every 4n-byte string imports (OpenSSL does not recompute PK.root), so this cannot fail.
    const key = importRawPrivateKey(algorithm, 'raw-private', secretKey);
    return { algorithm, signature: await nativeSign(key, message, context) };
  }
  // extraEntropy: false is FIPS 205's deterministic variant; undefined draws a fresh opt_rand.
  const extraEntropy = options?.deterministic === true ? false : undefined;
  return { algorithm, signature: spec.noble.sign(message, secretKey, { context, extraEntropy }) };
}

/**
 * Verifies a signature. A public key or signature of the wrong length for `algorithm` is an
 * INVALID_INPUT; a well-formed signature that does not verify is `valid: false`.
 */
export async function slhDsaVerify(
  publicKey: Uint8Array,
  message: Uint8Array,
  signature: Uint8Array,
  options?: SlhDsaVerifyOptions,
): Promise<{ algorithm: SlhDsaAlgorithm; valid: boolean }> {
  const fields = fieldsOf(options);
  const algorithm = slhDsaAlgorithm(options?.algorithm, fields.algorithm);
  const spec: SlhDsaSpec = SLH_DSA_PARAMETERS[algorithm];
  if (publicKey.byteLength !== 2 * spec.n) {
    throw invalidInput(
      `${fields.publicKey} must be ${2 * spec.n} bytes for ${algorithm} (got ${publicKey.byteLength})`,
      `/${fields.publicKey}`,
    );
  }
  if (signature.byteLength !== spec.signatureLength) {
    throw invalidInput(
      `${fields.signature} must be ${spec.signatureLength} bytes for ${algorithm} (got ${signature.byteLength})`,
      `/${fields.signature}`,
    );
  }
  const context = options?.context;
  checkContext(context, fields.context);
  if (backendFor(options) === 'native') {
    const key = importNativePublicKey(algorithm, publicKey);
    return { algorithm, valid: await nativeVerify(key, message, signature, context) };
  }
  return { algorithm, valid: spec.noble.verify(signature, message, publicKey, { context }) };
}
