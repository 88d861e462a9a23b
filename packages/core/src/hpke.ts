/**
 * HPKE (RFC 9180), base mode, single shot: one message sealed at sequence number 0 under a context
 * that is used once. KDF HKDF-SHA256 (0x0001) and AEAD ChaCha20-Poly1305 (0x0003) are fixed; the KEM
 * is a pluggable object (`HpkeKem`), so that a second KEM (X-Wing, 0x647a) can join
 * DHKEM(X25519, HKDF-SHA256) (0x0020) without touching the key schedule.
 *
 * Backends: X25519 is x25519.ts's (node:crypto); HMAC-SHA256 is @noble/hashes', because one seal
 * takes about ten HMACs of short inputs, where a node:crypto Hmac object costs more to create than
 * @noble's whole HMAC (mac.ts, NOBLE_HMAC_BELOW); ChaCha20-Poly1305 is as in aead.ts, @noble/ciphers
 * below NATIVE_AEAD_THRESHOLD and node:crypto from it, with identical output.
 *
 * The KEM operations are asynchronous (see HpkeKem), and so are seal and open; the KDF and AEAD
 * steps are synchronous and cheap (a few HMACs and one short cipher call per message).
 *
 * Errors: a malformed key supplied by the caller is an invalidInput that names its field; anything
 * that goes wrong while opening (bad enc, low-order enc, wrong key, tampered ciphertext) is the one
 * decryptionFailed(), so that an open is no oracle.
 */
import { randomBytes } from 'node:crypto';
import { createCipheriv } from './node-crypto.ts';
import { chacha20poly1305 } from '@noble/ciphers/chacha.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { aeadBackendFor, nativeChaCha20Poly1305Open, POLY1305_TAG_LENGTH, type AeadBackend } from './aead.ts';
import { bigEndianBytes, concatBytes } from './bytes.ts';
import { checkLength } from './checks.ts';
import { wipe } from './ct.ts';
import { decryptionFailed, invalidInput, openOrFail } from './errors.ts';
import {
  x25519,
  X25519_KEY_LENGTH,
  x25519PrivateKeyObject,
  x25519PublicKeyBytes,
  x25519PublicKeyOf,
} from './x25519.ts';

/** RFC 9180 Table 1. Only the base mode is offered: no PSK, no sender authentication. */
export const HPKE_MODE_BASE = 0x00;
/** RFC 9180 Table 3 / Table 5. */
export const HPKE_KDF_HKDF_SHA256 = 0x0001;
export const HPKE_AEAD_CHACHA20_POLY1305 = 0x0003;
/** RFC 9180 Table 2. */
export const HPKE_KEM_DHKEM_X25519_HKDF_SHA256 = 0x0020;

/** HKDF-SHA256: Nh. */
const KDF_HASH_LENGTH = 32;
/** ChaCha20-Poly1305: Nk, Nn, Nt. */
export const HPKE_AEAD_KEY_LENGTH = 32;
export const HPKE_AEAD_NONCE_LENGTH = 12;
export const HPKE_AEAD_TAG_LENGTH = POLY1305_TAG_LENGTH;

const EMPTY = new Uint8Array(0);
const encoder = new TextEncoder();
const HPKE_V1 = encoder.encode('HPKE-v1');

// ---------------------------------------------------------------------------------------------
// HKDF-SHA256 (RFC 5869). HPKE calls Extract and Expand separately with its own labels, which
// node:crypto's one-call hkdfSync cannot do, so both are written here over HMAC.

function hmacSha256(key: Uint8Array, data: Uint8Array): Uint8Array {
  return hmac(sha256, key, data);
}

/** Extract(salt, ikm). An empty salt is the same HMAC key as HashLen zero bytes (RFC 5869 §2.2). */
export function hpkeKdfExtract(salt: Uint8Array, ikm: Uint8Array): Uint8Array {
  return hmacSha256(salt, ikm);
}

