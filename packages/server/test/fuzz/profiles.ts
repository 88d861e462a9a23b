/**
 * What the schemas cannot tell the fuzzer about a route: the right byte lengths of its key fields
 * (for smart values and for the wrong-length mutations), real values from the corpus, coherent
 * bodies that reach the crypto code (a key with the signature it made, a ciphertext with its key),
 * and, for the CI run, how to keep its cost parameters cheap.
 *
 * A route without a profile is still fuzzed from its schema alone; a profile for a route that no
 * longer exists fails the coverage test.
 *
 * Cheap mode (the CI run): Argon2id, scrypt, PBKDF2, SLH-DSA signing and key generation and RSA
 * key generation are clamped to their cheapest settings: `cheapen` rewrites a cost parameter that
 * is valid but expensive (or absent, so that the expensive default would apply) to a cheap value,
 * and leaves every invalid value alone (an out-of-range or mistyped cost still reaches the
 * validator). The long run (scripts/fuzz.ts) uses the full schema bounds.
 */
import fc from 'fast-check';
import {
  ARGON2_MAX,
  ARGON2_MIN,
  HASH_ALGORITHM_IDS,
  KDF_ALGORITHM_IDS,
  MAX_XOF_LENGTH,
  isExtendable,
  KEK_LENGTHS,
  ML_DSA_PARAMETERS,
  ML_KEM_ALGORITHM_IDS,
  ML_KEM_PARAMETERS,
  PBKDF2_MAX_ITERATIONS,
  PBKDF2_MIN_ITERATIONS,
  SCRYPT_MAX_N,
  SCRYPT_MAX_P,
  SCRYPT_MAX_R,
  SCRYPT_MIN_N,
  SLH_DSA_ALGORITHM_IDS,
  SLH_DSA_PARAMETERS,
  XWING_CIPHERTEXT_LENGTH,
  XWING_PUBLIC_KEY_LENGTH,
} from '@crypto-service/core';
import { anyString, hexOf, toBase64, type Hint } from './arbitraries.ts';
import type { Corpus } from './corpus.ts';
import type { JsonSchema, SchemaResolver } from './json-schema.ts';

type Body = Record<string, unknown>;

export interface RouteProfile {
  /** Right byte lengths of hex (and base64) key fields, by JSON pointer. */
  lengths?: Record<string, readonly number[]>;
  /** Real values by JSON pointer. */
  values?: (corpus: Corpus) => Record<string, readonly unknown[]>;
  /** Coherent valid bodies. */
  recipes?: (corpus: Corpus) => fc.Arbitrary<Body>[];
  /** Cheap mode: rewrites expensive valid cost parameters in place (see above). */
  cheapen?: (body: Body) => void;
  /** Share of the runs per route in cheap mode (a heavy route gets fewer). */
  runShare?: number;
}

const mlKem = Object.values(ML_KEM_PARAMETERS);
const mlDsa = Object.values(ML_DSA_PARAMETERS);
const slhDsa = Object.values(SLH_DSA_PARAMETERS);
const unique = (values: number[]) => [...new Set(values)];

const X25519 = [32];
const ML_KEM_768_PUBLIC = [ML_KEM_PARAMETERS['ml-kem-768'].publicKeyLength];
const ML_KEM_768_SECRET = [64, ML_KEM_PARAMETERS['ml-kem-768'].expandedSecretKeyLength];
const SIGNATURE_PRIVATE = unique([
  32,
  57,
  48,
  ...mlDsa.map((spec) => spec.expandedSecretKeyLength),
  ...slhDsa.map((spec) => 4 * spec.n),
]);
const SIGNATURE_PUBLIC = unique([
  32,
  57,
  65,
  33,
  97,
  49,
  ...mlDsa.map((spec) => spec.publicKeyLength),
  ...slhDsa.map((spec) => 2 * spec.n),
]);
const SIGNATURES = unique([
  64,
  114,
  96,
  ...mlDsa.map((spec) => spec.signatureLength),
  ...slhDsa.map((spec) => spec.signatureLength),
]);

const pick = <T>(values: readonly T[]) => fc.constantFrom(...values);
const optional = <T>(value: T | undefined, key: string) => (value === undefined ? {} : { [key]: value });

// ---------------------------------------------------------------------------------------------
// Cheap mode

const CHEAP_SLH_SIGNING = ['slh-dsa-sha2-128f'];
const CHEAP_SCRYPT_BYTES = 16 * 1024 * 1024;
const CHEAP_SLH_VERIFYING = ['slh-dsa-sha2-128f', 'slh-dsa-sha2-128s', 'slh-dsa-shake-128f', 'slh-dsa-shake-128s'];
const slhAlgorithms: readonly string[] = SLH_DSA_ALGORITHM_IDS;

