/**
 * Request and response schemas of the post-quantum routes: ML-KEM (`/v2/pq/keygen`,
 * `/encapsulate`, `/decapsulate`), X-Wing (`/v2/pq/hybrid/*`), ML-DSA (`/v2/pq/dsa/*`) and SLH-DSA
 * (`/v2/pq/slh-dsa/*`, also served as `/v2/pq/hash-sign/*`). Every binary value is hex.
 *
 * Levels and variants carry no schema `default`: the body is validated with `useDefaults`, and a
 * filled-in level would contradict an expanded key of another level. Core applies the defaults
 * (768, 65, sha2-128f) where the key does not say.
 */
import { Type, type Static } from 'typebox';
import { ML_KEM_ALGORITHM_IDS, ML_KEM_LEVELS } from '@crypto-service/core';
import { ML_DSA_ALGORITHM_IDS, ML_DSA_CONTEXT_MAX_BYTES, ML_DSA_LEVELS } from '@crypto-service/core';
import { SLH_DSA_ALGORITHM_IDS, SLH_DSA_CONTEXT_MAX_BYTES, SLH_DSA_VARIANTS } from '@crypto-service/core';
import { XWING_ALGORITHM_IDS } from '@crypto-service/core';
import { Encoding, Hex, MAX_KEY_CHARS, MAX_SIGNATURE_CHARS, Text } from './common.ts';

const MlKemLevel = Type.Enum([...ML_KEM_LEVELS], { description: 'ML-KEM parameter set: 512, 768 (default) or 1024.' });
const MlKemAlgorithm = Type.Enum([...ML_KEM_ALGORITHM_IDS]);
const MlDsaLevel = Type.Enum([...ML_DSA_LEVELS], {
  description:
    'ML-DSA parameter set: 44, 65 (default) or 87. A 32-byte seed does not reveal its level; an expanded key or a public key does, and a level given with one must match it.',
});
const MlDsaAlgorithm = Type.Enum([...ML_DSA_ALGORITHM_IDS]);
const SlhDsaVariant = Type.Enum([...SLH_DSA_VARIANTS], {
  description: 'SLH-DSA parameter set (FIPS 205): sha2-128s … shake-256f; sha2-128f by default. Keys do not reveal it.',
});
const SlhDsaAlgorithm = Type.Enum([...SLH_DSA_ALGORITHM_IDS]);
const XWingAlgorithm = Type.Enum([...XWING_ALGORITHM_IDS]);

/**
 * `context`: UTF-8 text of at most 255 bytes. The schema bounds characters (never
 * more than the bytes); core bounds the UTF-8 bytes.
 */
function Context(maxBytes: number) {
  return Type.String({
    maxLength: maxBytes,
    description: `Context string (FIPS 204/205), UTF-8, at most ${maxBytes} bytes; empty by default.`,
  });
}

function response<T extends Parameters<typeof Type.Object>[0]>(data: T) {
  return Type.Object({ data: Type.Object(data, { additionalProperties: false }) }, { additionalProperties: false });
}

// ---------------------------------------------------------------------------------------------
// ML-KEM (FIPS 203)

export const PqKeygenRequest = Type.Object({ level: Type.Optional(MlKemLevel) }, { additionalProperties: false });
export type PqKeygenRequest = Static<typeof PqKeygenRequest>;

export const PqKeygenResponse = response({
  publicKey: Hex('Encapsulation key: 800 / 1184 / 1568 bytes'),
  secretKey: Hex('Decapsulation key as its 64-byte seed d ‖ z (FIPS 203)'),
  algorithm: MlKemAlgorithm,
});
export type PqKeygenResponse = Static<typeof PqKeygenResponse>;

export const PqEncapsulateRequest = Type.Object(
  { publicKey: Hex('Encapsulation key; its length gives the level', MAX_KEY_CHARS) },
  { additionalProperties: false },
);
export type PqEncapsulateRequest = Static<typeof PqEncapsulateRequest>;

export const PqEncapsulateResponse = response({
  ciphertext: Hex('Ciphertext: 768 / 1088 / 1568 bytes'),
  sharedSecret: Hex('The 32-byte shared secret'),
  algorithm: MlKemAlgorithm,
});
export type PqEncapsulateResponse = Static<typeof PqEncapsulateResponse>;

export const PqDecapsulateRequest = Type.Object(
  {
    secretKey: Hex(
      'The 64-byte seed, or the expanded decapsulation key (1632 / 2400 / 3168 bytes, whose length gives the level)',
      MAX_KEY_CHARS,
    ),
    ciphertext: Hex('Ciphertext', MAX_KEY_CHARS),
    level: Type.Optional(MlKemLevel),
  },
  { additionalProperties: false },
);
export type PqDecapsulateRequest = Static<typeof PqDecapsulateRequest>;

