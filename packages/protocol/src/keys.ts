import { Type, type Static } from 'typebox';
import { DEFAULT_KEY_GENERATION_ALGORITHM, KEY_FORMATS, KEY_GENERATION_IDS } from '@crypto-service/core';

export const KeyGenerateRequest = Type.Object(
  {
    algorithm: Type.Optional(
      Type.Enum([...KEY_GENERATION_IDS], {
        description: 'What to generate a key for; see GET /v2/algorithms (keyGeneration). ed25519 by default.',
        default: DEFAULT_KEY_GENERATION_ALGORITHM,
      }),
    ),
    format: Type.Optional(
      Type.Enum([...KEY_FORMATS], {
        description:
          'raw (hex, the form the other routes take; default), pem (PKCS#8 / SPKI; not for symmetric keys) or jwk (RFC 7517; not for x25519-ml-kem-768).',
        default: 'raw',
      }),
    ),
  },
  { additionalProperties: false },
);
export type KeyGenerateRequest = Static<typeof KeyGenerateRequest>;

/**
 * RFC 7517 JWK as this service writes it: OKP (RFC 8037), EC (RFC 7518 §6.2), oct (§6.4), or AKP
 * (RFC 9964) for ML-KEM, ML-DSA and SLH-DSA: `alg` (ML-DSA-65, ML-KEM-768, SLH-DSA-SHA2-128f, …),
 * `pub` and `priv` (the seed; SLH-DSA's whole secret key).
 */
export const Jwk = Type.Object(
  {
    kty: Type.String(),
    crv: Type.Optional(Type.String()),
    x: Type.Optional(Type.String()),
    y: Type.Optional(Type.String()),
    d: Type.Optional(Type.String()),
    k: Type.Optional(Type.String()),
    alg: Type.Optional(Type.String()),
    pub: Type.Optional(Type.String()),
    priv: Type.Optional(Type.String()),
  },
  { additionalProperties: false, description: 'JSON Web Key (RFC 7517)' },
);
export type Jwk = Static<typeof Jwk>;

/** A key in the requested format: hex (raw), PEM text, or a JWK object. */
const EncodedKey = Type.Union([Type.String({ description: 'hex (raw) or PEM text' }), Jwk]);

const KeyAlgorithm = Type.Enum([...KEY_GENERATION_IDS]);
const Format = Type.Enum([...KEY_FORMATS]);

export const KeyPairData = Type.Object(
  {
    algorithm: KeyAlgorithm,
    format: Format,
    publicKey: EncodedKey,
    privateKey: EncodedKey,
  },
  { additionalProperties: false, description: 'An asymmetric key pair' },
);
export type KeyPairData = Static<typeof KeyPairData>;

export const SecretKeyData = Type.Object(
  { algorithm: KeyAlgorithm, format: Format, key: EncodedKey },
  { additionalProperties: false, description: 'A symmetric key' },
);
export type SecretKeyData = Static<typeof SecretKeyData>;

export const KeyGenerateResponse = Type.Object(
  { data: Type.Union([KeyPairData, SecretKeyData]) },
  { additionalProperties: false },
);
export type KeyGenerateResponse = Static<typeof KeyGenerateResponse>;
