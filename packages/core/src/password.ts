/**
 * Password hashing with Argon2id (RFC 9106) in PHC string form, and password-based encryption
 * (Argon2id then XChaCha20-Poly1305): `/v2/password/hash|verify|encrypt|decrypt`.
 *
 * Backends, chosen once at load by a feature test (not by version):
 * - node:crypto's `argon2` (Node 24; OpenSSL's implementation), asynchronous on libuv's pool;
 * - @node-rs/argon2's raw-output `hashRaw` (a prebuilt N-API module, Node 22), also asynchronous.
 * Both produce the raw tag only; the PHC string is encoded here, so the two runtimes give the same
 * string for the same salt. @node-rs/argon2 is imported lazily, so Node 24 never loads it unless a
 * test asks for it.
 *
 * Why node:crypto on Node 24 although @node-rs/argon2 is faster there: with @node-rs/argon2
 * saturating both cores of the benchmark machine, `/live`'s p99 went above its target, where
 * native stayed well within it (docs/performance.md). The cause was not found; the liveness target
 * comes first.
 *
 * Parameters (`t` passes, `m` KiB of memory, `p` lanes):
 * - defaults m = 65536, t = 3, p = 4: RFC 9106 §4's second recommended option;
 * - floor m = 19456, t = 2 for new hashes: OWASP's minimum for Argon2id;
 * - caps m = 262144 (256 MiB), t = 10, p = 16, for new hashes and equally for hashes presented for
 *   verification and for encrypted blobs: a stored string that says m = 4194304 would otherwise
 *   make the server allocate 4 GiB on request.
 * Verification accepts hashes below the floor (down to RFC 9106's minima) so that users hashed under
 * an older policy can still sign in; `needsRehash` then tells the caller to replace the hash.
 */
import * as nodeCrypto from 'node:crypto';
import { xchachaOpen, xchachaSeal, XCHACHA_NONCE_LENGTH, POLY1305_TAG_LENGTH } from './aead.ts';
import { constantTimeEqual, wipe } from './ct.ts';
import { decryptionFailed, invalidInput, unsupportedAlgorithm } from './errors.ts';
import { asBytes, concatBytes } from './bytes.ts';
import { randomNonce } from './nonces.ts';

/**
 * The identifiers of `/v2/password/hash|verify` (family password). `/v2/password/encrypt|decrypt`
 * have their own family, passwordEncryption, whose one identifier names the composite.
 */
export const PASSWORD_ALGORITHM_IDS = ['argon2id'] as const;
export type PasswordAlgorithm = (typeof PASSWORD_ALGORITHM_IDS)[number];
export const PASSWORD_ENCRYPTION_ALGORITHM = 'argon2id-xchacha20-poly1305' as const;
export const PASSWORD_ENCRYPTION_ALGORITHM_IDS = [PASSWORD_ENCRYPTION_ALGORITHM] as const;

/** Argon2 cost parameters: passes, memory in KiB, lanes (the PHC string's t, m, p). */
export interface Argon2Params {
  t: number;
  m: number;
  p: number;
}

export const ARGON2_DEFAULTS: Readonly<Argon2Params> = { t: 3, m: 65536, p: 4 };
/** Floor for new hashes (OWASP). There is no floor on p: one lane is a valid choice. */
export const ARGON2_MIN: Readonly<Argon2Params> = { t: 2, m: 19456, p: 1 };
/** Caps for new hashes, for hashes to verify and for encrypted blobs alike. */
export const ARGON2_MAX: Readonly<Argon2Params> = { t: 10, m: 262144, p: 16 };

/** Salt and tag of the hashes this service makes. */
export const ARGON2_SALT_LENGTH = 16;
export const ARGON2_TAG_LENGTH = 32;
/**
 * What a PHC string to verify may carry. RFC 9106 allows salts from 8 bytes and tags from 4; tags
 * under 16 bytes are refused because matching one by chance stops being negligible.
 */
