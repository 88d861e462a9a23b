/**
 * ML-DSA (FIPS 204): ML-DSA-44, ML-DSA-65 and ML-DSA-87, pure (not pre-hash) signatures with an
 * optional context string, for `/v2/pq/dsa/*`, `/v2/sign` and `/v2/verify`.
 *
 * Encodings: the public key is raw (1312 / 1952 / 2592 B: its length gives the parameter set);
 * the secret key that keygen returns is the 32-byte seed ξ of FIPS 204 ML-DSA.KeyGen_internal;
 * signing also accepts the expanded secret key (2560 / 4032 / 4896 B: its length gives the set).
 * A 32-byte seed does not reveal its set: `algorithm` says it, ml-dsa-65 by default. Signatures are
 * 2420 / 3309 / 4627 B; any other length is an INVALID_INPUT (a 400), not a `false`.
 *
 * Signing is hedged (FIPS 204 §3.4: fresh 32-byte rnd per signature), the default of both
 * backends. The deterministic variant (rnd = 0^32) and a caller-chosen rnd exist only for
 * known-answer tests (`randomness`), and only on the noble backend: node:crypto has no input for
 * rnd. A context is at most 255 bytes (FIPS 204 Algorithms 2 and 3).
 *
 * Backends (pq-common.ts): node:crypto on Node 24 through its thread-pool forms, else
 * @noble/post-quantum; byte-identical encodings. An expanded key is checked for consistency on both:
 * OpenSSL does it on import (tr and t0 must follow from ρ, s1, s2); on the noble backend
 * `expandedKeyIsConsistent` below runs the same check, so both refuse the same keys.
 */
import { createHash, randomFillSync } from 'node:crypto';
import { createPublicKey } from './node-crypto.ts';
import { genCrystals, XOF128 } from '@noble/post-quantum/_crystals.js';
import { ml_dsa44, ml_dsa65, ml_dsa87 } from '@noble/post-quantum/ml-dsa.js';
import { checkLength } from './checks.ts';
import { constantTimeEqual, wipe } from './ct.ts';
import { invalidInput, tryOrThrow, unsupportedAlgorithm } from './errors.ts';
import {
  PQ_NATIVE_SUPPORT,
  exportRaw,
  importExpandedPrivateKey,
  importNativePublicKey,
  importRawPrivateKey,
  nativeGenerateKeyPair,
  nativeSign,
  nativeVerify,
  selectBackend,
  type PqBackend,
} from './pq-common.ts';
import { oidContent } from './der.ts';

interface MlDsaSpec {
  readonly level: 44 | 65 | 87;
  readonly publicKeyLength: number;
  readonly expandedSecretKeyLength: number;
  readonly signatureLength: number;
  /** Rows and columns of A, and η (FIPS 204 Table 1): what the expanded-key check needs. */
  readonly k: number;
  readonly l: number;
  readonly eta: 2 | 4;
  /** DER content of the NIST OID (2.16.840.1.101.3.4.3.x), for the PKCS#8 form of expanded keys. */
  readonly oid: Uint8Array;
  readonly noble: typeof ml_dsa65;
}

/** FIPS 204 Tables 1 and 2. The algorithm registry and the request schemas are built from its keys. */
export const ML_DSA_PARAMETERS = {
  'ml-dsa-44': {
    level: 44,
    publicKeyLength: 1312,
    expandedSecretKeyLength: 2560,
    signatureLength: 2420,
    k: 4,
    l: 4,
    eta: 2,
    oid: oidContent('2.16.840.1.101.3.4.3.17'),
    noble: ml_dsa44,
  },
  'ml-dsa-65': {
    level: 65,
    publicKeyLength: 1952,
    expandedSecretKeyLength: 4032,
    signatureLength: 3309,
    k: 6,
    l: 5,
    eta: 4,
    oid: oidContent('2.16.840.1.101.3.4.3.18'),
    noble: ml_dsa65,
  },
  'ml-dsa-87': {
    level: 87,
    publicKeyLength: 2592,
    expandedSecretKeyLength: 4896,
    signatureLength: 4627,
    k: 8,
    l: 7,
    eta: 2,
    oid: oidContent('2.16.840.1.101.3.4.3.19'),
    noble: ml_dsa87,
  },
} as const satisfies Record<string, MlDsaSpec>;

