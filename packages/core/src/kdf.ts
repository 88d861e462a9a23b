/**
 * Key derivation for `/v2/kdf`: scrypt (RFC 7914), HKDF (RFC 5869) over SHA-256/384/512 and
 * PBKDF2-HMAC-SHA256 (RFC 8018).
 *
 * Backends: node:crypto for scrypt and PBKDF2, which are slow by design (tens to hundreds of
 * milliseconds at the defaults, and scrypt's 128 MiB): they use node:crypto's callback forms, which
 * run on libuv's thread pool and leave the event loop free. HKDF costs microseconds and runs
 * synchronously, on Node 24 through @noble/hashes when its HMAC work is small, for the reason HMAC
 * does (mac.ts): Node 24's native HMAC setup costs more than @noble's whole HKDF of a short key
 * (docs/performance.md). Both backends give the same bytes (RFC 5869's and Wycheproof's vectors on
 * each).
 *
 * The public entry points are `planKdf` (every check, the defaults, a random salt) and `deriveKey`
 * (the work). Splitting them lets the server refuse a bad request before it queues anything, and
 * size the job's memory from the plan. The `*Raw` functions below them have no floors or caps:
 * they exist for the published test vectors (RFC 7914's N = 16 and c = 1, Wycheproof's 4096
 * iterations), which our own policy rightly refuses.
 *
 * Defaults follow OWASP's Password Storage Cheat Sheet: scrypt N = 2^17, r = 8, p = 1 and
 * PBKDF2-HMAC-SHA256 with 600,000 iterations. Floors refuse settings far weaker than that; caps
 * keep one request from taking more than a few times the default memory or time (a denial of
 * service would otherwise be one request away).
 */
import { pbkdf2, randomBytes, scrypt } from 'node:crypto';
import { hkdfSync } from './node-crypto.ts';
import { hkdf as nobleHkdf } from '@noble/hashes/hkdf.js';
import { isHmacHash, NOBLE_HASHES, NOBLE_HMAC_BELOW } from './mac.ts';
import { invalidInput, unsupportedAlgorithm } from './errors.ts';
import { asBytes } from './bytes.ts';

interface ScryptSpec {
  readonly kind: 'scrypt';
}
interface HkdfSpec {
  readonly kind: 'hkdf';
  readonly hash: string;
  /** HashLen of RFC 5869, in bytes. */
  readonly hashLength: number;
}
interface Pbkdf2Spec {
  readonly kind: 'pbkdf2';
  readonly hash: string;
  readonly hashLength: number;
}
type KdfSpec = ScryptSpec | HkdfSpec | Pbkdf2Spec;

/** The parameter table: every `algorithm` value of `/v2/kdf`. The registry and the schema are built from it. */
export const KDF_ALGORITHMS = {
  scrypt: { kind: 'scrypt' },
  'hkdf-sha256': { kind: 'hkdf', hash: 'sha256', hashLength: 32 },
  'hkdf-sha384': { kind: 'hkdf', hash: 'sha384', hashLength: 48 },
  'hkdf-sha512': { kind: 'hkdf', hash: 'sha512', hashLength: 64 },
  'pbkdf2-sha256': { kind: 'pbkdf2', hash: 'sha256', hashLength: 32 },
} as const satisfies Record<string, KdfSpec>;

export type KdfAlgorithm = keyof typeof KDF_ALGORITHMS;
export type HkdfAlgorithm = 'hkdf-sha256' | 'hkdf-sha384' | 'hkdf-sha512';
export const KDF_ALGORITHM_IDS = Object.keys(KDF_ALGORITHMS) as KdfAlgorithm[];

export function isKdfAlgorithm(id: string): id is KdfAlgorithm {
  return Object.hasOwn(KDF_ALGORITHMS, id);
}

const MIB = 1024 * 1024;

// Output length (bytes). 16 bytes (128 bits) is the least that is still a key.
export const KDF_DEFAULT_KEY_LENGTH = 32;
export const KDF_MIN_KEY_LENGTH = 16;
/** scrypt's output comes from a single PBKDF2 iteration (c = 1), so long outputs cost nothing extra. */
export const SCRYPT_MAX_KEY_LENGTH = 1024;
/**
 * PBKDF2 repeats all its iterations for every 32-byte block of output (and an attacker needs only
 * the first block), so more than two blocks would only multiply the defender's cost.
 */