export const PHC_MIN_SALT_LENGTH = 8;
export const PHC_MAX_SALT_LENGTH = 64;
export const PHC_MIN_TAG_LENGTH = 16;
export const PHC_MAX_TAG_LENGTH = 64;
/** Longer than any string within the caps above, short enough that parsing it is trivial. */
export const PHC_MAX_LENGTH = 256;

/** The version that RFC 9106 specifies (0x13); v=16 (0x10) predates it and is not offered. */
const ARGON2_VERSION = 19;

export type Argon2Variant = 'argon2id' | 'argon2i' | 'argon2d';
const ARGON2_VARIANTS: readonly Argon2Variant[] = ['argon2id', 'argon2i', 'argon2d'];

// ---------------------------------------------------------------------------------------------
// Backends

type NativeArgon2 = (
  algorithm: Argon2Variant,
  parameters: {
    message: Uint8Array;
    nonce: Uint8Array;
    parallelism: number;
    tagLength: number;
    memory: number;
    passes: number;
    secret?: Uint8Array;
    associatedData?: Uint8Array;
  },
  callback: (error: Error | null, result: Buffer) => void,
) => void;

// A namespace import: a named import of `argon2` would fail to link on Node 22, where it is absent.
const nativeArgon2 = (nodeCrypto as unknown as { argon2?: NativeArgon2 }).argon2;

export type Argon2Backend = 'native' | 'node-rs';

/** The backend this runtime uses: node:crypto where it has Argon2 (Node 24), @node-rs/argon2 otherwise. */
export const ARGON2_BACKEND: Argon2Backend = typeof nativeArgon2 === 'function' ? 'native' : 'node-rs';

/** Every backend this runtime can run (tests compare them). */
export function availableArgon2Backends(): Argon2Backend[] {
  return typeof nativeArgon2 === 'function' ? ['native', 'node-rs'] : ['node-rs'];
}

export interface Argon2RawInput {
  variant: Argon2Variant;
  password: Uint8Array;
  salt: Uint8Array;
  params: Argon2Params;
  tagLength: number;
  /** The secret value K of RFC 9106 (both backends). */
  secret?: Uint8Array | undefined;
  /** The associated data X of RFC 9106: the native backend only (@node-rs/argon2 has no such input). */
  associatedData?: Uint8Array | undefined;
}

function nativeRaw(argon2: NativeArgon2, input: Argon2RawInput): Promise<Uint8Array> {
  const { variant, password, salt, params, tagLength, secret, associatedData } = input;
  return new Promise((resolve, reject) => {
    argon2(
      variant,
      {
        message: password,
        nonce: salt,
        parallelism: params.p,
        tagLength,
        memory: params.m,
        passes: params.t,
        ...(secret === undefined ? {} : { secret }),
        ...(associatedData === undefined ? {} : { associatedData }),
      },
      (error, result) => {
        if (error !== null) reject(error);
        else resolve(asBytes(result));
      },
    );
  });
}

// @node-rs/argon2's Algorithm and Version are `const enum`s, which type stripping cannot inline:
// their documented values are spelled out here.
const NODE_RS_ALGORITHM: Record<Argon2Variant, number> = { argon2d: 0, argon2i: 1, argon2id: 2 };
const NODE_RS_VERSION_0X13 = 1;

async function nodeRsRaw(input: Argon2RawInput): Promise<Uint8Array> {
  const { variant, password, salt, params, tagLength, secret, associatedData } = input;
  if (associatedData !== undefined && associatedData.byteLength > 0) {
    throw unsupportedAlgorithm('Argon2 with associated data needs the native backend (node:crypto, Node 24)');
  }
  const { hashRaw } = await import('@node-rs/argon2');
  const options = {
    salt,
    memoryCost: params.m,
    timeCost: params.t,
    parallelism: params.p,
    outputLen: tagLength,
    algorithm: NODE_RS_ALGORITHM[variant],
    version: NODE_RS_VERSION_0X13,
    ...(secret === undefined ? {} : { secret }),
  } as unknown as Parameters<typeof hashRaw>[1];
  return asBytes(await hashRaw(password, options));
}

