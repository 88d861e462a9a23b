/**
 * Multi-recipient encryption: one payload, readable by each of up to 100 recipients.
 *
 * - A fresh 32-byte payload key; the payload is XChaCha20-Poly1305 under it, nonce ‖ ct ‖ tag
 *   (the format of /v2/encrypt), with empty AAD.
 * - One slot per recipient, `{ type, enc, wrappedKey }`: an HPKE (RFC 9180) base-mode single-shot
 *   seal of the payload key to that recipient's public key, suite KEM by slot type
 *   (DHKEM(X25519, HKDF-SHA256), 0x0020, for `x25519`; X-Wing, 0x647a, for `x25519-ml-kem-768`),
 *   HKDF-SHA256, ChaCha20-Poly1305, info = "crypto-service/v2/multi-recipient", empty AAD. Any
 *   RFC 9180 implementation with the slot's KEM opens a slot.
 * - Slots carry no recipient identifier (the recipients' keys are not disclosed by the envelope); a
 *   recipient finds its slot by trying the slots of its type.
 *
 * A hybrid recipient's public key is the X-Wing public key, ML-KEM-768 pk ‖ X25519 pk (1216 B),
 * given whole as `publicKey`, or as its parts: `publicKey` the X25519 key (32 B) and
 * `mlKemPublicKey` the ML-KEM-768 key (1184 B). Its secret key is the 32-byte X-Wing seed, or the
 * seed's two parts (the X25519 private key and the 64-byte ML-KEM-768 seed).
 *
 * What the format does not give: sender authentication. HPKE base mode is anonymous, so anyone who
 * knows a recipient's public key can make an envelope for it, and any recipient, holding the
 * payload key, could re-encrypt a different payload under it for the others. Sign the payload
 * where the origin matters.
 */
import { randomBytes } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { xchachaOpen, xchachaSeal, XCHACHA_KEY_LENGTH, POLY1305_TAG_LENGTH } from './aead.ts';
import { concatBytes } from './bytes.ts';
import { checkLength } from './checks.ts';
import { bytesToHex } from './codec.ts';
import { wipe } from './ct.ts';
import { CryptoError, decryptionFailed, invalidInput, unsupportedAlgorithm } from './errors.ts';
import {
  DHKEM_X25519_HKDF_SHA256,
  hpkeOpen,
  hpkeSeal,
  type EncapOptions,
  type HpkeKem,
  type KemPrivateKey,
} from './hpke.ts';
import { ML_KEM_PARAMETERS } from './ml-kem.ts';
import { X25519_KEY_LENGTH } from './x25519.ts';
import { XWING_HPKE_KEM, XWING_PUBLIC_KEY_LENGTH, xwingHpkePrivateKeyFromParts } from './xwing.ts';

/**
 * The envelope's algorithm identifier: HPKE slots (KEM by slot type, HKDF-SHA256,
 * ChaCha20-Poly1305) around an XChaCha20-Poly1305 payload. A change to the format takes a new
 * identifier, so that envelopes made under this one keep opening.
 */
export const MULTI_RECIPIENT_ALGORITHM = 'hpke-xchacha20-poly1305';
/** HPKE `info` of every slot: binds the slot to this use, so a slot cannot pass for another HPKE message. */
export const MULTI_RECIPIENT_INFO: Uint8Array = new TextEncoder().encode('crypto-service/v2/multi-recipient');
export const MIN_RECIPIENTS = 1;
export const MAX_RECIPIENTS = 100;
export const MULTI_RECIPIENT_PAYLOAD_KEY_LENGTH = XCHACHA_KEY_LENGTH;
/** A slot's wrappedKey: the sealed payload key and its Poly1305 tag, whatever the slot type. */
export const SLOT_WRAPPED_KEY_LENGTH = MULTI_RECIPIENT_PAYLOAD_KEY_LENGTH + POLY1305_TAG_LENGTH;
/** The longest `enc` any slot type carries: X-Wing's 1120 bytes. The request schemas bound their fields with it. */
export const MAX_SLOT_ENC_LENGTH = XWING_HPKE_KEM.Nenc;
/** The longest recipient public key: the combined X-Wing key, ML-KEM-768 pk (1184 B) ‖ X25519 pk (32 B). */
export const MAX_RECIPIENT_PUBLIC_KEY_LENGTH = XWING_PUBLIC_KEY_LENGTH;
export const HYBRID_ML_KEM_PUBLIC_KEY_LENGTH = ML_KEM_PARAMETERS['ml-kem-768'].publicKeyLength;
/** The longest ML-KEM-768 secret key part of a hybrid credential: the expanded decapsulation key. */
export const HYBRID_ML_KEM_SECRET_KEY_MAX_LENGTH = ML_KEM_PARAMETERS['ml-kem-768'].expandedSecretKeyLength;