export const PBKDF2_MAX_KEY_LENGTH = 64;
/** The largest keyLength of any algorithm: HKDF-SHA512's 255 · 64 (RFC 5869 §2.3). */
export const KDF_MAX_KEY_LENGTH = 255 * 64;

// Salts. RFC 8018 §4.1 asks for at least eight octets; a generated salt has 16 (128 bits).
export const KDF_GENERATED_SALT_LENGTH = 16;
export const KDF_MIN_SALT_LENGTH = 8;
export const KDF_MAX_SALT_LENGTH = 1024;
/** node:crypto's hkdf refuses more than 1024 bytes of info. */
export const HKDF_MAX_INFO_LENGTH = 1024;

export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}
export const SCRYPT_DEFAULTS: Readonly<ScryptParams> = { N: 2 ** 17, r: 8, p: 1 };
export const SCRYPT_MIN_N = 2 ** 13;
export const SCRYPT_MAX_N = 2 ** 20;
export const SCRYPT_MIN_R = 1;
export const SCRYPT_MAX_R = 32;
export const SCRYPT_MIN_P = 1;
export const SCRYPT_MAX_P = 16;
/** Cap on 128 · N · r, scrypt's working memory: twice the default's 128 MiB. */
export const SCRYPT_MAX_MEMORY_BYTES = 256 * MIB;
/** Cap on N · r · p, to which scrypt's time is proportional: four times the default's 2^20. */
export const SCRYPT_MAX_WORK = 2 ** 22;
/**
 * Floor on N · r · p: the least work of OWASP's recommended scrypt settings (N = 2^13, r = 8,
 * p = 10, or N = 2^14, r = 8, p = 5; the default N = 2^17, r = 8, p = 1 does 2^20).
 */
export const SCRYPT_MIN_WORK = 5 * 2 ** 17;

export const PBKDF2_DEFAULT_ITERATIONS = 600_000;
/** OWASP's floor for PBKDF2-HMAC-SHA256: a lower count is refused rather than accepted as "PBKDF2". */
export const PBKDF2_MIN_ITERATIONS = 600_000;
/** About a third of a second per 32-byte block on the reference machine (docs/performance.md). */
export const PBKDF2_MAX_ITERATIONS = 2_000_000;

export interface KdfParamsInput {
  N?: number | undefined;
  r?: number | undefined;
  p?: number | undefined;
  iterations?: number | undefined;
  info?: Uint8Array | undefined;
}

export interface KdfInput {
  algorithm: string;
  /** The password (scrypt, PBKDF2) or input keying material (HKDF). */
  password: Uint8Array;
  salt?: Uint8Array | undefined;
  keyLength?: number | undefined;
  params?: KdfParamsInput | undefined;
}

interface PlanBase {
  password: Uint8Array;
  /** The salt used: the caller's, or a fresh random one (scrypt, PBKDF2), or empty (HKDF without salt). */
  salt: Uint8Array;
  keyLength: number;
  /** Working memory of the derivation, for the server's memory budget (0 when negligible). */
  memoryBytes: number;
}
export interface ScryptPlan extends PlanBase {
  algorithm: 'scrypt';
  params: ScryptParams;
}
export interface Pbkdf2Plan extends PlanBase {
  algorithm: 'pbkdf2-sha256';
  params: { iterations: number };
}
export interface HkdfPlan extends PlanBase {
  algorithm: HkdfAlgorithm;
  params: { info: Uint8Array };
}
/** A checked request with every default filled in: what `deriveKey` will do, and what it costs. */
export type KdfPlan = ScryptPlan | Pbkdf2Plan | HkdfPlan;

/**
 * Memory that OpenSSL's scrypt allocates: V (128 · r · (N + 2) bytes) plus B (128 · r · p). This is
 * the `maxmem` to grant; anything less and OpenSSL refuses the parameters.
 */
export function scryptMemoryBytes(params: ScryptParams): number {
  return 128 * params.r * (params.N + 2) + 128 * params.r * params.p;
}

