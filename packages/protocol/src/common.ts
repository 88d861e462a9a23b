import { Type } from 'typebox';
import { TEXT_ENCODINGS } from '@crypto-service/core';
import { ERROR_CODES } from './errors.ts';

/** `encoding` of contract §1: how a message, plaintext or data field is written. */
export const Encoding = Type.Enum([...TEXT_ENCODINGS], {
  description: 'How the text fields are encoded: utf8 (default), base64 or hex.',
  default: 'utf8',
});

export const ProblemSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    instance: Type.String(),
    error: Type.String({ description: 'The same text as detail (the mission\'s error member).' }),
    code: Type.Enum(Object.keys(ERROR_CODES)),
    errors: Type.Optional(
      Type.Array(Type.Object({ field: Type.String(), message: Type.String() })),
    ),
  },
  { $id: 'Problem', description: 'RFC 9457 problem details' },
);