export type MlDsaAlgorithm = keyof typeof ML_DSA_PARAMETERS;
export const ML_DSA_ALGORITHM_IDS = Object.keys(ML_DSA_PARAMETERS) as MlDsaAlgorithm[];
export const ML_DSA_DEFAULT_ALGORITHM: MlDsaAlgorithm = 'ml-dsa-65';
/** ξ of FIPS 204 Algorithm 6. */
export const ML_DSA_SEED_LENGTH = 32;
/** rnd of FIPS 204 Algorithm 7. */
export const ML_DSA_SIGNING_RANDOMNESS_LENGTH = 32;
export const ML_DSA_CONTEXT_MAX_BYTES = 255;

export interface MlDsaKeyPair {
  algorithm: MlDsaAlgorithm;
  publicKey: Uint8Array;
  /** The 32-byte seed ξ. */
  secretKey: Uint8Array;
}

export interface MlDsaOptions {
  /** Tests choose; otherwise node:crypto where the runtime has it. */
  backend?: PqBackend;
  /**
   * The request fields that errors name, where a caller calls them otherwise. Defaults: the names
   * of `/v2/pq/dsa/*` and `/v2/sign`.
   */
  fields?: Partial<MlDsaFields>;
}

export interface MlDsaFields {
  secretKey: string;
  publicKey: string;
  signature: string;
  context: string;
  algorithm: string;
}

const DEFAULT_FIELDS: MlDsaFields = {
  secretKey: 'privateKey',
  publicKey: 'publicKey',
  signature: 'signature',
  context: 'context',
  algorithm: 'algorithm',
};

function fieldsOf(options: MlDsaOptions | undefined): MlDsaFields {
  return { ...DEFAULT_FIELDS, ...options?.fields };
}

export interface MlDsaSignOptions extends MlDsaOptions {
  /** The parameter set of a 32-byte seed (ml-dsa-65 by default); for an expanded key it must match, if given. */
  algorithm?: string;
  /** FIPS 204 context string, at most 255 bytes. */
  context?: Uint8Array;
  /**
   * Known-answer tests only: the 32-byte rnd of ML-DSA.Sign_internal (all zero = the deterministic
   * variant of FIPS 204 §3.4). node:crypto has no such input, so it selects the noble backend.
   */
  randomness?: Uint8Array;
}

export interface MlDsaVerifyOptions extends MlDsaOptions {
  /** If given, the public key must be of this parameter set. */
  algorithm?: string;
  context?: Uint8Array;
}

const PUBLIC_KEY_LENGTHS = ML_DSA_ALGORITHM_IDS.map((id) => ML_DSA_PARAMETERS[id].publicKeyLength);
const SECRET_KEY_LENGTHS = ML_DSA_ALGORITHM_IDS.map((id) => ML_DSA_PARAMETERS[id].expandedSecretKeyLength);
const ALGORITHM_BY_EXPANDED_LENGTH = new Map<number, MlDsaAlgorithm>(
  ML_DSA_ALGORITHM_IDS.map((id) => [ML_DSA_PARAMETERS[id].expandedSecretKeyLength, id]),
);
const ALGORITHM_BY_PUBLIC_KEY_LENGTH = new Map<number, MlDsaAlgorithm>(
  ML_DSA_ALGORITHM_IDS.map((id) => [ML_DSA_PARAMETERS[id].publicKeyLength, id]),
);

function backendFor(options: MlDsaOptions | undefined): PqBackend {
  return selectBackend(options?.backend, PQ_NATIVE_SUPPORT.mlDsa, 'ML-DSA');
}

/**
 * The parameter set named by `algorithm` (an identifier of GET /v2/algorithms, mlDsa), or the
 * default one when none is given; any other name is refused with the list of valid ones.
 */
