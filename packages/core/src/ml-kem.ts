/**
 * ML-KEM (FIPS 203): ML-KEM-512, ML-KEM-768 and ML-KEM-1024, the KEM of `/v2/pq/keygen`,
 * `/encapsulate` and `/decapsulate`, and the post-quantum half of X-Wing (xwing.ts).
 *
 * Encodings: the public (encapsulation) key is raw (800 / 1184 / 1568 B, so its length
 * gives the parameter set); the secret key that keygen returns is the 64-byte seed d ‖ z of FIPS 203
 * ML-KEM.KeyGen_internal, from which the expanded decapsulation key is recomputed; decapsulation also
 * accepts the expanded key (1632 / 2400 / 3168 B, whose length gives the parameter set).
 *
 * Input checks of FIPS 203 §7.2 and §7.3: an encapsulation key of the wrong length or with a
 * coefficient not reduced modulo q, a ciphertext of the wrong length, and an expanded decapsulation
 * key whose embedded H(ek) does not match, are refused (INVALID_INPUT, a 400). A ciphertext of the
 * right length that was tampered with is NOT an error: decapsulation returns the implicit-rejection
 * secret K̄ = J(z ‖ c), as FIPS 203 requires, so no oracle tells a caller that it was rejected.
 *
 * Backends (pq-common.ts): node:crypto on Node 24 (thread-pool forms, so the event loop stays
 * free), @noble/post-quantum elsewhere; byte-identical. The expanded key goes to node:crypto as
 * PKCS#8 (`raw-private` is refused for ML-KEM), where OpenSSL runs the same hash check as noble.
 */
import { randomFillSync } from 'node:crypto';
import { createPublicKey } from './node-crypto.ts';
import { ml_kem512, ml_kem768, ml_kem1024 } from '@noble/post-quantum/ml-kem.js';
import { checkLength } from './checks.ts';
import { wipe } from './ct.ts';
import { invalidInput, tryOrThrow, unsupportedAlgorithm } from './errors.ts';
import {
  PQ_NATIVE_SUPPORT,
  exportRaw,
  importExpandedPrivateKey,
  importNativePublicKey,
  importRawPrivateKey,
  nativeDecapsulate,
  nativeEncapsulate,
  nativeGenerateKeyPair,
  selectBackend,
  type PqBackend,
} from './pq-common.ts';
import { oidContent } from './der.ts';

interface MlKemSpec {
  readonly level: 512 | 768 | 1024;
  readonly publicKeyLength: number;
  readonly expandedSecretKeyLength: number;
  readonly ciphertextLength: number;
  /** DER content of the NIST OID (2.16.840.1.101.3.4.4.x), for the PKCS#8 form of expanded keys. */
  readonly oid: Uint8Array;
  readonly noble: typeof ml_kem768;
}

/** FIPS 203 Table 3. The algorithm registry and the request schemas are built from its keys. */
export const ML_KEM_PARAMETERS = {
  'ml-kem-512': {
    level: 512,
    publicKeyLength: 800,
    expandedSecretKeyLength: 1632,
    ciphertextLength: 768,
    oid: oidContent('2.16.840.1.101.3.4.4.1'),
    noble: ml_kem512,
  },
  'ml-kem-768': {
    level: 768,
    publicKeyLength: 1184,
    expandedSecretKeyLength: 2400,
    ciphertextLength: 1088,
    oid: oidContent('2.16.840.1.101.3.4.4.2'),
    noble: ml_kem768,
  },
  'ml-kem-1024': {
    level: 1024,
    publicKeyLength: 1568,
    expandedSecretKeyLength: 3168,
    ciphertextLength: 1568,
    oid: oidContent('2.16.840.1.101.3.4.4.3'),
    noble: ml_kem1024,
  },
} as const satisfies Record<string, MlKemSpec>;

