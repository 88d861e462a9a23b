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
 *   recipient finds its slot by trying the slots its key can open.
 *
 * A recipient's public key is `publicKey`: the 32-byte X25519 key (type `x25519`) or the 1216-byte
 * X-Wing key, ML-KEM-768 pk ‖ X25519 pk (type `x25519-ml-kem-768`), so its length gives the type;
 * a hybrid key may instead be given as its parts, `x25519PublicKey` (32 B) and `mlKemPublicKey`
 * (1184 B). A recipient's private key is 32 bytes either way (the X25519 private key, or the X-Wing
 * seed), so one `privateKey` is tried against the slots of both types; a hybrid private key may
 * instead be given as the seed's two parts (the X25519 private key and the 64-byte ML-KEM-768
 * seed).
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

/** The slot types (GET /v2/algorithms, recipientType): the names written into envelopes. */
export const RECIPIENT_TYPES = ['x25519', 'x25519-ml-kem-768'] as const;
export type RecipientType = (typeof RECIPIENT_TYPES)[number];
/** The identifiers of the envelope format itself (GET /v2/algorithms, multiRecipient). */
export const MULTI_RECIPIENT_ALGORITHM_IDS = [MULTI_RECIPIENT_ALGORITHM] as const;

export function isRecipientType(name: string): name is RecipientType {
  return (RECIPIENT_TYPES as readonly string[]).includes(name);
}

/** The parameter table: the HPKE KEM of each slot type. */
const SLOT_KEMS: { readonly [Type in RecipientType]: HpkeKem } = {
  x25519: DHKEM_X25519_HKDF_SHA256,
  'x25519-ml-kem-768': XWING_HPKE_KEM,
};

/**
 * A recipient's public key: whole (`publicKey`, whose length gives the type) or a hybrid key as its
 * two parts. `type` is optional; when given it must be the type the key has.
 */
export type RecipientPublicKey =
  | { readonly type?: string | undefined; readonly publicKey: Uint8Array }
  | { readonly type?: string | undefined; readonly x25519PublicKey: Uint8Array; readonly mlKemPublicKey: Uint8Array };

export interface RecipientSlot {
  readonly type: RecipientType;
  readonly enc: Uint8Array;
  readonly wrappedKey: Uint8Array;
}

/** A slot as a request carries it: nothing is trusted yet. */
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

/**
 * The credential of one recipient, named as the request fields are: `privateKey` (32 bytes, tried
 * as the X25519 private key against x25519 slots and as the X-Wing seed against hybrid slots), or
 * a hybrid key's parts.
 */
export type RecipientCredential =
  { readonly privateKey: Uint8Array } | { readonly x25519PrivateKey: Uint8Array; readonly mlKemPrivateKey: Uint8Array };

/** The slot type that a whole public key of `length` bytes has, if any. */
export function recipientTypeForPublicKeyLength(length: number): RecipientType | undefined {
  if (length === X25519_KEY_LENGTH) return 'x25519';
  return length === XWING_PUBLIC_KEY_LENGTH ? 'x25519-ml-kem-768' : undefined;
}

function checkRecipientCount(count: number): void {
  if (count < MIN_RECIPIENTS || count > MAX_RECIPIENTS) {
    throw invalidInput(
      `recipients must list ${MIN_RECIPIENTS} to ${MAX_RECIPIENTS} entries (got ${count})`,
      '/recipients',
    );
  }
}

/** An unknown type name, refused with the list of the valid ones. */
function unknownType(field: string) {
  return unsupportedAlgorithm(`unknown recipient type; use one of: ${RECIPIENT_TYPES.join(', ')}`, field);
}

/**
 * The public key a slot is sealed to, its type (inferred from the key, and checked against `type`
 * when given), the field that names it in errors, and the labels that HPKE's errors name. A hybrid
 * key given as parts is joined into the X-Wing public key (ML-KEM-768 pk ‖ X25519 pk).
 */