/**
 * The memory a scrypt job declares to the server's budget: 128 · N · r, the figure the cap is
 * stated in. The rest of scryptMemoryBytes (at most 128 · r · (p + 2), 72 KiB at the caps) is
 * noise, and counting it would push a job at the cap just over a budget sized for the cap.
 */
export function scryptBudgetBytes(params: ScryptParams): number {
  return 128 * params.N * params.r;
}

function checkRange(value: number, min: number, max: number, label: string, field: string, why = ''): number {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw invalidInput(`${label} must be an integer from ${min} to ${max}${why}`, field);
  }
  return value;
}

function isPowerOfTwo(value: number): boolean {
  return Number.isSafeInteger(value) && value > 0 && (value & (value - 1)) === 0;
}

/** A parameter that the chosen algorithm does not have is an error, not silently ignored. */
function refuseParams(params: KdfParamsInput, names: readonly (keyof KdfParamsInput)[], algorithm: string): void {
  for (const name of names) {
    if (params[name] !== undefined) {
      throw invalidInput(`params.${name} does not apply to ${algorithm}`, `/params/${name}`);
    }
  }
}

function checkPassword(password: Uint8Array): void {
  // A key derived from nothing is no secret; an empty password here is a mistake in the caller.
  if (password.byteLength === 0) {
    throw invalidInput('password must not be empty', '/password');
  }
}

function passwordSalt(salt: Uint8Array | undefined): Uint8Array {
  if (salt === undefined) {
    return new Uint8Array(randomBytes(KDF_GENERATED_SALT_LENGTH));
  }
  if (salt.byteLength < KDF_MIN_SALT_LENGTH || salt.byteLength > KDF_MAX_SALT_LENGTH) {
    throw invalidInput(
      `salt must be ${KDF_MIN_SALT_LENGTH} to ${KDF_MAX_SALT_LENGTH} bytes (got ${salt.byteLength}); omit it for a random 16-byte salt`,
      '/salt',
    );
  }
  return salt;
}

function keyLengthOf(keyLength: number | undefined, max: number, algorithm: string): number {
  return checkRange(
    keyLength ?? KDF_DEFAULT_KEY_LENGTH,
    KDF_MIN_KEY_LENGTH,
    max,
    `keyLength for ${algorithm}`,
    '/keyLength',
  );
}

function planScrypt(input: KdfInput, params: KdfParamsInput): ScryptPlan {
  refuseParams(params, ['iterations', 'info'], 'scrypt');
  const N = params.N ?? SCRYPT_DEFAULTS.N;
  const r = params.r ?? SCRYPT_DEFAULTS.r;
  const p = params.p ?? SCRYPT_DEFAULTS.p;
  checkRange(N, SCRYPT_MIN_N, SCRYPT_MAX_N, 'params.N', '/params/N', ', a power of two');
  if (!isPowerOfTwo(N)) {
    throw invalidInput(`params.N must be a power of two from ${SCRYPT_MIN_N} to ${SCRYPT_MAX_N}`, '/params/N');
  }
  checkRange(r, SCRYPT_MIN_R, SCRYPT_MAX_R, 'params.r', '/params/r');
  // RFC 7914 §2: N < 2^(128 · r / 8). Only r = 1 can break it within the caps (N up to 2^15);
  // OpenSSL refuses the rest with a misleading "memory limit exceeded", which would be a 500.
  if (N >= 2 ** (16 * r)) {
    throw invalidInput(
      `params.N must be less than 2^(16 · r) (RFC 7914): at most ${2 ** (16 * r - 1)} with r = ${r}; raise r or lower N`,
      '/params/N',
    );
  }
  checkRange(p, SCRYPT_MIN_P, SCRYPT_MAX_P, 'params.p', '/params/p');
  if (scryptBudgetBytes({ N, r, p }) > SCRYPT_MAX_MEMORY_BYTES) {
    throw invalidInput(
      `scrypt memory 128 · N · r must not exceed ${SCRYPT_MAX_MEMORY_BYTES / MIB} MiB; lower N or r`,
      '/params',
    );
  }
  if (N * r * p < SCRYPT_MIN_WORK) {
    throw invalidInput(
      `scrypt work N · r · p must be at least ${SCRYPT_MIN_WORK} (OWASP: N = 2^17, r = 8, p = 1, or N = 2^14, r = 8, p = 5); raise N, r or p`,
      '/params',
    );
  }
  if (N * r * p > SCRYPT_MAX_WORK) {
    throw invalidInput(
      `scrypt work N · r · p must not exceed 2^${Math.log2(SCRYPT_MAX_WORK)}; lower N, r or p`,
      '/params',
    );
  }
  const scryptParams = { N, r, p };
  return {
    algorithm: 'scrypt',
    password: input.password,
    salt: passwordSalt(input.salt),
    keyLength: keyLengthOf(input.keyLength, SCRYPT_MAX_KEY_LENGTH, 'scrypt'),
    params: scryptParams,
    memoryBytes: scryptBudgetBytes(scryptParams),
  };
}

