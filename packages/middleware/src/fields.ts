/**
 * Field-level protection through the service: named fields of a JSON body are carried as the
 * service's /v2/encrypt ciphertexts (XChaCha20-Poly1305, base64), each bound to its field by
 * associated data, the field's JSON pointer in UTF-8. The plaintext is the JSON text of the value,
 * so numbers, objects and strings come back as they were. A ciphertext moved to another field
 * fails to decrypt, which is answered as a 400 problem naming the field.
 */
import { CryptoApiError, type CryptoClient } from '@crypto-service/client';
import { locate, parseFieldPath, type FieldPath } from './field-path.ts';

export interface FieldProtectionOptions {
  client: CryptoClient;
  /** The XChaCha20-Poly1305 key, hex (POST /v2/keys/generate with algorithm xchacha20-poly1305). */
  key: string;
  /** Fields of the request body that arrive encrypted and reach the handler decrypted. */
  request?: readonly string[];
  /** Fields of the response body that the handler sets in the clear and that leave encrypted. */
  response?: readonly string[];
}

/** A protected field that is not a ciphertext of that field under the key. Its message names the field only. */
export class FieldDecryptionError extends Error {
  override readonly name = 'FieldDecryptionError';
  /** The field's JSON pointer. */
  readonly field: string;

  constructor(field: string, options?: ErrorOptions) {
    super(`the field ${field} could not be decrypted`, options);
    this.field = field;
  }
}

export interface FieldProtection {
  /** The body with its request fields decrypted in place (a copy is not made). */
  decryptRequest(body: unknown): Promise<unknown>;
  /** A copy of the body (as JSON would serialize it) with its response fields encrypted. */
  encryptResponse(body: unknown): Promise<unknown>;
}

/** Encrypts one value for one field: what a caller puts in a protected request field. */
export async function encryptField(client: CryptoClient, key: string, path: string, value: unknown): Promise<string> {
  const { pointer } = parseFieldPath(path);
  const { data } = await client.encrypt({ key, plaintext: JSON.stringify(value), aad: pointer });
  return data.ciphertext;
}

/** Decrypts one field's ciphertext; a ciphertext of another field or key is a FieldDecryptionError. */
export async function decryptField(
  client: CryptoClient,
  key: string,
  path: string,
  ciphertext: unknown,
): Promise<unknown> {
  const { pointer } = parseFieldPath(path);
  if (typeof ciphertext !== 'string') throw new FieldDecryptionError(pointer);
  let plaintext: string;
  try {
    ({ data: plaintext } = await client.decrypt({ key, ciphertext, aad: pointer }));
  } catch (error) {
    // A 400 is the service refusing this ciphertext (forged, moved, malformed); anything else is an outage.
    if (error instanceof CryptoApiError && error.status === 400)
      throw new FieldDecryptionError(pointer, { cause: error });
    throw error;
  }
  try {
    return JSON.parse(plaintext);
  } catch {
    throw new FieldDecryptionError(pointer);
  }
}

async function transform(
  body: unknown,
  paths: readonly FieldPath[],
  apply: (path: FieldPath, value: unknown) => Promise<unknown>,
): Promise<unknown> {
  await Promise.all(
    paths.map(async (path) => {
      const location = locate(body, path);
      if (location !== undefined) location.parent[location.name] = await apply(path, location.parent[location.name]);
    }),
  );
  return body;
}

export function createFieldProtection(options: FieldProtectionOptions): FieldProtection {
  const { client, key } = options;
  if (!/^[0-9a-fA-F]{64}$/.test(key)) throw new TypeError('the field key must be 32 bytes of hex');
  const requestPaths = (options.request ?? []).map(parseFieldPath);
  const responsePaths = (options.response ?? []).map(parseFieldPath);
  return {
    decryptRequest: (body) =>
      transform(body, requestPaths, (path, value) => decryptField(client, key, path.pointer, value)),
    // A copy, so that an object the handler keeps and answers again is never left holding ciphertexts.
    encryptResponse: (body) =>
      responsePaths.length === 0 || body === undefined
        ? Promise.resolve(body)
        : transform(JSON.parse(JSON.stringify(body)), responsePaths, (path, value) =>
            encryptField(client, key, path.pointer, value),
          ),
  };
}
