/**
 * One HTTP exchange with the service, and its retries: URL, credentials, time limit, and the
 * translation of every outcome into a value or one of the client's errors. Web-standard APIs only
 * (fetch, Headers, AbortSignal, setTimeout), so it runs unchanged in Node and in browsers.
 */
import {
  CryptoApiError,
  CryptoNetworkError,
  CryptoResponseError,
  CryptoTimeoutError,
  type ApiProblem,
} from './errors.ts';
import { retryDelay, retryPolicy, type RetryOptions, type RetryPolicy } from './retry.ts';
import { multipartStream, outputStream, type StreamRequest } from './stream.ts';

/** The part of fetch the client uses; globalThis.fetch and most wrappers satisfy it. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface ClientOptions {
  /** Where the service is, e.g. `http://localhost:3000` or `https://host/prefix/`; a trailing slash is ignored. */
  baseUrl: string;
  /** Sent as `x-api-key`. */
  apiKey?: string;
  /** A JWT, sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** The fetch to use (default: globalThis.fetch, looked up at each request). */
  fetch?: FetchLike;
  /** Time limit per attempt in ms, from sending the request to the end of the response body. None by default. */
  timeout?: number;
  /** Retries on 429 and 503 (see retry.ts). Off by default. */
  retry?: boolean | RetryOptions;
}

/** Per-call settings. */
export interface CallOptions {
  /** Cancels the call (and any wait between retries); its reason is thrown as it is. */
  signal?: AbortSignal;
  /** Overrides the client's timeout for this call, in ms. */
  timeout?: number;
}

export type HttpMethod = 'GET' | 'POST';

/**
 * What a route answers on success: `envelope` is a `{ data }` object (every /v2 and /v1 route),
 * `document` a bare JSON object (the probes), `text` plain text (/metrics).
 */
export type ResponseKind = 'envelope' | 'document' | 'text';

interface Exchange {
  status: number;
  ok: boolean;
  headers: Headers;
  text: string;
}

export class Transport {
  readonly #baseUrl: string;
  readonly #credentials: Readonly<Record<string, string>>;
  readonly #fetch: FetchLike;
  readonly #timeout: number | undefined;
  readonly #retry: RetryPolicy;

