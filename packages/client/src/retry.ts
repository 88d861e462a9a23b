/**
 * When to try a request again (undici's retry interceptor is the model).
 *
 * Only 429 and 503 are retried: they are the two statuses with which this service says "not now"
 * without having run the operation (the rate limiter and the full work queues answer before any
 * work is done), so a retry can never perform an operation twice. Network errors and timeouts
 * are not retried: the request may have reached the service.
 */

export interface RetryOptions {
  /** Attempts in all, the first included (default 3). */
  attempts?: number;
  /**
   * The longest wait before an attempt, in ms (default 30000). When the service's Retry-After
   * asks for longer, the client gives up and throws the 429/503 rather than retrying early: an
   * early retry would only be refused again.
   */
  maxDelay?: number;
  /** The wait when the response has no usable Retry-After, doubled after each attempt (default 500 ms). */
  baseDelay?: number;
}

export interface RetryPolicy {
  attempts: number;
  maxDelay: number;
  baseDelay: number;
}

const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 503]);

export const DEFAULT_RETRY: Readonly<RetryPolicy> = { attempts: 3, maxDelay: 30_000, baseDelay: 500 };
const NO_RETRY: Readonly<RetryPolicy> = { ...DEFAULT_RETRY, attempts: 1 };

/** `retry: true` takes the defaults; `false` or nothing means a single attempt. */
export function retryPolicy(option: boolean | RetryOptions | undefined): RetryPolicy {
  if (option === undefined || option === false) return { ...NO_RETRY };
  const chosen = option === true ? {} : option;
  const policy = {
    attempts: chosen.attempts ?? DEFAULT_RETRY.attempts,
    maxDelay: chosen.maxDelay ?? DEFAULT_RETRY.maxDelay,
    baseDelay: chosen.baseDelay ?? DEFAULT_RETRY.baseDelay,
  };
  if (!Number.isInteger(policy.attempts) || policy.attempts < 1)
    throw new RangeError('retry.attempts must be an integer of at least 1');
  if (!(policy.maxDelay >= 0)) throw new RangeError('retry.maxDelay must be a number of milliseconds, 0 or more');
  if (!(policy.baseDelay >= 0)) throw new RangeError('retry.baseDelay must be a number of milliseconds, 0 or more');
  return policy;
}

/**
 * Retry-After (RFC 9110 §10.2.3) in milliseconds from `now`: delay-seconds or an HTTP-date.
 * undefined when absent or unreadable; a date in the past is 0.
 */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Every HTTP-date form names a month; Date.parse alone would also take "-1" or "2025".
  if (!/[a-z]{3}/i.test(text)) return undefined;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/**
 * How long to wait before attempt `attempt + 1`, or undefined not to retry: the status is not
 * retryable, the attempts are used up, or the service asks for a longer wait than maxDelay.
 */
export function retryDelay(
  policy: RetryPolicy,
  attempt: number,
  status: number,
  headers: Headers,
  now: number,
): number | undefined {
  if (!RETRYABLE_STATUSES.has(status) || attempt >= policy.attempts) return undefined;
  const asked = parseRetryAfter(headers.get('retry-after'), now);
  if (asked !== undefined) return asked <= policy.maxDelay ? asked : undefined;
  return Math.min(policy.baseDelay * 2 ** (attempt - 1), policy.maxDelay);
}
