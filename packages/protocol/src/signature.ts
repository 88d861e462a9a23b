import { Type, type Static } from 'typebox';
import {
  DEFAULT_SIGNATURE_ALGORITHM,
  SIGNATURE_ALGORITHM_IDS,
  SIGNATURE_CONTEXT_MAX_BYTES,
} from '@crypto-service/core';
import { Encoding, Hex, MAX_KEY_CHARS, MAX_SIGNATURE_CHARS, Text } from './common.ts';

const SignatureAlgorithm = Type.Enum([...SIGNATURE_ALGORITHM_IDS], {
  description: 'Signature algorithm; see GET /v2/algorithms. ed25519 by default.',
  default: DEFAULT_SIGNATURE_ALGORITHM,
});

/**
 * `context`: UTF-8 text of at most 255 bytes (Ed448, ML-DSA, SLH-DSA). The schema
 * bounds characters; core bounds the UTF-8 bytes, which can be more.
 */
const Context = Type.String({
  maxLength: SIGNATURE_CONTEXT_MAX_BYTES,
  description: `Context string (UTF-8, at most ${SIGNATURE_CONTEXT_MAX_BYTES} bytes) for the schemes that take one (ed448, ml-dsa-*, slh-dsa-*); refused by the others.`,
});

/** A key field: hex of the raw key, or PEM text (no hex pattern here, core tells the two apart). */
function KeyField(description: string) {
  return Type.String({ minLength: 1, maxLength: MAX_KEY_CHARS, description });
}

export const SignRequest = Type.Object(
  {
    algorithm: Type.Optional(SignatureAlgorithm),
    privateKey: KeyField(
      'Private key as hex: the 32-byte Ed25519 seed, the 57-byte Ed448 seed, the ECDSA scalar (32 / 48 bytes), ' +
        'the 32-byte ML-DSA seed or the expanded key of its parameter set (2560 / 4032 / 4896 bytes), or the SLH-DSA private key (4n: 64 / 96 / 128 bytes). ' +
        'PEM text (-----BEGIN PRIVATE KEY-----, unencrypted PKCS#8) is accepted too.',
    ),
    message: Text('The message to sign'),
    context: Type.Optional(Context),
    encoding: Type.Optional(Encoding),
  },
  { additionalProperties: false },
);
export type SignRequest = Static<typeof SignRequest>;

export const SignResponse = Type.Object(
  {
    data: Type.Object(
      {
        signature: Hex(
          'The signature: 64 B Ed25519, 114 B Ed448, r ‖ s (IEEE P1363) 64 / 96 B ECDSA, 2420 / 3309 / 4627 B ML-DSA, 7856 … 49856 B SLH-DSA',
        ),
        algorithm: Type.Enum([...SIGNATURE_ALGORITHM_IDS]),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type SignResponse = Static<typeof SignResponse>;

export const VerifyRequest = Type.Object(
  {
    algorithm: Type.Optional(SignatureAlgorithm),
    publicKey: KeyField(
      'Public key as hex: 32 B Ed25519, 57 B Ed448, a SEC1 point for ECDSA (uncompressed 65 / 97 B, compressed 33 / 49 B), ' +
        '1312 / 1952 / 2592 B ML-DSA, or 2n (32 / 48 / 64) B SLH-DSA. PEM text (-----BEGIN PUBLIC KEY-----, SPKI) is accepted too.',
    ),
    message: Text('The signed message'),
    signature: Hex('The signature, in the encoding that /v2/sign returns', MAX_SIGNATURE_CHARS),
    context: Type.Optional(Context),
    encoding: Type.Optional(Encoding),
  },
  { additionalProperties: false },
);
export type VerifyRequest = Static<typeof VerifyRequest>;

export const VerifyResponse = Type.Object(
  {
    data: Type.Object(
      {
        valid: Type.Boolean({ description: 'Whether the signature verifies; false is not an error.' }),
        algorithm: Type.Enum([...SIGNATURE_ALGORITHM_IDS]),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type VerifyResponse = Static<typeof VerifyResponse>;