function planPbkdf2(input: KdfInput, params: KdfParamsInput): Pbkdf2Plan {
  refuseParams(params, ['N', 'r', 'p', 'info'], 'pbkdf2-sha256');
  const iterations = checkRange(
    params.iterations ?? PBKDF2_DEFAULT_ITERATIONS,
    PBKDF2_MIN_ITERATIONS,
    PBKDF2_MAX_ITERATIONS,
    'params.iterations',
    '/params/iterations',
  );
  return {
    algorithm: 'pbkdf2-sha256',
    password: input.password,
    salt: passwordSalt(input.salt),
    keyLength: keyLengthOf(input.keyLength, PBKDF2_MAX_KEY_LENGTH, 'pbkdf2-sha256'),
    params: { iterations },
    // HMAC-SHA256 state only: nothing worth budgeting.
    memoryBytes: 0,
  };
}

function planHkdf(algorithm: HkdfAlgorithm, input: KdfInput, params: KdfParamsInput): HkdfPlan {
  refuseParams(params, ['N', 'r', 'p', 'iterations'], algorithm);
  const { hashLength } = KDF_ALGORITHMS[algorithm];
  // RFC 5869 §2.2: the salt is optional; absent, it is HashLen zero bytes, which gives the same PRK
  // as an empty salt (HMAC pads its key with zeros). So no salt is generated: HKDF stays a function
  // of its inputs, and the response reports the salt as given.
  const salt = input.salt ?? new Uint8Array(0);
  if (salt.byteLength > KDF_MAX_SALT_LENGTH) {
    throw invalidInput(`salt must be at most ${KDF_MAX_SALT_LENGTH} bytes`, '/salt');
  }
  const info = params.info ?? new Uint8Array(0);
  if (info.byteLength > HKDF_MAX_INFO_LENGTH) {
    throw invalidInput(`params.info must be at most ${HKDF_MAX_INFO_LENGTH} bytes`, '/params/info');
  }
  return {
    algorithm,
    password: input.password,
    salt,
    // RFC 5869 §2.3: L <= 255 · HashLen.
    keyLength: keyLengthOf(input.keyLength, 255 * hashLength, algorithm),
    params: { info },
    memoryBytes: 0,
  };
}

/**
 * Checks a `/v2/kdf` request and fills in its defaults. Every refusal is an INVALID_INPUT (or
 * UNSUPPORTED_ALGORITHM) that names the field; nothing expensive happens here.
 */
export function planKdf(input: KdfInput): KdfPlan {
  const { algorithm } = input;
  if (!isKdfAlgorithm(algorithm)) {
    throw unsupportedAlgorithm(`unsupported KDF algorithm '${algorithm}'`, '/algorithm');
  }
  checkPassword(input.password);
  const params = input.params ?? {};
  switch (algorithm) {
    case 'scrypt':
      return planScrypt(input, params);
    case 'pbkdf2-sha256':
      return planPbkdf2(input, params);
    case 'hkdf-sha256':
    case 'hkdf-sha384':
    case 'hkdf-sha512':
      return planHkdf(algorithm, input, params);
  }
}

/** True for the derivations slow enough to need the server's work queue (scrypt, PBKDF2). */
export function isExpensiveKdf(plan: KdfPlan): boolean {
  return plan.algorithm === 'scrypt' || plan.algorithm === 'pbkdf2-sha256';
}

