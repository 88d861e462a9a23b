// Compiled in a project that installed the packed client, with moduleResolution node16 and bundler.
import { CryptoClient, CryptoApiError, type HashRequest, type EncryptResponse } from '@crypto-service/client';

const client = new CryptoClient({ baseUrl: 'http://localhost:3000' });
const request: HashRequest = { algorithm: 'sha256', data: 'abc' };

export async function digest(): Promise<string> {
  try {
    return (await client.hash(request)).data.digest;
  } catch (error) {
    if (error instanceof CryptoApiError) return error.body.error;
    throw error;
  }
}

export function ciphertextOf(response: EncryptResponse): string {
  return response.data.ciphertext;
}

// @ts-expect-error the types are precise: the service has no md5
export const refused: HashRequest = { algorithm: 'md5', data: 'abc' };