/** A valid integer above `cheapest`, or an absent one: `cheapest`. Anything else stays. */
function clampInteger(body: Body, key: string, min: number, max: number, cheapest: number): void {
  const value = body[key];
  if (
    value === undefined ||
    (Number.isInteger(value) && (value as number) >= min && (value as number) <= max && (value as number) > cheapest)
  ) {
    body[key] = cheapest;
  }
}

/** An SLH-DSA parameter set that is slow here is replaced by the first allowed one. */
function cheapSlhDsa(body: Body, allowed: readonly string[]): void {
  const value = body.algorithm;
  if (typeof value === 'string' && slhAlgorithms.includes(value) && !allowed.includes(value)) {
    body.algorithm = allowed[0];
  }
}

/** Argon2id parameters inside a PHC string, lowered to the floor when they are valid. */
function cheapPhc(body: Body): void {
  if (typeof body.hash !== 'string') return;
  body.hash = body.hash.replace(/\$m=(\d{1,7}),t=(\d{1,3}),p=(\d{1,3})\$/, (match, m: string, t: string, p: string) => {
    const inCaps = Number(m) <= ARGON2_MAX.m && Number(t) <= ARGON2_MAX.t && Number(p) <= ARGON2_MAX.p;
    return inCaps ? `$m=${ARGON2_MIN.m},t=${ARGON2_MIN.t},p=${ARGON2_MIN.p}$` : match;
  });
}

/** The Argon2id parameters in the header of a password-encrypted blob, lowered the same way. */
function cheapPasswordBlob(body: Body): void {
  if (typeof body.ciphertext !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(body.ciphertext)) return;
  const blob = Buffer.from(body.ciphertext, 'base64');
  if (blob.byteLength < 13 || blob[0] !== 1) return;
  const [t, m, p] = [blob.readUInt32BE(1), blob.readUInt32BE(5), blob.readUInt32BE(9)];
  if (t > ARGON2_MAX.t || m > ARGON2_MAX.m || p > ARGON2_MAX.p) return;
  blob.writeUInt32BE(ARGON2_MIN.t, 1);
  blob.writeUInt32BE(ARGON2_MIN.m, 5);
  blob.writeUInt32BE(ARGON2_MIN.p, 9);
  body.ciphertext = blob.toString('base64');
}

function cheapKdf(body: Body): void {
  if (
    body.params !== undefined &&
    (typeof body.params !== 'object' || body.params === null || Array.isArray(body.params))
  )
    return;
  const params = (body.params ?? {}) as Body;
  if (body.algorithm === 'scrypt') {
    // 16 MiB at most (128 · N · r): N up to 2^17 with r = 1, which still reaches RFC 7914's N < 2^(16 · r).
    clampInteger(params, 'r', 1, SCRYPT_MAX_R, 2);
    clampInteger(params, 'p', 1, SCRYPT_MAX_P, 1);
    const r = Number.isInteger(params.r) && (params.r as number) >= 1 ? (params.r as number) : 1;
    clampInteger(params, 'N', SCRYPT_MIN_N, SCRYPT_MAX_N, Math.max(SCRYPT_MIN_N, CHEAP_SCRYPT_BYTES / (128 * r)));
  } else if (body.algorithm === 'pbkdf2-sha256') {
    clampInteger(params, 'iterations', PBKDF2_MIN_ITERATIONS, PBKDF2_MAX_ITERATIONS, PBKDF2_MIN_ITERATIONS);
  } else {
    return;
  }
  body.params = params;
}

// ---------------------------------------------------------------------------------------------
// Recipes

const text = anyString(0, 40);

/** A data field and the `encoding` it is written in (utf8 text, or bytes as hex or base64). */
function encodedText(minBytes = 0): fc.Arbitrary<{ value: string; encoding?: string }> {
  return fc.oneof(
    anyString(minBytes, 40).map((value) => ({ value })),
    fc
      .uint8Array({ minLength: minBytes, maxLength: 40 })
      .chain((bytes) =>
        fc.constantFrom(
          { value: Buffer.from(bytes).toString('hex'), encoding: 'hex' },
          { value: Buffer.from(bytes).toString('base64'), encoding: 'base64' },
        ),
      ),
  );
}