function slotPublicKey(
  recipient: RecipientPublicKey,
  entry: string,
): { type: RecipientType; publicKey: Uint8Array; field: string; options: EncapOptions } {
  let inferred: RecipientType;
  let publicKey: Uint8Array;
  let field: string;
  let options: EncapOptions;
  if ('publicKey' in recipient) {
    field = `${entry}/publicKey`;
    // A part beside the whole key is refused rather than ignored: the caller meant one of them.
    const part = (['x25519PublicKey', 'mlKemPublicKey'] as const).find(
      (name) => (recipient as Partial<Record<typeof name, unknown>>)[name] !== undefined,
    );
    if (part !== undefined) {
      throw invalidInput(
        `${entry} takes publicKey, or x25519PublicKey and mlKemPublicKey, not both forms`,
        `/${entry}/${part}`,
      );
    }
    const type = recipientTypeForPublicKeyLength(recipient.publicKey.byteLength);
    if (type === undefined) {
      throw invalidInput(
        `${field} must be the ${X25519_KEY_LENGTH}-byte X25519 public key (x25519) or the ${XWING_PUBLIC_KEY_LENGTH}-byte X-Wing public key (x25519-ml-kem-768) (got ${recipient.publicKey.byteLength})`,
        `/${field}`,
      );
    }
    inferred = type;
    publicKey = recipient.publicKey;
    options = { label: field };
  } else {
    field = `${entry}/x25519PublicKey`;
    const mlKemField = `${entry}/mlKemPublicKey`;
    checkLength(recipient.x25519PublicKey, X25519_KEY_LENGTH, field);
    checkLength(recipient.mlKemPublicKey, HYBRID_ML_KEM_PUBLIC_KEY_LENGTH, mlKemField);
    inferred = 'x25519-ml-kem-768';
    publicKey = concatBytes(recipient.mlKemPublicKey, recipient.x25519PublicKey);
    options = { label: field, partLabels: { mlKem: mlKemField, x25519: field } };
  }
  const given = recipient.type;
  if (given !== undefined) {
    if (!isRecipientType(given)) throw unknownType(`/${entry}/type`);
    if (given !== inferred) {
      throw invalidInput(`${entry}/type ${given} does not match ${field}, a key of type ${inferred}`, `/${entry}/type`);
    }
  }
  return { type: inferred, publicKey, field, options };
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
  const seen = new Map<string, string>();
  const plan = recipients.map((recipient, index) => {
    const entry = `recipients/${index}`;
    const { type, publicKey, field, options } = slotPublicKey(recipient, entry);
    // Public keys: an ordinary map lookup is fine, nothing secret is compared. A hybrid key is
    // compared whole, so one recipient given once whole and once as parts is caught too.
    const key = `${type}:${bytesToHex(publicKey)}`;
    const first = seen.get(key);
    if (first !== undefined) {
      throw invalidInput(`${field} repeats ${first}; list each recipient once`, `/${field}`);
    }
    seen.set(key, field);
    return { type, kem: SLOT_KEMS[type], publicKey, options };
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

/**
 * The private key of each slot type that a credential can open, read once, on first use: a
 * `privateKey` is checked at once (INVALID_INPUT naming it if malformed) but expanded as an X-Wing
 * seed only when a hybrid slot is tried; the parts are read at once, and open hybrid slots only.
 */
class SlotKeys {
  private readonly keys = new Map<RecipientType, KemPrivateKey>();
  private readonly credential: RecipientCredential;

  private constructor(credential: RecipientCredential) {
    this.credential = credential;
  }

  static async of(credential: RecipientCredential): Promise<SlotKeys> {
    const slotKeys = new SlotKeys(credential);
    if ('privateKey' in credential) {
      checkLength(credential.privateKey, X25519_KEY_LENGTH, 'privateKey');
    } else {
      slotKeys.keys.set(
        'x25519-ml-kem-768',
        xwingHpkePrivateKeyFromParts(credential, { x25519: 'x25519PrivateKey', mlKem: 'mlKemPrivateKey' }),
      );
    }
    return slotKeys;
  }

  /** The key that may open slots of `type`, or undefined when the credential cannot open any. */
  async for(type: RecipientType): Promise<KemPrivateKey | undefined> {
    const known = this.keys.get(type);
    if (known !== undefined || !('privateKey' in this.credential)) return known;
    const key = await SLOT_KEMS[type].importPrivateKey(this.credential.privateKey, 'privateKey');
    this.keys.set(type, key);
    return key;
  }

  wipe(): void {
    for (const key of this.keys.values()) key.wipe?.();
  }
}

/**
 * Decrypts an envelope with one recipient's credential: every slot that the credential can open
 * is tried in order until one yields a key that opens the payload. Every failure (no slot it can
 * open, a wrong key, a tampered slot or payload) is the one decryptionFailed(): no oracle. A
 * malformed key is the caller's input error (invalidInput naming its field: `/privateKey`,
 * `/x25519PrivateKey` or `/mlKemPrivateKey`).
 */
export async function multiRecipientDecrypt(
  envelope: { readonly ciphertext: Uint8Array; readonly recipients: readonly EnvelopeSlot[] },
  credential: RecipientCredential,
): Promise<Uint8Array> {
  checkRecipientCount(envelope.recipients.length);
  const slots = envelope.recipients.map((slot, index) => ({ slot, type: slotType(slot.type, index) }));
  const keys = await SlotKeys.of(credential);
  try {
    const takeTurn = turnTaker();
    for (const { slot, type } of slots) {
      await takeTurn(SLOT_WEIGHT[type]);
      const privateKey = await keys.for(type);
      if (privateKey === undefined) continue;
      const payloadKey = await openSlot(SLOT_KEMS[type], privateKey, slot);
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
    keys.wipe();
  }
}

/** The type of a slot in a request; an unknown type is the caller's error. */
function slotType(name: string, index: number): RecipientType {
  if (!isRecipientType(name)) throw unknownType(`/recipients/${index}/type`);
  return name;
}
