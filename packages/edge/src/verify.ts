/**
 * Verification of the service's signatures, in its raw encodings: Ed25519 (32-byte key, 64-byte
 * signature), ECDSA P-256 / P-384 (SEC1 point, uncompressed or compressed; r ‖ s, IEEE P1363, as
 * `/v2/sign` returns it) and ML-DSA-44/65/87 (FIPS 204, with an optional context).
 *
 * ECDSA goes to Web Crypto, which every target runtime has. Ed25519 goes to Web Crypto where the
 * runtime offers it and to @noble/curves (strict RFC 8032 decoding, as OpenSSL) where it does not.
 * ML-DSA is @noble/post-quantum's: Web Crypto has none yet.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { p256, p384 } from '@noble/curves/nist.js';
import { ml_dsa44, ml_dsa65, ml_dsa87 } from '@noble/post-quantum/ml-dsa.js';
import { checkEncoding, decodeText, hexField, utf8ToBytes, type BinaryInput, type TextEncoding } from './encoding.ts';
import { invalidInput, unsupportedAlgorithm } from './errors.ts';
import { bufferSource, subtleCrypto, type WebCryptoKey } from './subtle.ts';

const ML_DSA = {
  'ml-dsa-44': { scheme: ml_dsa44, publicKeyLength: 1312, signatureLength: 2420 },
  'ml-dsa-65': { scheme: ml_dsa65, publicKeyLength: 1952, signatureLength: 3309 },
  'ml-dsa-87': { scheme: ml_dsa87, publicKeyLength: 2592, signatureLength: 4627 },
} as const;

const ECDSA = {
  'ecdsa-p256': { curve: p256, namedCurve: 'P-256', hash: 'SHA-256', size: 32 },
  'ecdsa-p384': { curve: p384, namedCurve: 'P-384', hash: 'SHA-384', size: 48 },
} as const;

export const VERIFY_ALGORITHMS = ['ed25519', ...Object.keys(ECDSA), ...Object.keys(ML_DSA)] as VerifyAlgorithm[];
export type VerifyAlgorithm = 'ed25519' | keyof typeof ECDSA | keyof typeof ML_DSA;

const CONTEXT_MAX_BYTES = 255;

/** The body of `POST /v2/verify`, for the algorithms this package verifies. */
export interface VerifyInput {
  /** ed25519 by default, as in the service. */
  algorithm?: VerifyAlgorithm;
  /** The raw public key: hex, or bytes. */
  publicKey: BinaryInput;
  /** The signed message, in `encoding` (utf8 by default), or bytes. */
  message: BinaryInput;
  /** The signature as `/v2/sign` returns it: hex, or bytes. */
  signature: BinaryInput;
  /** ML-DSA only: the context string (UTF-8, at most 255 bytes) it was signed with. */
  context?: string;
  encoding?: TextEncoding;
}

/** Whether an error from Web Crypto means "this runtime lacks the algorithm". */
function isNotSupported(error: unknown): boolean {
  return error instanceof Error && (error.name === 'NotSupportedError' || error.name === 'TypeError');
}

async function verifyEd25519(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): Promise<boolean> {
  const subtle = subtleCrypto();
  if (subtle !== undefined) {
    let key: WebCryptoKey | undefined;
    try {
      key = await subtle.importKey('raw', bufferSource(publicKey), { name: 'Ed25519' }, false, ['verify']);
    } catch (error) {
      // Not a valid encoding of a point: nothing verifies under it.
      if (!isNotSupported(error)) return false;
    }
    if (key !== undefined) {
      return subtle.verify({ name: 'Ed25519' }, key, bufferSource(signature), bufferSource(message));
    }
  }
  try {
    return ed25519.verify(signature, message, publicKey, { zip215: false });
  } catch {
    return false;
  }
}

async function verifyEcdsa(
  spec: (typeof ECDSA)[keyof typeof ECDSA],
  publicKey: Uint8Array,
  message: Uint8Array,
  signature: Uint8Array,
): Promise<boolean> {
  let point: Uint8Array;
  try {
    // Web Crypto takes only the uncompressed form everywhere: the point is decoded (and checked
    // to be on the curve) here.
    point = spec.curve.Point.fromBytes(publicKey).toBytes(false);
  } catch {
    throw invalidInput(`publicKey is not a point on ${spec.namedCurve}`, 'publicKey');
  }
  const subtle = subtleCrypto();
  if (subtle === undefined) throw new Error('ECDSA verification needs Web Crypto (crypto.subtle)');
  const key = await subtle.importKey(
    'raw',
    bufferSource(point),
    { name: 'ECDSA', namedCurve: spec.namedCurve },
    false,
    ['verify'],
  );
  return subtle.verify({ name: 'ECDSA', hash: spec.hash }, key, bufferSource(signature), bufferSource(message));
}

/** Verifies raw bytes; a malformed key or signature length is INVALID_INPUT, a bad signature false. */
export async function verifyBytes(
  algorithm: VerifyAlgorithm,
  publicKey: Uint8Array,
  message: Uint8Array,
  signature: Uint8Array,
  context?: Uint8Array,
): Promise<boolean> {
  if (Object.hasOwn(ML_DSA, algorithm)) {
    const spec = ML_DSA[algorithm as keyof typeof ML_DSA];
    if (context !== undefined && context.byteLength > CONTEXT_MAX_BYTES) {
      throw invalidInput(`context must be at most ${CONTEXT_MAX_BYTES} bytes of UTF-8`, 'context');
    }
    hexField(publicKey, 'publicKey', [spec.publicKeyLength]);
    hexField(signature, 'signature', [spec.signatureLength]);
    try {
      return spec.scheme.verify(signature, message, publicKey, context === undefined ? {} : { context });
    } catch {
      // A malformed encoding inside a signature of the right length verifies nothing.
      return false;
    }
  }
  if (context !== undefined) throw invalidInput(`${algorithm} takes no context`, 'context');
  if (algorithm === 'ed25519') {
    hexField(publicKey, 'publicKey', [32]);
    hexField(signature, 'signature', [64]);
    return verifyEd25519(publicKey, message, signature);
  }
  if (Object.hasOwn(ECDSA, algorithm)) {
    const spec = ECDSA[algorithm as keyof typeof ECDSA];
    hexField(publicKey, 'publicKey', [spec.size + 1, 2 * spec.size + 1]);
    hexField(signature, 'signature', [2 * spec.size]);
    return verifyEcdsa(spec, publicKey, message, signature);
  }
  throw unsupportedAlgorithm(`unsupported signature algorithm; this package verifies: ${VERIFY_ALGORITHMS.join(', ')}`);
}

/** `/v2/verify` without the network: `valid` is false for a signature that does not verify. */
export async function verify(input: VerifyInput): Promise<{ valid: boolean; algorithm: VerifyAlgorithm }> {
  const algorithm = input.algorithm ?? 'ed25519';
  const encoding = checkEncoding(input.encoding);
  const valid = await verifyBytes(
    algorithm,
    hexField(input.publicKey, 'publicKey'),
    decodeText(input.message, encoding, 'message'),
    hexField(input.signature, 'signature'),
    input.context === undefined ? undefined : utf8ToBytes(input.context, 'context'),
  );
  return { valid, algorithm };
}