/** Expand(prk, info, L): T(1) ‖ T(2) ‖ … truncated to L bytes; L ≤ 255·Nh. */
export function hpkeKdfExpand(prk: Uint8Array, info: Uint8Array, length: number): Uint8Array {
  if (!Number.isInteger(length) || length < 0 || length > 255 * KDF_HASH_LENGTH) {
    throw new RangeError(`HKDF-Expand length ${length} is out of range`);
  }
  const out = new Uint8Array(length);
  let previous: Uint8Array = EMPTY;
  for (let counter = 1, offset = 0; offset < length; counter++) {
    const block = hmacSha256(prk, concatBytes(previous, info, Uint8Array.of(counter)));
    out.set(block.subarray(0, Math.min(block.byteLength, length - offset)), offset);
    offset += block.byteLength;
    wipe(previous);
    previous = block;
  }
  wipe(previous);
  return out;
}

/** LabeledExtract (RFC 9180 §4): Extract(salt, "HPKE-v1" ‖ suite_id ‖ label ‖ ikm). */
export function labeledExtract(suiteId: Uint8Array, salt: Uint8Array, label: string, ikm: Uint8Array): Uint8Array {
  const labeledIkm = concatBytes(HPKE_V1, suiteId, encoder.encode(label), ikm);
  try {
    return hpkeKdfExtract(salt, labeledIkm);
  } finally {
    wipe(labeledIkm);
  }
}

/** LabeledExpand (RFC 9180 §4): Expand(prk, I2OSP(L, 2) ‖ "HPKE-v1" ‖ suite_id ‖ label ‖ info, L). */
export function labeledExpand(
  suiteId: Uint8Array,
  prk: Uint8Array,
  label: string,
  info: Uint8Array,
  length: number,
): Uint8Array {
  return hpkeKdfExpand(
    prk,
    concatBytes(bigEndianBytes(length, 2), HPKE_V1, suiteId, encoder.encode(label), info),
    length,
  );
}

// ---------------------------------------------------------------------------------------------
// The KEM interface (RFC 9180 §4).

export interface KemKeyPair {
  /** SerializePrivateKey(sk): Nsk bytes. */
  readonly secretKey: Uint8Array;
  /** SerializePublicKey(pk): Npk bytes. */
  readonly publicKey: Uint8Array;
}

export interface Encapsulation {
  /** The KEM shared secret, Nsecret bytes. The caller wipes it. */
  readonly sharedSecret: Uint8Array;
  /** The encapsulated key, Nenc bytes: public, travels with the ciphertext. */
  readonly enc: Uint8Array;
}

export interface EncapOptions {
  /**
   * The encapsulation's randomness, Nseed bytes, for deterministic tests only; fresh random bytes
   * otherwise. For a DHKEM it is RFC 9180's ikmE: the ephemeral key pair is DeriveKeyPair(seed).
   */
  seed?: Uint8Array;
  /** The request field that carries the public key, named by the error if the key is refused. */
  label?: string;
  /**
   * For a hybrid KEM whose public key joins two keys (X-Wing: ML-KEM-768 pk ‖ X25519 pk) that the
   * request sent as two fields: those fields, so that an error names the part at fault.
   */
  partLabels?: { readonly mlKem: string; readonly x25519: string };
}

/**
 * A private key parsed once, so that one recipient can try many encapsulations (one per slot of a
 * multi-recipient envelope) without parsing the key and recomputing pk(skR) each time.
 */
export interface KemPrivateKey {
  readonly kemId: number;
  /** SerializePublicKey(pk(skR)). */
  readonly publicKey: Uint8Array;
  /** Decap(enc, skR); every failure is decryptionFailed(). */
  decap(enc: Uint8Array): Promise<Uint8Array>;
  /**
   * Clears the secret bytes the object holds, where it holds any in JavaScript memory (X-Wing keeps
   * the expanded parts of its seed; DHKEM's key lives inside OpenSSL and has nothing to clear).
   */
  wipe?(): void;
}

/**
 * A KEM for HPKE. Encap, Decap, key import and generation return promises, so that a KEM whose
 * backend runs off the event loop (ML-KEM through node:crypto's thread-pool forms, as X-Wing
 * does) plugs in as it is; DHKEM(X25519) simply resolves at once. DeriveKeyPair stays synchronous:
 * it serves test vectors and key derivation from a seed.
 */
