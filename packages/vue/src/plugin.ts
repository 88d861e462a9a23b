/** The plugin and provide/inject of the one CryptoClient that every composable uses. */
import { hasInjectionContext, inject, provide, type InjectionKey, type Plugin } from 'vue';
import type { CryptoClient } from '@crypto-service/client';

/** The injection key of the client, for apps that provide or inject it themselves. */
export const CRYPTO_CLIENT: InjectionKey<CryptoClient> = Symbol('@crypto-service/vue client');

export interface CryptoServiceOptions {
  /** The client every composable of the app uses. */
  client: CryptoClient;
}

function checkClient(client: unknown): CryptoClient {
  if (typeof (client as CryptoClient | undefined)?.hash !== 'function')
    throw new TypeError('cryptoService needs a CryptoClient: app.use(cryptoService, { client: new CryptoClient(…) })');
  return client as CryptoClient;
}

/** `app.use(cryptoService, { client })`: provides the client to the whole app. */
export const cryptoService: Plugin<[CryptoServiceOptions]> = {
  install(app, options) {
    app.provide(CRYPTO_CLIENT, checkClient(options?.client));
  },
};

/** Provides another client to a component's subtree; call it in setup. */
export function provideCryptoClient(client: CryptoClient): void {
  provide(CRYPTO_CLIENT, checkClient(client));
}

/** The client provided above (by the plugin or provideCryptoClient); call it in setup. */
export function useCryptoClient(): CryptoClient {
  const client = hasInjectionContext() ? inject(CRYPTO_CLIENT, null) : null;
  if (client === null)
    throw new Error(
      'crypto-service composables need a client: app.use(cryptoService, { client }), and a call from setup()',
    );
  return client;
}
