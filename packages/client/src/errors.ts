/**
 * The client's closed set of errors. Callers tell the cases apart with
 * `instanceof`, never by parsing messages:
 *
 * - CryptoApiError: the service answered with an error status (4xx/5xx). `body` is its RFC 9457
 *   problem object; `body.error` is the service's message.
 * - CryptoNetworkError: no response at all (refused, reset, DNS, CORS in a browser).
 * - CryptoTimeoutError: no complete response within the client's `timeout`.
 * - CryptoResponseError: a success status whose body is not what the service sends (a proxy's
 *   HTML page, say), so the caller never gets `undefined` fields silently.
 *
 * All four extend CryptoClientError, so one `instanceof CryptoClientError` catches anything the
 * client throws (except the reason of an AbortSignal the caller aborted, which is rethrown as it
 * is, as fetch does). The name differs from core's CryptoError, which is a server-side error.
 */
import type { ErrorCode, FieldError } from '@crypto-service/protocol';

/**
 * The problem body of a failed request. `status` and `error` are always present: when a response
 * is not a problem object (an HTML error page from a proxy), the client fills them from the HTTP
 * status and the text, so `body.error` is always a message worth showing.
 */
export interface ApiProblem {
  status: number;
  error: string;
  type?: string;
  title?: string;
  detail?: string;
  instance?: string;
  code?: ErrorCode;
  errors?: FieldError[];
  /** Route-specific members, e.g. `checks` on a 503 from /ready. */
  [member: string]: unknown;
}

export class CryptoClientError extends Error {
  override readonly name: string = 'CryptoClientError';
}

export class CryptoApiError extends CryptoClientError {
  override readonly name = 'CryptoApiError';
  readonly status: number;
  readonly body: ApiProblem;
  /** The response headers (Retry-After, WWW-Authenticate, RateLimit, …). */
  readonly headers: Headers;

  constructor(status: number, body: ApiProblem, headers: Headers) {
    super(`${status} ${body.error}`);
    this.status = status;
    this.body = body;
    this.headers = headers;
  }
}

export class CryptoNetworkError extends CryptoClientError {
  override readonly name = 'CryptoNetworkError';

  constructor(url: string, cause: unknown) {
    const reason = cause instanceof Error ? describeCause(cause) : String(cause);
    super(`request to ${url} failed: ${reason}`, { cause });
  }
}

export class CryptoTimeoutError extends CryptoClientError {
  override readonly name = 'CryptoTimeoutError';
  /** The time limit that was exceeded, in milliseconds. */
  readonly timeout: number;

  constructor(url: string, timeout: number) {
    super(`request to ${url} timed out after ${timeout} ms`);
    this.timeout = timeout;
  }
}

export class CryptoResponseError extends CryptoClientError {
  override readonly name = 'CryptoResponseError';
  readonly status: number;

  constructor(url: string, status: number, reason: string) {
    super(`unexpected response from ${url} (status ${status}): ${reason}`);
    this.status = status;
  }
}

// Node's fetch says only "fetch failed" and puts the reason (ECONNREFUSED …) in `cause`.
function describeCause(error: Error): string {
  const inner = error.cause;
  if (inner instanceof Error && inner.message !== '') return `${error.message} (${inner.message})`;
  return error.message;
}