export const PqDecapsulateResponse = response({
  sharedSecret: Hex(
    'The 32-byte shared secret (the implicit-rejection secret for a tampered ciphertext, as FIPS 203 requires)',
  ),
  algorithm: MlKemAlgorithm,
});
export type PqDecapsulateResponse = Static<typeof PqDecapsulateResponse>;

// ---------------------------------------------------------------------------------------------
// X-Wing (draft-connolly-cfrg-xwing-kem). Each request takes one of two field forms; the route
// says which fields are expected when a body mixes them or gives half of one.

export const PqHybridKeygenRequest = Type.Object(
  {},
  { additionalProperties: false, description: 'No fields; the body may be omitted.' },
);
export type PqHybridKeygenRequest = Static<typeof PqHybridKeygenRequest>;

export const PqHybridKeygenResponse = response({
  x25519PublicKey: Hex('X25519 public key, 32 bytes'),
  x25519PrivateKey: Hex('X25519 private key, 32 bytes (expanded from secretKey)'),
  mlKemPublicKey: Hex('ML-KEM-768 encapsulation key, 1184 bytes'),
  mlKemSecretKey: Hex('ML-KEM-768 seed, 64 bytes (expanded from secretKey)'),
  publicKey: Hex('X-Wing public key: mlKemPublicKey ‖ x25519PublicKey, 1216 bytes'),
  secretKey: Hex('X-Wing secret key: the 32-byte seed'),
  algorithm: XWingAlgorithm,
});
export type PqHybridKeygenResponse = Static<typeof PqHybridKeygenResponse>;

export const PqHybridEncapsulateRequest = Type.Object(
  {
    x25519PublicKey: Type.Optional(Hex('X25519 public key, 32 bytes (with mlKemPublicKey)', MAX_KEY_CHARS)),
    mlKemPublicKey: Type.Optional(
      Hex('ML-KEM-768 encapsulation key, 1184 bytes (with x25519PublicKey)', MAX_KEY_CHARS),
    ),
    publicKey: Type.Optional(
      Hex('The combined X-Wing public key, 1216 bytes (instead of the two parts)', MAX_KEY_CHARS),
    ),
  },
  { additionalProperties: false, description: 'Either x25519PublicKey and mlKemPublicKey, or publicKey.' },
);
export type PqHybridEncapsulateRequest = Static<typeof PqHybridEncapsulateRequest>;

export const PqHybridEncapsulateResponse = response({
  x25519EphemeralPublic: Hex('X25519 ephemeral public key, 32 bytes'),
  mlKemCiphertext: Hex('ML-KEM-768 ciphertext, 1088 bytes'),
  ciphertext: Hex('X-Wing ciphertext: mlKemCiphertext ‖ x25519EphemeralPublic, 1120 bytes'),
  sharedSecret: Hex('The 32-byte X-Wing shared secret'),
  algorithm: XWingAlgorithm,
});
export type PqHybridEncapsulateResponse = Static<typeof PqHybridEncapsulateResponse>;

export const PqHybridDecapsulateRequest = Type.Object(
  {
    x25519PrivateKey: Type.Optional(Hex('X25519 private key, 32 bytes', MAX_KEY_CHARS)),
    mlKemSecretKey: Type.Optional(Hex('ML-KEM-768 seed, 64 bytes (or its 2400-byte expanded key)', MAX_KEY_CHARS)),
    x25519EphemeralPublic: Type.Optional(
      Hex('X25519 ephemeral public key from the encapsulation, 32 bytes', MAX_KEY_CHARS),
    ),
    mlKemCiphertext: Type.Optional(Hex('ML-KEM-768 ciphertext, 1088 bytes', MAX_KEY_CHARS)),
    secretKey: Type.Optional(
      Hex('The 32-byte X-Wing seed (with ciphertext, instead of the four parts)', MAX_KEY_CHARS),
    ),
    ciphertext: Type.Optional(Hex('The 1120-byte X-Wing ciphertext (with secretKey)', MAX_KEY_CHARS)),
  },
  {
    additionalProperties: false,
    description:
      'Either x25519PrivateKey, mlKemSecretKey, x25519EphemeralPublic and mlKemCiphertext, or secretKey and ciphertext.',
  },
);
export type PqHybridDecapsulateRequest = Static<typeof PqHybridDecapsulateRequest>;

export const PqHybridDecapsulateResponse = response({
  sharedSecret: Hex('The 32-byte X-Wing shared secret'),
  algorithm: XWingAlgorithm,
});
export type PqHybridDecapsulateResponse = Static<typeof PqHybridDecapsulateResponse>;

// ---------------------------------------------------------------------------------------------
// ML-DSA (FIPS 204)

export const PqDsaKeygenRequest = Type.Object({ level: Type.Optional(MlDsaLevel) }, { additionalProperties: false });
export type PqDsaKeygenRequest = Static<typeof PqDsaKeygenRequest>;

