/** The generic hook: one client method, its call state, and `run`, which starts a call. */
import { useCallback, useEffect, useState } from 'react';
import { asError, LatestCall } from './latest-call.ts';
import { callMethod, type CryptoArgs, type CryptoMethod, type CryptoResult } from './methods.ts';
import { useCryptoClient } from './provider.ts';

export interface CryptoState<M extends CryptoMethod> {
  /** The latest call's result (the `data` of the service's answer), until the next run or reset. */
  data: CryptoResult<M> | undefined;
  /** Why the latest call failed: a CryptoApiError (its `body.error` is the service's text), a network or timeout error. */
  error: Error | undefined;
  /** Whether a call is in flight. */
  loading: boolean;
}

export interface CryptoCall<M extends CryptoMethod> extends CryptoState<M> {
  /**
   * Starts a call with this body, aborting the one in flight. Resolves to the result, or to
   * undefined when the call failed (see `error`), was superseded, reset or unmounted; never rejects.
   */
  run(...args: CryptoArgs<M>): Promise<CryptoResult<M> | undefined>;
  /** Aborts the call in flight and clears data, error and loading. */
  reset(): void;
}

const IDLE = { data: undefined, error: undefined, loading: false } as const;
const LOADING = { data: undefined, error: undefined, loading: true } as const;

export function useCrypto<M extends CryptoMethod>(method: M): CryptoCall<M> {
  const client = useCryptoClient();
  const [calls] = useState(() => new LatestCall());
  const [state, setState] = useState<CryptoState<M>>(IDLE);

  useEffect(() => {
    calls.revive();
    return () => calls.dispose();
  }, [calls]);

  const run = useCallback(
    async (...args: CryptoArgs<M>): Promise<CryptoResult<M> | undefined> => {
      const signal = calls.start();
      setState(LOADING);
      try {
        const { data } = await callMethod(client, method, args, signal);
        if (!calls.isCurrent(signal)) return undefined;
        setState({ data, error: undefined, loading: false });
        return data;
      } catch (thrown) {
        if (calls.isCurrent(signal)) setState({ data: undefined, error: asError(thrown), loading: false });
        return undefined;
      }
    },
    [calls, client, method],
  );

  const reset = useCallback(() => {
    calls.cancel('reset');
    setState(IDLE);
  }, [calls]);

  return { ...state, run, reset };
}