function hashRoutes(): Record<string, RouteProfile> {
  return {
    '/v2/hash': {
      recipes: () => [
        fc
          .tuple(fc.constantFrom(...HASH_ALGORITHM_IDS), encodedText(), fc.integer({ min: 1, max: MAX_XOF_LENGTH }))
          .map(([algorithm, data, length]) => ({
            algorithm,
            data: data.value,
            ...optional(data.encoding, 'encoding'),
            ...(isExtendable(algorithm) ? { length } : {}),
          })),
      ],
    },
  };
}

/** Coherent /v2/kdf bodies: each algorithm with its own parameters only. */
function kdfBodies(): fc.Arbitrary<Body> {
  const salt = fc.option(
    fc.uint8Array({ minLength: 8, maxLength: 64 }).map((bytes) => Buffer.from(bytes).toString('hex')),
    { nil: undefined },
  );
  return fc
    .tuple(fc.constantFrom(...KDF_ALGORITHM_IDS), encodedText(1), salt, encodedText())
    .chain(([algorithm, password, saltHex, info]): fc.Arbitrary<Body> => {
      const base = {
        algorithm,
        password: password.value,
        ...optional(password.encoding, 'encoding'),
        ...optional(saltHex, 'salt'),
      };
      if (algorithm === 'scrypt') {
        return fc
          .record(
            {
              keyLength: fc.integer({ min: 16, max: 64 }),
              params: fc.record(
                {
                  N: fc.constantFrom(2 ** 14, 2 ** 15, 2 ** 16, 2 ** 17),
                  r: fc.integer({ min: 1, max: 8 }),
                  p: fc.integer({ min: 1, max: 2 }),
                },
                { requiredKeys: [] },
              ),
            },
            { requiredKeys: [] },
          )
          .map((extra) => ({ ...base, ...extra }));
      }
      if (algorithm === 'pbkdf2-sha256') {
        return fc
          .record(
            {
              keyLength: fc.integer({ min: 16, max: 64 }),
              params: fc.record(
                { iterations: fc.integer({ min: PBKDF2_MIN_ITERATIONS, max: 700_000 }) },
                { requiredKeys: [] },
              ),
            },
            { requiredKeys: [] },
          )
          .map((extra) => ({ ...base, ...extra }));
      }
      // HKDF: `info` is read in the body's encoding, so it follows the password's.
      const infoValue =
        password.encoding === undefined
          ? info.value
          : Buffer.from(info.value, 'utf8').toString(password.encoding as BufferEncoding);
      return fc
        .record(
          { keyLength: fc.integer({ min: 16, max: 255 * 32 }), params: fc.constant({ info: infoValue }) },
          { requiredKeys: [] },
        )
        .map((extra) => ({ ...base, ...extra }));
    });
}

function signatureRoutes(): Record<string, RouteProfile> {
  return {
    '/v2/sign': {
      lengths: { '/privateKey': SIGNATURE_PRIVATE },
      values: (corpus) => ({
        '/privateKey': [
          ...corpus.signers.flatMap((signer) => [
            signer.privateKey,
            ...(signer.privatePem === undefined ? [] : [signer.privatePem]),
          ]),
          ...corpus.foreignPrivatePems,
        ],
      }),
      recipes: (corpus) => [
        pick(corpus.signers).chain((signer) =>
          fc.record({
            algorithm: fc.constant(signer.algorithm),
            privateKey: pick([signer.privateKey, ...(signer.privatePem === undefined ? [] : [signer.privatePem])]),
            message: text,
            ...(signer.context === undefined ? {} : { context: fc.constantFrom(signer.context, '') }),
          }),
        ),
      ],
      cheapen: (body) => cheapSlhDsa(body, CHEAP_SLH_SIGNING),
    },
    '/v2/verify': {
      lengths: { '/publicKey': SIGNATURE_PUBLIC, '/signature': SIGNATURES },
      values: (corpus) => ({
        '/publicKey': [
          ...corpus.signers.flatMap((signer) => [
            signer.publicKey,
            ...(signer.publicPem === undefined ? [] : [signer.publicPem]),
          ]),
          ...corpus.foreignPublicPems,
        ],
        '/signature': corpus.signers.map((signer) => signer.signature),
      }),
      recipes: (corpus) => [
        pick(corpus.signers).chain((signer) =>
          pick([signer.publicKey, ...(signer.publicPem === undefined ? [] : [signer.publicPem])]).map((publicKey) => ({
            algorithm: signer.algorithm,
            publicKey,
            message: signer.message,
            signature: signer.signature,
            ...optional(signer.context, 'context'),
          })),
        ),
      ],
      cheapen: (body) => cheapSlhDsa(body, CHEAP_SLH_VERIFYING),
    },
    '/v2/keys/generate': {
      cheapen: (body) => cheapSlhDsa(body, CHEAP_SLH_SIGNING),
    },
  };
}

