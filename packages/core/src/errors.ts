/**
 * The closed set of errors that core raises. Each carries a stable `code`; the server maps every
 * code to one HTTP status and problem type, once (see packages/server/src/errors.ts).
 *
 * Messages name the field and the rule that was broken, never the value: a value may be a key,
 * a password or a plaintext.
 */
export type CoreErrorCode = 'INVALID_INPUT' | 'UNSUPPORTED_ALGORITHM' | 'DECRYPTION_FAILED';

/**
 * An error that captures no stack trace: for errors that are answers about the caller's input or
 * the service's state, raised on purpose and turned into a 4xx or 503 problem, never logged with a
 * stack. Capturing one walks up to `Error.stackTraceLimit` frames (10 by default), 5.5–8.6 µs on
 * the benchmark host against 0.3–0.9 µs without, paid on every request of a flood of bad input
 * (docs/performance.md, "Refusals"). `stack` is then the header line alone ("Name: message").
 */
export class StacklessError extends Error {
  constructor(message: string) {
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super(message);
    } finally {
      Error.stackTraceLimit = stackTraceLimit;
    }
  }
}

/**
 * What core raises on bad input, an unknown algorithm or a failed decryption: a fault of the
 * input, not of the code, so it carries no stack (StacklessError); the message names what is wrong.
 * (A test or script that meets one unexpectedly gets no frames either: search for its message.)
 */
export class CryptoError extends StacklessError {
  readonly code: CoreErrorCode;
  /** JSON pointer of the request field at fault, when the caller named one. */
  readonly field: string | undefined;

  constructor(code: CoreErrorCode, message: string, field?: string) {
    super(message);
    this.name = 'CryptoError';
    this.code = code;
    this.field = field;
  }
}

/** Malformed input: bad hex or base64, wrong length, out-of-range parameter. */
export function invalidInput(message: string, field?: string): CryptoError {
  return new CryptoError('INVALID_INPUT', message, field);
}

/** An algorithm identifier this service does not offer (or refuses as insecure). */
export function unsupportedAlgorithm(message: string, field?: string): CryptoError {
  return new CryptoError('UNSUPPORTED_ALGORITHM', message, field);
}

/** Every decryption or unwrap failure, whatever the cause: one message, so that no oracle exists. */
export const DECRYPTION_FAILED_MESSAGE = 'decryption failed';
export function decryptionFailed(): CryptoError {
  return new CryptoError('DECRYPTION_FAILED', DECRYPTION_FAILED_MESSAGE);
}

/**
 * Runs `open` (an AEAD open, a key unwrap) and turns any failure into the one decryptionFailed(),
 * with stack traces off meanwhile. The error a failed open throws (@noble's "invalid tag",
 * OpenSSL's "unable to authenticate data") is replaced here and never read, so capturing its stack,
 * which V8 does at construction, deep in the server's call stack, is pure cost on every failed
 * open: a flood of forged ciphertexts pays it per request. Synchronous work only (hence the
 * result type): the limit is restored when `open` returns, and a rejection would escape both.
 */
export function openOrFail<T extends Uint8Array>(open: () => T): T {
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return open();
  } catch {
    throw decryptionFailed();
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
}