  constructor(options: ClientOptions) {
    if (typeof options.baseUrl !== 'string')
      throw new TypeError('baseUrl must be a string, e.g. http://localhost:3000');
    this.#baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#credentials = {
      ...(options.apiKey === undefined ? {} : { 'x-api-key': options.apiKey }),
      ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
    };
    // Looked up at call time and called as a plain function: browsers throw "Illegal invocation"
    // when fetch is called as a method of another object.
    this.#fetch = options.fetch ?? ((url, init) => globalThis.fetch(url, init));
    this.#timeout = checkTimeout(options.timeout);
    this.#retry = retryPolicy(options.retry);
  }

  /** Sends the request (again on 429/503 if retry allows) and returns the decoded success body. */
  async request(
    method: HttpMethod,
    path: string,
    body: object | undefined,
    kind: ResponseKind,
    options: CallOptions = {},
  ): Promise<unknown> {
    const url = this.#baseUrl + path;
    const timeout = checkTimeout(options.timeout) ?? this.#timeout;
    const init: RequestInit = {
      method,
      headers: {
        accept: kind === 'text' ? 'text/plain' : 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...this.#credentials,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    };
    for (let attempt = 1; ; attempt += 1) {
      const exchange = await this.#exchange(url, init, timeout, options.signal);
      if (exchange.ok) return decodeSuccess(url, exchange, kind);
      const delay = retryDelay(this.#retry, attempt, exchange.status, exchange.headers, Date.now());
      if (delay === undefined) throw new CryptoApiError(exchange.status, problemOf(exchange), exchange.headers);
      await sleep(delay, options.signal);
    }
  }

  /**
   * A streamed exchange (`/v2/stream/*`): the form sent as it is read, the answer's stream returned
   * as soon as its headers arrive. Never retried (the payload cannot be sent twice); the time
   * limit and the signal cover the whole exchange, body included.
   */
  async stream(path: string, request: StreamRequest, options: CallOptions = {}): Promise<ReadableStream<Uint8Array>> {
    const url = this.#baseUrl + path;
    const timeout = checkTimeout(options.timeout) ?? this.#timeout;
    const timer = timeout === undefined ? undefined : AbortSignal.timeout(timeout);
    const signals = [options.signal, timer].filter((s): s is AbortSignal => s !== undefined);
    const combined = signals.length === 0 ? undefined : signals.length === 1 ? signals[0] : AbortSignal.any(signals);
    const { body, contentType } = multipartStream(request);
    // `duplex` is not yet in every RequestInit type; fetch needs it for a streamed body.
    const init = {
      method: 'POST',
      headers: { accept: 'application/octet-stream', 'content-type': contentType, ...this.#credentials },
      body,
      duplex: 'half',
      ...(combined === undefined ? {} : { signal: combined }),
    } as RequestInit;
    let response: Response;
    try {
      response = await this.#fetch(url, init);
    } catch (error) {
      if (options.signal?.aborted === true) throw options.signal.reason;
      if (timer?.aborted === true && timeout !== undefined) throw new CryptoTimeoutError(url, timeout);
      throw new CryptoNetworkError(url, error);
    }
    if (!response.ok) {
      const exchange = { status: response.status, ok: false, headers: response.headers, text: await response.text() };
      throw new CryptoApiError(response.status, problemOf(exchange), response.headers);
    }
    return outputStream(url, response.body);
  }

  /** One attempt: the whole response read within the time limit, or the error that explains why not. */
  async #exchange(
    url: string,
    init: RequestInit,
    timeout: number | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Exchange> {
    const timer = timeout === undefined ? undefined : AbortSignal.timeout(timeout);
    const signals = [signal, timer].filter((s): s is AbortSignal => s !== undefined);
    const combined = signals.length === 0 ? undefined : signals.length === 1 ? signals[0] : AbortSignal.any(signals);
    try {
      const response = await this.#fetch(url, combined === undefined ? init : { ...init, signal: combined });
      // The body is read under the same signal: a server that stalls mid-body is a timeout too.
      const text = await response.text();
      return { status: response.status, ok: response.ok, headers: response.headers, text };
    } catch (error) {
      if (signal?.aborted === true) throw signal.reason;
      if (timer?.aborted === true && timeout !== undefined) throw new CryptoTimeoutError(url, timeout);
      throw new CryptoNetworkError(url, error);
    }
  }
}

function checkTimeout(timeout: number | undefined): number | undefined {
  if (timeout === undefined) return undefined;
  if (!Number.isFinite(timeout) || timeout <= 0)
    throw new RangeError('timeout must be a positive number of milliseconds');
  return timeout;
}

function decodeSuccess(url: string, exchange: Exchange, kind: ResponseKind): unknown {
  if (kind === 'text') return exchange.text;
  const parsed = parseJson(exchange.text);
  if (!isObject(parsed)) throw new CryptoResponseError(url, exchange.status, 'the body is not a JSON object');
  if (kind === 'envelope' && !('data' in parsed))
    throw new CryptoResponseError(url, exchange.status, 'the body has no data member');
  return parsed;
}

/** The service's problem object, or one made from the status and text of a response that is not one. */
function problemOf(exchange: Exchange): ApiProblem {
  const parsed = parseJson(exchange.text);
  if (isObject(parsed) && typeof parsed.error === 'string') {
    return {
      ...parsed,
      status: typeof parsed.status === 'number' ? parsed.status : exchange.status,
      error: parsed.error,
    };
  }
  const text = exchange.text.trim().slice(0, 200);
  return { status: exchange.status, error: text === '' ? `HTTP ${exchange.status}` : text };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
