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

/** Binary input or output as hex (contract §1: lowercase out, either case in). */
export function Hex(description: string) {
  return Type.String({ description: `${description} (hex)`, pattern: '^(?:[0-9a-fA-F]{2})*$' });
}

/** A sealed blob as standard padded base64 (contract §1). */
export function Base64(description: string) {
  return Type.String({ description: `${description} (standard base64 with padding)` });
}

/** A message, plaintext or password: UTF-8 text by default, or base64/hex per `encoding`. */
export function Text(description: string) {
  return Type.String({ description: `${description}, in \`encoding\` (utf8 by default)` });
}
