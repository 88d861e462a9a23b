/**
 * X-Wing (draft-connolly-cfrg-xwing-kem), identifier `x25519-ml-kem-768`: the hybrid KEM of
 * `/v2/pq/hybrid/*`, and the KEM (HPKE id 0x647a) of the post-quantum sealed box and of the
 * multi-recipient envelope's hybrid slots.
 *
 *   secret key     the 32-byte seed
 *   expand(seed)   SHAKE256(seed, 96): bytes 0..64 the ML-KEM-768 seed d ‖ z, bytes 64..96 the X25519
 *                  private key
 *   public key     ML-KEM-768 ek (1184) ‖ X25519 public key (32) = 1216 bytes
 *   ciphertext     ML-KEM-768 ct (1088) ‖ X25519 ephemeral public key (32) = 1120 bytes
 *   shared secret  SHA3-256(ss_M ‖ ss_X ‖ ct_X ‖ pk_X ‖ "\.//^\")  (label 5c2e2f2f5e5c)
 *
 * The routes also take the parts: a private key as `x25519PrivateKey` and `mlKemPrivateKey` (the
 * 64-byte ML-KEM seed) that the seed expands to, and a public key as its two halves.
 *
 * Backends: X25519 (x25519.ts), SHAKE256 and SHA3-256 are node:crypto on every runtime; ML-KEM-768
 * is node:crypto on Node 24 and @noble/post-quantum on Node 22 (ml-kem.ts). The result is
 * byte-identical to @noble/post-quantum's ml_kem768_x25519 (test/pq-differential.test.ts) and to
 * the draft's vectors (test/vectors/xwing.test.ts).
 *
 * As an HPKE KEM (XWING_HPKE_KEM, kem_id 0x647a, as the draft's "Use in HPKE" section defines it):
 * Encap's ciphertext is HPKE's `enc` (1120 B), its shared secret is HPKE's shared_secret unchanged,
 * SerializePrivateKey is the 32-byte seed and DeriveKeyPair(ikm) takes SHAKE256(ikm, 32) as the seed.
 * A private key may also be given as its two parts (xwingHpkePrivateKeyFromParts).
 *
 * A low-order X25519 point (as the recipient key, or as the ephemeral key in a ciphertext) makes
 * the X25519 shared secret all zero. OpenSSL, @noble/curves and Go's crypto/ecdh all refuse to
 * compute it, and so does this module (x25519.ts's rule): an INVALID_INPUT naming the field. The
 * refusal depends only on the public point, never on a secret, so it is no oracle.
 */
import { createHash, randomFillSync } from 'node:crypto';
import { asBytes, concatBytes } from './bytes.ts';
import { checkLength } from './checks.ts';
import { constantTimeEqual, wipe } from './ct.ts';
import { CryptoError, decryptionFailed, invalidInput } from './errors.ts';
import type { EncapOptions, Encapsulation, HpkeKem, KemKeyPair, KemPrivateKey } from './hpke.ts';
import {
  ML_KEM_PARAMETERS,
  ML_KEM_SEED_LENGTH,
  mlKemDecapsulate,
  mlKemEncapsulate,
  mlKemKeyPairFromSeed,
} from './ml-kem.ts';
import type { PqBackend } from './pq-common.ts';
import { x25519, X25519_KEY_LENGTH, x25519PrivateKeyObject, x25519PublicKeyOf } from './x25519.ts';

export const XWING_ALGORITHM = 'x25519-ml-kem-768';
export const XWING_ALGORITHM_IDS = [XWING_ALGORITHM] as const;
export type XWingAlgorithm = typeof XWING_ALGORITHM;
/** The HPKE KEM identifier of X-Wing (IANA HPKE registry). */
export const XWING_HPKE_KEM_ID = 0x647a;
export const XWING_SEED_LENGTH = 32;
export const XWING_PUBLIC_KEY_LENGTH = 1216;
export const XWING_CIPHERTEXT_LENGTH = 1120;
export const XWING_SHARED_SECRET_LENGTH = 32;
/** The 64 bytes of EncapsulateDerand: ML-KEM's m (0..32) ‖ the X25519 ephemeral key (32..64). */
export const XWING_ENCAPSULATION_SEED_LENGTH = 64;