export function mlDsaAlgorithm(algorithm: string | undefined, field = 'algorithm'): MlDsaAlgorithm {
  const id = algorithm ?? ML_DSA_DEFAULT_ALGORITHM;
  if (!Object.hasOwn(ML_DSA_PARAMETERS, id)) {
    throw unsupportedAlgorithm(`${field} must be one of: ${ML_DSA_ALGORITHM_IDS.join(', ')}`, `/${field}`);
  }
  return id as MlDsaAlgorithm;
}

/**
 * The identifier that a secret key (seed or expanded) and an optional `algorithm` imply; undefined
 * when they imply none or disagree (mlDsaSign then says why). Routes use it to label metrics.
 */
export function mlDsaAlgorithmForSecretKey(secretKeyLength: number, algorithm?: string): MlDsaAlgorithm | undefined {
  const byLength = ALGORITHM_BY_EXPANDED_LENGTH.get(secretKeyLength);
  if (byLength !== undefined) return algorithm === undefined || algorithm === byLength ? byLength : undefined;
  if (secretKeyLength !== ML_DSA_SEED_LENGTH) return undefined;
  const id = algorithm ?? ML_DSA_DEFAULT_ALGORITHM;
  return Object.hasOwn(ML_DSA_PARAMETERS, id) ? (id as MlDsaAlgorithm) : undefined;
}

/** The identifier that a public key's length (and an optional `algorithm`) imply; undefined if none. */
export function mlDsaAlgorithmForPublicKey(publicKeyLength: number, algorithm?: string): MlDsaAlgorithm | undefined {
  const byLength = ALGORITHM_BY_PUBLIC_KEY_LENGTH.get(publicKeyLength);
  return byLength !== undefined && (algorithm === undefined || algorithm === byLength) ? byLength : undefined;
}

/** A key that reveals its parameter set, given with an `algorithm` that names another one. */
function algorithmMismatch(field: string, given: string, keyField: string, keyAlgorithm: MlDsaAlgorithm) {
  return invalidInput(`${field} ${given} does not match ${keyField}, a key of ${keyAlgorithm}`, `/${field}`);
}

function checkContext(context: Uint8Array | undefined, field: string): void {
  if (context !== undefined && context.byteLength > ML_DSA_CONTEXT_MAX_BYTES) {
    throw invalidInput(
      `${field} must be at most ${ML_DSA_CONTEXT_MAX_BYTES} bytes of UTF-8 (got ${context.byteLength})`,
      `/${field}`,
    );
  }
}

function invalidExpandedKey(algorithm: MlDsaAlgorithm, field: string) {
  return invalidInput(
    `${field} is not a valid ${algorithm} expanded secret key: tr and t0 do not follow from ρ, s1 and s2`,
    `/${field}`,
  );
}

// ---------------------------------------------------------------------------------------------
// The expanded-key check of the noble backend. FIPS 204 skEncode (Algorithm 24) lays the key out as
// ρ (32) ‖ K (32) ‖ tr (64) ‖ s1 (ℓ polynomials, η-packed) ‖ s2 (k, η-packed) ‖ t0 (k, 13-bit).
// As in ML-DSA.KeyGen_internal (Algorithm 6): t = NTT⁻¹(Â ∘ NTT(s1)) + s2, (t1, t0) = Power2Round(t),
// pk = ρ ‖ t1 and tr = H(pk, 64). A key is consistent when the stored tr and t0 are those values
// (what OpenSSL checks when it imports an expanded key). K, the signing seed, cannot be checked.
// The NTT is noble's own (exported by @noble/post-quantum/_crystals.js); the valid keys of every
// level pass this check and altered ones fail it (test/ml-dsa.test.ts), which pins its arithmetic.

const Q = 8380417;
const N = 256;
const D = 13;

let crystals: ReturnType<typeof genCrystals<Int32Array>> | undefined;
function mlDsaCrystals() {
  // FIPS 204: ζ = 1753 is the 512th root of unity; 8347681 = 256⁻¹ mod q scales the inverse NTT.
  crystals ??= genCrystals({
    N,
    Q,
    F: 8347681,
    ROOT_OF_UNITY: 1753,
    newPoly: (n) => new Int32Array(n),
    isKyber: false,
    brvBits: 8,
  });
  return crystals;
}

