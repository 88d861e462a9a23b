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
 * stack. Capturing one walks up to `Error.stackTraceLimit` frames, which costs several times the
 * rest of making the error, on every request of a flood of bad input (docs/performance.md). `stack`
 * is then the header line alone ("Name: message").
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
 * Runs synchronous `work` with Error.stackTraceLimit at 0, restored however it ends: an error
 * raised meanwhile captures no stack (StacklessError does the same around its own construction).
 */
export function withoutStackTraces<T>(work: () => T): T {
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return work();
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
}

/**
 * Runs `work`, a call into a library (node:crypto, @noble, TextDecoder) whose failure means bad
 * input, and answers any failure with `otherwise()` instead: our own error thrown, or a value
 * returned ("invalid" for a verifier). The library's error is discarded unread, yet V8 captures its
 * stack at construction, deep in the server's call stack: about half the cost of a failed
 * createPublicKey, paid by every request of a flood of bad keys or forged ciphertexts. So stack
 * traces are off while `work` and `otherwise` run. Synchronous work only (hence the plain result
 * type): the limit is restored when `work` returns, and a rejected promise would escape both the
 * limit and the catch. For calls whose failures are the input's fault: `otherwise` gets the caught
 * error, to tell the input's fault from another where a call can fail both ways, but any error
 * caught here has no frames.
 */
export function tryOr<T>(work: () => T, otherwise: (error: unknown) => T): T {
  return withoutStackTraces(() => {
    try {
      return work();
    } catch (error) {
      return otherwise(error);
    }
  });
}

/**
 * Gives `error`, made while stack traces were off and now escaping as nobody's input fault (a 500
 * that will be logged), the frames of the stack above `caller`. Nothing for a StacklessError (an
 * answer, never logged with a stack), nor while stack traces are still off (inside another tryOr,
 * whose caller discards the error or passes it on in turn).
 */
export function withFramesAbove(error: unknown, caller: (...args: never[]) => unknown): unknown {
  if (error instanceof Error && !(error instanceof StacklessError) && Error.stackTraceLimit > 0)
    Error.captureStackTrace(error, caller);
  return error;
}

/**
 * tryOr that throws `failure(error)` on any failure of `work`: one of ours (a StacklessError), or
 * the caught error itself where only some failures are the input's fault. A library's error passed
 * on that way is unexpected and will be logged: it leaves with the frames of this call
 * (withFramesAbove), taken once stack traces are back on. (An answer `work` threw itself, passed
 * on, stays stackless.)
 */
export function tryOrThrow<T>(work: () => T, failure: (error: unknown) => unknown): T {
  let passedOn: { error: unknown } | undefined;
  const result = tryOr<T | undefined>(work, (error) => {
    const thrown = failure(error);
    if (thrown !== error) throw thrown;
    passedOn = { error };
    return undefined;
  });
  if (passedOn !== undefined) throw withFramesAbove(passedOn.error, tryOrThrow);
  return result as T;
}

/**
 * Runs `open` (an AEAD open, a key unwrap) and turns any failure into the one decryptionFailed()
 * (tryOr: the error a failed open throws, @noble's "invalid tag" or OpenSSL's "unable to
 * authenticate data", costs no stack).
 */
export function openOrFail<T extends Uint8Array>(open: () => T): T {
  return tryOrThrow(open, decryptionFailed);
}