/**
 * Argon2 version 0x13, raw tag, no floors or caps (callers check parameters first; tests use it
 * for RFC 9106's vector). Asynchronous on both backends.
 */
export function argon2Raw(input: Argon2RawInput, backend: Argon2Backend = ARGON2_BACKEND): Promise<Uint8Array> {
  if (backend === 'native') {
    if (nativeArgon2 === undefined) {
      return Promise.reject(
        unsupportedAlgorithm('this runtime has no native Argon2 (node:crypto argon2 needs Node 24)'),
      );
    }
    return nativeRaw(nativeArgon2, input);
  }
  return nodeRsRaw(input);
}

// ---------------------------------------------------------------------------------------------
// Parameters

function checkParam(value: number, min: number, max: number, field: string, what: string): number {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw invalidInput(`${what} must be an integer from ${min} to ${max}`, field);
  }
  return value;
}

export interface Argon2ParamsInput {
  timeCost?: number | undefined;
  memoryCost?: number | undefined;
  parallelism?: number | undefined;
}

/**
 * The parameters of a new hash from the request's optional `timeCost`, `memoryCost` (KiB) and
 * `parallelism`: defaults filled in, floors and caps enforced, errors naming the request field.
 */
export function resolveArgon2Params(input: Argon2ParamsInput = {}): Argon2Params {
  const t = checkParam(
    input.timeCost ?? ARGON2_DEFAULTS.t,
    ARGON2_MIN.t,
    ARGON2_MAX.t,
    '/timeCost',
    'timeCost (passes)',
  );
  const m = checkParam(
    input.memoryCost ?? ARGON2_DEFAULTS.m,
    ARGON2_MIN.m,
    ARGON2_MAX.m,
    '/memoryCost',
    'memoryCost (KiB)',
  );
  const p = checkParam(
    input.parallelism ?? ARGON2_DEFAULTS.p,
    ARGON2_MIN.p,
    ARGON2_MAX.p,
    '/parallelism',
    'parallelism (lanes)',
  );
  // RFC 9106 §3.1: m >= 8 · p. Always true above the floor (19456 >= 8 · 16), checked all the same.
  if (m < 8 * p) {
    throw invalidInput('memoryCost must be at least 8 KiB per lane', '/memoryCost');
  }
  return { t, m, p };
}

/** Memory that one Argon2 computation with these parameters allocates, for the server's budget. */
export function argon2MemoryBytes(params: Argon2Params): number {
  return params.m * 1024;
}

// ---------------------------------------------------------------------------------------------
// PHC strings: $argon2id$v=19$m=<m>,t=<t>,p=<p>$<salt>$<tag>, base64 without padding

const B64_NO_PAD = /^[A-Za-z0-9+/]+$/;
const PHC_PARAMS = /^m=(0|[1-9][0-9]{0,9}),t=(0|[1-9][0-9]{0,9}),p=(0|[1-9][0-9]{0,9})$/;

function b64NoPad(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64').replace(/=+$/, '');
}

/** Strict decoding: the standard alphabet, no padding, and only the canonical form of each value. */
function fromB64NoPad(text: string): Uint8Array | undefined {
  if (!B64_NO_PAD.test(text) || text.length % 4 === 1) return undefined;
  const bytes = Buffer.from(text, 'base64');
  // Non-zero unused bits in the last character would give several strings for one value.
  return b64NoPad(bytes) === text ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) : undefined;
}

/** The PHC string of an Argon2 (v=19) hash. Both backends go through this one encoder. */
export function encodePhc(variant: Argon2Variant, params: Argon2Params, salt: Uint8Array, tag: Uint8Array): string {
  return `$${variant}$v=${ARGON2_VERSION}$m=${params.m},t=${params.t},p=${params.p}$${b64NoPad(salt)}$${b64NoPad(tag)}`;
}

