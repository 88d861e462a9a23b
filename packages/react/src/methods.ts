/**
 * The client's methods seen as hooks see them: which ones exist, what `run` takes (the request
 * body, never the call options, which the hook owns) and what a call resolves to (the envelope's
 * `data`).
 */
import type { CallOptions, CryptoClient } from '@crypto-service/client';

/** The name of every method of CryptoClient that calls the service. */
export type CryptoMethod = {
  [K in keyof CryptoClient]: CryptoClient[K] extends (...args: never[]) => Promise<{ data: unknown }> ? K : never;
}[keyof CryptoClient];

/** A parameter list without its trailing CallOptions, keeping whether the body is required. */
type BodyOnly<P extends readonly unknown[]> = P extends [options?: CallOptions]
  ? []
  : P extends [body: infer B, options?: CallOptions]
    ? [body: B]
    : P extends [body?: infer B, options?: CallOptions]
      ? [body?: B]
      : never;

/** What `run` takes for a method: its request body, or nothing for the probes and algorithms. */
export type CryptoArgs<M extends CryptoMethod> = BodyOnly<Parameters<CryptoClient[M]>>;

/** What a successful call of a method gives: the `data` of the service's answer. */
export type CryptoResult<M extends CryptoMethod> = Awaited<ReturnType<CryptoClient[M]>>['data'];

/** The methods that take no body: their only parameter is the call options. */
type BodilessMethod = {
  [K in CryptoMethod]: Parameters<CryptoClient[K]> extends [options?: CallOptions] ? K : never;
}[CryptoMethod];

// A Record, so that the compiler fails here when the client gains or loses a method without a body.
const BODILESS: Record<BodilessMethod, true> = {
  algorithms: true,
  health: true,
  live: true,
  ready: true,
  metrics: true,
};

/** Calls `method` on `client` with the body `run` was given and the hook's own abort signal. */
export function callMethod<M extends CryptoMethod>(
  client: CryptoClient,
  method: M,
  args: CryptoArgs<M>,
  signal: AbortSignal,
): Promise<{ data: CryptoResult<M> }> {
  const call = client[method] as (...parameters: unknown[]) => Promise<{ data: CryptoResult<M> }>;
  if (typeof call !== 'function') return Promise.reject(new TypeError(`CryptoClient has no method ${String(method)}`));
  return Object.hasOwn(BODILESS, method) ? call.call(client, { signal }) : call.call(client, args[0], { signal });
}
