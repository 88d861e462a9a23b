/**
 * @crypto-service/middleware: the framework-free core. The adapters are the subpaths
 * `@crypto-service/middleware/express`, `/fastify` and `/hono`.
 */
export {
  createWebhookVerifier,
  signWebhook,
  DEFAULT_TOLERANCE_SECONDS,
  type SignWebhookOptions,
  type WebhookBody,
  type WebhookKeys,
  type WebhookVerification,
  type WebhookVerifier,
  type WebhookVerifierOptions,
} from './webhook.ts';
export {
  DEFAULT_SIGNATURE_HEADER,
  MAX_SIGNATURES,
  parseSignatureHeader,
  type ParsedSignatureHeader,
} from './webhook-header.ts';
export { memoryReplayCache, type ReplayCache } from './replay-cache.ts';
export {
  createFieldProtection,
  decryptField,
  encryptField,
  FieldDecryptionError,
  type FieldProtection,
  type FieldProtectionOptions,
} from './fields.ts';
export {
  fieldProblem,
  webhookProblem,
  PROBLEM_CONTENT_TYPE,
  type Problem,
  type WebhookFailureReason,
} from './problem.ts';