const ML_KEM_768 = ML_KEM_PARAMETERS['ml-kem-768'];
const ML_KEM_PUBLIC_KEY_LENGTH = ML_KEM_768.publicKeyLength;
const ML_KEM_CIPHERTEXT_LENGTH = ML_KEM_768.ciphertextLength;
const LABEL = Uint8Array.of(0x5c, 0x2e, 0x2f, 0x2f, 0x5e, 0x5c);

export interface XWingKeyPair {
  algorithm: XWingAlgorithm;
  /** The 32-byte X-Wing seed. */
  secretKey: Uint8Array;
  /** mlKemPublicKey ‖ x25519PublicKey. */
  publicKey: Uint8Array;
  x25519PrivateKey: Uint8Array;
  x25519PublicKey: Uint8Array;
  /** The 64-byte ML-KEM-768 seed d ‖ z. */
  mlKemSecretKey: Uint8Array;
  mlKemPublicKey: Uint8Array;
}

export interface XWingEncapsulation {
  algorithm: XWingAlgorithm;
  /** mlKemCiphertext ‖ x25519EphemeralPublic: HPKE's `enc`. */
  ciphertext: Uint8Array;
  sharedSecret: Uint8Array;
  mlKemCiphertext: Uint8Array;
  x25519EphemeralPublic: Uint8Array;
}

export interface XWingDecapsulation {
  algorithm: XWingAlgorithm;
  sharedSecret: Uint8Array;
}

export interface XWingOptions {
  /** The ML-KEM backend; tests choose, otherwise node:crypto where the runtime has ML-KEM. */
  backend?: PqBackend;
  /**
   * The request fields that errors name, where a caller calls them otherwise. Defaults: the names
   * of `/v2/pq/hybrid/*`.
   */
  fields?: Partial<XWingFields>;
}

export interface XWingFields {
  publicKey: string;
  privateKey: string;
  ciphertext: string;
  x25519PublicKey: string;
  mlKemPublicKey: string;
  x25519PrivateKey: string;
  mlKemPrivateKey: string;
}

const DEFAULT_FIELDS: XWingFields = {
  publicKey: 'publicKey',
  privateKey: 'privateKey',
  ciphertext: 'ciphertext',
  x25519PublicKey: 'x25519PublicKey',
  mlKemPublicKey: 'mlKemPublicKey',
  x25519PrivateKey: 'x25519PrivateKey',
  mlKemPrivateKey: 'mlKemPrivateKey',
};

function fieldsOf(options: XWingOptions | undefined): XWingFields {
  return { ...DEFAULT_FIELDS, ...options?.fields };
}

export interface XWingEncapsulateOptions extends XWingOptions {
  /**
   * Known-answer tests only: the 64-byte seed of EncapsulateDerand. ML-KEM takes no given randomness
   * in node:crypto, so this selects the noble backend for the ML-KEM half.
   */
  encapsulationSeed?: Uint8Array;
}

/** The parts of an X-Wing private key: what expandDecapsulationKey makes of the 32-byte seed. */
export interface XWingPrivateKeyParts {
  readonly x25519PrivateKey: Uint8Array;
  /** The 64-byte ML-KEM-768 seed, or its 2400-byte expanded decapsulation key. */
  readonly mlKemPrivateKey: Uint8Array;
}

/** The private key's parts and the ciphertext's two halves, ready for decapsulation. */
interface SplitDecapsulation extends XWingPrivateKeyParts {
  readonly x25519EphemeralPublic: Uint8Array;
  readonly mlKemCiphertext: Uint8Array;
}

