/**
 * Multi-recipient encryption (contract §6): one payload, readable by each of up to 100 recipients.
 *
 * - A fresh 32-byte payload key; the payload is XChaCha20-Poly1305 under it, nonce ‖ ct ‖ tag
 *   (the format of /v2/encrypt), with empty AAD.
 * - One slot per recipient, `{ type, enc, wrappedKey }`: an HPKE (RFC 9180) base-mode single-shot
 *   seal of the payload key to that recipient's public key, suite KEM by slot type (DHKEM(X25519,
 *   HKDF-SHA256), 0x0020, for `x25519`), HKDF-SHA256, ChaCha20-Poly1305, info =
 *   "crypto-service/v2/multi-recipient", empty AAD. Any RFC 9180 implementation opens a slot.
 * - Slots carry no recipient identifier (the recipients' keys are not disclosed by the envelope); a
 *   recipient finds its slot by trying the slots of its type.
 *
 * What the format does not give: sender authentication. HPKE base mode is anonymous, so anyone who
 * knows a recipient's public key can make an envelope for it, and any recipient, holding the
 * payload key, could re-encrypt a different payload under it for the others. Sign the payload
 * where the origin matters.
 */
import { randomBytes } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { xchachaOpen, xchachaSeal, XCHACHA_KEY_LENGTH, POLY1305_TAG_LENGTH } from './aead.ts';
import { checkLength } from './checks.ts';
import { bytesToHex } from './codec.ts';
import { wipe } from './ct.ts';
import { CryptoError, decryptionFailed, invalidInput, unsupportedAlgorithm } from './errors.ts';
import { DHKEM_X25519_HKDF_SHA256, hpkeOpen, hpkeSeal, type HpkeKem, type KemPrivateKey } from './hpke.ts';

/**
 * The envelope's algorithm identifier: HPKE slots (KEM by slot type, HKDF-SHA256,
 * ChaCha20-Poly1305) around an XChaCha20-Poly1305 payload. A change to the format takes a new
 * identifier, so that envelopes made under this one keep opening (contract §8).
 */
export const MULTI_RECIPIENT_ALGORITHM = 'hpke-xchacha20-poly1305';
/** HPKE `info` of every slot: binds the slot to this use, so a slot cannot pass for another HPKE message. */
export const MULTI_RECIPIENT_INFO: Uint8Array = new TextEncoder().encode('crypto-service/v2/multi-recipient');
export const MIN_RECIPIENTS = 1;
export const MAX_RECIPIENTS = 100;
export const MULTI_RECIPIENT_PAYLOAD_KEY_LENGTH = XCHACHA_KEY_LENGTH;
/** A slot's wrappedKey: the sealed payload key and its Poly1305 tag, whatever the slot type. */
export const SLOT_WRAPPED_KEY_LENGTH = MULTI_RECIPIENT_PAYLOAD_KEY_LENGTH + POLY1305_TAG_LENGTH;
/**
 * The longest `enc` any slot type will carry: X-Wing's 1120 bytes (contract §6). The request
 * schemas bound their fields with it, so that they need no change when the hybrid slot arrives.
 */
export const MAX_SLOT_ENC_LENGTH = 1120;
/** The longest recipient public key: the combined X-Wing key, ML-KEM-768 pk (1184 B) ‖ X25519 pk (32 B). */
export const MAX_RECIPIENT_PUBLIC_KEY_LENGTH = 1216;
export const HYBRID_ML_KEM_PUBLIC_KEY_LENGTH = 1184;

const EMPTY = new Uint8Array(0);

/**
 * Slots handled between two turns of the event loop. A slot costs about 0.3-0.8 ms of X25519 and
 * HMAC work on the event loop (on a loaded 2-core host), so 100 recipients would hold it for tens
 * of milliseconds in one piece; yielding every few slots lets probes and other requests through.
 */
const SLOTS_PER_TURN = 8;

/** The slot types of contract §5, by their canonical names (the names written into envelopes). */
export const RECIPIENT_TYPES = ['x25519', 'x25519-ml-kem-768'] as const;
export type RecipientType = (typeof RECIPIENT_TYPES)[number];
/** Names accepted on input for the same slot types. */
export const RECIPIENT_TYPE_ALIASES = { classical: 'x25519', pq: 'x25519-ml-kem-768' } as const satisfies Record<string, RecipientType>;
/** Every name a request may use for a slot type: canonical names and aliases. */
export const RECIPIENT_TYPE_NAMES: readonly string[] = [...RECIPIENT_TYPES, ...Object.keys(RECIPIENT_TYPE_ALIASES)];

/**
 * The parameter table: the HPKE KEM of each slot type this service can seal to. The hybrid type
 * `x25519-ml-kem-768` (X-Wing, 0x647a) joins it with the post-quantum work.
 */
const SLOT_KEMS: { readonly [Type in RecipientType]?: HpkeKem } = {
  x25519: DHKEM_X25519_HKDF_SHA256,
};

/** The registry's `kem` family: KEM identifiers the service accepts (ML-KEM and X-Wing join later). */
export const KEM_ALGORITHM_IDS: readonly string[] = RECIPIENT_TYPES.filter((type) => SLOT_KEMS[type] !== undefined);

