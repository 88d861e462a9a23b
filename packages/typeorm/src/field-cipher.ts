/**
 * The stored form of an encrypted field, the same as @crypto-service/prisma's (keep the two in step):
 *
 *   v1.<key id>.<base64 of nonce (24 B) ‖ ciphertext ‖ tag (16 B)>
 *
 * the /v2/encrypt output (XChaCha20-Poly1305) under the key named by `key id`, with the associated
 * data `<model>.<field>:<primary key>` as UTF-8, so that a value copied to another row, column or
 * table fails to open. The blind index is HMAC-SHA-256 (/v2/hmac) of the normalised value, hex.
 */
import type { CryptoClient } from '@crypto-service/client';
import { FieldDecryptionError, FieldEncryptionError } from './errors.ts';

const FORMAT_VERSION = 'v1';
const KEY_ID = /^[A-Za-z0-9_-]{1,64}$/;
const HEX_KEY = /^[0-9a-fA-F]{64}$/;

export interface FieldEncryptionKeys {
  /** The crypto-service client that performs every operation. */
  client: CryptoClient;
  /** Every XChaCha20-Poly1305 key that may still open a stored value: key id to 32-byte hex key. */
  keys: Readonly<Record<string, string>>;
  /** The key id new values are written with (and that `rotate` moves rows to). */
  currentKeyId: string;
  /** The HMAC-SHA-256 key of the blind indexes, hex; distinct from every encryption key. */
  blindIndexKey?: string;
}

/** Where a value lives: the associated data it is bound to. */
export interface FieldLocation {
  model: string;
  field: string;
  /** The row's primary key, already written with `formatPrimaryKey`. */
  primaryKey: string;
}

/**
 * A single key as its decimal or string form; a composite key as the JSON array of those strings,
 * in the order the key's fields are declared.
 */
export function formatPrimaryKey(values: readonly unknown[]): string {
  const parts = values.map((value) => {
    if (typeof value === 'string') return value;
    if (typeof value === 'number' || typeof value === 'bigint') return value.toString();
    throw new TypeError(`a primary key part must be a string, number or bigint, not ${typeof value}`);
  });
  return parts.length === 1 ? (parts[0] as string) : JSON.stringify(parts);
}

export function associatedData({ model, field, primaryKey }: FieldLocation): string {
  return `${model}.${field}:${primaryKey}`;
}

export function storedKeyId(stored: string): string | undefined {
  const [version, keyId, ciphertext, ...rest] = stored.split('.');
  return version === FORMAT_VERSION && ciphertext !== undefined && rest.length === 0 ? keyId : undefined;
}

export function validateKeys(options: FieldEncryptionKeys): void {
  for (const [keyId, key] of Object.entries(options.keys)) {
    if (!KEY_ID.test(keyId)) throw new TypeError(`key id "${keyId}" must be 1 to 64 of A-Z a-z 0-9 _ -`);
    if (!HEX_KEY.test(key)) throw new TypeError(`key "${keyId}" must be 32 bytes in hex`);
  }
  if (!Object.hasOwn(options.keys, options.currentKeyId)) {
    throw new TypeError(`currentKeyId "${options.currentKeyId}" is not one of keys`);
  }
  if (options.blindIndexKey !== undefined && !/^(?:[0-9a-fA-F]{2}){16,}$/.test(options.blindIndexKey)) {
    throw new TypeError('blindIndexKey must be at least 16 bytes in hex');
  }
}

export async function encryptField(
  options: FieldEncryptionKeys,
  location: FieldLocation,
  plaintext: string,
  keyId = options.currentKeyId,
): Promise<string> {
  const key = options.keys[keyId];
  if (key === undefined) throw new FieldEncryptionError(location, keyId, 'unknown key id');
  try {
    const { data } = await options.client.encrypt({ key, plaintext, aad: associatedData(location) });
    return `${FORMAT_VERSION}.${keyId}.${data.ciphertext}`;
  } catch (cause) {
    throw new FieldEncryptionError(location, keyId, 'the service refused to encrypt', cause);
  }
}

export async function decryptField(
  options: FieldEncryptionKeys,
  location: FieldLocation,
  stored: string,
): Promise<string> {
  const keyId = storedKeyId(stored);
  if (keyId === undefined) throw new FieldDecryptionError(location, undefined, 'the value is not in the v1 format');
  const key = options.keys[keyId];
  if (key === undefined) throw new FieldDecryptionError(location, keyId, 'no key with this id is configured');
  const ciphertext = stored.slice(FORMAT_VERSION.length + keyId.length + 2);
  try {
    const { data } = await options.client.decrypt({ key, ciphertext, aad: associatedData(location) });
    return data;
  } catch (cause) {
    throw new FieldDecryptionError(
      location,
      keyId,
      'it does not open: wrong key, tampered, or moved from another row or column',
      cause,
    );
  }
}

/** Normalises the value (Unicode NFC unless `normalize` says otherwise) before the HMAC. */
export async function blindIndex(
  options: FieldEncryptionKeys,
  location: Omit<FieldLocation, 'primaryKey'>,
  value: string,
  normalize: (value: string) => string = (text) => text.normalize('NFC'),
): Promise<string> {
  const key = options.blindIndexKey;
  if (key === undefined) throw new FieldEncryptionError(location, undefined, 'a blind index needs blindIndexKey');
  try {
    const { data } = await options.client.mac({ algorithm: 'hmac-sha256', key, data: normalize(value) });
    return data.mac;
  } catch (cause) {
    throw new FieldEncryptionError(location, 'blind index', 'the service refused the HMAC', cause);
  }
}