/** ML-KEM-768 ct (1088 B) ‖ X25519 ephemeral public key (32 B): the ciphertext's two halves. */
function splitCiphertext(ciphertext: Uint8Array): { mlKemCiphertext: Uint8Array; x25519EphemeralPublic: Uint8Array } {
  return {
    mlKemCiphertext: ciphertext.subarray(0, ML_KEM_CIPHERTEXT_LENGTH),
    x25519EphemeralPublic: ciphertext.subarray(ML_KEM_CIPHERTEXT_LENGTH),
  };
}

/** X25519(k, u), refusing a low-order u (x25519.ts) with an INVALID_INPUT that names `field`. */
function xwingX25519(
  privateKey: Uint8Array,
  publicKey: Uint8Array,
  field: string,
  what: string,
  isRecipient = false,
): Uint8Array {
  const refusal = () =>
    invalidInput(`${what} is a low-order X25519 point (the shared secret would be all zero)`, `/${field}`);
  return x25519(x25519PrivateKeyObject(privateKey), publicKey, refusal, { isRecipient });
}

// ---------------------------------------------------------------------------------------------

/** The combiner: SHA3-256(ss_M ‖ ss_X ‖ ct_X ‖ pk_X ‖ label). */
export function xwingCombiner(ssM: Uint8Array, ssX: Uint8Array, ctX: Uint8Array, pkX: Uint8Array): Uint8Array {
  return asBytes(createHash('sha3-256').update(ssM).update(ssX).update(ctX).update(pkX).update(LABEL).digest());
}

/**
 * The key pair of a 32-byte seed (expandDecapsulationKey, then the public key). Deterministic and
 * synchronous: one SHAKE256, one ML-KEM-768 key generation, one X25519 base-point multiplication.
 */
export function xwingKeyPairFromSeed(seed: Uint8Array, options?: XWingOptions & { field?: string }): XWingKeyPair {
  checkLength(seed, XWING_SEED_LENGTH, options?.field ?? fieldsOf(options).privateKey);
  const expanded = asBytes(createHash('shake256', { outputLength: 96 }).update(seed).digest());
  try {
    const mlKem = mlKemKeyPairFromSeed(
      expanded.subarray(0, ML_KEM_SEED_LENGTH),
      'ml-kem-768',
      options?.backend === undefined ? {} : { backend: options.backend },
    );
    const x25519PrivateKey = expanded.slice(ML_KEM_SEED_LENGTH, 96);
    const x25519PublicKey = x25519PublicKeyOf(x25519PrivateKey);
    return {
      algorithm: XWING_ALGORITHM,
      secretKey: seed.slice(),
      publicKey: concatBytes(mlKem.publicKey, x25519PublicKey),
      x25519PrivateKey,
      x25519PublicKey,
      mlKemSecretKey: mlKem.secretKey,
      mlKemPublicKey: mlKem.publicKey,
    };
  } finally {
    wipe(expanded);
  }
}

/** A fresh key pair (32 random bytes as the seed), or the key pair of `options.seed`. */
export async function xwingKeygen(options?: XWingOptions & { seed?: Uint8Array }): Promise<XWingKeyPair> {
  if (options?.seed !== undefined) return xwingKeyPairFromSeed(options.seed, { ...options, field: 'seed' });
  const seed = randomFillSync(new Uint8Array(XWING_SEED_LENGTH));
  try {
    return xwingKeyPairFromSeed(seed, options);
  } finally {
    wipe(seed);
  }
}

/**
 * HPKE's DeriveKeyPair(ikm) for X-Wing: the seed is SHAKE256(ikm, 32) (as in the draft from
 * version 06 and in @hpke/hybridkem-x-wing), then xwingKeyPairFromSeed.
 */
export function xwingDeriveKeyPair(ikm: Uint8Array, options?: XWingOptions): XWingKeyPair {
  const seed = asBytes(createHash('shake256', { outputLength: XWING_SEED_LENGTH }).update(ikm).digest());
  try {
    return xwingKeyPairFromSeed(seed, options);
  } finally {
    wipe(seed);
  }
}

interface EncapsulationFields {
  mlKem: string;
  x25519: string;
  mlKemWhat: string;
  x25519What: string;
}