function mod(value: number): number {
  const r = value % Q;
  return r < 0 ? r + Q : r;
}

/** SimpleBitUnpack: 256 little-endian `bits`-bit values (FIPS 204 Algorithm 18). */
function unpackBits(bytes: Uint8Array, bits: number): Int32Array {
  const out = new Int32Array(N);
  const mask = (1 << bits) - 1;
  for (let i = 0, buffer = 0, filled = 0, position = 0; i < N; i++) {
    while (filled < bits) {
      buffer |= (bytes[position++] ?? 0) << filled;
      filled += 8;
    }
    out[i] = buffer & mask;
    buffer >>>= bits;
    filled -= bits;
  }
  return out;
}

/** SimpleBitPack: 256 values of `bits` bits, little-endian (FIPS 204 Algorithm 16). */
function packBits(values: Int32Array, bits: number): Uint8Array {
  const out = new Uint8Array((N * bits) / 8);
  for (let i = 0, buffer = 0, filled = 0, position = 0; i < N; i++) {
    buffer |= (values[i] ?? 0) << filled;
    filled += bits;
    while (filled >= 8) {
      out[position++] = buffer & 0xff;
      buffer >>>= 8;
      filled -= 8;
    }
  }
  return out;
}

/** RejNTTPoly (FIPS 204 Algorithm 30): a polynomial of T_q sampled from SHAKE128 blocks. */
function rejectionSampleNtt(nextBlock: () => Uint8Array): Int32Array {
  const out = new Int32Array(N);
  for (let j = 0; j < N;) {
    const block = nextBlock();
    for (let i = 0; j < N && i + 3 <= block.length; i += 3) {
      const candidate = ((block[i] ?? 0) | ((block[i + 1] ?? 0) << 8) | ((block[i + 2] ?? 0) << 16)) & 0x7fffff;
      if (candidate < Q) out[j++] = candidate;
    }
  }
  return out;
}

/** Whether an expanded secret key's tr and t0 follow from its ρ, s1 and s2 (see above). */
export function mlDsaExpandedKeyIsConsistent(algorithm: MlDsaAlgorithm, secretKey: Uint8Array): boolean {
  const spec: MlDsaSpec = ML_DSA_PARAMETERS[algorithm];
  checkLength(secretKey, spec.expandedSecretKeyLength, 'secretKey');
  const { k, l, eta } = spec;
  const etaBits = eta === 2 ? 3 : 4;
  const etaPolyBytes = (N * etaBits) / 8;
  const rho = secretKey.subarray(0, 32);
  const tr = secretKey.subarray(64, 128);
  const polys: Int32Array[] = [];
  let offset = 128;
  for (let i = 0; i < l + k; i++, offset += etaPolyBytes) {
    const poly = unpackBits(secretKey.subarray(offset, offset + etaPolyBytes), etaBits);
    for (let c = 0; c < N; c++) {
      const packed = poly[c] ?? 0;
      // BitPack(s, η, η) stores η − s: a stored value above 2η is out of range.
      if (packed > 2 * eta) return false;
      poly[c] = eta - packed;
    }
    polys.push(poly);
  }
  const s1 = polys.slice(0, l);
  const s2 = polys.slice(l);
  const storedT0 = secretKey.subarray(offset);
  const { NTT, smod } = mlDsaCrystals();
  const s1Hat = s1.map((poly) => NTT.encode(poly.slice()));
  const xof = XOF128(rho);
  const publicKey = new Uint8Array(spec.publicKeyLength);
  publicKey.set(rho, 0);
  const t0 = new Uint8Array(k * 416);
  try {
    for (let i = 0; i < k; i++) {
      const t = new Int32Array(N);
      for (let j = 0; j < l; j++) {
        // Â[i][j] = RejNTTPoly(ρ ‖ j ‖ i) (ExpandA, Algorithm 32).
        const a = rejectionSampleNtt(xof.get(j, i));
        const sHat = s1Hat[j] ?? new Int32Array(N);
        for (let c = 0; c < N; c++) t[c] = mod((t[c] ?? 0) + mod((a[c] ?? 0) * (sHat[c] ?? 0)));
      }
      NTT.decode(t);
      const high = new Int32Array(N);
      const low = new Int32Array(N);
      const s2i = s2[i] ?? new Int32Array(N);
      for (let c = 0; c < N; c++) {
        // Power2Round (Algorithm 35): r0 = r mod± 2^d, r1 = (r − r0) / 2^d; t0 is stored as 2^(d−1) − r0.
        const r = mod((t[c] ?? 0) + (s2i[c] ?? 0));
        const r0 = smod(r, 1 << D);
        high[c] = (r - r0) >> D;
        low[c] = (1 << (D - 1)) - r0;
      }
      publicKey.set(packBits(high, 10), 32 + i * 320);
      t0.set(packBits(low, D), i * 416);
      low.fill(0);
    }
    const expectedTr = createHash('shake256', { outputLength: 64 }).update(publicKey).digest();
    // Both comparisons always run, so the time does not say which part differed.
    const trMatches = constantTimeEqual(expectedTr, tr);
    const t0Matches = constantTimeEqual(t0, storedT0);
    return trMatches && t0Matches;
  } finally {
    xof.clean();
    t0.fill(0);
    for (const poly of [...polys, ...s1Hat]) poly.fill(0);
  }
}

