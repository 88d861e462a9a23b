/**
 * Schemas of the symmetric-encryption family: `/v2/encrypt`, `/v2/decrypt`,
 * `/v2/secretbox/seal|open`, `/v2/sealedbox/seal|open|seal-pq|open-pq`, `/v2/keys/wrap|unwrap`.
 *
 * `encoding` (utf8 by default, base64 or hex) governs every text field of a request, so a client
 * sends the same `encoding` both ways:
 * - on encrypt and seal it is how `plaintext` and `aad` are written;
 * - on decrypt and open it is how `aad` is written AND how the recovered plaintext is returned.
 *   AAD is thus read the same way on both sides, and a plaintext sent as base64 comes back as
 *   base64. A plaintext that is not valid UTF-8, asked for as utf8, is a 400 INVALID_INPUT that
 *   says to ask for base64 or hex (it is never returned mangled).
 *
 * Keys (`key`, `kek`, `keyToWrap`, `publicKey`, `privateKey` and their X-Wing parts) are hex;
 * sealed blobs (`ciphertext`, `wrappedKey`) are standard padded base64. Key lengths are checked by
 * core, so that the error names the field and the length expected.
 *
 * Each producer's `data` (`ciphertext`, `wrappedKey` and `algorithm`) can be sent whole, with the
 * key, to its consumer: every request takes an optional `algorithm`, one of its family's
 * identifiers (GET /v2/algorithms).
 */
import { Type, type Static } from 'typebox';
import {
  AEAD_ALGORITHM_IDS,
  DEFAULT_KEY_WRAP_ALGORITHM,
  KEY_WRAP_ALGORITHM_IDS,
  PQ_SEALED_BOX_ALGORITHM_IDS,
  SEALED_BOX_ALGORITHM_IDS,
} from '@crypto-service/core';
import { Base64, Encoding, Hex, MAX_KEY_CHARS, MAX_PAYLOAD_CHARS, Text } from './common.ts';

const AeadAlgorithm = Type.Enum([...AEAD_ALGORITHM_IDS], {
  description: 'The AEAD (GET /v2/algorithms, aead): XChaCha20-Poly1305 (draft-irtf-cfrg-xchacha).',
});
const SealedBoxAlgorithm = Type.Enum([...SEALED_BOX_ALGORITHM_IDS], {
  description: 'The sealed box (GET /v2/algorithms, sealedBox): libsodium crypto_box_seal.',
});
const PqSealedBoxAlgorithm = Type.Enum([...PQ_SEALED_BOX_ALGORITHM_IDS], {
  description:
    'The post-quantum sealed box (GET /v2/algorithms, pqSealedBox): HPKE (RFC 9180) base mode, KEM X-Wing (0x647a), HKDF-SHA256, ChaCha20-Poly1305, info "crypto-service/v2/sealedbox-pq".',
});
const keyWrapAlgorithm = (options: { default?: string } = {}) =>
  Type.Enum([...KEY_WRAP_ALGORITHM_IDS], {
    description:
      'GET /v2/algorithms, keyWrap: aes-kw (RFC 3394; keys of 16 bytes or more, in whole 8-byte blocks) or aes-kwp (RFC 5649; any key of 1 byte or more).',
    ...options,
  });

const AeadKey = Hex('XChaCha20-Poly1305 key, 32 bytes', MAX_KEY_CHARS);
const Aad = Text('Additional authenticated data: authenticated, not encrypted; the same on both sides');
const RecoveredPlaintext = Type.String({
  description: "The recovered plaintext, in the request's `encoding` (utf8 by default).",
});

// POST /v2/encrypt

export const EncryptRequest = Type.Object(
  {
    key: AeadKey,
    plaintext: Text('The message to encrypt'),
    aad: Type.Optional(Aad),
    encoding: Type.Optional(Encoding),
    algorithm: Type.Optional(AeadAlgorithm),
  },
  { additionalProperties: false },
);
export type EncryptRequest = Static<typeof EncryptRequest>;