export interface ParsedPhc {
  variant: Argon2Variant;
  params: Argon2Params;
  salt: Uint8Array;
  tag: Uint8Array;
}

/**
 * Parses and checks a PHC string before any work is done: malformed strings, other versions and
 * parameters beyond this service's caps are INVALID_INPUT on `field`. The message names the rule,
 * never the string.
 */
export function parsePhc(text: string, field = '/hash'): ParsedPhc {
  const malformed = (why: string) => invalidInput(`hash is not an Argon2 PHC string: ${why}`, field);
  if (text.length > PHC_MAX_LENGTH) {
    throw malformed(`longer than ${PHC_MAX_LENGTH} characters`);
  }
  const parts = text.split('$');
  const [empty, variant, version, paramText, saltText, tagText] = parts;
  if (
    parts.length !== 6 ||
    empty !== '' ||
    variant === undefined ||
    version === undefined ||
    paramText === undefined ||
    saltText === undefined ||
    tagText === undefined
  ) {
    throw malformed('expected $argon2id$v=19$m=<KiB>,t=<passes>,p=<lanes>$<salt>$<hash>');
  }
  if (!(ARGON2_VARIANTS as readonly string[]).includes(variant)) {
    throw malformed('the algorithm must be argon2id (argon2i and argon2d hashes are verified too)');
  }
  if (version !== `v=${ARGON2_VERSION}`) {
    throw malformed(`only version ${ARGON2_VERSION} (v=${ARGON2_VERSION}) is supported`);
  }
  const numbers = PHC_PARAMS.exec(paramText);
  if (numbers === null) {
    throw malformed('the parameters must be m=<KiB>,t=<passes>,p=<lanes>, in that order, in decimal');
  }
  const [m, t, p] = [Number(numbers[1]), Number(numbers[2]), Number(numbers[3])];
  if (p < 1 || p > ARGON2_MAX.p) throw malformed(`p must be from 1 to ${ARGON2_MAX.p}`);
  if (t < 1 || t > ARGON2_MAX.t) throw malformed(`t must be from 1 to ${ARGON2_MAX.t}`);
  if (m < 8 * p || m > ARGON2_MAX.m) throw malformed(`m must be from 8 · p to ${ARGON2_MAX.m} KiB`);
  const salt = fromB64NoPad(saltText);
  if (salt === undefined || salt.byteLength < PHC_MIN_SALT_LENGTH || salt.byteLength > PHC_MAX_SALT_LENGTH) {
    throw malformed(`the salt must be ${PHC_MIN_SALT_LENGTH} to ${PHC_MAX_SALT_LENGTH} bytes in unpadded base64`);
  }
  const tag = fromB64NoPad(tagText);
  if (tag === undefined || tag.byteLength < PHC_MIN_TAG_LENGTH || tag.byteLength > PHC_MAX_TAG_LENGTH) {
    throw malformed(`the hash must be ${PHC_MIN_TAG_LENGTH} to ${PHC_MAX_TAG_LENGTH} bytes in unpadded base64`);
  }
  return { variant: variant as Argon2Variant, params: { t, m, p }, salt, tag };
}

/**
 * True when a hash should be replaced at the next successful sign-in: it is anything other than
 * what `hashPassword` makes today (argon2id, the default t, m and p, a 16-byte salt, a 32-byte tag).
 */
export function needsRehash(parsed: ParsedPhc): boolean {
  return (
    parsed.variant !== 'argon2id' ||
    parsed.params.t !== ARGON2_DEFAULTS.t ||
    parsed.params.m !== ARGON2_DEFAULTS.m ||
    parsed.params.p !== ARGON2_DEFAULTS.p ||
    parsed.salt.byteLength !== ARGON2_SALT_LENGTH ||
    parsed.tag.byteLength !== ARGON2_TAG_LENGTH
  );
}

function checkNewPassword(password: Uint8Array): void {
  // Hashing or encrypting under the empty password protects nothing; it is a caller's mistake.
  if (password.byteLength === 0) {
    throw invalidInput('password must not be empty', '/password');
  }
}