/** Runs a plan from `planKdf`. scrypt and PBKDF2 run on libuv's pool; HKDF is synchronous and quick. */
export function deriveKey(plan: KdfPlan): Promise<Uint8Array> {
  switch (plan.algorithm) {
    case 'scrypt':
      return scryptRaw(plan.password, plan.salt, plan.params, plan.keyLength);
    case 'pbkdf2-sha256':
      return pbkdf2Raw('sha256', plan.password, plan.salt, plan.params.iterations, plan.keyLength);
    case 'hkdf-sha256':
    case 'hkdf-sha384':
    case 'hkdf-sha512':
      return Promise.resolve(
        hkdfRaw(KDF_ALGORITHMS[plan.algorithm].hash, plan.password, plan.salt, plan.params.info, plan.keyLength),
      );
  }
}

/**
 * scrypt without this service's floors and caps (for known-answer tests). `maxmem` is exactly what
 * the parameters need, so any N and r that the machine can hold work.
 */
export function scryptRaw(
  password: Uint8Array,
  salt: Uint8Array,
  params: ScryptParams,
  keyLength: number,
): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, keyLength, { ...params, maxmem: scryptMemoryBytes(params) }, (error, key) => {
      if (error !== null) reject(error);
      else resolve(asBytes(key));
    });
  });
}

/** PBKDF2-HMAC without this service's floors and caps (for known-answer tests). */
export function pbkdf2Raw(
  hash: string,
  password: Uint8Array,
  salt: Uint8Array,
  iterations: number,
  keyLength: number,
): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    pbkdf2(password, salt, iterations, keyLength, hash, (error, key) => {
      if (error !== null) reject(error);
      else resolve(asBytes(key));
    });
  });
}

/** `auto`: @noble/hashes for small HKDF work on Node 24, node:crypto otherwise; the others force one. */
export type HkdfBackend = 'auto' | 'native' | 'noble';

/**
 * Which backend `auto` uses, by a heuristic: an estimate of @noble's work, in bytes hashed, held
 * against the message length below which one @noble HMAC beats a native one (mac.ts's
 * NOBLE_HMAC_BELOW, measured in the server; 0 on Node 22, so always native there). The estimate is
 * the HMACs' messages (extract: the IKM; expand: T(i-1) ‖ info ‖ i for each HashLen of output)
 * plus two blocks per HMAC for its inner and outer finishing compressions. It leans towards native
 * (the threshold was measured on an HMAC's message bytes alone, and a native HKDF costs more than a
 * native HMAC); only 32-byte outputs were measured.
 * With a 32-byte IKM and no info, @noble takes outputs up to 1568 bytes (SHA-256), 240 (SHA-384)
 * or 320 (SHA-512).
 * Info beyond node:crypto's 1024-byte limit goes native, which refuses it, as on Node 22.
 */
export function hkdfBackendFor(
  hash: string,
  ikmLength: number,
  infoLength: number,
  keyLength: number,
): 'native' | 'noble' {
  if (!isHmacHash(hash) || infoLength > HKDF_MAX_INFO_LENGTH) return 'native';
  const { outputLen: hashLength, blockLen } = NOBLE_HASHES[hash];
  const blocks = Math.ceil(keyLength / hashLength);
  const work = ikmLength + blocks * (hashLength + infoLength + 1) + (blocks + 1) * 2 * blockLen;
  return work < NOBLE_HMAC_BELOW[hash] ? 'noble' : 'native';
}

/** HKDF (extract then expand) without this service's bounds on keyLength (for known-answer tests). */
export function hkdfRaw(
  hash: string,
  ikm: Uint8Array,
  salt: Uint8Array,
  info: Uint8Array,
  keyLength: number,
  options: { backend?: HkdfBackend } = {},
): Uint8Array {
  const backend =
    options.backend === undefined || options.backend === 'auto'
      ? hkdfBackendFor(hash, ikm.byteLength, info.byteLength, keyLength)
      : options.backend;
  if (backend === 'noble') {
    if (!isHmacHash(hash)) throw unsupportedAlgorithm(`unsupported HKDF hash '${hash}'`);
    // An empty salt is HashLen zero bytes (RFC 5869 §2.2), as HMAC pads a short key with zeros.
    return nobleHkdf(NOBLE_HASHES[hash], ikm, salt, info, keyLength);
  }
  return new Uint8Array(hkdfSync(hash, ikm, salt, info, keyLength));
}
