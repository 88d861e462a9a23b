/**
 * Request and response schemas of the post-quantum routes: ML-KEM (`/v2/pq/keygen`,
 * `/encapsulate`, `/decapsulate`), X-Wing (`/v2/pq/hybrid/*`), ML-DSA (`/v2/pq/dsa/*`) and SLH-DSA
 * (`/v2/pq/slh-dsa/*`, also served as `/v2/pq/hash-sign/*`). Every binary value is hex. Key pairs
 * are `publicKey` and `privateKey`, as on every other route.
 *
 * `algorithm` is one identifier of the route's family in GET /v2/algorithms (mlKem, hybridKem,
 * mlDsa, slhDsa), spelled as listed. It carries no schema `default`: the body is validated with
 * `useDefaults`, and a filled-in identifier would contradict a key that reveals another one. Core
 * applies the defaults (ml-kem-768, ml-dsa-65, slh-dsa-sha2-128f) where the key does not say.
 */
import { Type, type Static } from 'typebox';
import { ML_KEM_ALGORITHM_IDS } from '@crypto-service/core';
import { ML_DSA_ALGORITHM_IDS, ML_DSA_CONTEXT_MAX_BYTES } from '@crypto-service/core';
import { SLH_DSA_ALGORITHM_IDS, SLH_DSA_CONTEXT_MAX_BYTES } from '@crypto-service/core';
import { XWING_ALGORITHM_IDS } from '@crypto-service/core';
import { Encoding, Hex, MAX_KEY_CHARS, MAX_SIGNATURE_CHARS, Text } from './common.ts';

const MlKemAlgorithm = Type.Enum([...ML_KEM_ALGORITHM_IDS], {
  description:
    'ML-KEM parameter set (GET /v2/algorithms, mlKem): ml-kem-512, ml-kem-768 (default) or ml-kem-1024. A 64-byte seed does not reveal it; a public key or an expanded key does, and an algorithm given with one must match it.',
});
const MlDsaAlgorithm = Type.Enum([...ML_DSA_ALGORITHM_IDS], {
  description:
    'ML-DSA parameter set (GET /v2/algorithms, mlDsa): ml-dsa-44, ml-dsa-65 (default) or ml-dsa-87. A 32-byte seed does not reveal it; an expanded key or a public key does, and an algorithm given with one must match it.',
});
const SlhDsaAlgorithm = Type.Enum([...SLH_DSA_ALGORITHM_IDS], {
  description:
    'SLH-DSA parameter set (FIPS 205; GET /v2/algorithms, slhDsa): slh-dsa-sha2-128s … slh-dsa-shake-256f; slh-dsa-sha2-128f by default. Keys do not reveal it.',
});
const XWingAlgorithm = Type.Enum([...XWING_ALGORITHM_IDS], {
  description: 'The hybrid KEM (GET /v2/algorithms, hybridKem): X-Wing, x25519-ml-kem-768.',
});
/** `sharedSecret` on a decapsulation request: the encapsulation's echo, accepted and never used. */
const IgnoredSharedSecret = Type.Optional(
  Hex(
    "Accepted so that the encapsulation's data can be sent whole, and ignored: decapsulation computes the secret",
    MAX_KEY_CHARS,
  ),
);

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

export const PqKeygenRequest = Type.Object(
  { algorithm: Type.Optional(MlKemAlgorithm) },
  { additionalProperties: false },
);
export type PqKeygenRequest = Static<typeof PqKeygenRequest>;

export const PqKeygenResponse = response({
  publicKey: Hex('Encapsulation key: 800 / 1184 / 1568 bytes'),
  privateKey: Hex('Decapsulation key as its 64-byte seed d ‖ z (FIPS 203)'),
  algorithm: MlKemAlgorithm,
});
export type PqKeygenResponse = Static<typeof PqKeygenResponse>;