export type MlKemAlgorithm = keyof typeof ML_KEM_PARAMETERS;
export const ML_KEM_ALGORITHM_IDS = Object.keys(ML_KEM_PARAMETERS) as MlKemAlgorithm[];
export const ML_KEM_DEFAULT_ALGORITHM: MlKemAlgorithm = 'ml-kem-768';
/** d ‖ z of FIPS 203 Algorithm 16. */
export const ML_KEM_SEED_LENGTH = 64;
export const ML_KEM_SHARED_SECRET_LENGTH = 32;
/** m of FIPS 203 Algorithm 17 (ML-KEM.Encaps_internal). */
export const ML_KEM_ENCAPSULATION_RANDOMNESS_LENGTH = 32;

export interface MlKemKeyPair {
  algorithm: MlKemAlgorithm;
  /** The encapsulation key ek. */
  publicKey: Uint8Array;
  /** The 64-byte seed d ‖ z. */
  secretKey: Uint8Array;
}

export interface MlKemEncapsulation {
  algorithm: MlKemAlgorithm;
  ciphertext: Uint8Array;
  sharedSecret: Uint8Array;
}

export interface MlKemDecapsulation {
  algorithm: MlKemAlgorithm;
  sharedSecret: Uint8Array;
}

export interface MlKemOptions {
  /** Tests choose; otherwise node:crypto where the runtime has it. */
  backend?: PqBackend;
}

const PUBLIC_KEY_LENGTHS = ML_KEM_ALGORITHM_IDS.map((id) => ML_KEM_PARAMETERS[id].publicKeyLength);
const ALGORITHM_BY_PUBLIC_KEY_LENGTH = new Map<number, MlKemAlgorithm>(
  ML_KEM_ALGORITHM_IDS.map((id) => [ML_KEM_PARAMETERS[id].publicKeyLength, id]),
);
const ALGORITHM_BY_EXPANDED_LENGTH = new Map<number, MlKemAlgorithm>(
  ML_KEM_ALGORITHM_IDS.map((id) => [ML_KEM_PARAMETERS[id].expandedSecretKeyLength, id]),
);

function backendFor(options: MlKemOptions | undefined): PqBackend {
  return selectBackend(options?.backend, PQ_NATIVE_SUPPORT.mlKem, 'ML-KEM');
}

/**
 * The parameter set named by `algorithm` (an identifier of GET /v2/algorithms, mlKem), or the
 * default one when none is given; any other name is refused with the list of valid ones.
 */
export function mlKemAlgorithm(algorithm: string | undefined, field = 'algorithm'): MlKemAlgorithm {
  const id = algorithm ?? ML_KEM_DEFAULT_ALGORITHM;
  if (!Object.hasOwn(ML_KEM_PARAMETERS, id)) {
    throw unsupportedAlgorithm(`${field} must be one of: ${ML_KEM_ALGORITHM_IDS.join(', ')}`, `/${field}`);
  }
  return id as MlKemAlgorithm;
}

/** A key that reveals its parameter set, given with an `algorithm` that names another one. */
function algorithmMismatch(field: string, given: string, keyField: string, keyAlgorithm: MlKemAlgorithm) {
  return invalidInput(`${field} ${given} does not match ${keyField}, a key of ${keyAlgorithm}`, `/${field}`);
}

/** The identifier that an encapsulation key's length implies, if any. */
export function mlKemAlgorithmForPublicKey(publicKeyLength: number): MlKemAlgorithm | undefined {
  return ALGORITHM_BY_PUBLIC_KEY_LENGTH.get(publicKeyLength);
}

/**
 * The identifier that a decapsulation key (seed or expanded) and an optional `algorithm` imply, if
 * they imply one; undefined when they are inconsistent (mlKemDecapsulate then says why).
 */
export function mlKemAlgorithmForSecretKey(secretKeyLength: number, algorithm?: string): MlKemAlgorithm | undefined {
  const byLength = ALGORITHM_BY_EXPANDED_LENGTH.get(secretKeyLength);
  if (byLength !== undefined) return algorithm === undefined || algorithm === byLength ? byLength : undefined;
  if (secretKeyLength !== ML_KEM_SEED_LENGTH) return undefined;
  const id = algorithm ?? ML_KEM_DEFAULT_ALGORITHM;
  return Object.hasOwn(ML_KEM_PARAMETERS, id) ? (id as MlKemAlgorithm) : undefined;
}