export interface HpkeKem {
  /** kem_id (RFC 9180 Table 2, or the KEM's own registration). */
  readonly id: number;
  readonly name: string;
  readonly Nsecret: number;
  readonly Nenc: number;
  readonly Npk: number;
  readonly Nsk: number;
  /** Length of the `seed` that makes encap deterministic. */
  readonly Nseed: number;
  /** DeriveKeyPair(ikm): deterministic, for test vectors and for GenerateKeyPair. */
  deriveKeyPair(ikm: Uint8Array): KemKeyPair;
  generateKeyPair(): Promise<KemKeyPair>;
  /** Encap(pkR). A malformed or unusable public key is an invalidInput naming `options.label`. */
  encap(publicKey: Uint8Array, options?: EncapOptions): Promise<Encapsulation>;
  /** DeserializePrivateKey(skRm). A malformed key is an invalidInput naming `label`. */
  importPrivateKey(secretKey: Uint8Array, label?: string): Promise<KemPrivateKey>;
  /** Decap(enc, skR); every failure (bad enc, wrong key) is decryptionFailed(). */
  decap(enc: Uint8Array, recipient: Uint8Array | KemPrivateKey): Promise<Uint8Array>;
}

// ---------------------------------------------------------------------------------------------
// DHKEM(X25519, HKDF-SHA256) (RFC 9180 §4.1, §7.1).

function createDhkemX25519(): HpkeKem {
  const id = HPKE_KEM_DHKEM_X25519_HKDF_SHA256;
  const suiteId = concatBytes(encoder.encode('KEM'), bigEndianBytes(id, 2));
  const Nsecret = 32;
  const Nsk = X25519_KEY_LENGTH;
  const Npk = X25519_KEY_LENGTH;
  const name = 'DHKEM(X25519, HKDF-SHA256)';

  function extractAndExpand(dh: Uint8Array, kemContext: Uint8Array): Uint8Array {
    const prk = labeledExtract(suiteId, EMPTY, 'eae_prk', dh);
    try {
      return labeledExpand(suiteId, prk, 'shared_secret', kemContext, Nsecret);
    } finally {
      wipe(prk);
    }
  }

  function deriveKeyPair(ikm: Uint8Array): KemKeyPair {
    // RFC 9180 §7.1.3: for X25519 any 32 bytes are a private key (clamping happens inside X25519).
    const prk = labeledExtract(suiteId, EMPTY, 'dkp_prk', ikm);
    try {
      const secretKey = labeledExpand(suiteId, prk, 'sk', EMPTY, Nsk);
      return { secretKey, publicKey: x25519PublicKeyOf(secretKey) };
    } finally {
      wipe(prk);
    }
  }

  async function importPrivateKey(secretKey: Uint8Array, label = 'privateKey'): Promise<KemPrivateKey> {
    checkLength(secretKey, Nsk, label);
    const key = x25519PrivateKeyObject(secretKey);
    const publicKey = x25519PublicKeyBytes(key);
    return {
      kemId: id,
      publicKey,
      async decap(enc: Uint8Array): Promise<Uint8Array> {
        if (enc.byteLength !== Npk) throw decryptionFailed();
        // RFC 9180 §7.1.4: a low-order enc is refused (x25519.ts), as any failure to open is.
        const dh = x25519(key, enc, decryptionFailed);
        const kemContext = concatBytes(enc, publicKey);
        try {
          return extractAndExpand(dh, kemContext);
        } finally {
          wipe(dh, kemContext);
        }
      },
    };
  }

  return {
    id,
    name,
    Nsecret,
    Nenc: Npk,
    Npk,
    Nsk,
    Nseed: Nsk,
    deriveKeyPair,
    async generateKeyPair(): Promise<KemKeyPair> {
      const ikm = new Uint8Array(randomBytes(Nsk));
      try {
        return deriveKeyPair(ikm);
      } finally {
        wipe(ikm);
      }
    },
    async encap(publicKey: Uint8Array, options: EncapOptions = {}): Promise<Encapsulation> {
      const label = options.label ?? 'publicKey';
      checkLength(publicKey, Npk, label);
      if (options.seed !== undefined) checkLength(options.seed, Nsk, 'seed');
      // GenerateKeyPair() = DeriveKeyPair(random(Nsk)) (RFC 9180 §4): one code path, so that the
      // fixed-seed test vectors exercise exactly what runs in production.
      const ikm = options.seed ?? new Uint8Array(randomBytes(Nsk));
      const ephemeral = deriveKeyPair(ikm);
      try {
        // RFC 9180 §7.1.4: a low-order recipient key is refused (x25519.ts).
        const dh = x25519(
          x25519PrivateKeyObject(ephemeral.secretKey),
          publicKey,
          () =>
            invalidInput(`${label} is a low-order X25519 point (the shared secret would be all zeros)`, `/${label}`),
          { isRecipient: true },
        );
        const kemContext = concatBytes(ephemeral.publicKey, publicKey);
        try {
          return { sharedSecret: extractAndExpand(dh, kemContext), enc: ephemeral.publicKey };
        } finally {
          wipe(dh, kemContext);
        }
      } finally {
        wipe(ephemeral.secretKey);
        if (options.seed === undefined) wipe(ikm);
      }
    },
    importPrivateKey,
    async decap(enc: Uint8Array, recipient: Uint8Array | KemPrivateKey): Promise<Uint8Array> {
      const key = recipient instanceof Uint8Array ? await importPrivateKey(recipient) : recipient;
      if (key.kemId !== id)
        throw new TypeError(`a private key of KEM 0x${key.kemId.toString(16)} was given to ${name}`);
      return key.decap(enc);
    },
  };
}