const EMPTY = new Uint8Array(0);

/**
 * Work between two turns of the event loop, in X25519 slots. Each slot is X25519 and HMAC work on
 * the event loop, so 100 recipients would hold it for tens of milliseconds in one piece; yielding
 * every few slots lets probes and other requests through. An X-Wing slot adds an ML-KEM-768
 * operation (pure JavaScript on Node 22), so it weighs as several.
 */
const WORK_PER_TURN = 8;
const SLOT_WEIGHT: { readonly [Type in RecipientType]: number } = { x25519: 1, 'x25519-ml-kem-768': 4 };

/** Counts work and yields to the event loop whenever a turn's worth has been done. */
function turnTaker(): (weight: number) => Promise<void> {
  let done = 0;
  return async (weight) => {
    if (done >= WORK_PER_TURN) {
      done = 0;
      await nextTurn();
    }
    done += weight;
  };
}

/** The slot types, by their canonical names (the names written into envelopes). */
export const RECIPIENT_TYPES = ['x25519', 'x25519-ml-kem-768'] as const;
export type RecipientType = (typeof RECIPIENT_TYPES)[number];
/** Names accepted on input for the same slot types. */
export const RECIPIENT_TYPE_ALIASES = { classical: 'x25519', pq: 'x25519-ml-kem-768' } as const satisfies Record<
  string,
  RecipientType
>;
/** Every name a request may use for a slot type: canonical names and aliases. */
export const RECIPIENT_TYPE_NAMES: readonly string[] = [...RECIPIENT_TYPES, ...Object.keys(RECIPIENT_TYPE_ALIASES)];

/** The parameter table: the HPKE KEM of each slot type. */
const SLOT_KEMS: { readonly [Type in RecipientType]: HpkeKem } = {
  x25519: DHKEM_X25519_HKDF_SHA256,
  'x25519-ml-kem-768': XWING_HPKE_KEM,
};

export interface RecipientPublicKey {
  /** A slot type: a canonical name or an alias. */
  readonly type: string;
  /**
   * `x25519`: the X25519 public key. `x25519-ml-kem-768`: the whole X-Wing public key (1216 B),
   * or, with `mlKemPublicKey`, its X25519 part (32 B).
   */
  readonly publicKey: Uint8Array;
  /** The ML-KEM-768 part of a hybrid recipient's key; refused for an `x25519` recipient. */
  readonly mlKemPublicKey?: Uint8Array | undefined;
}

export interface RecipientSlot {
  readonly type: RecipientType;
  readonly enc: Uint8Array;
  readonly wrappedKey: Uint8Array;
}

/** A slot as a request carries it: the type may be an alias, and nothing is trusted yet. */
export interface EnvelopeSlot {
  readonly type: string;
  readonly enc: Uint8Array;
  readonly wrappedKey: Uint8Array;
}

export interface MultiRecipientEnvelope {
  readonly ciphertext: Uint8Array;
  readonly recipients: RecipientSlot[];
  readonly algorithm: typeof MULTI_RECIPIENT_ALGORITHM;
}

/** The credential of one recipient; errors name the request fields (in comments). */
export interface X25519RecipientSecret {
  readonly type: 'x25519';
  /** `recipientSecretKey`. */
  readonly secretKey: Uint8Array;
}
export interface HybridRecipientSeed {
  readonly type: 'x25519-ml-kem-768';
  /** `secretKey`: the 32-byte X-Wing seed. */
  readonly secretKey: Uint8Array;
}
export interface HybridRecipientParts {
  readonly type: 'x25519-ml-kem-768';
  /** `x25519SecretKey`: the X25519 private key the seed expands to. */
  readonly x25519SecretKey: Uint8Array;
  /** `mlKemSecretKey`: the 64-byte ML-KEM-768 seed the seed expands to (or its expanded key). */
  readonly mlKemSecretKey: Uint8Array;
}
export type RecipientSecret = X25519RecipientSecret | HybridRecipientSeed | HybridRecipientParts;

