import { Type } from 'typebox';
import { TEXT_ENCODINGS } from '@crypto-service/core';
import { ERROR_CODES } from './errors.ts';

/** `encoding`: how a message, plaintext or data field is written. */
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
    error: Type.String({ description: 'The same text as detail.' }),
    code: Type.Enum(Object.keys(ERROR_CODES)),
    errors: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
  },
  { $id: 'Problem', description: 'RFC 9457 problem details' },
);

// Size bounds of request fields. Every string and array that a route accepts has one, so that the
// schema alone bounds what a body can ask for (packages/server/test/security/limits.test.ts walks
// every route's schema to keep it so). They are backstops, set well above every valid value: core
// still checks exact lengths (a 33-byte key, a salt over 1024 bytes) and names the field and the
// length it expects, so a near miss stays a precise INVALID_INPUT rather than a generic "too
// long". Counted in UTF-16 code units, which is what the server's validator counts (Ajv with
// `unicode: false`: an O(1) check rather than a walk over a string of up to 64 MiB).

/**
 * Messages, plaintexts, data, AAD, ciphertexts, armored OpenPGP blocks: the largest body the
 * configuration accepts (BODY_LIMIT_BYTES at most 64 MiB), so the body limit is the real bound.
 */
export const MAX_PAYLOAD_CHARS = 64 * 1024 * 1024;
/**
 * Keys (hex, PEM or base64), KEM ciphertexts, salts, MACs, wrapped keys: 16 Ki characters. The
 * largest valid value is an expanded ML-DSA-87 secret key (4896 bytes: 9792 hex digits), or its
 * PKCS#8 PEM (under 7 Ki characters).
 */
export const MAX_KEY_CHARS = 16 * 1024;
/** Signatures (hex): 128 Ki characters. The largest is SLH-DSA-*-256f's, 49856 bytes (99712 hex digits). */
export const MAX_SIGNATURE_CHARS = 128 * 1024;
/**
 * Passwords (and HKDF input keying material): 4096 characters, as Django's cap. Argon2id, scrypt
 * and PBKDF2 hash a long password once, so this is about sanity, not cost: nobody types more.
 */
export const MAX_PASSWORD_CHARS = 4096;

/** The pattern of a hex field; the server puts it into words when a value does not match. */
export const HEX_PATTERN = '^(?:[0-9a-fA-F]{2})*$';

/**
 * Binary input or output as hex (lowercase out, either case in). Request fields pass
 * their bound; response fields have none (the service writes them).
 */
export function Hex(description: string, maxLength?: number) {
  return Type.String({
    description: `${description} (hex)`,
    pattern: HEX_PATTERN,
    ...(maxLength === undefined ? {} : { maxLength }),
  });
}

/** A sealed blob as standard padded base64. Request fields pass their bound. */
export function Base64(description: string, maxLength?: number) {
  return Type.String({
    description: `${description} (standard base64 with padding)`,
    ...(maxLength === undefined ? {} : { maxLength }),
  });
}

/** A message, plaintext or password: UTF-8 text by default, or base64/hex per `encoding`. Request fields only. */
export function Text(description: string, maxLength: number = MAX_PAYLOAD_CHARS) {
  return Type.String({ description: `${description}, in \`encoding\` (utf8 by default)`, maxLength });
}