function symmetricRoutes(): Record<string, RouteProfile> {
  const aead = (sealing: boolean): RouteProfile => ({
    lengths: { '/key': [32], ...(sealing ? {} : { '/ciphertext': [40, 53, 3040] }) },
    values: (corpus) => ({
      '/key': corpus.aeadKeys,
      ...(sealing ? {} : { '/ciphertext': corpus.aeadBlobs.map((blob) => blob.ciphertext) }),
    }),
    // The plaintext comes back in `encoding`, which also says how `aad` is read: chosen only without aad.
    recipes: (corpus) =>
      sealing
        ? []
        : [
            fc
              .tuple(pick(corpus.aeadBlobs), fc.constantFrom(undefined, 'utf8', 'hex', 'base64'))
              .map(([blob, encoding]) => ({
                key: blob.key,
                ciphertext: blob.ciphertext,
                ...optional(blob.aad, 'aad'),
                ...(blob.aad === undefined ? optional(encoding, 'encoding') : {}),
              })),
          ],
  });
  return {
    '/v2/encrypt': aead(true),
    '/v2/decrypt': aead(false),
    '/v2/secretbox/seal': aead(true),
    '/v2/secretbox/open': aead(false),
    '/v2/sealedbox/seal': {
      lengths: { '/publicKey': X25519 },
      values: (corpus) => ({ '/publicKey': corpus.x25519.map((pair) => pair.publicKey) }),
    },
    '/v2/sealedbox/open': {
      lengths: { '/privateKey': X25519, '/ciphertext': [48, 60] },
      values: (corpus) => ({
        '/privateKey': corpus.x25519.map((pair) => pair.privateKey),
        '/ciphertext': corpus.sealedBoxes.map((box) => box.ciphertext),
      }),
      recipes: (corpus) => [pick(corpus.sealedBoxes).map((box) => ({ ...box }))],
    },
    '/v2/sealedbox/seal-pq': {
      lengths: {
        '/x25519PublicKey': X25519,
        '/mlKemPublicKey': ML_KEM_768_PUBLIC,
        '/publicKey': [XWING_PUBLIC_KEY_LENGTH],
      },
      recipes: (corpus) => [
        pick(corpus.xwing).chain((pair) =>
          fc.oneof(
            fc.record({ publicKey: fc.constant(pair.publicKey), plaintext: text }),
            fc.record({
              x25519PublicKey: fc.constant(pair.x25519PublicKey),
              mlKemPublicKey: fc.constant(pair.mlKemPublicKey),
              plaintext: text,
            }),
          ),
        ),
      ],
    },
    '/v2/sealedbox/open-pq': {
      lengths: {
        '/x25519PrivateKey': X25519,
        '/mlKemPrivateKey': ML_KEM_768_SECRET,
        '/privateKey': [32],
        '/ciphertext': [XWING_CIPHERTEXT_LENGTH + 16],
      },
      recipes: (corpus) => [
        pick(corpus.xwing).chain((pair) =>
          fc.oneof(
            fc.constant({ privateKey: pair.privateKey, ciphertext: pair.sealed }),
            fc.constant({
              x25519PrivateKey: pair.x25519PrivateKey,
              mlKemPrivateKey: pair.mlKemPrivateKey,
              ciphertext: pair.sealed,
            }),
          ),
        ),
      ],
    },
    '/v2/keys/wrap': {
      lengths: { '/kek': KEK_LENGTHS, '/keyToWrap': [1, 5, 8, 16, 24, 32, 40] },
      recipes: (corpus) => [
        pick(corpus.keyWraps).map((wrap) => ({ algorithm: wrap.algorithm, kek: wrap.kek, keyToWrap: wrap.keyToWrap })),
      ],
    },
    '/v2/keys/unwrap': {
      lengths: { '/kek': KEK_LENGTHS, '/wrappedKey': [16, 24, 40] },
      recipes: (corpus) => [
        pick(corpus.keyWraps).map((wrap) => ({
          algorithm: wrap.algorithm,
          kek: wrap.kek,
          wrappedKey: wrap.wrappedKey,
        })),
      ],
    },
  };
}