/** Canonical slot type of a name, or undefined when the name is not one. */
export function canonicalRecipientType(name: string): RecipientType | undefined {
  if ((RECIPIENT_TYPES as readonly string[]).includes(name)) return name as RecipientType;
  return Object.hasOwn(RECIPIENT_TYPE_ALIASES, name)
    ? RECIPIENT_TYPE_ALIASES[name as keyof typeof RECIPIENT_TYPE_ALIASES]
    : undefined;
}

function slotKem(name: string, field: string): { type: RecipientType; kem: HpkeKem } {
  const type = canonicalRecipientType(name);
  if (type === undefined) {
    throw unsupportedAlgorithm(`unknown recipient type; use one of: ${RECIPIENT_TYPE_NAMES.join(', ')}`, field);
  }
  return { type, kem: SLOT_KEMS[type] };
}

function checkRecipientCount(count: number): void {
  if (count < MIN_RECIPIENTS || count > MAX_RECIPIENTS) {
    throw invalidInput(
      `recipients must list ${MIN_RECIPIENTS} to ${MAX_RECIPIENTS} entries (got ${count})`,
      '/recipients',
    );
  }
}

/**
 * The public key a slot is sealed to, checked for its type, and the labels that errors name.
 * A hybrid key given as parts is joined into the X-Wing public key (ML-KEM-768 pk ‖ X25519 pk).
 */
function slotPublicKey(
  type: RecipientType,
  recipient: RecipientPublicKey,
  entry: string,
): { publicKey: Uint8Array; options: EncapOptions } {
  const label = `${entry}/publicKey`;
  const mlKemLabel = `${entry}/mlKemPublicKey`;
  if (type === 'x25519') {
    if (recipient.mlKemPublicKey !== undefined) {
      throw invalidInput(`${mlKemLabel} applies only to x25519-ml-kem-768 recipients`, `/${mlKemLabel}`);
    }
    checkLength(recipient.publicKey, X25519_KEY_LENGTH, label);
    return { publicKey: recipient.publicKey, options: { label } };
  }
  if (recipient.mlKemPublicKey === undefined) {
    if (recipient.publicKey.byteLength !== XWING_PUBLIC_KEY_LENGTH) {
      throw invalidInput(
        `${label} must be the ${XWING_PUBLIC_KEY_LENGTH}-byte X-Wing public key, or the ${X25519_KEY_LENGTH}-byte X25519 public key given with mlKemPublicKey (got ${recipient.publicKey.byteLength})`,
        `/${label}`,
      );
    }
    return { publicKey: recipient.publicKey, options: { label } };
  }
  if (recipient.publicKey.byteLength !== X25519_KEY_LENGTH) {
    throw invalidInput(
      `${label} must be the ${X25519_KEY_LENGTH}-byte X25519 public key when mlKemPublicKey is given (got ${recipient.publicKey.byteLength})`,
      `/${label}`,
    );
  }
  checkLength(recipient.mlKemPublicKey, HYBRID_ML_KEM_PUBLIC_KEY_LENGTH, mlKemLabel);
  const publicKey = concatBytes(recipient.mlKemPublicKey, recipient.publicKey);
  return { publicKey, options: { label, partLabels: { mlKem: mlKemLabel, x25519: label } } };
}

/**
 * Encrypts `plaintext` for every recipient. All recipients are checked before any work is done: a
 * bad entry is refused with its index in the field (`/recipients/3/publicKey`). A public key listed
 * twice is refused too: the second slot would serve no one, and a repeated key is far more likely
 * a mistake in the caller's list than an intent.
 */
export async function multiRecipientEncrypt(
  plaintext: Uint8Array,
  recipients: readonly RecipientPublicKey[],
): Promise<MultiRecipientEnvelope> {
  checkRecipientCount(recipients.length);
  const seen = new Map<string, number>();
  const plan = recipients.map((recipient, index) => {
    const entry = `recipients/${index}`;
    const { type, kem } = slotKem(recipient.type, `/${entry}/type`);
    const { publicKey, options } = slotPublicKey(type, recipient, entry);
    // Public keys: an ordinary map lookup is fine, nothing secret is compared. A hybrid key is
    // compared whole, so one recipient given once whole and once as parts is caught too.
    const key = `${type}:${bytesToHex(publicKey)}`;
    const first = seen.get(key);
    if (first !== undefined) {
      throw invalidInput(
        `${entry}/publicKey repeats recipients/${first}/publicKey; list each recipient once`,
        `/${entry}/publicKey`,
      );
    }
    seen.set(key, index);
    return { type, kem, publicKey, options };
  });

  const payloadKey = new Uint8Array(randomBytes(MULTI_RECIPIENT_PAYLOAD_KEY_LENGTH));
  try {
    const ciphertext = xchachaSeal(payloadKey, plaintext);
    // One slot after another: a KEM that works on the thread pool should not take all of it for
    // one request of 100 recipients.
    const slots: RecipientSlot[] = [];
    const takeTurn = turnTaker();
    for (const { type, kem, publicKey, options } of plan) {
      await takeTurn(SLOT_WEIGHT[type]);
      const { enc, ciphertext: wrappedKey } = await hpkeSeal(
        kem,
        publicKey,
        MULTI_RECIPIENT_INFO,
        EMPTY,
        payloadKey,
        options,
      );
      slots.push({ type, enc, wrappedKey });
    }
    return { ciphertext, recipients: slots, algorithm: MULTI_RECIPIENT_ALGORITHM };
  } finally {
    wipe(payloadKey);
  }
}