export const PqEncapsulateRequest = Type.Object(
  {
    publicKey: Hex('Encapsulation key; its length gives the parameter set', MAX_KEY_CHARS),
    algorithm: Type.Optional(MlKemAlgorithm),
  },
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
    privateKey: Hex(
      'The 64-byte seed, or the expanded decapsulation key (1632 / 2400 / 3168 bytes, whose length gives the parameter set)',
      MAX_KEY_CHARS,
    ),
    ciphertext: Hex('Ciphertext', MAX_KEY_CHARS),
    algorithm: Type.Optional(MlKemAlgorithm),
    sharedSecret: IgnoredSharedSecret,
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
// X-Wing (draft-connolly-cfrg-xwing-kem). A key is whole or given as its parts; the route says
// which fields are expected when a body mixes the forms or gives half of one.

export const PqHybridKeygenRequest = Type.Object(
  { algorithm: Type.Optional(XWingAlgorithm) },
  { additionalProperties: false, description: 'Only an optional algorithm; the body may be omitted.' },
);
export type PqHybridKeygenRequest = Static<typeof PqHybridKeygenRequest>;

export const PqHybridKeygenResponse = response({
  publicKey: Hex('X-Wing public key: ML-KEM-768 public key (1184 B) ‖ X25519 public key (32 B), 1216 bytes'),
  privateKey: Hex('X-Wing private key: the 32-byte seed'),
  algorithm: XWingAlgorithm,
});
export type PqHybridKeygenResponse = Static<typeof PqHybridKeygenResponse>;

export const PqHybridEncapsulateRequest = Type.Object(
  {
    publicKey: Type.Optional(Hex('The X-Wing public key, 1216 bytes', MAX_KEY_CHARS)),
    x25519PublicKey: Type.Optional(
      Hex('Instead of publicKey: its X25519 part, 32 bytes (with mlKemPublicKey)', MAX_KEY_CHARS),
    ),
    mlKemPublicKey: Type.Optional(
      Hex('Instead of publicKey: its ML-KEM-768 part, 1184 bytes (with x25519PublicKey)', MAX_KEY_CHARS),
    ),
    algorithm: Type.Optional(XWingAlgorithm),
  },
  { additionalProperties: false, description: 'Either publicKey, or x25519PublicKey and mlKemPublicKey.' },
);
export type PqHybridEncapsulateRequest = Static<typeof PqHybridEncapsulateRequest>;

export const PqHybridEncapsulateResponse = response({
  ciphertext: Hex('X-Wing ciphertext: ML-KEM-768 ciphertext (1088 B) ‖ X25519 ephemeral public key (32 B), 1120 bytes'),
  sharedSecret: Hex('The 32-byte X-Wing shared secret'),
  algorithm: XWingAlgorithm,
});
export type PqHybridEncapsulateResponse = Static<typeof PqHybridEncapsulateResponse>;

export const PqHybridDecapsulateRequest = Type.Object(
  {
    privateKey: Type.Optional(Hex('The X-Wing private key: the 32-byte seed', MAX_KEY_CHARS)),
    x25519PrivateKey: Type.Optional(
      Hex(
        'Instead of privateKey: the X25519 private key the seed expands to, 32 bytes (with mlKemPrivateKey)',
        MAX_KEY_CHARS,
      ),
    ),
    mlKemPrivateKey: Type.Optional(
      Hex(
        'Instead of privateKey: the ML-KEM-768 seed the seed expands to, 64 bytes, or its 2400-byte expanded key (with x25519PrivateKey)',
        MAX_KEY_CHARS,
      ),
    ),
    ciphertext: Hex('The whole 1120-byte X-Wing ciphertext, as encapsulate returned it', MAX_KEY_CHARS),
    algorithm: Type.Optional(XWingAlgorithm),
    sharedSecret: IgnoredSharedSecret,
  },
  {
    additionalProperties: false,
    description: 'The private key as privateKey, or as x25519PrivateKey and mlKemPrivateKey; and the ciphertext.',
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

export const PqDsaKeygenRequest = Type.Object(
  { algorithm: Type.Optional(MlDsaAlgorithm) },
  { additionalProperties: false },
);
export type PqDsaKeygenRequest = Static<typeof PqDsaKeygenRequest>;

export const PqDsaKeygenResponse = response({
  publicKey: Hex('Public key: 1312 / 1952 / 2592 bytes'),
  privateKey: Hex('Private key as its 32-byte seed ξ (FIPS 204)'),
  algorithm: MlDsaAlgorithm,
});
export type PqDsaKeygenResponse = Static<typeof PqDsaKeygenResponse>;

export const PqDsaSignRequest = Type.Object(
  {
    privateKey: Hex(
      'The 32-byte seed, or the expanded private key (2560 / 4032 / 4896 bytes, whose length gives the parameter set)',
      MAX_KEY_CHARS,
    ),
    message: Text('The message to sign'),
    algorithm: Type.Optional(MlDsaAlgorithm),
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
    publicKey: Hex('Public key; its length gives the parameter set', MAX_KEY_CHARS),
    message: Text('The signed message'),
    signature: Hex('Signature', MAX_SIGNATURE_CHARS),
    algorithm: Type.Optional(MlDsaAlgorithm),
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
  { algorithm: Type.Optional(SlhDsaAlgorithm) },
  { additionalProperties: false },
);
export type PqSlhDsaKeygenRequest = Static<typeof PqSlhDsaKeygenRequest>;

export const PqSlhDsaKeygenResponse = response({
  publicKey: Hex('Public key PK.seed ‖ PK.root: 32 / 48 / 64 bytes'),
  privateKey: Hex('Private key SK.seed ‖ SK.prf ‖ PK.seed ‖ PK.root: 64 / 96 / 128 bytes'),
  algorithm: SlhDsaAlgorithm,
});
export type PqSlhDsaKeygenResponse = Static<typeof PqSlhDsaKeygenResponse>;

export const PqSlhDsaSignRequest = Type.Object(
  {
    privateKey: Hex('Private key of the parameter set (4n bytes)', MAX_KEY_CHARS),
    message: Text('The message to sign'),
    algorithm: Type.Optional(SlhDsaAlgorithm),
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
    publicKey: Hex('Public key of the parameter set (2n bytes)', MAX_KEY_CHARS),
    message: Text('The signed message'),
    signature: Hex('Signature', MAX_SIGNATURE_CHARS),
    algorithm: Type.Optional(SlhDsaAlgorithm),
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