// ---------------------------------------------------------------------------------------------

/**
 * A key pair of `algorithm` (ml-dsa-65 by default); the secret key is the 32-byte seed. With
 * `options.seed` the key pair is the deterministic one of that seed (ML-DSA.KeyGen_internal).
 */
export async function mlDsaKeygen(
  algorithmName?: string,
  options?: MlDsaOptions & { seed?: Uint8Array },
): Promise<MlDsaKeyPair> {
  const algorithm = mlDsaAlgorithm(algorithmName, fieldsOf(options).algorithm);
  const backend = backendFor(options);
  if (options?.seed !== undefined) checkLength(options.seed, ML_DSA_SEED_LENGTH, 'seed');
  if (backend === 'native') {
    if (options?.seed !== undefined) {
      const privateKey = importRawPrivateKey(algorithm, 'raw-seed', options.seed);
      return {
        algorithm,
        publicKey: exportRaw(createPublicKey(privateKey), 'raw-public'),
        secretKey: options.seed.slice(),
      };
    }
    const { publicKey, privateKey } = await nativeGenerateKeyPair(algorithm);
    return { algorithm, publicKey: exportRaw(publicKey, 'raw-public'), secretKey: exportRaw(privateKey, 'raw-seed') };
  }
  const seed = options?.seed?.slice() ?? randomFillSync(new Uint8Array(ML_DSA_SEED_LENGTH));
  const { publicKey, secretKey } = ML_DSA_PARAMETERS[algorithm].noble.keygen(seed);
  wipe(secretKey);
  return { algorithm, publicKey, secretKey: seed };
}

/** Resolves the algorithm of a secret key, or throws the INVALID_INPUT that names the fault. */
function algorithmOfSecretKey(
  secretKey: Uint8Array,
  algorithmName: string | undefined,
  fields: MlDsaFields,
): { algorithm: MlDsaAlgorithm; expanded: boolean } {
  const named = algorithmName === undefined ? undefined : mlDsaAlgorithm(algorithmName, fields.algorithm);
  const byLength = ALGORITHM_BY_EXPANDED_LENGTH.get(secretKey.byteLength);
  if (byLength !== undefined) {
    if (named !== undefined && named !== byLength) {
      throw algorithmMismatch(fields.algorithm, named, fields.secretKey, byLength);
    }
    return { algorithm: byLength, expanded: true };
  }
  if (secretKey.byteLength !== ML_DSA_SEED_LENGTH) {
    throw invalidInput(
      `${fields.secretKey} must be the 32-byte seed or an expanded secret key of ${SECRET_KEY_LENGTHS.join(', ')} bytes (got ${secretKey.byteLength})`,
      `/${fields.secretKey}`,
    );
  }
  return { algorithm: named ?? ML_DSA_DEFAULT_ALGORITHM, expanded: false };
}