export interface RecipientPublicKey {
  /** A slot type: a canonical name or an alias. */
  readonly type: string;
  readonly publicKey: Uint8Array;
  /** The ML-KEM-768 half of a hybrid recipient's key; refused for an `x25519` recipient. */
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

/** The credential of one recipient. Hybrid recipients (X-Wing seed, or its two parts) join later. */
export interface X25519RecipientSecret {
  readonly type: 'x25519';
  readonly secretKey: Uint8Array;
}
export type RecipientSecret = X25519RecipientSecret;

/** Canonical slot type of a name, or undefined when the name is not one. */
export function canonicalRecipientType(name: string): RecipientType | undefined {
  if ((RECIPIENT_TYPES as readonly string[]).includes(name)) return name as RecipientType;
  return Object.hasOwn(RECIPIENT_TYPE_ALIASES, name) ? RECIPIENT_TYPE_ALIASES[name as keyof typeof RECIPIENT_TYPE_ALIASES] : undefined;
}

function slotKem(name: string, field: string): { type: RecipientType; kem: HpkeKem } {
  const type = canonicalRecipientType(name);
  if (type === undefined) {
    throw unsupportedAlgorithm(`unknown recipient type; use one of: ${RECIPIENT_TYPE_NAMES.join(', ')}`, field);
  }
  const kem = SLOT_KEMS[type];
  if (kem === undefined) {
    throw unsupportedAlgorithm(`recipient type '${type}' (hybrid X25519 + ML-KEM-768) is not available yet; use 'x25519'`, field);
  }
  return { type, kem };
}

function checkRecipientCount(count: number): void {
  if (count < MIN_RECIPIENTS || count > MAX_RECIPIENTS) {
    throw invalidInput(`recipients must list ${MIN_RECIPIENTS} to ${MAX_RECIPIENTS} entries (got ${count})`, '/recipients');
  }
}

/**
 * Encrypts `plaintext` for every recipient. All recipients are checked before any work is done: a
 * bad entry is refused with its index in the field (`/recipients/3/publicKey`). A public key listed
 * twice is refused too: the second slot would serve no one, and a repeated key is far more likely
 * a mistake in the caller's list than an intent.
 */
export async function multiRecipientEncrypt(plaintext: Uint8Array, recipients: readonly RecipientPublicKey[]): Promise<MultiRecipientEnvelope> {
  checkRecipientCount(recipients.length);
  const seen = new Map<string, number>();
  const plan = recipients.map((recipient, index) => {
    const label = `recipients/${index}/publicKey`;
    const { type, kem } = slotKem(recipient.type, `/recipients/${index}/type`);
    if (recipient.mlKemPublicKey !== undefined && type !== 'x25519-ml-kem-768') {
      throw invalidInput(`recipients/${index}/mlKemPublicKey applies only to x25519-ml-kem-768 recipients`, `/recipients/${index}/mlKemPublicKey`);
    }
    checkLength(recipient.publicKey, kem.Npk, label);
    // Public keys: an ordinary map lookup is fine, nothing secret is compared.
    const key = `${type}:${bytesToHex(recipient.publicKey)}`;
    const first = seen.get(key);
    if (first !== undefined) {
      throw invalidInput(`${label} repeats recipients/${first}/publicKey; list each recipient once`, `/${label}`);
    }
    seen.set(key, index);
    return { type, kem, publicKey: recipient.publicKey, label };
  });

  const payloadKey = new Uint8Array(randomBytes(MULTI_RECIPIENT_PAYLOAD_KEY_LENGTH));
  try {
    const ciphertext = xchachaSeal(payloadKey, plaintext);
    // One slot after another: a KEM that works on the thread pool should not take all of it for
    // one request of 100 recipients.
    const slots: RecipientSlot[] = [];
    for (const [index, { type, kem, publicKey, label }] of plan.entries()) {
      if (index > 0 && index % SLOTS_PER_TURN === 0) await nextTurn();
      const { enc, ciphertext: wrappedKey } = await hpkeSeal(kem, publicKey, MULTI_RECIPIENT_INFO, EMPTY, payloadKey, { label });
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

/**
 * Decrypts an envelope with one recipient's secret key: every slot of the recipient's type is
 * tried in order until one yields a key that opens the payload. Every failure (no slot of that
 * type, a wrong key, a tampered slot or payload) is the one decryptionFailed(): no oracle. A
 * malformed secret key is the caller's input error (invalidInput naming `/recipientSecretKey`).
 */
export async function multiRecipientDecrypt(
  envelope: { readonly ciphertext: Uint8Array; readonly recipients: readonly EnvelopeSlot[] },
  recipient: RecipientSecret,
): Promise<Uint8Array> {
  checkRecipientCount(envelope.recipients.length);
  const slots = envelope.recipients.map((slot, index) => ({ slot, type: slotType(slot.type, index) }));
  const { kem } = slotKem(recipient.type, '/recipientSecretKey');
  const privateKey = await kem.importPrivateKey(recipient.secretKey, 'recipientSecretKey');
  let tried = 0;
  for (const { slot, type } of slots) {
    if (type !== recipient.type) continue;
    if (tried > 0 && tried % SLOTS_PER_TURN === 0) await nextTurn();
    tried += 1;
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
}

/**
 * The canonical type of a slot in a request. A slot of a known type that this build cannot open
 * yet (a hybrid slot) is kept: it is simply not an X25519 recipient's slot.
 */
function slotType(name: string, index: number): RecipientType {
  const type = canonicalRecipientType(name);
  if (type === undefined) {
    throw unsupportedAlgorithm(`unknown recipient type; use one of: ${RECIPIENT_TYPE_NAMES.join(', ')}`, `/recipients/${index}/type`);
  }
  return type;
}