export interface HashPasswordOptions {
  /** A fixed salt, for known-answer tests; random 16 bytes otherwise. */
  salt?: Uint8Array | undefined;
  backend?: Argon2Backend | undefined;
}

/** Argon2id hash of a password as a PHC string. `params` come from `resolveArgon2Params`. */
export async function hashPassword(
  password: Uint8Array,
  params: Argon2Params = ARGON2_DEFAULTS,
  options: HashPasswordOptions = {},
): Promise<{ hash: string; params: Argon2Params }> {
  checkNewPassword(password);
  const checked = resolveArgon2Params({ timeCost: params.t, memoryCost: params.m, parallelism: params.p });
  const salt = options.salt ?? new Uint8Array(nodeCrypto.randomBytes(ARGON2_SALT_LENGTH));
  if (salt.byteLength < PHC_MIN_SALT_LENGTH || salt.byteLength > PHC_MAX_SALT_LENGTH) {
    throw invalidInput(`salt must be ${PHC_MIN_SALT_LENGTH} to ${PHC_MAX_SALT_LENGTH} bytes`, '/salt');
  }
  const tag = await argon2Raw(
    { variant: 'argon2id', password, salt, params: checked, tagLength: ARGON2_TAG_LENGTH },
    options.backend,
  );
  return { hash: encodePhc('argon2id', checked, salt, tag), params: checked };
}

/**
 * Checks a password against a PHC string (or one already parsed with `parsePhc`, which is where
 * the caps are enforced). A wrong password is `valid: false`, not an error.
 */
export async function verifyPassword(
  password: Uint8Array,
  hash: string | ParsedPhc,
  options: { backend?: Argon2Backend | undefined } = {},
): Promise<{ valid: boolean; needsRehash: boolean }> {
  const parsed = typeof hash === 'string' ? parsePhc(hash) : hash;
  const tag = await argon2Raw(
    {
      variant: parsed.variant,
      password,
      salt: parsed.salt,
      params: parsed.params,
      tagLength: parsed.tag.byteLength,
    },
    options.backend,
  );
  try {
    return { valid: constantTimeEqual(tag, parsed.tag), needsRehash: needsRehash(parsed) };
  } finally {
    wipe(tag);
  }
}

// ---------------------------------------------------------------------------------------------
// Password-based encryption, format version 1:
//
//   offset  size  field
//        0     1  version = 0x01 (Argon2id v=19, 32-byte key, XChaCha20-Poly1305)
//        1     4  t, unsigned big-endian
//        5     4  m (KiB), unsigned big-endian
//        9     4  p, unsigned big-endian
//       13    16  salt
//       29    24  nonce
//       53     …  ciphertext ‖ tag (16 bytes)
//
// The whole 53-byte header is the AEAD's associated data, so changing any field (a lower cost, a
// different salt) makes decryption fail. The header alone says how to decrypt: a later change of
// defaults or of format keeps old blobs readable.

export const PASSWORD_ENVELOPE_VERSION = 1;
const PREFIX_LENGTH = 1 + 4 + 4 + 4 + ARGON2_SALT_LENGTH;
export const PASSWORD_HEADER_LENGTH = PREFIX_LENGTH + XCHACHA_NONCE_LENGTH;
const ENCRYPTION_KEY_LENGTH = 32;

export interface PasswordEnvelopeHeader {
  version: number;
  params: Argon2Params;
  salt: Uint8Array;
  nonce: Uint8Array;
}

/**
 * Reads the header of an encrypted blob and checks it: a known version, parameters within the
 * floor and the caps, room for a tag. Any fault is the one DECRYPTION_FAILED (no oracle), and no
 * Argon2 work is done for a blob that fails here.
 */
