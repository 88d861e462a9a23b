/**
 * Schema of `POST /v2/kdf`.
 *
 * Encodings: `encoding` (utf8 by default, base64 or hex) applies to `password` and to
 * `params.info`, the two input-material fields: HKDF's input keying material is usually binary (a
 * Diffie-Hellman output), so it must be able to pass as hex or base64, and `info` is read the same
 * way. `salt` is always hex, and so are `derivedKey` and `salt` in the response. A
 * utf8 password is used as the exact UTF-8 bytes of the string sent: no Unicode normalisation, so
 * a client that wants NFC must normalise before sending.
 *
 * The numeric bounds below are core's (packages/core/src/kdf.ts); core also enforces the bounds
 * that JSON Schema cannot say (N a power of two, scrypt's memory and work caps, keyLength per
 * algorithm, salt and info lengths in bytes) and names the field at fault.
 */
import { Type, type Static } from 'typebox';
import {
  KDF_ALGORITHM_IDS,
  KDF_MAX_KEY_LENGTH,
  KDF_MIN_KEY_LENGTH,
  PBKDF2_MAX_ITERATIONS,
  PBKDF2_MIN_ITERATIONS,
  SCRYPT_MAX_N,
  SCRYPT_MAX_P,
  SCRYPT_MAX_R,
  SCRYPT_MIN_N,
  SCRYPT_MIN_P,
  SCRYPT_MIN_R,
} from '@crypto-service/core';
import { Encoding, Hex, MAX_KEY_CHARS, MAX_PASSWORD_CHARS, Text } from './common.ts';

const KdfAlgorithm = Type.Enum([...KDF_ALGORITHM_IDS], {
  description: 'scrypt (RFC 7914), hkdf-sha256/384/512 (RFC 5869) or pbkdf2-sha256 (RFC 8018); see GET /v2/algorithms.',
});

const ScryptN = Type.Integer({
  minimum: SCRYPT_MIN_N,
  maximum: SCRYPT_MAX_N,
  description:
    'scrypt only: CPU/memory cost, a power of two (default 131072 = 2^17). 128 · N · r must not exceed 256 MiB; N · r · p must be from 655360 (OWASP: 2^17 · 8 · 1, or 2^14 · 8 · 5) to 2^22.',
});
const ScryptR = Type.Integer({
  minimum: SCRYPT_MIN_R,
  maximum: SCRYPT_MAX_R,
  description: 'scrypt only: block size (default 8).',
});
const ScryptP = Type.Integer({
  minimum: SCRYPT_MIN_P,
  maximum: SCRYPT_MAX_P,
  description: 'scrypt only: parallelisation (default 1).',
});
const Iterations = Type.Integer({
  minimum: PBKDF2_MIN_ITERATIONS,
  maximum: PBKDF2_MAX_ITERATIONS,
  description: 'pbkdf2-sha256 only: iteration count, at least 600000 (OWASP), the default.',
});
const KeyLength = Type.Integer({
  minimum: KDF_MIN_KEY_LENGTH,
  maximum: KDF_MAX_KEY_LENGTH,
  description:
    'Output length in bytes (default 32). At most 1024 for scrypt, 64 for pbkdf2-sha256, 255 · HashLen for HKDF.',
});

export const KdfRequest = Type.Object(
  {
    algorithm: KdfAlgorithm,
    password: Type.String({
      minLength: 1,
      maxLength: MAX_PASSWORD_CHARS,
      description:
        'The password (scrypt, PBKDF2) or input keying material (HKDF), in `encoding` (utf8 by default; used exactly as sent, without Unicode normalisation).',
    }),
    salt: Type.Optional(
      Hex(
        'Salt. scrypt and PBKDF2: 8 to 1024 bytes, a random 16-byte salt when omitted (returned in the response). ' +
          'HKDF: optional, at most 1024 bytes; omitted means HashLen zero bytes (RFC 5869)',
        MAX_KEY_CHARS,
      ),
    ),
    keyLength: Type.Optional(KeyLength),
    params: Type.Optional(
      Type.Object(
        {
          N: Type.Optional(ScryptN),
          r: Type.Optional(ScryptR),
          p: Type.Optional(ScryptP),
          iterations: Type.Optional(Iterations),
          info: Type.Optional(
            Text('HKDF only: context and application-specific information, at most 1024 bytes', MAX_KEY_CHARS),
          ),
        },
        {
          additionalProperties: false,
          description: "Parameters of the chosen algorithm only; another algorithm's parameter is an error.",
        },
      ),
    ),
    encoding: Type.Optional(Encoding),
  },
  { additionalProperties: false },
);
export type KdfRequest = Static<typeof KdfRequest>;

export const KdfResponse = Type.Object(
  {
    data: Type.Object(
      {
        derivedKey: Type.String({ description: 'The derived key (lowercase hex).' }),
        salt: Type.String({
          description:
            'The salt used (lowercase hex): the one sent, or the generated one; empty for HKDF without salt.',
        }),
        algorithm: KdfAlgorithm,
        keyLength: Type.Integer({ description: 'Length of derivedKey in bytes.' }),
        params: Type.Object(
          {
            N: Type.Optional(Type.Integer()),
            r: Type.Optional(Type.Integer()),
            p: Type.Optional(Type.Integer()),
            iterations: Type.Optional(Type.Integer()),
            info: Type.Optional(
              Type.String({
                description: "HKDF: the info used, in the request's `encoding` (empty when none was sent).",
              }),
            ),
          },
          {
            additionalProperties: false,
            description:
              'The parameters in effect, defaults included: N, r, p (scrypt), iterations (pbkdf2-sha256) or info (HKDF).',
          },
        ),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type KdfResponse = Static<typeof KdfResponse>;
