import { Type, type Static } from 'typebox';
import {
  HYBRID_ML_KEM_PUBLIC_KEY_LENGTH,
  HYBRID_ML_KEM_SECRET_KEY_MAX_LENGTH,
  MAX_RECIPIENTS,
  MAX_RECIPIENT_PUBLIC_KEY_LENGTH,
  MAX_SLOT_ENC_LENGTH,
  MIN_RECIPIENTS,
  MULTI_RECIPIENT_ALGORITHM_IDS,
  RECIPIENT_TYPES,
  SLOT_WRAPPED_KEY_LENGTH,
  X25519_KEY_LENGTH,
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

function recipientType(description: string) {
  return Type.Enum([...RECIPIENT_TYPES], { description });
}
const RecipientType = recipientType(
  'Slot type (GET /v2/algorithms, recipientType): x25519, or x25519-ml-kem-768, the hybrid X-Wing type.',
);

const RECIPIENT_COUNT = { minItems: MIN_RECIPIENTS, maxItems: MAX_RECIPIENTS } as const;

const Algorithm = Type.Enum([...MULTI_RECIPIENT_ALGORITHM_IDS], {
  description:
    'GET /v2/algorithms, multiRecipient: HPKE (RFC 9180) base mode slots (KEM by slot type, HKDF-SHA256, ChaCha20-Poly1305, info "crypto-service/v2/multi-recipient") around an XChaCha20-Poly1305 payload.',
});

export const MultiRecipientKey = Type.Object(
  {
    type: Type.Optional(
      recipientType(
        'Slot type (GET /v2/algorithms, recipientType), inferred from the key when absent; when given (x25519 or x25519-ml-kem-768), it must be the type of the key.',
      ),
    ),
    publicKey: Type.Optional(
      BoundedHex(
        "The recipient's public key: the 32-byte X25519 key (type x25519) or the 1216-byte X-Wing public key (type x25519-ml-kem-768)",
        MAX_RECIPIENT_PUBLIC_KEY_LENGTH,
      ),
    ),
    x25519PublicKey: Type.Optional(
      BoundedHex(
        "Instead of publicKey: the X25519 part of a hybrid recipient's key, 32 bytes (with mlKemPublicKey)",
        X25519_KEY_LENGTH,
      ),
    ),
    mlKemPublicKey: Type.Optional(
      BoundedHex(
        "Instead of publicKey: the ML-KEM-768 part of a hybrid recipient's key, 1184 bytes (with x25519PublicKey)",
        HYBRID_ML_KEM_PUBLIC_KEY_LENGTH,
      ),
    ),
  },
  {
    additionalProperties: false,
    description: 'One recipient: publicKey, or a hybrid key as x25519PublicKey and mlKemPublicKey.',
  },
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
    algorithm: Type.Optional(Algorithm),
  },
  { additionalProperties: false },
);
export type MultiRecipientEncryptRequest = Static<typeof MultiRecipientEncryptRequest>;

/** A slot as the service writes it. */
export const MultiRecipientSlot = Type.Object(
  {
    type: RecipientType,
    enc: Base64('The HPKE encapsulated key'),
    wrappedKey: Base64('The payload key, sealed with HPKE (RFC 9180) to this recipient'),
  },
  { additionalProperties: false },
);
export type MultiRecipientSlot = Static<typeof MultiRecipientSlot>;

/** A slot as a request carries it back: sizes bounded. */
const MultiRecipientSlotInput = Type.Object(
  {
    type: RecipientType,
    enc: BoundedBase64('The HPKE encapsulated key', MAX_SLOT_ENC_LENGTH),
    wrappedKey: BoundedBase64('The sealed payload key', SLOT_WRAPPED_KEY_LENGTH),
  },
  { additionalProperties: false },
);

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
 * (`algorithm` optional). The recipient's credential comes beside them, in one of two forms.
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
    privateKey: Type.Optional(
      BoundedHex(
        "The recipient's 32-byte private key: the X25519 private key (x25519) or the X-Wing seed (x25519-ml-kem-768); it is tried against the slots of both types",
        X25519_KEY_LENGTH,
      ),
    ),
    x25519PrivateKey: Type.Optional(
      BoundedHex(
        "Instead of privateKey: a hybrid recipient's X25519 private key, 32 bytes (with mlKemPrivateKey)",
        X25519_KEY_LENGTH,
      ),
    ),
    mlKemPrivateKey: Type.Optional(
      BoundedHex(
        "Instead of privateKey: a hybrid recipient's ML-KEM-768 seed, 64 bytes, or its 2400-byte expanded key (with x25519PrivateKey)",
        HYBRID_ML_KEM_SECRET_KEY_MAX_LENGTH,
      ),
    ),
  },
  {
    additionalProperties: false,
    description:
      'The envelope, and the credential of one recipient: privateKey, or a hybrid key as x25519PrivateKey and mlKemPrivateKey.',
  },
);
export type MultiRecipientDecryptRequest = Static<typeof MultiRecipientDecryptRequest>;

export const MultiRecipientDecryptResponse = Type.Object(
  { data: Type.String({ description: 'The plaintext, in `encoding` (utf8 by default).' }) },
  { additionalProperties: false },
);
export type MultiRecipientDecryptResponse = Static<typeof MultiRecipientDecryptResponse>;
