import { Type, type Static } from 'typebox';
import { HASH_ALGORITHM_IDS, MAX_XOF_LENGTH } from '@crypto-service/core';
import { Encoding, MAX_PAYLOAD_CHARS } from './common.ts';

export const HashRequest = Type.Object(
  {
    algorithm: Type.Enum([...HASH_ALGORITHM_IDS], { description: 'Hash algorithm; see GET /v2/algorithms.' }),
    data: Type.String({ description: 'The data to hash, in `encoding`.', maxLength: MAX_PAYLOAD_CHARS }),
    encoding: Type.Optional(Encoding),
    length: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_XOF_LENGTH,
        description: 'Output length in bytes, for the extendable-output functions (blake3, shake128, shake256) only.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type HashRequest = Static<typeof HashRequest>;

export const HashResponse = Type.Object(
  { data: Type.String({ description: 'The digest as lowercase hex.' }) },
  { additionalProperties: false },
);
export type HashResponse = Static<typeof HashResponse>;