export const EncryptResponse = Type.Object(
  {
    data: Type.Object(
      {
        ciphertext: Base64('nonce (24 B) ‖ ciphertext ‖ tag (16 B)'),
        algorithm: AeadAlgorithm,
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type EncryptResponse = Static<typeof EncryptResponse>;

// POST /v2/decrypt

export const DecryptRequest = Type.Object(
  {
    key: AeadKey,
    ciphertext: Base64('The `ciphertext` from /v2/encrypt: nonce ‖ ciphertext ‖ tag', MAX_PAYLOAD_CHARS),
    aad: Type.Optional(Aad),
    encoding: Type.Optional(Encoding),
    algorithm: Type.Optional(AeadAlgorithm),
  },
  { additionalProperties: false },
);
export type DecryptRequest = Static<typeof DecryptRequest>;

export const DecryptResponse = Type.Object({ data: RecoveredPlaintext }, { additionalProperties: false });
export type DecryptResponse = Static<typeof DecryptResponse>;

// POST /v2/secretbox/seal

export const SecretboxSealRequest = Type.Object(
  {
    key: AeadKey,
    plaintext: Text('The message to seal'),
    aad: Type.Optional(Aad),
    encoding: Type.Optional(Encoding),
    algorithm: Type.Optional(AeadAlgorithm),
  },
  { additionalProperties: false },
);
export type SecretboxSealRequest = Static<typeof SecretboxSealRequest>;

export const SecretboxSealResponse = Type.Object(
  {
    data: Type.Object(
      {
        ciphertext: Base64('nonce (24 B) ‖ ciphertext ‖ tag (16 B)'),
        algorithm: AeadAlgorithm,
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type SecretboxSealResponse = Static<typeof SecretboxSealResponse>;

// POST /v2/secretbox/open

export const SecretboxOpenRequest = Type.Object(
  {
    key: AeadKey,
    ciphertext: Base64('The `ciphertext` from /v2/secretbox/seal', MAX_PAYLOAD_CHARS),
    aad: Type.Optional(Aad),
    encoding: Type.Optional(Encoding),
    algorithm: Type.Optional(AeadAlgorithm),
  },
  { additionalProperties: false },
);
export type SecretboxOpenRequest = Static<typeof SecretboxOpenRequest>;

export const SecretboxOpenResponse = Type.Object({ data: RecoveredPlaintext }, { additionalProperties: false });
export type SecretboxOpenResponse = Static<typeof SecretboxOpenResponse>;

// POST /v2/sealedbox/seal

export const SealedBoxSealRequest = Type.Object(
  {
    publicKey: Hex("The recipient's X25519 public key, 32 bytes", MAX_KEY_CHARS),
    plaintext: Text('The message to seal'),
    encoding: Type.Optional(Encoding),
    algorithm: Type.Optional(SealedBoxAlgorithm),
  },
  { additionalProperties: false },
);
export type SealedBoxSealRequest = Static<typeof SealedBoxSealRequest>;

export const SealedBoxSealResponse = Type.Object(
  {
    data: Type.Object(
      {
        ciphertext: Base64(
          'ephemeral X25519 public key (32 B) ‖ tag (16 B) ‖ ciphertext, as libsodium crypto_box_seal',
        ),
        algorithm: SealedBoxAlgorithm,
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type SealedBoxSealResponse = Static<typeof SealedBoxSealResponse>;

// POST /v2/sealedbox/open

export const SealedBoxOpenRequest = Type.Object(
  {
    privateKey: Hex("The recipient's X25519 private key, 32 bytes", MAX_KEY_CHARS),
    ciphertext: Base64(
      'The `ciphertext` from /v2/sealedbox/seal (or a libsodium crypto_box_seal box)',
      MAX_PAYLOAD_CHARS,
    ),
    encoding: Type.Optional(Encoding),
    algorithm: Type.Optional(SealedBoxAlgorithm),
  },
  { additionalProperties: false },
);
export type SealedBoxOpenRequest = Static<typeof SealedBoxOpenRequest>;

export const SealedBoxOpenResponse = Type.Object({ data: RecoveredPlaintext }, { additionalProperties: false });
export type SealedBoxOpenResponse = Static<typeof SealedBoxOpenResponse>;

// POST /v2/sealedbox/seal-pq

export const SealedBoxSealPqRequest = Type.Object(
  {
    x25519PublicKey: Type.Optional(
      Hex("The recipient's X25519 public key, 32 bytes (with mlKemPublicKey)", MAX_KEY_CHARS),
    ),
    mlKemPublicKey: Type.Optional(
      Hex("The recipient's ML-KEM-768 public key, 1184 bytes (with x25519PublicKey)", MAX_KEY_CHARS),
    ),
    publicKey: Type.Optional(
      Hex(
        'Instead of the two parts: the X-Wing public key, mlKemPublicKey ‖ x25519PublicKey, 1216 bytes',
        MAX_KEY_CHARS,
      ),
    ),
    plaintext: Text('The message to seal'),
    encoding: Type.Optional(Encoding),
    algorithm: Type.Optional(PqSealedBoxAlgorithm),
  },
  {
    additionalProperties: false,
    description: 'The recipient key as publicKey, or as x25519PublicKey and mlKemPublicKey.',
  },
);
export type SealedBoxSealPqRequest = Static<typeof SealedBoxSealPqRequest>;

export const SealedBoxSealPqResponse = Type.Object(
  {
    data: Type.Object(
      {
        ciphertext: Base64(
          'enc (the X-Wing ciphertext, 1120 B) ‖ ciphertext ‖ tag (16 B): HPKE base mode, single shot',
        ),
        algorithm: PqSealedBoxAlgorithm,
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type SealedBoxSealPqResponse = Static<typeof SealedBoxSealPqResponse>;

// POST /v2/sealedbox/open-pq

export const SealedBoxOpenPqRequest = Type.Object(
  {
    privateKey: Type.Optional(Hex("The recipient's X-Wing private key: the 32-byte seed", MAX_KEY_CHARS)),
    x25519PrivateKey: Type.Optional(
      Hex(
        'Instead of privateKey: the X25519 private key that the X-Wing seed expands to, 32 bytes (with mlKemPrivateKey)',
        MAX_KEY_CHARS,
      ),
    ),
    mlKemPrivateKey: Type.Optional(
      Hex(
        'Instead of privateKey: the ML-KEM-768 seed that the X-Wing seed expands to, 64 bytes, or its 2400-byte expanded key (with x25519PrivateKey)',
        MAX_KEY_CHARS,
      ),
    ),
    ciphertext: Base64('The `ciphertext` from /v2/sealedbox/seal-pq', MAX_PAYLOAD_CHARS),
    encoding: Type.Optional(Encoding),
    algorithm: Type.Optional(PqSealedBoxAlgorithm),
  },
  {
    additionalProperties: false,
    description: 'The private key as privateKey, or as x25519PrivateKey and mlKemPrivateKey.',
  },
);
export type SealedBoxOpenPqRequest = Static<typeof SealedBoxOpenPqRequest>;

export const SealedBoxOpenPqResponse = Type.Object({ data: RecoveredPlaintext }, { additionalProperties: false });
export type SealedBoxOpenPqResponse = Static<typeof SealedBoxOpenPqResponse>;

// POST /v2/keys/wrap

export const KeyWrapRequest = Type.Object(
  {
    kek: Hex('Key-encryption key: an AES key of 16, 24 or 32 bytes', MAX_KEY_CHARS),
    keyToWrap: Hex('The key to wrap', MAX_KEY_CHARS),
    algorithm: Type.Optional(keyWrapAlgorithm({ default: DEFAULT_KEY_WRAP_ALGORITHM })),
  },
  { additionalProperties: false },
);
export type KeyWrapRequest = Static<typeof KeyWrapRequest>;

export const KeyWrapResponse = Type.Object(
  {
    data: Type.Object(
      {
        wrappedKey: Base64('The wrapped key'),
        algorithm: keyWrapAlgorithm(),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type KeyWrapResponse = Static<typeof KeyWrapResponse>;

// POST /v2/keys/unwrap

export const KeyUnwrapRequest = Type.Object(
  {
    kek: Hex('Key-encryption key: an AES key of 16, 24 or 32 bytes', MAX_KEY_CHARS),
    wrappedKey: Base64('The `wrappedKey` from /v2/keys/wrap', MAX_KEY_CHARS),
    algorithm: Type.Optional(keyWrapAlgorithm({ default: DEFAULT_KEY_WRAP_ALGORITHM })),
  },
  { additionalProperties: false },
);
export type KeyUnwrapRequest = Static<typeof KeyUnwrapRequest>;

export const KeyUnwrapResponse = Type.Object(
  { data: Type.String({ description: 'The unwrapped key (lowercase hex).' }) },
  { additionalProperties: false },
);
export type KeyUnwrapResponse = Static<typeof KeyUnwrapResponse>;