/** DHKEM(X25519, HKDF-SHA256), kem_id 0x0020. */
export const DHKEM_X25519_HKDF_SHA256: HpkeKem = createDhkemX25519();

// ---------------------------------------------------------------------------------------------
// ChaCha20-Poly1305 (RFC 8439), the AEAD of the suite.

/** Seal(key, nonce, aad, pt) → ciphertext ‖ tag. */
export function chacha20Poly1305Seal(
  key: Uint8Array,
  nonce: Uint8Array,
  aad: Uint8Array,
  plaintext: Uint8Array,
  backend: AeadBackend = 'auto',
): Uint8Array {
  checkLength(key, HPKE_AEAD_KEY_LENGTH, 'key');
  checkLength(nonce, HPKE_AEAD_NONCE_LENGTH, 'nonce');
  if (aeadBackendFor(backend, plaintext.byteLength) === 'noble') {
    return chacha20poly1305(key, nonce, aad).encrypt(plaintext);
  }
  const cipher = createCipheriv('chacha20-poly1305', key, nonce, { authTagLength: HPKE_AEAD_TAG_LENGTH });
  cipher.setAAD(aad, { plaintextLength: plaintext.byteLength });
  const out = new Uint8Array(plaintext.byteLength + HPKE_AEAD_TAG_LENGTH);
  const body = cipher.update(plaintext);
  out.set(body, 0);
  out.set(cipher.final(), body.byteLength);
  out.set(cipher.getAuthTag(), plaintext.byteLength);
  return out;
}

/** Open(key, nonce, aad, ct); every failure is decryptionFailed(). */
export function chacha20Poly1305Open(
  key: Uint8Array,
  nonce: Uint8Array,
  aad: Uint8Array,
  ciphertext: Uint8Array,
  backend: AeadBackend = 'auto',
): Uint8Array {
  checkLength(key, HPKE_AEAD_KEY_LENGTH, 'key');
  checkLength(nonce, HPKE_AEAD_NONCE_LENGTH, 'nonce');
  if (ciphertext.byteLength < HPKE_AEAD_TAG_LENGTH) throw decryptionFailed();
  if (aeadBackendFor(backend, ciphertext.byteLength - HPKE_AEAD_TAG_LENGTH) === 'noble') {
    return openOrFail(() => chacha20poly1305(key, nonce, aad).decrypt(ciphertext));
  }
  return nativeChaCha20Poly1305Open(key, nonce, aad, ciphertext);
}

// ---------------------------------------------------------------------------------------------
// The key schedule and the single-shot API (RFC 9180 §5.1, §6.1).

