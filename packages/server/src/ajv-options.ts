/**
 * The options of the request validator, shared by the app's own (Fastify's) and the batch
 * validators, so that a batch item is validated exactly as the single request's body.
 */
import { schemaValidatorLogger } from './logging.ts';

// Unknown fields are errors, not silently dropped; a number is never coerced into a string.
// maxLength counts UTF-16 code units (`unicode: false`): an O(1) check, where Ajv's default walks
// the whole string (3 ms per MiB), and every request string has a maxLength (protocol common.ts).
export const AJV_CUSTOM_OPTIONS = {
  removeAdditional: false,
  coerceTypes: false,
  useDefaults: true,
  allErrors: false,
  unicode: false,
  logger: schemaValidatorLogger,
} as const;
