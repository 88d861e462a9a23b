/** The generic composable: one client method, its call state as refs, and `run`, which starts a call. */
import { getCurrentScope, onScopeDispose, shallowRef, type ShallowRef } from 'vue';
import { asError, LatestCall } from './latest-call.ts';
import { callMethod, type CryptoArgs, type CryptoMethod, type CryptoResult } from './methods.ts';
import { useCryptoClient } from './plugin.ts';

export interface CryptoCall<M extends CryptoMethod> {
  /** The latest call's result (the `data` of the service's answer), until the next run or reset. */
  readonly data: Readonly<ShallowRef<CryptoResult<M> | undefined>>;
  /** Why the latest call failed: a CryptoApiError (its `body.error` is the service's text), a network or timeout error. */
  readonly error: Readonly<ShallowRef<Error | undefined>>;
  /** Whether a call is in flight. */
  readonly loading: Readonly<ShallowRef<boolean>>;
  /**
   * Starts a call with this body, aborting the one in flight. Resolves to the result, or to
   * undefined when the call failed (see `error`), was superseded, reset or disposed; never rejects.
   */
  run(...args: CryptoArgs<M>): Promise<CryptoResult<M> | undefined>;
  /** Aborts the call in flight and clears data, error and loading. */
  reset(): void;
}

export function useCrypto<M extends CryptoMethod>(method: M): CryptoCall<M> {
  const client = useCryptoClient();
  const calls = new LatestCall();
  const data = shallowRef<CryptoResult<M> | undefined>(undefined);
  const error = shallowRef<Error | undefined>(undefined);
  const loading = shallowRef(false);

  function settle(result: CryptoResult<M> | undefined, failure: Error | undefined, inFlight: boolean): void {
    data.value = result;
    error.value = failure;
    loading.value = inFlight;
  }

  // In a component, an effectScope or a store's setup: the call in flight ends with its scope.
  if (getCurrentScope() !== undefined) onScopeDispose(() => calls.dispose());

  async function run(...args: CryptoArgs<M>): Promise<CryptoResult<M> | undefined> {
    const signal = calls.start();
    settle(undefined, undefined, true);
    try {
      const { data: result } = await callMethod(client, method, args, signal);
      if (!calls.isCurrent(signal)) return undefined;
      settle(result, undefined, false);
      return result;
    } catch (thrown) {
      if (calls.isCurrent(signal)) settle(undefined, asError(thrown), false);
      return undefined;
    }
  }

  function reset(): void {
    calls.cancel('reset');
    settle(undefined, undefined, false);
  }

  return { data, error, loading, run, reset };
}
