import { Type, type Static } from 'typebox';
import {
  HYBRID_ML_KEM_PUBLIC_KEY_LENGTH,
  HYBRID_ML_KEM_SECRET_KEY_MAX_LENGTH,
  MAX_RECIPIENTS,
  MAX_RECIPIENT_PUBLIC_KEY_LENGTH,
  MAX_SLOT_ENC_LENGTH,
  MIN_RECIPIENTS,
  MULTI_RECIPIENT_ALGORITHM,
  RECIPIENT_TYPES,
  RECIPIENT_TYPE_NAMES,
  SLOT_WRAPPED_KEY_LENGTH,
} from '@crypto-service/core';
import { Base64, Encoding, Hex, MAX_PAYLOAD_CHARS, Text } from './common.ts';

/** Characters of the standard padded base64 form of `bytes` bytes. */
function base64Length(bytes: number): number {
  return Math.ceil(bytes / 3) * 4;
}

// String bounds are the longest value that any slot type accepts (the hybrid X-Wing sizes), so
// a request is refused early for size alone, and core still checks the exact
// length for the type and names the field. The payload's bound is the body limit's largest value
// (MAX_PAYLOAD_CHARS): BODY_LIMIT_BYTES is its real bound.
function BoundedHex(description: string, maxBytes: number) {
  return Type.String({ ...Hex(description), maxLength: maxBytes * 2 });
}

function BoundedBase64(description: string, maxBytes: number) {
  return Type.String({ ...Base64(description), maxLength: base64Length(maxBytes) });
}

const RecipientTypeName = Type.Enum([...RECIPIENT_TYPE_NAMES], {
  description: "Slot type: 'x25519' (alias 'classical'), or 'x25519-ml-kem-768' (alias 'pq'), the hybrid X-Wing type.",
});

const RECIPIENT_COUNT = { minItems: MIN_RECIPIENTS, maxItems: MAX_RECIPIENTS } as const;

export const MultiRecipientKey = Type.Object(
  {
    type: RecipientTypeName,
    publicKey: BoundedHex(
      "The recipient's public key: the 32-byte X25519 key for x25519; for x25519-ml-kem-768 the 1216-byte X-Wing public key, or its 32-byte X25519 part given with mlKemPublicKey",
      MAX_RECIPIENT_PUBLIC_KEY_LENGTH,
    ),
    mlKemPublicKey: Type.Optional(
      BoundedHex(
        "The ML-KEM-768 part of a hybrid recipient's key (1184 bytes), with its X25519 part as publicKey",
        HYBRID_ML_KEM_PUBLIC_KEY_LENGTH,
      ),
    ),
  },
  { additionalProperties: false },
);
export type MultiRecipientKey = Static<typeof MultiRecipientKey>;

export const MultiRecipientEncryptRequest = Type.Object(
  {
    plaintext: Text('The data to encrypt'),
    recipients: Type.Array(MultiRecipientKey, {
      ...RECIPIENT_COUNT,
      description: `The recipients, ${MIN_RECIPIENTS} to ${MAX_RECIPIENTS}; each public key at most once.`,
    }),
    encoding: Type.Optional(Encoding),
  },
  { additionalProperties: false },
);
export type MultiRecipientEncryptRequest = Static<typeof MultiRecipientEncryptRequest>;

/** A slot as the service writes it: always the canonical type name. */
export const MultiRecipientSlot = Type.Object(
  {
    type: Type.Enum([...RECIPIENT_TYPES]),
    enc: Base64('The HPKE encapsulated key'),
    wrappedKey: Base64('The payload key, sealed with HPKE (RFC 9180) to this recipient'),
  },
  { additionalProperties: false },
);
export type MultiRecipientSlot = Static<typeof MultiRecipientSlot>;

/** A slot as a request carries it back: aliases accepted, sizes bounded. */
const MultiRecipientSlotInput = Type.Object(
  {
    type: RecipientTypeName,
    enc: BoundedBase64('The HPKE encapsulated key', MAX_SLOT_ENC_LENGTH),
    wrappedKey: BoundedBase64('The sealed payload key', SLOT_WRAPPED_KEY_LENGTH),
  },
  { additionalProperties: false },
);

const Algorithm = Type.Literal(MULTI_RECIPIENT_ALGORITHM, {
  description:
    'HPKE (RFC 9180) base mode slots (KEM by slot type, HKDF-SHA256, ChaCha20-Poly1305, info "crypto-service/v2/multi-recipient") around an XChaCha20-Poly1305 payload.',
});

export const MultiRecipientEnvelopeData = Type.Object(
  {
    ciphertext: Base64('The payload: XChaCha20-Poly1305 nonce ‖ ciphertext ‖ tag'),
    recipients: Type.Array(MultiRecipientSlot),
    algorithm: Algorithm,
  },
  { additionalProperties: false },
);
export type MultiRecipientEnvelopeData = Static<typeof MultiRecipientEnvelopeData>;

export const MultiRecipientEncryptResponse = Type.Object(
  { data: MultiRecipientEnvelopeData },
  { additionalProperties: false },
);
export type MultiRecipientEncryptResponse = Static<typeof MultiRecipientEncryptResponse>;

/**
 * The envelope fields of a decryption request: the encrypt response's `data`, sent back as it is
 * (`algorithm` optional). The recipient's credential comes beside them, in one of three forms.
 */
export const MultiRecipientEnvelopeFields = {
  ciphertext: Base64('The payload, as encrypt returned it', MAX_PAYLOAD_CHARS),
  recipients: Type.Array(MultiRecipientSlotInput, {
    ...RECIPIENT_COUNT,
    description: 'The slots, as encrypt returned them',
  }),
  algorithm: Type.Optional(Algorithm),
  encoding: Type.Optional(Encoding),
};

export const MultiRecipientDecryptRequest = Type.Object(
  {
    ...MultiRecipientEnvelopeFields,
    recipientSecretKey: Type.Optional(BoundedHex("An x25519 recipient's secret key (32 bytes)", 32)),
    secretKey: Type.Optional(BoundedHex("A hybrid (x25519-ml-kem-768) recipient's 32-byte X-Wing seed", 32)),
    x25519SecretKey: Type.Optional(
      BoundedHex("A hybrid recipient's X25519 private key, 32 bytes (with mlKemSecretKey)", 32),
    ),
    mlKemSecretKey: Type.Optional(
      BoundedHex(
        "A hybrid recipient's ML-KEM-768 seed, 64 bytes, or its 2400-byte expanded key (with x25519SecretKey)",
        HYBRID_ML_KEM_SECRET_KEY_MAX_LENGTH,
      ),
    ),
  },
  {
    additionalProperties: false,
    description:
      'The envelope, and the credential of one recipient: recipientSecretKey (x25519), or x25519SecretKey and mlKemSecretKey, or secretKey (x25519-ml-kem-768).',
  },
);
export type MultiRecipientDecryptRequest = Static<typeof MultiRecipientDecryptRequest>;

export const MultiRecipientDecryptResponse = Type.Object(
  { data: Type.String({ description: 'The plaintext, in `encoding` (utf8 by default).' }) },
  { additionalProperties: false },
);
export type MultiRecipientDecryptResponse = Static<typeof MultiRecipientDecryptResponse>;