async function encapsulateParts(
  mlKemPublicKey: Uint8Array,
  x25519PublicKey: Uint8Array,
  options: XWingEncapsulateOptions | undefined,
  fields: EncapsulationFields,
): Promise<XWingEncapsulation> {
  const eseed = options?.encapsulationSeed;
  if (eseed !== undefined) checkLength(eseed, XWING_ENCAPSULATION_SEED_LENGTH, 'encapsulationSeed');
  // The ML-KEM key is checked first (FIPS 203 §7.2): its error is the more useful one.
  const mlKem = await mlKemEncapsulate(mlKemPublicKey, {
    ...(options?.backend === undefined ? {} : { backend: options.backend }),
    ...(eseed === undefined ? {} : { randomness: eseed.subarray(0, 32) }),
    field: fields.mlKem,
  }).catch((error: unknown) => {
    throw rephrase(error, fields.mlKemWhat, fields.mlKem);
  });
  const ephemeral = eseed === undefined ? randomFillSync(new Uint8Array(X25519_KEY_LENGTH)) : eseed.slice(32, 64);
  try {
    const ctX = x25519PublicKeyOf(ephemeral);
    const ssX = xwingX25519(ephemeral, x25519PublicKey, fields.x25519, fields.x25519What, true);
    const sharedSecret = xwingCombiner(mlKem.sharedSecret, ssX, ctX, x25519PublicKey);
    wipe(ssX, mlKem.sharedSecret);
    const ciphertext = concatBytes(mlKem.ciphertext, ctX);
    return {
      algorithm: XWING_ALGORITHM,
      ciphertext,
      sharedSecret,
      mlKemCiphertext: mlKem.ciphertext,
      x25519EphemeralPublic: ctX,
    };
  } finally {
    wipe(ephemeral);
  }
}

/** ml-kem.ts words its errors for a standalone ML-KEM key; inside X-Wing the field may be a part. */
function rephrase(error: unknown, what: string, field: string): unknown {
  if (error instanceof CryptoError && error.code === 'INVALID_INPUT' && what !== field) {
    return invalidInput(
      `${what} is not a valid ML-KEM-768 encapsulation key: a coefficient is not reduced modulo q (FIPS 203 §7.2)`,
      `/${field}`,
    );
  }
  return error;
}

/** Encapsulate(pk) with the combined 1216-byte public key. */
export async function xwingEncapsulate(
  publicKey: Uint8Array,
  options?: XWingEncapsulateOptions,
): Promise<XWingEncapsulation> {
  const { publicKey: field } = fieldsOf(options);
  checkLength(publicKey, XWING_PUBLIC_KEY_LENGTH, field);
  return encapsulateParts(
    publicKey.subarray(0, ML_KEM_PUBLIC_KEY_LENGTH),
    publicKey.subarray(ML_KEM_PUBLIC_KEY_LENGTH),
    options,
    {
      mlKem: field,
      x25519: field,
      mlKemWhat: `the ML-KEM-768 part of ${field}`,
      x25519What: `the X25519 part of ${field}`,
    },
  );
}

/** Encapsulate(pk) with the public key given as its two parts. */
export async function xwingEncapsulateParts(
  x25519PublicKey: Uint8Array,
  mlKemPublicKey: Uint8Array,
  options?: XWingEncapsulateOptions,
): Promise<XWingEncapsulation> {
  const fields = fieldsOf(options);
  checkLength(x25519PublicKey, X25519_KEY_LENGTH, fields.x25519PublicKey);
  checkLength(mlKemPublicKey, ML_KEM_PUBLIC_KEY_LENGTH, fields.mlKemPublicKey);
  return encapsulateParts(mlKemPublicKey, x25519PublicKey, options, {
    mlKem: fields.mlKemPublicKey,
    x25519: fields.x25519PublicKey,
    mlKemWhat: fields.mlKemPublicKey,
    x25519What: fields.x25519PublicKey,
  });
}

interface DecapsulationFields {
  mlKemPrivateKey: string;
  mlKemCiphertext: string;
  x25519EphemeralPublic: string;
  x25519What: string;
}

