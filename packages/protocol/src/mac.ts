/**
 * Schemas of `POST /v2/hmac` and `POST /v2/hmac/verify`.
 *
 * `key` and `mac` are hex; `encoding` (utf8 by default, base64 or hex) applies to
 * `data` only. Verification takes the algorithm's full output length only: a truncated MAC is a
 * 400, not a comparison of prefixes. A MAC that does not match is `valid: false` with status 200.
 */
import { Type, type Static } from 'typebox';
import { MAC_ALGORITHM_IDS } from '@crypto-service/core';
import { Encoding, Hex, MAX_KEY_CHARS, Text } from './common.ts';

const MacAlgorithm = Type.Enum([...MAC_ALGORITHM_IDS], {
  description: `The HMAC (GET /v2/algorithms, mac; the names /v2/keys/generate makes keys for): ${MAC_ALGORITHM_IDS.join(', ')}.`,
});

const hmacFields = {
  algorithm: MacAlgorithm,
  key: Hex('HMAC key, at least 1 byte (RFC 2104 recommends at least the output length)', MAX_KEY_CHARS),
  data: Text('The data to authenticate'),
  encoding: Type.Optional(Encoding),
};

export const HmacRequest = Type.Object(hmacFields, { additionalProperties: false });
export type HmacRequest = Static<typeof HmacRequest>;

export const HmacResponse = Type.Object(
  {
    data: Type.Object(
      {
        mac: Type.String({ description: 'The MAC (lowercase hex), the full output length of the algorithm.' }),
        algorithm: MacAlgorithm,
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type HmacResponse = Static<typeof HmacResponse>;

export const HmacVerifyRequest = Type.Object(
  {
    ...hmacFields,
    mac: Hex(
      'The MAC to check, of the full output length (32, 48 or 64 bytes); truncated MACs are refused',
      MAX_KEY_CHARS,
    ),
  },
  { additionalProperties: false },
);
export type HmacVerifyRequest = Static<typeof HmacVerifyRequest>;

export const HmacVerifyResponse = Type.Object(
  {
    data: Type.Object(
      {
        valid: Type.Boolean({ description: 'Whether the MAC matches (compared in constant time).' }),
        algorithm: MacAlgorithm,
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type HmacVerifyResponse = Static<typeof HmacVerifyResponse>;