/** The payload key of one slot, or undefined if the slot does not open with this key. */
async function openSlot(kem: HpkeKem, privateKey: KemPrivateKey, slot: EnvelopeSlot): Promise<Uint8Array | undefined> {
  let payloadKey: Uint8Array;
  try {
    payloadKey = await hpkeOpen(kem, privateKey, slot.enc, MULTI_RECIPIENT_INFO, EMPTY, slot.wrappedKey);
  } catch (error) {
    if (error instanceof CryptoError && error.code === 'DECRYPTION_FAILED') return undefined;
    throw error;
  }
  // Anyone can seal a slot to a public key, so what opens is not trusted to be a key of the right size.
  if (payloadKey.byteLength !== MULTI_RECIPIENT_PAYLOAD_KEY_LENGTH) {
    wipe(payloadKey);
    return undefined;
  }
  return payloadKey;
}

/** Reads a recipient's secret key once (INVALID_INPUT naming its field if malformed). */
async function recipientPrivateKey(recipient: RecipientSecret): Promise<KemPrivateKey> {
  if (recipient.type === 'x25519')
    return DHKEM_X25519_HKDF_SHA256.importPrivateKey(recipient.secretKey, 'recipientSecretKey');
  if ('secretKey' in recipient) return XWING_HPKE_KEM.importPrivateKey(recipient.secretKey, 'secretKey');
  return xwingHpkePrivateKeyFromParts(
    { x25519PrivateKey: recipient.x25519SecretKey, mlKemSecretKey: recipient.mlKemSecretKey },
    { x25519: 'x25519SecretKey', mlKem: 'mlKemSecretKey' },
  );
}

/**
 * Decrypts an envelope with one recipient's secret key: every slot of the recipient's type is
 * tried in order until one yields a key that opens the payload. Every failure (no slot of that
 * type, a wrong key, a tampered slot or payload) is the one decryptionFailed(): no oracle. A
 * malformed secret key is the caller's input error (invalidInput naming its field:
 * `/recipientSecretKey`, `/secretKey`, `/x25519SecretKey` or `/mlKemSecretKey`).
 */
export async function multiRecipientDecrypt(
  envelope: { readonly ciphertext: Uint8Array; readonly recipients: readonly EnvelopeSlot[] },
  recipient: RecipientSecret,
): Promise<Uint8Array> {
  checkRecipientCount(envelope.recipients.length);
  const slots = envelope.recipients.map((slot, index) => ({ slot, type: slotType(slot.type, index) }));
  const kem = SLOT_KEMS[recipient.type];
  const privateKey = await recipientPrivateKey(recipient);
  try {
    const takeTurn = turnTaker();
    for (const { slot, type } of slots) {
      if (type !== recipient.type) continue;
      await takeTurn(SLOT_WEIGHT[type]);
      const payloadKey = await openSlot(kem, privateKey, slot);
      if (payloadKey === undefined) continue;
      try {
        return xchachaOpen(payloadKey, envelope.ciphertext);
      } catch (error) {
        if (!(error instanceof CryptoError && error.code === 'DECRYPTION_FAILED')) throw error;
      } finally {
        wipe(payloadKey);
      }
    }
    throw decryptionFailed();
  } finally {
    privateKey.wipe?.();
  }
}

/** The canonical type of a slot in a request; an unknown type is the caller's error. */
function slotType(name: string, index: number): RecipientType {
  const type = canonicalRecipientType(name);
  if (type === undefined) {
    throw unsupportedAlgorithm(
      `unknown recipient type; use one of: ${RECIPIENT_TYPE_NAMES.join(', ')}`,
      `/recipients/${index}/type`,
    );
  }
  return type;
}