function invalidEncapsulationKey(algorithm: MlKemAlgorithm, field: string) {
  return invalidInput(
    `${field} is not a valid ${algorithm} encapsulation key: a coefficient is not reduced modulo q (FIPS 203 §7.2)`,
    `/${field}`,
  );
}

function invalidDecapsulationKey(algorithm: MlKemAlgorithm, field: string) {
  return invalidInput(
    `${field} is not a valid ${algorithm} decapsulation key: its embedded H(ek) does not match (FIPS 203 §7.3)`,
    `/${field}`,
  );
}

/**
 * Key pair from a 64-byte seed (FIPS 203 ML-KEM.KeyGen_internal(d, z)): deterministic, and
 * synchronous, cheap enough for the calling thread. X-Wing expands its keys with it. The returned
 * secretKey is a copy of the seed.
 */
export function mlKemKeyPairFromSeed(
  seed: Uint8Array,
  algorithm: MlKemAlgorithm = ML_KEM_DEFAULT_ALGORITHM,
  options?: MlKemOptions & { field?: string },
): MlKemKeyPair {
  checkLength(seed, ML_KEM_SEED_LENGTH, options?.field ?? 'seed');
  if (backendFor(options) === 'native') {
    const privateKey = importRawPrivateKey(algorithm, 'raw-seed', seed);
    return { algorithm, publicKey: exportRaw(createPublicKey(privateKey), 'raw-public'), secretKey: seed.slice() };
  }
  const { publicKey, secretKey } = ML_KEM_PARAMETERS[algorithm].noble.keygen(seed);
  wipe(secretKey);
  return { algorithm, publicKey, secretKey: seed.slice() };
}

/**
 * A fresh key pair of `algorithm` (ml-kem-768 by default). The secret key is the 64-byte seed.
 * With `options.seed` the key pair is the deterministic one of that seed.
 */
export async function mlKemKeygen(
  algorithmName?: string,
  options?: MlKemOptions & { seed?: Uint8Array },
): Promise<MlKemKeyPair> {
  const algorithm = mlKemAlgorithm(algorithmName);
  if (options?.seed !== undefined) return mlKemKeyPairFromSeed(options.seed, algorithm, options);
  if (backendFor(options) === 'native') {
    const { publicKey, privateKey } = await nativeGenerateKeyPair(algorithm);
    return { algorithm, publicKey: exportRaw(publicKey, 'raw-public'), secretKey: exportRaw(privateKey, 'raw-seed') };
  }
  const seed = randomFillSync(new Uint8Array(ML_KEM_SEED_LENGTH));
  try {
    return mlKemKeyPairFromSeed(seed, algorithm, options);
  } finally {
    wipe(seed);
  }
}

/**
 * Encapsulates to `publicKey`, whose length gives the parameter set; an `algorithm` given beside
 * it must name the same one. `randomness` is the 32-byte m of ML-KEM.Encaps_internal, for
 * known-answer tests only: node:crypto takes no such input, so it selects the noble backend.
 * `field` names the request field in errors.
 */
export async function mlKemEncapsulate(
  publicKey: Uint8Array,
  options?: MlKemOptions & { algorithm?: string; randomness?: Uint8Array; field?: string },
): Promise<MlKemEncapsulation> {
  const field = options?.field ?? 'publicKey';
  if (options?.algorithm !== undefined) mlKemAlgorithm(options.algorithm);
  checkLength(publicKey, PUBLIC_KEY_LENGTHS, field);
  // The check above leaves only the three lengths of the table.
  const algorithm = mlKemAlgorithmForPublicKey(publicKey.byteLength)!;
  if (options?.algorithm !== undefined && options.algorithm !== algorithm) {
    throw algorithmMismatch('algorithm', options.algorithm, field, algorithm);
  }
  const randomness = options?.randomness;
  let backend: PqBackend;
  if (randomness === undefined) {
    backend = backendFor(options);
  } else {
    if (options?.backend === 'native')
      throw new Error('node:crypto cannot encapsulate with given randomness; use the noble backend');
    checkLength(randomness, ML_KEM_ENCAPSULATION_RANDOMNESS_LENGTH, 'randomness');
    backend = 'noble';
  }
  if (backend === 'native') {
    const key = tryOrThrow(
      () => importNativePublicKey(algorithm, publicKey),
      () => invalidEncapsulationKey(algorithm, field),
    );
    const { ciphertext, sharedKey } = await nativeEncapsulate(key);
    return { algorithm, ciphertext, sharedSecret: sharedKey };
  }
  // The length is right (checked above), so only the modulus check can refuse the key.
  const { cipherText, sharedSecret } = tryOrThrow(
    () => ML_KEM_PARAMETERS[algorithm].noble.encapsulate(publicKey, randomness),
    () => invalidEncapsulationKey(algorithm, field),
  );
  return { algorithm, ciphertext: cipherText, sharedSecret };
}