/** suite_id = "HPKE" ‖ I2OSP(kem_id, 2) ‖ I2OSP(kdf_id, 2) ‖ I2OSP(aead_id, 2). */
export function hpkeSuiteId(kem: HpkeKem): Uint8Array {
  return concatBytes(
    encoder.encode('HPKE'),
    bigEndianBytes(kem.id, 2),
    bigEndianBytes(HPKE_KDF_HKDF_SHA256, 2),
    bigEndianBytes(HPKE_AEAD_CHACHA20_POLY1305, 2),
  );
}

export interface HpkeKeySchedule {
  readonly keyScheduleContext: Uint8Array;
  readonly secret: Uint8Array;
  readonly key: Uint8Array;
  readonly baseNonce: Uint8Array;
}

/**
 * KeySchedule(mode_base, shared_secret, info, psk = "", psk_id = ""). The exporter secret is not
 * derived: nothing here exports secrets. The caller wipes `secret`, `key` and `baseNonce`.
 */
export function hpkeKeySchedule(kem: HpkeKem, sharedSecret: Uint8Array, info: Uint8Array): HpkeKeySchedule {
  const suiteId = hpkeSuiteId(kem);
  const pskIdHash = labeledExtract(suiteId, EMPTY, 'psk_id_hash', EMPTY);
  const infoHash = labeledExtract(suiteId, EMPTY, 'info_hash', info);
  const keyScheduleContext = concatBytes(Uint8Array.of(HPKE_MODE_BASE), pskIdHash, infoHash);
  const secret = labeledExtract(suiteId, sharedSecret, 'secret', EMPTY);
  return {
    keyScheduleContext,
    secret,
    key: labeledExpand(suiteId, secret, 'key', keyScheduleContext, HPKE_AEAD_KEY_LENGTH),
    baseNonce: labeledExpand(suiteId, secret, 'base_nonce', keyScheduleContext, HPKE_AEAD_NONCE_LENGTH),
  };
}

function wipeSchedule(schedule: HpkeKeySchedule | undefined): void {
  if (schedule !== undefined) wipe(schedule.secret, schedule.key, schedule.baseNonce);
}

export interface HpkeSealOptions extends EncapOptions {
  backend?: AeadBackend;
}

/**
 * SealBase(pkR, info, aad, pt) (RFC 9180 §6.1): a fresh context, one message at sequence 0, whose
 * nonce is base_nonce itself (base_nonce xor I2OSP(0, Nn)).
 */
export async function hpkeSeal(
  kem: HpkeKem,
  recipientPublicKey: Uint8Array,
  info: Uint8Array,
  aad: Uint8Array,
  plaintext: Uint8Array,
  options: HpkeSealOptions = {},
): Promise<{ enc: Uint8Array; ciphertext: Uint8Array }> {
  const { sharedSecret, enc } = await kem.encap(recipientPublicKey, options);
  let schedule: HpkeKeySchedule | undefined;
  try {
    schedule = hpkeKeySchedule(kem, sharedSecret, info);
    return { enc, ciphertext: chacha20Poly1305Seal(schedule.key, schedule.baseNonce, aad, plaintext, options.backend) };
  } finally {
    wipe(sharedSecret);
    wipeSchedule(schedule);
  }
}

/**
 * OpenBase(enc, skR, info, aad, ct) (RFC 9180 §6.1). A malformed private key is an invalidInput;
 * every other failure is decryptionFailed().
 */
export async function hpkeOpen(
  kem: HpkeKem,
  recipient: Uint8Array | KemPrivateKey,
  enc: Uint8Array,
  info: Uint8Array,
  aad: Uint8Array,
  ciphertext: Uint8Array,
  options: { backend?: AeadBackend } = {},
): Promise<Uint8Array> {
  const sharedSecret = await kem.decap(enc, recipient);
  let schedule: HpkeKeySchedule | undefined;
  try {
    schedule = hpkeKeySchedule(kem, sharedSecret, info);
    return chacha20Poly1305Open(schedule.key, schedule.baseNonce, aad, ciphertext, options.backend);
  } finally {
    wipe(sharedSecret);
    wipeSchedule(schedule);
  }
}