export const PqDsaKeygenResponse = response({
  publicKey: Hex('Public key: 1312 / 1952 / 2592 bytes'),
  secretKey: Hex('Secret key as its 32-byte seed ξ (FIPS 204)'),
  algorithm: MlDsaAlgorithm,
});
export type PqDsaKeygenResponse = Static<typeof PqDsaKeygenResponse>;

export const PqDsaSignRequest = Type.Object(
  {
    secretKey: Hex(
      'The 32-byte seed, or the expanded secret key (2560 / 4032 / 4896 bytes, whose length gives the level)',
      MAX_KEY_CHARS,
    ),
    message: Text('The message to sign'),
    level: Type.Optional(MlDsaLevel),
    context: Type.Optional(Context(ML_DSA_CONTEXT_MAX_BYTES)),
    encoding: Type.Optional(Encoding),
  },
  { additionalProperties: false },
);
export type PqDsaSignRequest = Static<typeof PqDsaSignRequest>;

export const PqDsaSignResponse = response({
  signature: Hex('Signature: 2420 / 3309 / 4627 bytes (hedged: it differs on every call)'),
  algorithm: MlDsaAlgorithm,
});
export type PqDsaSignResponse = Static<typeof PqDsaSignResponse>;

export const PqDsaVerifyRequest = Type.Object(
  {
    publicKey: Hex('Public key; its length gives the level', MAX_KEY_CHARS),
    message: Text('The signed message'),
    signature: Hex('Signature', MAX_SIGNATURE_CHARS),
    level: Type.Optional(MlDsaLevel),
    context: Type.Optional(Context(ML_DSA_CONTEXT_MAX_BYTES)),
    encoding: Type.Optional(Encoding),
  },
  { additionalProperties: false },
);
export type PqDsaVerifyRequest = Static<typeof PqDsaVerifyRequest>;

export const PqDsaVerifyResponse = response({
  valid: Type.Boolean({ description: 'Whether the signature verifies; a signature that does not is not an error' }),
  algorithm: MlDsaAlgorithm,
});
export type PqDsaVerifyResponse = Static<typeof PqDsaVerifyResponse>;

// ---------------------------------------------------------------------------------------------
// SLH-DSA (FIPS 205)

export const PqSlhDsaKeygenRequest = Type.Object(
  { variant: Type.Optional(SlhDsaVariant) },
  { additionalProperties: false },
);
export type PqSlhDsaKeygenRequest = Static<typeof PqSlhDsaKeygenRequest>;

export const PqSlhDsaKeygenResponse = response({
  publicKey: Hex('Public key PK.seed ‖ PK.root: 32 / 48 / 64 bytes'),
  secretKey: Hex('Secret key SK.seed ‖ SK.prf ‖ PK.seed ‖ PK.root: 64 / 96 / 128 bytes'),
  algorithm: SlhDsaAlgorithm,
});
export type PqSlhDsaKeygenResponse = Static<typeof PqSlhDsaKeygenResponse>;

export const PqSlhDsaSignRequest = Type.Object(
  {
    secretKey: Hex('Secret key of the variant (4n bytes)', MAX_KEY_CHARS),
    message: Text('The message to sign'),
    variant: Type.Optional(SlhDsaVariant),
    context: Type.Optional(Context(SLH_DSA_CONTEXT_MAX_BYTES)),
    encoding: Type.Optional(Encoding),
  },
  { additionalProperties: false },
);
export type PqSlhDsaSignRequest = Static<typeof PqSlhDsaSignRequest>;

export const PqSlhDsaSignResponse = response({
  signature: Hex('Signature: 7856 (128s) to 49856 (256f) bytes (hedged: it differs on every call)'),
  algorithm: SlhDsaAlgorithm,
});
export type PqSlhDsaSignResponse = Static<typeof PqSlhDsaSignResponse>;

export const PqSlhDsaVerifyRequest = Type.Object(
  {
    publicKey: Hex('Public key of the variant (2n bytes)', MAX_KEY_CHARS),
    message: Text('The signed message'),
    signature: Hex('Signature', MAX_SIGNATURE_CHARS),
    variant: Type.Optional(SlhDsaVariant),
    context: Type.Optional(Context(SLH_DSA_CONTEXT_MAX_BYTES)),
    encoding: Type.Optional(Encoding),
  },
  { additionalProperties: false },
);
export type PqSlhDsaVerifyRequest = Static<typeof PqSlhDsaVerifyRequest>;

export const PqSlhDsaVerifyResponse = response({
  valid: Type.Boolean({ description: 'Whether the signature verifies; a signature that does not is not an error' }),
  algorithm: SlhDsaAlgorithm,
});
export type PqSlhDsaVerifyResponse = Static<typeof PqSlhDsaVerifyResponse>;