async function decapsulateParts(
  parts: SplitDecapsulation,
  x25519PublicKey: Uint8Array,
  options: XWingOptions | undefined,
  fields: DecapsulationFields,
): Promise<XWingDecapsulation> {
  const mlKem = await mlKemDecapsulate(parts.mlKemPrivateKey, parts.mlKemCiphertext, 'ml-kem-768', {
    ...(options?.backend === undefined ? {} : { backend: options.backend }),
    fields: { secretKey: fields.mlKemPrivateKey, ciphertext: fields.mlKemCiphertext },
  });
  const ssX = xwingX25519(
    parts.x25519PrivateKey,
    parts.x25519EphemeralPublic,
    fields.x25519EphemeralPublic,
    fields.x25519What,
  );
  try {
    return {
      algorithm: XWING_ALGORITHM,
      sharedSecret: xwingCombiner(mlKem.sharedSecret, ssX, parts.x25519EphemeralPublic, x25519PublicKey),
    };
  } finally {
    wipe(ssX, mlKem.sharedSecret);
  }
}

/**
 * Decapsulate(ct, sk) with the 32-byte seed and the combined 1120-byte ciphertext. As with ML-KEM, a
 * tampered ciphertext of the right length gives an unrelated shared secret, not an error.
 */
export async function xwingDecapsulate(
  secretKey: Uint8Array,
  ciphertext: Uint8Array,
  options?: XWingOptions,
): Promise<XWingDecapsulation> {
  const fields = fieldsOf(options);
  checkLength(secretKey, XWING_SEED_LENGTH, fields.privateKey);
  checkLength(ciphertext, XWING_CIPHERTEXT_LENGTH, fields.ciphertext);
  const keys = xwingKeyPairFromSeed(secretKey, options);
  try {
    return await decapsulateParts(
      {
        x25519PrivateKey: keys.x25519PrivateKey,
        mlKemPrivateKey: keys.mlKemSecretKey,
        ...splitCiphertext(ciphertext),
      },
      keys.x25519PublicKey,
      options,
      {
        mlKemPrivateKey: fields.privateKey,
        mlKemCiphertext: fields.ciphertext,
        x25519EphemeralPublic: fields.ciphertext,
        x25519What: `the X25519 part of ${fields.ciphertext}`,
      },
    );
  } finally {
    wipe(keys.secretKey, keys.x25519PrivateKey, keys.mlKemSecretKey);
  }
}

/**
 * Decapsulate(ct, sk) with the private key given as its two parts and the whole 1120-byte
 * ciphertext: the same shared secret as the seed the parts came from.
 */
export async function xwingDecapsulateParts(
  parts: XWingPrivateKeyParts,
  ciphertext: Uint8Array,
  options?: XWingOptions,
): Promise<XWingDecapsulation> {
  const fields = fieldsOf(options);
  checkLength(parts.x25519PrivateKey, X25519_KEY_LENGTH, fields.x25519PrivateKey);
  // The ML-KEM-768 seed, or its expanded key: never another parameter set's.
  checkLength(parts.mlKemPrivateKey, [ML_KEM_SEED_LENGTH, ML_KEM_768.expandedSecretKeyLength], fields.mlKemPrivateKey);
  checkLength(ciphertext, XWING_CIPHERTEXT_LENGTH, fields.ciphertext);
  return decapsulateParts(
    { ...parts, ...splitCiphertext(ciphertext) },
    x25519PublicKeyOf(parts.x25519PrivateKey),
    options,
    {
      mlKemPrivateKey: fields.mlKemPrivateKey,
      mlKemCiphertext: fields.ciphertext,
      x25519EphemeralPublic: fields.ciphertext,
      x25519What: `the X25519 part of ${fields.ciphertext}`,
    },
  );
}

// ---------------------------------------------------------------------------------------------
// X-Wing as an HPKE KEM (for hpke.ts: the post-quantum sealed box and the hybrid slots of the
// multi-recipient envelope).

