/**
 * Schemas of `POST /v2/password/hash|verify|encrypt|decrypt`.
 *
 * Passwords are always UTF-8 text, used as the exact UTF-8 bytes of the string sent: no Unicode
 * normalisation (a client that wants "é" composed and decomposed to match must normalise, e.g. to
 * NFC, itself), and a lone surrogate is refused. `encoding` does not apply to passwords: on
 * decrypt it names how the recovered plaintext is returned, and a password that changed meaning
 * with it would be a trap. On encrypt, `encoding` is how `plaintext` is written; on decrypt, how
 * the plaintext comes back (a non-UTF-8 plaintext asked for as utf8 is a 400 that says to ask for
 * base64 or hex).
 *
 * Bounds are core's (packages/core/src/password.ts): defaults t = 3, m = 65536 KiB, p = 4 (RFC 9106);
 * floor t = 2, m = 19456 KiB (OWASP); caps t = 10, m = 262144 KiB, p = 16. The same caps apply to a
 * PHC string presented for verification.
 */
import { Type, type Static } from 'typebox';
import {
  ARGON2_MAX,
  ARGON2_MIN,
  PASSWORD_ALGORITHM_IDS,
  PASSWORD_ENCRYPTION_ALGORITHM_IDS,
  PHC_MAX_LENGTH,
} from '@crypto-service/core';
import { Base64, Encoding, MAX_PASSWORD_CHARS, MAX_PAYLOAD_CHARS, Text } from './common.ts';

const PasswordAlgorithm = Type.Enum([...PASSWORD_ALGORITHM_IDS], {
  description: 'GET /v2/algorithms, password: Argon2id (RFC 9106), version 19.',
});
const PasswordEncryptionAlgorithm = Type.Enum([...PASSWORD_ENCRYPTION_ALGORITHM_IDS], {
  description: 'GET /v2/algorithms, passwordEncryption: Argon2id key derivation, then XChaCha20-Poly1305.',
});

/** A password for a new hash or a new encryption: not empty. */
const NewPassword = Type.String({
  minLength: 1,
  maxLength: MAX_PASSWORD_CHARS,
  description: 'The password: UTF-8 text, used exactly as sent (no Unicode normalisation).',
});
/** A password to check: any string, the empty one included (it simply does not match). */
const CandidatePassword = Type.String({
  maxLength: MAX_PASSWORD_CHARS,
  description: 'The password to check: UTF-8 text, used exactly as sent (no Unicode normalisation).',
});

function argon2Params(description?: string) {
  return Type.Object(
    {
      t: Type.Integer({ description: 'Passes (time cost).' }),
      m: Type.Integer({ description: 'Memory in KiB.' }),
      p: Type.Integer({ description: 'Lanes (parallelism).' }),
    },
    { additionalProperties: false, ...(description === undefined ? {} : { description }) },
  );
}

// POST /v2/password/hash

export const PasswordHashRequest = Type.Object(
  {
    password: NewPassword,
    timeCost: Type.Optional(
      Type.Integer({ minimum: ARGON2_MIN.t, maximum: ARGON2_MAX.t, description: 'Passes t (default 3).' }),
    ),
    memoryCost: Type.Optional(
      Type.Integer({
        minimum: ARGON2_MIN.m,
        maximum: ARGON2_MAX.m,
        description: 'Memory m in KiB (default 65536 = 64 MiB).',
      }),
    ),
    parallelism: Type.Optional(
      Type.Integer({ minimum: ARGON2_MIN.p, maximum: ARGON2_MAX.p, description: 'Lanes p (default 4).' }),
    ),
    algorithm: Type.Optional(PasswordAlgorithm),
  },
  { additionalProperties: false },
);
export type PasswordHashRequest = Static<typeof PasswordHashRequest>;

export const PasswordHashResponse = Type.Object(
  {
    data: Type.Object(
      {
        hash: Type.String({
          description:
            'PHC string: $argon2id$v=19$m=<KiB>,t=<passes>,p=<lanes>$<salt>$<hash> (unpadded base64; 16-byte salt, 32-byte hash).',
        }),
        algorithm: PasswordAlgorithm,
        params: argon2Params(),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type PasswordHashResponse = Static<typeof PasswordHashResponse>;

// POST /v2/password/verify

export const PasswordVerifyRequest = Type.Object(
  {
    password: CandidatePassword,
    hash: Type.String({
      maxLength: PHC_MAX_LENGTH,
      description:
        'An Argon2 PHC string, version 19 (argon2id; argon2i and argon2d are verified too, with needsRehash true), within the caps.',
    }),
    algorithm: Type.Optional(PasswordAlgorithm),
    params: Type.Optional(
      argon2Params(
        "Accepted so that /v2/password/hash's data can be sent whole, and ignored: the PHC string in `hash` carries the parameters.",
      ),
    ),
  },
  { additionalProperties: false },
);
export type PasswordVerifyRequest = Static<typeof PasswordVerifyRequest>;

export const PasswordVerifyResponse = Type.Object(
  {
    data: Type.Object(
      {
        valid: Type.Boolean({ description: 'Whether the password matches (compared in constant time).' }),
        needsRehash: Type.Boolean({
          description:
            'True when the hash differs from what /v2/password/hash makes today (variant, t, m, p, salt or hash length): replace it after a successful sign-in.',
        }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type PasswordVerifyResponse = Static<typeof PasswordVerifyResponse>;

// POST /v2/password/encrypt

export const PasswordEncryptRequest = Type.Object(
  {
    password: NewPassword,
    plaintext: Text('The data to encrypt'),
    encoding: Type.Optional(Encoding),
    algorithm: Type.Optional(PasswordEncryptionAlgorithm),
  },
  { additionalProperties: false },
);
export type PasswordEncryptRequest = Static<typeof PasswordEncryptRequest>;

export const PasswordEncryptResponse = Type.Object(
  {
    data: Type.Object(
      {
        ciphertext: Base64(
          'header (version 1, Argon2id t, m, p, 16-byte salt, 24-byte nonce: 53 bytes, authenticated) ‖ ciphertext ‖ tag (16 B)',
        ),
        algorithm: PasswordEncryptionAlgorithm,
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type PasswordEncryptResponse = Static<typeof PasswordEncryptResponse>;

// POST /v2/password/decrypt

export const PasswordDecryptRequest = Type.Object(
  {
    password: CandidatePassword,
    ciphertext: Base64('The `ciphertext` from /v2/password/encrypt', MAX_PAYLOAD_CHARS),
    encoding: Type.Optional(Encoding),
    algorithm: Type.Optional(PasswordEncryptionAlgorithm),
  },
  { additionalProperties: false },
);
export type PasswordDecryptRequest = Static<typeof PasswordDecryptRequest>;

export const PasswordDecryptResponse = Type.Object(
  { data: Type.String({ description: 'The recovered plaintext, in `encoding` (utf8 by default).' }) },
  { additionalProperties: false },
);
export type PasswordDecryptResponse = Static<typeof PasswordDecryptResponse>;
