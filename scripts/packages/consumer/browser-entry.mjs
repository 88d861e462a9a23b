// Bundled by esbuild for the browser from the installed client; the page calls run() against the service.
import { CryptoClient, CryptoApiError } from '@crypto-service/client';

export async function run(baseUrl) {
  const client = new CryptoClient({ baseUrl });
  const { data: hash } = await client.hash({ algorithm: 'sha256', data: 'abc' });
  const { data: secret } = await client.generateKeyPair({ algorithm: 'xchacha20-poly1305' });
  const { data: encrypted } = await client.encrypt({ key: secret.key, plaintext: 'from the browser' });
  const { data: decrypted } = await client.decrypt({ ...encrypted, key: secret.key });
  const { data: keys } = await client.generateKeyPair();
  const { data: signed } = await client.sign({ privateKey: keys.privateKey, message: 'm' });
  const { data: verified } = await client.verify({ ...signed, publicKey: keys.publicKey, message: 'm' });
  const refused = await client.hash({ algorithm: 'md5', data: 'abc' }).then(
    () => null,
    (error) => (error instanceof CryptoApiError ? error.status : String(error)),
  );
  return { digest: hash.digest, decrypted, verified: verified.valid, refused };
}