/** Signs `message` (ML-DSA.Sign, hedged). */
export async function mlDsaSign(
  secretKey: Uint8Array,
  message: Uint8Array,
  options?: MlDsaSignOptions,
): Promise<{ algorithm: MlDsaAlgorithm; signature: Uint8Array }> {
  const fields = fieldsOf(options);
  const { algorithm, expanded } = algorithmOfSecretKey(secretKey, options?.algorithm, fields);
  const spec: MlDsaSpec = ML_DSA_PARAMETERS[algorithm];
  const context = options?.context;
  checkContext(context, fields.context);
  const randomness = options?.randomness;
  let backend: PqBackend;
  if (randomness === undefined) {
    backend = backendFor(options);
  } else {
    if (options?.backend === 'native')
      throw new Error('node:crypto cannot sign with given randomness; use the noble backend');
    checkLength(randomness, ML_DSA_SIGNING_RANDOMNESS_LENGTH, 'randomness');
    backend = 'noble';
  }
  if (backend === 'native') {
    // A seed always imports; an expanded key fails OpenSSL's consistency check.
    const key = tryOrThrow(
      () =>
        expanded
          ? importExpandedPrivateKey(spec.oid, secretKey)
          : importRawPrivateKey(algorithm, 'raw-seed', secretKey),
      () => invalidExpandedKey(algorithm, fields.secretKey),
    );
    return { algorithm, signature: await nativeSign(key, message, context) };
  }
  if (expanded && !mlDsaExpandedKeyIsConsistent(algorithm, secretKey))
    throw invalidExpandedKey(algorithm, fields.secretKey);
  const signingKey = expanded ? secretKey : spec.noble.keygen(secretKey).secretKey;
  try {
    // extraEntropy: undefined draws a fresh rnd (hedged); a Uint8Array is the given rnd.
    const signature = spec.noble.sign(message, signingKey, { context, extraEntropy: randomness });
    return { algorithm, signature };
  } finally {
    if (signingKey !== secretKey) wipe(signingKey);
  }
}

/**
 * Verifies a signature. A public key or signature of the wrong length is an INVALID_INPUT; a
 * well-formed signature that does not verify is `valid: false`.
 */
export async function mlDsaVerify(
  publicKey: Uint8Array,
  message: Uint8Array,
  signature: Uint8Array,
  options?: MlDsaVerifyOptions,
): Promise<{ algorithm: MlDsaAlgorithm; valid: boolean }> {
  const fields = fieldsOf(options);
  const named = options?.algorithm === undefined ? undefined : mlDsaAlgorithm(options.algorithm, fields.algorithm);
  const algorithm = mlDsaAlgorithmForPublicKey(publicKey.byteLength);
  if (algorithm === undefined) {
    const expected =
      named === undefined
        ? `${PUBLIC_KEY_LENGTHS.slice(0, -1).join(', ')} or ${PUBLIC_KEY_LENGTHS.at(-1)} bytes`
        : `${ML_DSA_PARAMETERS[named].publicKeyLength} bytes for ${named}`;
    throw invalidInput(`${fields.publicKey} must be ${expected} (got ${publicKey.byteLength})`, `/${fields.publicKey}`);
  }
  if (named !== undefined && named !== algorithm) {
    throw algorithmMismatch(fields.algorithm, named, fields.publicKey, algorithm);
  }
  const spec: MlDsaSpec = ML_DSA_PARAMETERS[algorithm];
  checkLength(signature, spec.signatureLength, fields.signature);
  const context = options?.context;
  checkContext(context, fields.context);
  if (backendFor(options) === 'native') {
    // Every byte string of the right length is a valid ML-DSA public key encoding.
    const key = importNativePublicKey(algorithm, publicKey);
    return { algorithm: algorithm, valid: await nativeVerify(key, message, signature, context) };
  }
  return { algorithm: algorithm, valid: spec.noble.verify(signature, message, publicKey, { context }) };
}
