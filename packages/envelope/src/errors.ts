/**
 * The envelope's own errors, told apart by `code`. Messages name what is wrong with the input,
 * never a key or a plaintext; a key id (a name the caller chose) may appear.
 */
export type EnvelopeErrorCode =
  /** The input does not start with the envelope's magic bytes. */
  | 'NOT_AN_ENVELOPE'
  /** A format version this package does not read. */
  | 'UNSUPPORTED_VERSION'
  /** The header is cut short or its fields are out of range. */
  | 'MALFORMED_HEADER'
  /** No key was given for the header's wrap mode and key id. */
  | 'UNKNOWN_KEY'
  /** The data key does not unwrap, or the content is truncated, reordered, tampered or foreign. */
  | 'DECRYPTION_FAILED'
  /** Options that cannot work: a bad key id, chunk length or key form. */
  | 'INVALID_OPTIONS';

export class EnvelopeError extends Error {
  override readonly name = 'EnvelopeError';
  readonly code: EnvelopeErrorCode;

  constructor(code: EnvelopeErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** One message for every way decryption fails, so that the failure tells an attacker nothing. */
export function decryptionFailed(cause?: unknown): EnvelopeError {
  return new EnvelopeError('DECRYPTION_FAILED', 'envelope decryption failed', cause === undefined ? {} : { cause });
}
