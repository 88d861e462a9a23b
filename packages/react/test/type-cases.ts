/**
 * What the compiler accepts and refuses of the hooks' types: checked by `tsc -p tsconfig.json`
 * (the repository's typecheck) and by types.test.ts; an @ts-expect-error that stops failing fails.
 * Never run, only compiled.
 */
import type { CryptoClient } from '@crypto-service/client';
import type { CryptoArgs, CryptoCall, CryptoMethod, CryptoResult } from '@crypto-service/react';
import { useCrypto, useHash, useSign } from '@crypto-service/react';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function expectType<T extends true>(_proof?: T): void {}

export function hooks(): void {
  const hash = useHash();
  void hash.run({ algorithm: 'sha256', data: 'hello' });
  // @ts-expect-error an algorithm the service does not have
  void hash.run({ algorithm: 'md5', data: 'hello' });
  // @ts-expect-error the body is required
  void hash.run();
  // @ts-expect-error a member hash does not take
  void hash.run({ algorithm: 'sha256', data: 'hello', key: 'k' });
  const digest: string | undefined = hash.data?.digest;
  void digest;

  const sign = useSign();
  // @ts-expect-error sign needs a privateKey
  void sign.run({ message: 'hello' });
  // @ts-expect-error no call options: the hook owns the abort signal
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
  const valid: boolean | undefined = verify.data?.valid;
  void valid;
  const loading: boolean = verify.loading;
  void loading;
  const error: Error | undefined = verify.error;
  void error;
}

expectType<Equal<CryptoArgs<'hash'>, [body: Parameters<CryptoClient['hash']>[0]]>>();
expectType<Equal<CryptoArgs<'algorithms'>, []>>();
expectType<Equal<CryptoResult<'metrics'>, string>>();
expectType<Equal<CryptoResult<'verify'>['valid'], boolean>>();
expectType<
  Equal<Extract<CryptoMethod, 'hash' | 'encrypt' | 'v1Sign' | 'ready'>, 'hash' | 'encrypt' | 'v1Sign' | 'ready'>
>();