const ML_KEM_768_DK_PKE_LENGTH = 1152;

/**
 * The ML-KEM-768 public key inside an expanded decapsulation key (dk = dk_PKE ‖ ek ‖ H(ek) ‖ z,
 * FIPS 203 Algorithm 16), after the hash check of FIPS 203 §7.3; undefined when the check fails.
 */
function encapsulationKeyOfExpanded(dk: Uint8Array): Uint8Array | undefined {
  const ek = dk.subarray(ML_KEM_768_DK_PKE_LENGTH, ML_KEM_768_DK_PKE_LENGTH + ML_KEM_PUBLIC_KEY_LENGTH);
  const stored = dk.subarray(
    ML_KEM_768_DK_PKE_LENGTH + ML_KEM_PUBLIC_KEY_LENGTH,
    ML_KEM_768_DK_PKE_LENGTH + ML_KEM_PUBLIC_KEY_LENGTH + 32,
  );
  const computed = asBytes(createHash('sha3-256').update(ek).digest());
  return constantTimeEqual(computed, stored) ? ek.slice() : undefined;
}

/**
 * A parsed X-Wing private key for HPKE. It keeps its own copies of the parts (so that one key
 * opens many slots without expanding the seed again) and clears them on `wipe()`. Every Decap
 * failure is the one decryptionFailed(): once the key was checked, the only input error left is a
 * low-order ephemeral X25519 key inside `enc`, which is a property of the ciphertext.
 */
function hpkePrivateKey(
  parts: XWingPrivateKeyParts,
  x25519PublicKey: Uint8Array,
  publicKey: Uint8Array,
): KemPrivateKey {
  const x25519PrivateKey = parts.x25519PrivateKey.slice();
  const mlKemPrivateKey = parts.mlKemPrivateKey.slice();
  return {
    kemId: XWING_HPKE_KEM_ID,
    publicKey,
    async decap(enc: Uint8Array): Promise<Uint8Array> {
      if (enc.byteLength !== XWING_CIPHERTEXT_LENGTH) throw decryptionFailed();
      try {
        const { sharedSecret } = await decapsulateParts(
          { x25519PrivateKey, mlKemPrivateKey, ...splitCiphertext(enc) },
          x25519PublicKey,
          undefined,
          {
            mlKemPrivateKey: 'mlKemPrivateKey',
            mlKemCiphertext: 'enc',
            x25519EphemeralPublic: 'enc',
            x25519What: 'enc',
          },
        );
        return sharedSecret;
      } catch (error) {
        if (error instanceof CryptoError) throw decryptionFailed();
        throw error;
      }
    },
    wipe(): void {
      wipe(x25519PrivateKey, mlKemPrivateKey);
    },
  };
}

/**
 * An HPKE private key from the two parts that `/v2/pq/hybrid/keygen` also returns: the X25519
 * private key and the ML-KEM-768 seed (or expanded key). They decapsulate exactly as the seed they
 * came from. `labels` are the request fields, named by errors: a wrong length, or an expanded key
 * whose embedded H(ek) does not match, is an INVALID_INPUT (it concerns the key, not a ciphertext).
 */
export function xwingHpkePrivateKeyFromParts(
  parts: XWingPrivateKeyParts,
  labels: { readonly x25519: string; readonly mlKem: string },
): KemPrivateKey {
  checkLength(parts.x25519PrivateKey, X25519_KEY_LENGTH, labels.x25519);
  checkLength(parts.mlKemPrivateKey, [ML_KEM_SEED_LENGTH, ML_KEM_768.expandedSecretKeyLength], labels.mlKem);
  let mlKemPublicKey: Uint8Array | undefined;
  if (parts.mlKemPrivateKey.byteLength === ML_KEM_SEED_LENGTH) {
    mlKemPublicKey = mlKemKeyPairFromSeed(parts.mlKemPrivateKey, 'ml-kem-768', { field: labels.mlKem }).publicKey;
  } else {
    mlKemPublicKey = encapsulationKeyOfExpanded(parts.mlKemPrivateKey);
    if (mlKemPublicKey === undefined) {
      throw invalidInput(
        `${labels.mlKem} is not a valid ml-kem-768 decapsulation key: its embedded H(ek) does not match (FIPS 203 §7.3)`,
        `/${labels.mlKem}`,
      );
    }
  }
  const x25519PublicKey = x25519PublicKeyOf(parts.x25519PrivateKey);
  return hpkePrivateKey(parts, x25519PublicKey, concatBytes(mlKemPublicKey, x25519PublicKey));
}