/** PHC strings a parser meets: other variants and versions, parameters at and past their bounds, odd salts and tags. */
function phcVariants(corpus: Corpus): string[] {
  const hash = corpus.phc[0]!.hash;
  const [, , , params = '', salt = '', tag = ''] = hash.split('$');
  const withParams = (text: string) => hash.replace(params, text);
  const b64 = (length: number) => Buffer.alloc(length, 7).toString('base64').replace(/=+$/, '');
  return [
    hash.replace('argon2id', 'argon2i'),
    hash.replace('argon2id', 'argon2d'),
    hash.replace('argon2id', 'argon2x'),
    hash.replace('v=19', 'v=16'),
    hash.replace('$v=19', ''),
    hash.replace('v=19', 'v=019'),
    withParams('m=0,t=0,p=0'),
    withParams('m=19456,t=2,p=0'),
    withParams(`m=${ARGON2_MAX.m + 1},t=2,p=1`),
    withParams(`m=${ARGON2_MAX.m},t=${ARGON2_MAX.t},p=${ARGON2_MAX.p}`),
    withParams('m=4294967296,t=2,p=1'),
    withParams('m=99999999999999999999,t=2,p=1'),
    withParams('m=019456,t=2,p=1'),
    withParams('t=2,m=19456,p=1'),
    withParams('m=19456,t=2,p=1,keyid=abc'),
    withParams('m=19456,t=2'),
    withParams('m=-1,t=2,p=1'),
    withParams('m=1e5,t=2,p=1'),
    withParams('m=8,t=2,p=2'),
    hash.replace(salt, b64(4)),
    hash.replace(salt, b64(100)),
    hash.replace(salt, `${salt}==`),
    hash.replace(salt, ''),
    hash.replace(salt, '*'.repeat(22)),
    hash.replace(tag, b64(8)),
    hash.replace(tag, b64(100)),
    hash.replace(tag, ''),
    hash.replace(tag, `${tag}A`),
    `${hash}$extra`,
    hash.slice(0, -1),
    '$argon2id$',
    '$',
    '',
    'argon2id',
    hash.replaceAll('$', '$$'),
    hash.toUpperCase(),
  ];
}

/** Password-encrypted blobs with their header altered: versions, parameters at and past their bounds, lengths around the minimum. */
function passwordBlobVariants(corpus: Corpus): string[] {
  const blob = Buffer.from(corpus.passwordBlobs[0]!.ciphertext, 'base64');
  const variant = (change: (copy: Buffer) => Buffer | void) => {
    const copy = Buffer.from(blob);
    return (change(copy) ?? copy).toString('base64');
  };
  const withParams = (t: number, m: number, p: number) =>
    variant((copy) => {
      copy.writeUInt32BE(t, 1);
      copy.writeUInt32BE(m, 5);
      copy.writeUInt32BE(p, 9);
    });
  return [
    variant((copy) => void (copy[0] = 0)),
    variant((copy) => void (copy[0] = 2)),
    variant((copy) => void (copy[0] = 255)),
    withParams(0, 0, 0),
    withParams(ARGON2_MIN.t - 1, ARGON2_MIN.m, ARGON2_MIN.p),
    withParams(ARGON2_MIN.t, ARGON2_MIN.m - 1, ARGON2_MIN.p),
    withParams(ARGON2_MAX.t + 1, ARGON2_MIN.m, 1),
    withParams(ARGON2_MIN.t, ARGON2_MAX.m + 1, 1),
    withParams(ARGON2_MIN.t, ARGON2_MIN.m, ARGON2_MAX.p + 1),
    withParams(ARGON2_MAX.t, ARGON2_MAX.m, ARGON2_MAX.p),
    withParams(2 ** 32 - 1, 2 ** 32 - 1, 2 ** 32 - 1),
    withParams(ARGON2_MIN.t, 64, 16),
    variant((copy) => copy.subarray(0, 53 + 16)),
    variant((copy) => copy.subarray(0, 53 + 15)),
    variant((copy) => copy.subarray(0, 53)),
    variant((copy) => copy.subarray(0, 1)),
  ];
}