export function parsePasswordEnvelope(blob: Uint8Array): PasswordEnvelopeHeader {
  if (blob.byteLength < PASSWORD_HEADER_LENGTH + POLY1305_TAG_LENGTH) throw decryptionFailed();
  const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
  const version = view.getUint8(0);
  if (version !== PASSWORD_ENVELOPE_VERSION) throw decryptionFailed();
  const params = { t: view.getUint32(1), m: view.getUint32(5), p: view.getUint32(9) };
  const inRange = (value: number, key: keyof Argon2Params) => value >= ARGON2_MIN[key] && value <= ARGON2_MAX[key];
  if (!inRange(params.t, 't') || !inRange(params.m, 'm') || !inRange(params.p, 'p') || params.m < 8 * params.p) {
    throw decryptionFailed();
  }
  return {
    version,
    params,
    salt: blob.slice(13, PREFIX_LENGTH),
    nonce: blob.slice(PREFIX_LENGTH, PASSWORD_HEADER_LENGTH),
  };
}

export interface EncryptWithPasswordOptions {
  /** Argon2id parameters; the defaults unless a test wants them small. Within the floor and caps. */
  params?: Argon2Params | undefined;
  salt?: Uint8Array | undefined;
  nonce?: Uint8Array | undefined;
  backend?: Argon2Backend | undefined;
}

/** Encrypts under a password: header ‖ ciphertext ‖ tag (see the format above). */
export async function encryptWithPassword(
  password: Uint8Array,
  plaintext: Uint8Array,
  options: EncryptWithPasswordOptions = {},
): Promise<Uint8Array> {
  checkNewPassword(password);
  const given = options.params ?? ARGON2_DEFAULTS;
  const params = resolveArgon2Params({ timeCost: given.t, memoryCost: given.m, parallelism: given.p });
  const salt = options.salt ?? new Uint8Array(nodeCrypto.randomBytes(ARGON2_SALT_LENGTH));
  const nonce = options.nonce ?? randomNonce(XCHACHA_NONCE_LENGTH);
  if (salt.byteLength !== ARGON2_SALT_LENGTH) throw invalidInput(`salt must be ${ARGON2_SALT_LENGTH} bytes`, '/salt');
  if (nonce.byteLength !== XCHACHA_NONCE_LENGTH)
    throw invalidInput(`nonce must be ${XCHACHA_NONCE_LENGTH} bytes`, '/nonce');

  const header = new Uint8Array(PASSWORD_HEADER_LENGTH);
  const view = new DataView(header.buffer);
  view.setUint8(0, PASSWORD_ENVELOPE_VERSION);
  view.setUint32(1, params.t);
  view.setUint32(5, params.m);
  view.setUint32(9, params.p);
  header.set(salt, 13);
  header.set(nonce, PREFIX_LENGTH);

  const key = await argon2Raw(
    { variant: 'argon2id', password, salt, params, tagLength: ENCRYPTION_KEY_LENGTH },
    options.backend,
  );
  try {
    // xchachaSeal returns nonce ‖ ciphertext ‖ tag; the nonce is the header's last field.
    const sealed = xchachaSeal(key, plaintext, header, { nonce });
    return concatBytes(header.subarray(0, PREFIX_LENGTH), sealed);
  } finally {
    wipe(key);
  }
}

/**
 * Decrypts a blob from `encryptWithPassword`. Every failure, whatever its cause (unknown version,
 * parameters out of range, wrong password, any changed byte), is the one DECRYPTION_FAILED.
 */
export async function decryptWithPassword(
  password: Uint8Array,
  blob: Uint8Array,
  options: { backend?: Argon2Backend | undefined } = {},
): Promise<Uint8Array> {
  const header = parsePasswordEnvelope(blob);
  const key = await argon2Raw(
    {
      variant: 'argon2id',
      password,
      salt: header.salt,
      params: header.params,
      tagLength: ENCRYPTION_KEY_LENGTH,
    },
    options.backend,
  );
  try {
    return xchachaOpen(key, blob.subarray(PREFIX_LENGTH), blob.subarray(0, PASSWORD_HEADER_LENGTH));
  } finally {
    wipe(key);
  }
}
