/**
 * The errors of this package, with the codes the service answers with, so that code that handles
 * both tells them apart the same way. Messages name the field and the rule, never the value.
 */
export type EdgeErrorCode = 'INVALID_INPUT' | 'UNSUPPORTED_ALGORITHM' | 'DECRYPTION_FAILED';

export class EdgeCryptoError extends Error {
  readonly code: EdgeErrorCode;
  /** The input field at fault, as a JSON pointer like the service's problem `field`, when one is. */
  readonly field: string | undefined;

  constructor(code: EdgeErrorCode, message: string, field?: string) {
    super(message);
    this.name = 'EdgeCryptoError';
    this.code = code;
    this.field = field;
  }
}

export function invalidInput(message: string, field?: string): EdgeCryptoError {
  return new EdgeCryptoError('INVALID_INPUT', message, field === undefined ? undefined : `/${field}`);
}

export function unsupportedAlgorithm(message: string, field = 'algorithm'): EdgeCryptoError {
  return new EdgeCryptoError('UNSUPPORTED_ALGORITHM', message, `/${field}`);
}

/** Every failure to open, whatever the cause, is this one error: no oracle. */
export function decryptionFailed(): EdgeCryptoError {
  return new EdgeCryptoError('DECRYPTION_FAILED', 'decryption failed');
}

/** Runs `open`; any error it throws becomes decryptionFailed(). */
export function openOrFail<T>(open: () => T): T {
  try {
    return open();
  } catch {
    throw decryptionFailed();
  }
}