function derivationRoutes(): Record<string, RouteProfile> {
  return {
    '/v2/hmac': {
      lengths: { '/key': [1, 32, 64, 200] },
    },
    '/v2/hmac/verify': {
      lengths: { '/key': [1, 32, 64], '/mac': [32, 48, 64] },
      recipes: (corpus) => [pick(corpus.hmacs).map((entry) => ({ ...entry }))],
    },
    '/v2/kdf': {
      lengths: { '/salt': [8, 16, 1024] },
      recipes: () => [kdfBodies()],
      cheapen: cheapKdf,
    },
    '/v2/password/hash': {
      cheapen: (body) => {
        clampInteger(body, 'timeCost', ARGON2_MIN.t, ARGON2_MAX.t, ARGON2_MIN.t);
        clampInteger(body, 'memoryCost', ARGON2_MIN.m, ARGON2_MAX.m, ARGON2_MIN.m);
        clampInteger(body, 'parallelism', ARGON2_MIN.p, ARGON2_MAX.p, ARGON2_MIN.p);
      },
      runShare: 0.5,
    },
    '/v2/password/verify': {
      values: (corpus) => ({ '/hash': [corpus.phc[0]!.hash, ...phcVariants(corpus)] }),
      recipes: (corpus) => [
        pick(corpus.phc).chain((entry) =>
          fc.record({ password: fc.constantFrom(entry.password, '', 'wrong'), hash: fc.constant(entry.hash) }),
        ),
      ],
      cheapen: cheapPhc,
      runShare: 0.5,
    },
    // Always the default cost (t = 3, m = 64 MiB, p = 4): nothing to clamp, so fewer runs.
    '/v2/password/encrypt': { runShare: 0.25 },
    '/v2/password/decrypt': {
      values: (corpus) => ({ '/ciphertext': [corpus.passwordBlobs[0]!.ciphertext, ...passwordBlobVariants(corpus)] }),
      recipes: (corpus) => [
        pick(corpus.passwordBlobs).chain((entry) =>
          fc.record({ password: fc.constantFrom(entry.password, 'wrong'), ciphertext: fc.constant(entry.ciphertext) }),
        ),
      ],
      cheapen: cheapPasswordBlob,
      runShare: 0.5,
    },
  };
}

function pqRoutes(): Record<string, RouteProfile> {
  const slh = (prefix: string): Record<string, RouteProfile> => ({
    [`${prefix}/keygen`]: {
      cheapen: (body) => cheapSlhDsa(body, CHEAP_SLH_SIGNING),
      runShare: 0.5,
    },
    [`${prefix}/sign`]: {
      lengths: { '/privateKey': unique(slhDsa.map((spec) => 4 * spec.n)) },
      recipes: (corpus) => [
        pick(corpus.slhDsa).chain((entry) =>
          fc.record({
            privateKey: fc.constant(entry.privateKey),
            algorithm: fc.constant(entry.algorithm),
            message: text,
            context: fc.constantFrom(entry.context, ''),
          }),
        ),
      ],
      cheapen: (body) => cheapSlhDsa(body, CHEAP_SLH_SIGNING),
      runShare: 0.5,
    },
    [`${prefix}/verify`]: {
      lengths: {
        '/publicKey': unique(slhDsa.map((spec) => 2 * spec.n)),
        '/signature': unique(slhDsa.map((spec) => spec.signatureLength)),
      },
      recipes: (corpus) => [
        pick(corpus.slhDsa).map((entry) => ({
          publicKey: entry.publicKey,
          signature: entry.signature,
          message: entry.message,
          context: entry.context,
          algorithm: entry.algorithm,
        })),
      ],
      cheapen: (body) => cheapSlhDsa(body, CHEAP_SLH_VERIFYING),
    },
  });
  return {
    '/v2/pq/encapsulate': {
      lengths: { '/publicKey': mlKem.map((spec) => spec.publicKeyLength) },
      values: (corpus) => ({ '/publicKey': corpus.mlKem.map((entry) => entry.publicKey) }),
    },
    '/v2/pq/decapsulate': {
      lengths: {
        '/privateKey': [64, ...mlKem.map((spec) => spec.expandedSecretKeyLength)],
        '/ciphertext': mlKem.map((spec) => spec.ciphertextLength),
      },
      recipes: (corpus) => [
        pick(corpus.mlKem).chain((entry) =>
          fc.record(
            {
              privateKey: fc.constantFrom(entry.seed, entry.expanded),
              ciphertext: fc.constant(entry.ciphertext),
              algorithm: fc.constantFrom(entry.algorithm, ...ML_KEM_ALGORITHM_IDS),
            },
            { requiredKeys: ['privateKey', 'ciphertext'] },
          ),
        ),
      ],
    },
    '/v2/pq/hybrid/encapsulate': {
      lengths: {
        '/x25519PublicKey': X25519,
        '/mlKemPublicKey': ML_KEM_768_PUBLIC,
        '/publicKey': [XWING_PUBLIC_KEY_LENGTH],
      },
      recipes: (corpus) => [
        pick(corpus.xwing).chain((pair) =>
          fc.constantFrom(
            { publicKey: pair.publicKey },
            { x25519PublicKey: pair.x25519PublicKey, mlKemPublicKey: pair.mlKemPublicKey },
          ),
        ),
      ],
    },
    '/v2/pq/hybrid/decapsulate': {
      lengths: {
        '/x25519PrivateKey': X25519,
        '/mlKemPrivateKey': ML_KEM_768_SECRET,
        '/privateKey': [32],
        '/ciphertext': [XWING_CIPHERTEXT_LENGTH],
      },
      recipes: (corpus) => [
        pick(corpus.xwing).chain((pair) =>
          fc.constantFrom(
            { privateKey: pair.privateKey, ciphertext: pair.ciphertext },
            {
              x25519PrivateKey: pair.x25519PrivateKey,
              mlKemPrivateKey: pair.mlKemPrivateKey,
              ciphertext: pair.ciphertext,
            },
          ),
        ),
      ],
    },
    '/v2/pq/dsa/sign': {
      lengths: { '/privateKey': [32, ...mlDsa.map((spec) => spec.expandedSecretKeyLength)] },
      recipes: (corpus) => [
        pick(corpus.mlDsa).chain((entry) =>
          fc.record(
            {
              privateKey: fc.constantFrom(entry.seed, entry.expanded),
              algorithm: fc.constant(entry.algorithm),
              message: text,
              context: fc.constantFrom(entry.context, ''),
            },
            { requiredKeys: ['privateKey', 'message'] },
          ),
        ),
      ],
    },
    '/v2/pq/dsa/verify': {
      lengths: {
        '/publicKey': mlDsa.map((spec) => spec.publicKeyLength),
        '/signature': mlDsa.map((spec) => spec.signatureLength),
      },
      recipes: (corpus) => [
        pick(corpus.mlDsa).map((entry) => ({
          publicKey: entry.publicKey,
          signature: entry.signature,
          message: entry.message,
          context: entry.context,
          algorithm: entry.algorithm,
        })),
      ],
    },
    ...slh('/v2/pq/slh-dsa'),
    ...slh('/v2/pq/hash-sign'),
  };
}