/**
 * Decapsulates `ciphertext`. `secretKey` is the 64-byte seed (its parameter set is `algorithm`,
 * ml-kem-768 by default: a seed does not reveal it) or the expanded decapsulation key (its length
 * gives the set; an `algorithm` that disagrees is an error). A tampered ciphertext of the right
 * length yields the implicit-rejection secret, not an error. `fields` name the request fields in
 * errors.
 */
export async function mlKemDecapsulate(
  secretKey: Uint8Array,
  ciphertext: Uint8Array,
  algorithmName?: string,
  options?: MlKemOptions & { fields?: { secretKey?: string; ciphertext?: string; algorithm?: string } },
): Promise<MlKemDecapsulation> {
  const secretKeyField = options?.fields?.secretKey ?? 'privateKey';
  const ciphertextField = options?.fields?.ciphertext ?? 'ciphertext';
  const algorithmField = options?.fields?.algorithm ?? 'algorithm';
  const named = algorithmName === undefined ? undefined : mlKemAlgorithm(algorithmName, algorithmField);
  const expanded = ALGORITHM_BY_EXPANDED_LENGTH.get(secretKey.byteLength);
  let algorithm: MlKemAlgorithm;
  if (expanded !== undefined) {
    if (named !== undefined && named !== expanded) {
      throw algorithmMismatch(algorithmField, named, secretKeyField, expanded);
    }
    algorithm = expanded;
  } else if (secretKey.byteLength === ML_KEM_SEED_LENGTH) {
    algorithm = named ?? ML_KEM_DEFAULT_ALGORITHM;
  } else {
    throw invalidInput(
      `${secretKeyField} must be the 64-byte seed or an expanded decapsulation key of ${ML_KEM_ALGORITHM_IDS.map((id) => ML_KEM_PARAMETERS[id].expandedSecretKeyLength).join(', ')} bytes (got ${secretKey.byteLength})`,
      `/${secretKeyField}`,
    );
  }
  const spec: MlKemSpec = ML_KEM_PARAMETERS[algorithm];
  if (ciphertext.byteLength !== spec.ciphertextLength) {
    const hint =
      expanded === undefined && named === undefined
        ? `; a 64-byte seed does not reveal its parameter set, so give ${algorithmField} for another one`
        : '';
    throw invalidInput(
      `${ciphertextField} must be ${spec.ciphertextLength} bytes for ${algorithm} (got ${ciphertext.byteLength})${hint}`,
      `/${ciphertextField}`,
    );
  }
  if (backendFor(options) === 'native') {
    const key = tryOrThrow(
      () =>
        expanded === undefined
          ? importRawPrivateKey(algorithm, 'raw-seed', secretKey)
          : importExpandedPrivateKey(spec.oid, secretKey),
      () => invalidDecapsulationKey(algorithm, secretKeyField),
    );
    return { algorithm, sharedSecret: await nativeDecapsulate(key, ciphertext) };
  }
  const decapsulationKey = expanded === undefined ? spec.noble.keygen(secretKey).secretKey : secretKey;
  try {
    // Lengths are right (checked above): only the hash check of §7.3 throws here.
    const sharedSecret = tryOrThrow(
      () => spec.noble.decapsulate(ciphertext, decapsulationKey),
      () => invalidDecapsulationKey(algorithm, secretKeyField),
    );
    return { algorithm, sharedSecret };
  } finally {
    if (decapsulationKey !== secretKey) wipe(decapsulationKey);
  }
}
