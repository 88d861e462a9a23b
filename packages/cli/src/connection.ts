/**
 * The client that a command talks through: the service's URL and credentials from the command
 * line, else from the environment (flags win, so that one call can differ from the shell's setup).
 */
import { CryptoClient } from '@crypto-service/client';
import { integer } from './args.ts';

export const DEFAULT_URL = 'http://localhost:3000';

/** The common options as parseCommand returns them. */
export interface ConnectionOptions {
  url?: string | undefined;
  'api-key'?: string | undefined;
  token?: string | undefined;
  timeout?: string | undefined;
  retry?: boolean | undefined;
}

export function connect(values: ConnectionOptions, env: NodeJS.ProcessEnv): CryptoClient {
  const apiKey = values['api-key'] ?? nonEmpty(env.CRYPTO_API_KEY);
  const token = values.token ?? nonEmpty(env.CRYPTO_SERVICE_TOKEN);
  const timeout = integer(values.timeout, 'timeout');
  return new CryptoClient({
    baseUrl: values.url ?? nonEmpty(env.CRYPTO_SERVICE_URL) ?? DEFAULT_URL,
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(token === undefined ? {} : { token }),
    ...(timeout === undefined ? {} : { timeout }),
    retry: values.retry === true,
  });
}

// An exported but empty variable (CRYPTO_API_KEY= in a script) means "not set", not "empty key".
function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
