/**
 * The closed set of stable error codes. Each code maps to exactly one HTTP status
 * and one problem type; clients may switch on `code`, which never changes meaning.
 */
export const ERROR_CODES = {
  VALIDATION_FAILED: { status: 400, title: 'Request validation failed' },
  MALFORMED_JSON: { status: 400, title: 'Malformed JSON body' },
  INVALID_INPUT: { status: 400, title: 'Invalid input' },
  UNSUPPORTED_ALGORITHM: { status: 400, title: 'Unsupported algorithm' },
  DECRYPTION_FAILED: { status: 400, title: 'Decryption failed' },
  UNAUTHORIZED: { status: 401, title: 'Unauthorized' },
  FORBIDDEN: { status: 403, title: 'Forbidden' },
  NOT_FOUND: { status: 404, title: 'Not found' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'Method not allowed' },
  REQUEST_TIMEOUT: { status: 408, title: 'Request timeout' },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'Payload too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Unsupported media type' },
  RATE_LIMITED: { status: 429, title: 'Too many requests' },
  HEADERS_TOO_LARGE: { status: 431, title: 'Request header fields too large' },
  INTERNAL_ERROR: { status: 500, title: 'Internal server error' },
  SERVICE_UNAVAILABLE: { status: 503, title: 'Service unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export const PROBLEM_TYPE_PREFIX = 'urn:crypto-service:problem:';
export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** Every code's problem type, built once: an error answer looks its type up rather than building it. */
const PROBLEM_TYPES = Object.fromEntries(
  Object.keys(ERROR_CODES).map((code) => [code, PROBLEM_TYPE_PREFIX + code.toLowerCase().replaceAll('_', '-')]),
) as Record<ErrorCode, string>;

/** `VALIDATION_FAILED` → `urn:crypto-service:problem:validation-failed` */
export function problemType(code: ErrorCode): string {
  return PROBLEM_TYPES[code];
}

export interface FieldError {
  /** JSON pointer into the request body, e.g. `/algorithm`. */
  field: string;
  message: string;
}

/** RFC 9457 problem details, with an `error` member (same text as `detail`) for simple clients. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  error: string;
  code: ErrorCode;
  errors?: FieldError[];
}
