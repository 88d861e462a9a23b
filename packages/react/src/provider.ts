/** The provider that hands one CryptoClient to every hook below it. */
import { createContext, createElement, useContext, type ReactElement, type ReactNode } from 'react';
import type { CryptoClient } from '@crypto-service/client';

const CryptoClientContext = createContext<CryptoClient | null>(null);

export interface CryptoProviderProps {
  /** The client every hook below uses; create it once (module scope or useState), not on each render. */
  client: CryptoClient;
  children?: ReactNode;
}

export function CryptoProvider({ client, children }: CryptoProviderProps): ReactElement {
  return createElement(CryptoClientContext.Provider, { value: client }, children);
}

/** The provider's client; throws when there is no CryptoProvider above the component. */
export function useCryptoClient(): CryptoClient {
  const client = useContext(CryptoClientContext);
  if (client === null) throw new Error('crypto-service hooks need a <CryptoProvider client={…}> above the component');
  return client;
}