function multiRecipientRoutes(): Record<string, RouteProfile> {
  return {
    '/v2/multi-recipient/encrypt': {
      lengths: {
        '/recipients/*/publicKey': [32, XWING_PUBLIC_KEY_LENGTH],
        '/recipients/*/x25519PublicKey': X25519,
        '/recipients/*/mlKemPublicKey': ML_KEM_768_PUBLIC,
      },
      recipes: (corpus) => [
        fc.record({
          plaintext: text,
          recipients: fc.subarray(corpus.multiRecipient[0]!.publicKeys, { minLength: 1 }),
        }),
      ],
    },
    '/v2/multi-recipient/decrypt': {
      lengths: {
        '/privateKey': X25519,
        '/x25519PrivateKey': X25519,
        '/mlKemPrivateKey': ML_KEM_768_SECRET,
        '/recipients/*/enc': [32, XWING_CIPHERTEXT_LENGTH],
        '/recipients/*/wrappedKey': [48],
      },
      recipes: (corpus) => [
        pick(corpus.multiRecipient).chain((envelope) =>
          pick(envelope.credentials).map((credential) => ({
            ciphertext: envelope.ciphertext,
            recipients: envelope.recipients,
            ...credential,
          })),
        ),
      ],
    },
  };
}

function v1Routes(): Record<string, RouteProfile> {
  return {
    '/v1/generate': {
      // Each key type with its own parameter only (a curve with rsa, or rsaBits with ecc, is a 400).
      recipes: () => [
        fc
          .record(
            {
              name: fc.constantFrom('Fuzz', 'Zoë Ünïcode 中文', 'a'.repeat(256)),
              email: fc.constantFrom('fuzz@example.invalid', 'ü@例え.jp'),
              passphrase: fc.constantFrom('p', 'x'.repeat(1024)),
              key: fc.oneof(
                fc.constantFrom('curve25519', 'p256', 'p384', 'p521').map((curve) => ({ type: 'ecc', curve })),
                fc.constantFrom(2048, 3072, 4096).map((rsaBits) => ({ type: 'rsa', rsaBits })),
              ),
              keyExpirationTime: fc.constantFrom(0, 1, 86_400, 0xffff_ffff),
            },
            { requiredKeys: ['name', 'email', 'key'] },
          )
          .map(({ key, ...rest }) => ({ ...rest, ...key })),
      ],
      cheapen: (body) => {
        if (body.type === 'rsa' && (body.rsaBits === undefined || body.rsaBits === 3072 || body.rsaBits === 4096))
          body.rsaBits = 2048;
      },
      runShare: 0.5,
    },
    '/v1/encrypt': {
      values: (corpus) => ({
        '/publicKeys': [corpus.v1.publicKey, [corpus.v1.publicKey]],
        '/signingKey': [corpus.v1.privateKey],
      }),
      recipes: (corpus) => [
        fc.record(
          {
            message: text,
            publicKeys: fc.constantFrom(corpus.v1.publicKey, [corpus.v1.publicKey]),
            signingKey: fc.constant(corpus.v1.privateKey),
          },
          { requiredKeys: ['message', 'publicKeys'] },
        ),
      ],
    },
    '/v1/decrypt': {
      values: (corpus) => ({
        '/message': [corpus.v1.encrypted, corpus.v1.symmetric],
        '/privateKey': [corpus.v1.privateKey],
      }),
      recipes: (corpus) => [
        fc.constantFrom(
          { message: corpus.v1.encrypted, privateKey: corpus.v1.privateKey },
          { message: corpus.v1.symmetric, passphrase: corpus.v1.symmetricPassphrase },
        ),
      ],
    },
    '/v1/sign': {
      values: (corpus) => ({ '/privateKey': [corpus.v1.privateKey] }),
      recipes: (corpus) => [
        fc.record(
          { message: text, privateKey: fc.constant(corpus.v1.privateKey), detached: fc.boolean() },
          { requiredKeys: ['message', 'privateKey'] },
        ),
      ],
    },
    '/v1/verify': {
      values: (corpus) => ({
        '/publicKeys': [corpus.v1.publicKey, [corpus.v1.publicKey]],
        '/signature': [corpus.v1.detached],
      }),
      recipes: (corpus) => [
        fc.constantFrom(
          { message: corpus.v1.cleartext, publicKeys: corpus.v1.publicKey },
          { message: corpus.v1.detachedText, signature: corpus.v1.detached, publicKeys: [corpus.v1.publicKey] },
        ),
      ],
    },
    '/v1/revoke': {
      values: (corpus) => ({ '/privateKey': [corpus.v1.privateKey] }),
      recipes: (corpus) => [
        fc.record(
          { privateKey: fc.constant(corpus.v1.privateKey), reason: anyString(0, 40) },
          { requiredKeys: ['privateKey'] },
        ),
      ],
    },
  };
}

