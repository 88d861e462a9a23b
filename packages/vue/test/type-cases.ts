/**
 * What the compiler accepts and refuses of the composables' types: checked by `tsc -p
 * tsconfig.json` (the repository's typecheck) and by types.test.ts; an @ts-expect-error that stops
 * failing fails. Never run, only compiled.
 */
import { createApp, type Ref } from 'vue';
import type { CryptoClient } from '@crypto-service/client';
import type { CryptoArgs, CryptoCall, CryptoMethod, CryptoResult } from '@crypto-service/vue';
import { cryptoService, useCrypto, useHash, useSign } from '@crypto-service/vue';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function expectType<T extends true>(_proof?: T): void {}

export function composables(client: CryptoClient): void {
  createApp({}).use(cryptoService, { client });
  // @ts-expect-error the plugin needs a client
  createApp({}).use(cryptoService, {});

  const { run, data } = useHash();
  void run({ algorithm: 'sha256', data: 'hello' });
  // @ts-expect-error an algorithm the service does not have
  void run({ algorithm: 'md5', data: 'hello' });
  // @ts-expect-error the body is required
  void run();
  // @ts-expect-error a member hash does not take
  void run({ algorithm: 'sha256', data: 'hello', key: 'k' });
  const digest: string | undefined = data.value?.digest;
  void digest;
  // @ts-expect-error only the composable writes its refs
  data.value = undefined;

  const sign = useSign();
  // @ts-expect-error sign needs a privateKey
  void sign.run({ message: 'hello' });
  // @ts-expect-error no call options: the composable owns the abort signal
  void sign.run({ privateKey: '00', message: 'hi' }, { signal: new AbortController().signal });

  const health = useCrypto('health');
  void health.run();
  // @ts-expect-error health takes no body
  void health.run({ status: 'ok' });

  const keys = useCrypto('pqSignKeygen');
  void keys.run();
  void keys.run({ algorithm: 'ml-dsa-87' });

  // @ts-expect-error not a method of the client
  useCrypto('encryptEverything');

  const verify: CryptoCall<'verify'> = useCrypto('verify');
  const valid: boolean | undefined = verify.data.value?.valid;
  void valid;
  const loading: Readonly<Ref<boolean>> = verify.loading;
  void loading;
  const error: Error | undefined = verify.error.value;
  void error;
}

expectType<Equal<CryptoArgs<'hash'>, [body: Parameters<CryptoClient['hash']>[0]]>>();
expectType<Equal<CryptoArgs<'algorithms'>, []>>();
expectType<Equal<CryptoResult<'metrics'>, string>>();
expectType<Equal<CryptoResult<'verify'>['valid'], boolean>>();
expectType<
  Equal<Extract<CryptoMethod, 'hash' | 'encrypt' | 'v1Sign' | 'ready'>, 'hash' | 'encrypt' | 'v1Sign' | 'ready'>
>();
