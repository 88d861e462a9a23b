/**
 * The MACs of `/v2/hmac` and `/v2/hmac/verify`: HMAC over SHA-2 through Web Crypto (where the
 * runtime has it), over SHA-3 through @noble/hashes. As in the service, an empty key is refused
 * (anyone can compute a MAC under it) and verification takes only a MAC of full length.
 */
import { hmac as nobleHmac } from '@noble/hashes/hmac.js';
import { sha256, sha384, sha512 } from '@noble/hashes/sha2.js';
import { sha3_256, sha3_384, sha3_512 } from '@noble/hashes/sha3.js';
import {
  bytesToHex,
  checkEncoding,
  constantTimeEqual,
  decodeText,
  hexField,
  type BinaryInput,
  type TextEncoding,
} from './encoding.ts';
import { invalidInput, unsupportedAlgorithm } from './errors.ts';
import { bufferSource, subtleCrypto } from './subtle.ts';

const MACS = {
  'hmac-sha256': { length: 32, webCrypto: 'SHA-256', hash: sha256 },
  'hmac-sha384': { length: 48, webCrypto: 'SHA-384', hash: sha384 },
  'hmac-sha512': { length: 64, webCrypto: 'SHA-512', hash: sha512 },
  'hmac-sha3-256': { length: 32, webCrypto: undefined, hash: sha3_256 },
  'hmac-sha3-384': { length: 48, webCrypto: undefined, hash: sha3_384 },
  'hmac-sha3-512': { length: 64, webCrypto: undefined, hash: sha3_512 },
} as const;

export type MacAlgorithm = keyof typeof MACS;
export const MAC_ALGORITHMS = Object.keys(MACS) as MacAlgorithm[];

/** The body of `POST /v2/hmac`. */
export interface HmacInput {
  algorithm: MacAlgorithm;
  /** The key: hex, or bytes; not empty. */
  key: BinaryInput;
  /** The data, in `encoding` (utf8 by default), or bytes. */
  data: BinaryInput;
  encoding?: TextEncoding;
}

/** The body of `POST /v2/hmac/verify`. */
export interface HmacVerifyInput extends HmacInput {
  /** The MAC to check, of the algorithm's full length: hex, or bytes. */
  mac: BinaryInput;
}

function specOf(algorithm: string) {
  if (!Object.hasOwn(MACS, algorithm)) {
    throw unsupportedAlgorithm(`unsupported HMAC algorithm; use one of: ${MAC_ALGORITHMS.join(', ')}`);
  }
  return MACS[algorithm as MacAlgorithm];
}

/** HMAC of `data` under `key`, the algorithm's full output length. */
export async function hmacBytes(algorithm: MacAlgorithm, key: Uint8Array, data: Uint8Array): Promise<Uint8Array> {
  const spec = specOf(algorithm);
  if (key.byteLength === 0) throw invalidInput('key must not be empty', 'key');
  const subtle = subtleCrypto();
  if (spec.webCrypto !== undefined && subtle !== undefined) {
    const cryptoKey = await subtle.importKey('raw', bufferSource(key), { name: 'HMAC', hash: spec.webCrypto }, false, [
      'sign',
    ]);
    return new Uint8Array(await subtle.sign('HMAC', cryptoKey, bufferSource(data)));
  }
  return nobleHmac(spec.hash, key, data);
}

function inputs(input: HmacInput) {
  const encoding = checkEncoding(input.encoding);
  return { key: hexField(input.key, 'key'), data: decodeText(input.data, encoding, 'data') };
}

/** `/v2/hmac` without the network. */
export async function hmac(input: HmacInput): Promise<{ mac: string; algorithm: MacAlgorithm }> {
  const { key, data } = inputs(input);
  return { mac: bytesToHex(await hmacBytes(input.algorithm, key, data)), algorithm: input.algorithm };
}

/**
 * `/v2/hmac/verify` without the network: `valid` is false for a MAC that does not match; a MAC of
 * the wrong length is an error, since accepting a truncated one would make forgeries cheap.
 */
export async function hmacVerify(input: HmacVerifyInput): Promise<{ valid: boolean; algorithm: MacAlgorithm }> {
  const spec = specOf(input.algorithm);
  const { key, data } = inputs(input);
  const mac = hexField(input.mac, 'mac');
  if (mac.byteLength !== spec.length) {
    throw invalidInput(
      `mac must be ${spec.length} bytes for ${input.algorithm} (got ${mac.byteLength}); truncated MACs are not accepted`,
      'mac',
    );
  }
  const expected = await hmacBytes(input.algorithm, key, data);
  return { valid: constantTimeEqual(expected, mac), algorithm: input.algorithm };
}