export const ROUTE_PROFILES: Readonly<Record<string, RouteProfile>> = {
  ...hashRoutes(),
  ...signatureRoutes(),
  ...symmetricRoutes(),
  ...derivationRoutes(),
  ...pqRoutes(),
  ...multiRecipientRoutes(),
  ...v1Routes(),
};

/** The schema at a pointer (`*` steps into array items), or undefined. */
export function schemaAt(
  schema: JsonSchema | undefined,
  pointer: string,
  resolve: SchemaResolver,
): JsonSchema | undefined {
  let node = schema;
  for (const step of pointer.split('/').slice(1)) {
    if (node === undefined) return undefined;
    const resolved = resolve(node);
    node = step === '*' ? resolved.items : resolved.properties?.[step];
  }
  return node === undefined ? undefined : resolve(node);
}

/**
 * Smart values by pointer: random bytes of a right length (hex, or base64 where the schema says
 * the field is base64), or a real value from the corpus.
 */
export function hintsFor(
  profile: RouteProfile | undefined,
  corpus: Corpus,
  body: JsonSchema | undefined,
  resolve: SchemaResolver,
): Map<string, Hint> {
  const hints = new Map<string, Hint>();
  const values = profile?.values?.(corpus) ?? {};
  for (const pointer of new Set([...Object.keys(profile?.lengths ?? {}), ...Object.keys(values)])) {
    const choices: Hint[] = [];
    const lengths = profile?.lengths?.[pointer];
    if (lengths !== undefined) {
      const base64 = /\bbase64\b/.test(schemaAt(body, pointer, resolve)?.description ?? '');
      choices.push(
        pick(lengths).chain((length) =>
          base64 ? fc.uint8Array({ minLength: length, maxLength: length }).map(toBase64) : hexOf(length, length),
        ),
      );
    }
    const real = values[pointer];
    if (real !== undefined && real.length > 0) choices.push(pick(real));
    if (choices.length > 0) hints.set(pointer, fc.oneof(...choices));
  }
  return hints;
}
