/**
 * The data key goes through the service: AES-KW (`/v2/keys/wrap|unwrap`) under a key-encryption
 * key, or the X-Wing sealed box (`/v2/sealedbox/seal-pq|open-pq`) to a public key. The content
 * never does.
 */
import { CryptoApiError, type CryptoClient } from '@crypto-service/client';
import { decryptionFailed, EnvelopeError } from './errors.ts';
import { checkKeyId, type EnvelopeHeader, type WrapMode } from './format.ts';

/** What the package calls on the client: a CryptoClient, or anything with these four methods. */
export type EnvelopeClient = Pick<CryptoClient, 'keyWrap' | 'keyUnwrap' | 'sealedboxSealPq' | 'sealedboxOpenPq'>;

/** The key a new data key is wrapped with. Keys are hex, as the service takes them. */
export type WrappingKey =
  /** AES-KW (RFC 3394) under an AES key of 16, 24 or 32 bytes, named `keyId` in the header. */
  | { mode: 'aes-kw'; keyId: string; kek: string }
  /** The X-Wing sealed box to a 1216-byte public key, named `keyId` in the header. */
  | { mode: 'x-wing'; keyId: string; publicKey: string };

/** A key that opens a data key: the KEK itself, or the X-Wing private key (its 32-byte seed). */
export type UnwrappingKey =
  { mode: 'aes-kw'; keyId: string; kek: string } | { mode: 'x-wing'; keyId: string; privateKey: string };

/** The keys a reader holds, or a function that finds the one a header names (undefined: none). */
export type KeyResolver =
  | readonly UnwrappingKey[]
  | ((wanted: { mode: WrapMode; keyId: string }) => UnwrappingKey | undefined | Promise<UnwrappingKey | undefined>);

export const DATA_KEY_LENGTH = 32;

const toHex = (bytes: Uint8Array) => Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');

function fromHex(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.byteLength; i++) bytes[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

function fromBase64(base64: string): Uint8Array {
  return Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
}

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

export function checkWrappingKey(key: WrappingKey): void {
  checkKeyId(key.keyId);
  if (key.mode !== 'aes-kw' && key.mode !== 'x-wing')
    throw new EnvelopeError('INVALID_OPTIONS', "the wrapping key's mode must be 'aes-kw' or 'x-wing'");
}

/** Wraps `dataKey` through the service; the result goes into the header as it is. */
export async function wrapDataKey(client: EnvelopeClient, key: WrappingKey, dataKey: Uint8Array): Promise<Uint8Array> {
  checkWrappingKey(key);
  if (key.mode === 'aes-kw') {
    const { data } = await client.keyWrap({ kek: key.kek, keyToWrap: toHex(dataKey), algorithm: 'aes-kw' });
    return fromBase64(data.wrappedKey);
  }
  const { data } = await client.sealedboxSealPq({
    publicKey: key.publicKey,
    plaintext: toHex(dataKey),
    encoding: 'hex',
  });
  return fromBase64(data.ciphertext);
}

async function resolveKey(keys: KeyResolver, header: EnvelopeHeader): Promise<UnwrappingKey> {
  const wanted = { mode: header.mode, keyId: header.keyId };
  const key =
    typeof keys === 'function'
      ? await keys(wanted)
      : keys.find((candidate) => candidate.mode === wanted.mode && candidate.keyId === wanted.keyId);
  if (key === undefined || key.mode !== header.mode)
    throw new EnvelopeError(
      'UNKNOWN_KEY',
      `no ${header.mode} key was given for key id ${JSON.stringify(header.keyId)}`,
    );
  return key;
}

/**
 * Unwraps the header's data key through the service. A key that does not open it, or a wrapped key
 * that was tampered with, is DECRYPTION_FAILED; a service that cannot be reached is the client's error.
 */
export async function unwrapDataKey(
  client: EnvelopeClient,
  keys: KeyResolver,
  header: EnvelopeHeader,
): Promise<Uint8Array> {
  const key = await resolveKey(keys, header);
  let hex: string;
  try {
    if (key.mode === 'aes-kw') {
      ({ data: hex } = await client.keyUnwrap({
        kek: key.kek,
        wrappedKey: toBase64(header.wrappedKey),
        algorithm: 'aes-kw',
      }));
    } else {
      ({ data: hex } = await client.sealedboxOpenPq({
        privateKey: key.privateKey,
        ciphertext: toBase64(header.wrappedKey),
        encoding: 'hex',
      }));
    }
  } catch (error) {
    if (error instanceof CryptoApiError && error.body.code === 'DECRYPTION_FAILED') throw decryptionFailed(error);
    throw error;
  }
  if (hex.length !== 2 * DATA_KEY_LENGTH) throw decryptionFailed();
  return fromHex(hex);
}