function xwingImportHpkePrivateKey(secretKey: Uint8Array, label = 'privateKey'): KemPrivateKey {
  const keys = xwingKeyPairFromSeed(secretKey, { field: label });
  try {
    return hpkePrivateKey(
      { x25519PrivateKey: keys.x25519PrivateKey, mlKemPrivateKey: keys.mlKemSecretKey },
      keys.x25519PublicKey,
      keys.publicKey,
    );
  } finally {
    wipe(keys.secretKey, keys.x25519PrivateKey, keys.mlKemSecretKey);
  }
}

function kemKeyPair(keys: XWingKeyPair): KemKeyPair {
  wipe(keys.x25519PrivateKey, keys.mlKemSecretKey);
  return { secretKey: keys.secretKey, publicKey: keys.publicKey };
}

/** X-Wing as an HPKE KEM, kem_id 0x647a: Nsecret 32, Nenc 1120, Npk 1216, Nsk 32. */
export const XWING_HPKE_KEM: HpkeKem = {
  id: XWING_HPKE_KEM_ID,
  name: 'X-Wing',
  Nsecret: XWING_SHARED_SECRET_LENGTH,
  Nenc: XWING_CIPHERTEXT_LENGTH,
  Npk: XWING_PUBLIC_KEY_LENGTH,
  Nsk: XWING_SEED_LENGTH,
  // EncapsulateDerand's randomness: ML-KEM's m ‖ the X25519 ephemeral key.
  Nseed: XWING_ENCAPSULATION_SEED_LENGTH,
  deriveKeyPair: (ikm: Uint8Array): KemKeyPair => kemKeyPair(xwingDeriveKeyPair(ikm)),
  generateKeyPair: async (): Promise<KemKeyPair> => kemKeyPair(await xwingKeygen()),
  async encap(publicKey: Uint8Array, options: EncapOptions = {}): Promise<Encapsulation> {
    const label = options.label ?? 'publicKey';
    checkLength(publicKey, XWING_PUBLIC_KEY_LENGTH, label);
    const parts = options.partLabels;
    const result =
      parts === undefined
        ? await xwingEncapsulate(publicKey, { encapsulationSeed: options.seed, fields: { publicKey: label } })
        : await xwingEncapsulateParts(
            publicKey.subarray(ML_KEM_PUBLIC_KEY_LENGTH),
            publicKey.subarray(0, ML_KEM_PUBLIC_KEY_LENGTH),
            {
              encapsulationSeed: options.seed,
              fields: { x25519PublicKey: parts.x25519, mlKemPublicKey: parts.mlKem },
            },
          );
    return { sharedSecret: result.sharedSecret, enc: result.ciphertext };
  },
  importPrivateKey: async (secretKey: Uint8Array, label?: string): Promise<KemPrivateKey> =>
    xwingImportHpkePrivateKey(secretKey, label),
  async decap(enc: Uint8Array, recipient: Uint8Array | KemPrivateKey): Promise<Uint8Array> {
    const key = recipient instanceof Uint8Array ? xwingImportHpkePrivateKey(recipient) : recipient;
    if (key.kemId !== XWING_HPKE_KEM_ID)
      throw new TypeError(`a private key of KEM 0x${key.kemId.toString(16)} was given to X-Wing`);
    try {
      return await key.decap(enc);
    } finally {
      // A key imported here is ours to clear; one passed in belongs to the caller.
      if (key !== recipient) key.wipe?.();
    }
  },
};
