/**
 * Key generation (`POST /v2/keys/generate`) for every algorithm of the service.
 *
 * - Signature keys (ed25519, ed448, ecdsa-p256, ecdsa-p384) come from the signature schemes'
 *   own generate/export, so a generated raw key is exactly what sign and verify take.
 * - Key-agreement keys (x25519, x448): raw private = the 32 / 56-byte scalar (the form of
 *   libsodium's crypto_box secret keys and of the sealed box), raw public = 32 / 56 bytes.
 * - Symmetric keys: random bytes of the algorithm's key size, as { key }.
 * - Post-quantum keys (ML-KEM, X-Wing, ML-DSA, SLH-DSA): the encodings of the `/v2/pq` routes;
 *   PEM and JWK as pq-keys.ts describes them. Their generation
 *   runs through a PostQuantumRunner (the server's offload), on the calling thread by default.
 *
 * Formats: 'raw' (bytes; hex on the wire), 'pem' (PKCS#8 private / SPKI public) and 'jwk'
 * (RFC 7517: OKP per RFC 8037, EC per RFC 7518 §6.2, oct per §6.4). A symmetric key has no PEM
 * form, so asking for one is an INVALID_INPUT naming /format.
 *
 * Everything goes through node:crypto: generateKeyPair's asynchronous form (libuv's pool, off
 * the event loop) for pairs, randomBytes (the OS CSPRNG) for symmetric keys.
 */
import { randomBytes } from 'node:crypto';
import { wipe } from './ct.ts';
import { invalidInput, unsupportedAlgorithm } from './errors.ts';
import {
  POST_QUANTUM_KEY_ALGORITHM_IDS,
  checkPostQuantumKeyFormat,
  exportPostQuantumKeyPair,
  generatePostQuantumKeyPair,
  type PostQuantumKeyAlgorithm,
  type PostQuantumRunner,
} from './pq-keys.ts';
import { KEY_FORMATS, type EncodedKey, type KeyFormat, type KeyPairScheme } from './key-format.ts';
import { okpKeyPairScheme, X25519_CURVE, X448_CURVE } from './okp.ts';
import { SIGNATURE_SCHEMES } from './signature.ts';

interface PairGenerator {
  readonly kind: 'pair';
  readonly scheme: KeyPairScheme;
}

interface SecretGenerator {
  readonly kind: 'secret';
  /** Key length in bytes. */
  readonly length: number;
}

/** A post-quantum key pair, made by pq-keys.ts. */
interface PostQuantumGenerator {
  readonly kind: 'post-quantum';
}

type KeyGenerator = PairGenerator | SecretGenerator | PostQuantumGenerator;

function pair(scheme: KeyPairScheme): PairGenerator {
  return { kind: 'pair', scheme };
}

function secret(length: number): SecretGenerator {
  return { kind: 'secret', length };
}

const CLASSICAL_KEY_GENERATORS = {
  ed25519: pair(SIGNATURE_SCHEMES.ed25519),
  ed448: pair(SIGNATURE_SCHEMES.ed448),
  'ecdsa-p256': pair(SIGNATURE_SCHEMES['ecdsa-p256']),
  'ecdsa-p384': pair(SIGNATURE_SCHEMES['ecdsa-p384']),
  x25519: pair(okpKeyPairScheme(X25519_CURVE)),
  x448: pair(okpKeyPairScheme(X448_CURVE)),
  'xchacha20-poly1305': secret(32),
  // Key-encryption keys for AES-KW / AES-KWP (RFC 3394 / 5649).
  'aes-128': secret(16),
  'aes-192': secret(24),
  'aes-256': secret(32),
  // HMAC keys of the hash's output size (RFC 2104 §3: less is weaker, more adds nothing).
  'hmac-sha256': secret(32),
  'hmac-sha384': secret(48),
  'hmac-sha512': secret(64),
  'hmac-sha3-256': secret(32),
  'hmac-sha3-384': secret(48),
  'hmac-sha3-512': secret(64),
} as const satisfies Record<string, KeyGenerator>;

export type KeyGenerationAlgorithm = keyof typeof CLASSICAL_KEY_GENERATORS | PostQuantumKeyAlgorithm;
/** Every identifier key generation accepts; the same identifier names the algorithm on every route. */
export const KEY_GENERATION_IDS: readonly KeyGenerationAlgorithm[] = [
  ...(Object.keys(CLASSICAL_KEY_GENERATORS) as (keyof typeof CLASSICAL_KEY_GENERATORS)[]),
  ...POST_QUANTUM_KEY_ALGORITHM_IDS,
];
export const KEY_GENERATORS: Readonly<Record<KeyGenerationAlgorithm, KeyGenerator>> = Object.freeze({
  ...CLASSICAL_KEY_GENERATORS,
  ...(Object.fromEntries(POST_QUANTUM_KEY_ALGORITHM_IDS.map((id) => [id, { kind: 'post-quantum' }])) as Record<
    PostQuantumKeyAlgorithm,
    PostQuantumGenerator
  >),
});
export const DEFAULT_KEY_GENERATION_ALGORITHM: KeyGenerationAlgorithm = 'ed25519';

export function isKeyGenerationAlgorithm(id: string): id is KeyGenerationAlgorithm {
  return Object.hasOwn(KEY_GENERATORS, id);
}

/** Whether the identifier names a symmetric key (returned as { key }) rather than a pair. */
export function isSymmetricKeyAlgorithm(id: KeyGenerationAlgorithm): boolean {
  return KEY_GENERATORS[id].kind === 'secret';
}

export interface GeneratedKeyPair {
  readonly kind: 'pair';
  readonly publicKey: EncodedKey;
  readonly privateKey: EncodedKey;
}

export interface GeneratedSecretKey {
  readonly kind: 'secret';
  readonly key: EncodedKey;
}

export type GeneratedKey = GeneratedKeyPair | GeneratedSecretKey;

/**
 * A fresh key (pair) for `algorithm`, written in `format`. A format the algorithm has no form in
 * is refused before any work. `runner` says where post-quantum generation runs.
 */
export async function generateKeyMaterial(
  algorithm: string,
  format: KeyFormat = 'raw',
  options: { runner?: PostQuantumRunner } = {},
): Promise<GeneratedKey> {
  if (!isKeyGenerationAlgorithm(algorithm)) {
    throw unsupportedAlgorithm(`unsupported key generation algorithm '${algorithm}'`, '/algorithm');
  }
  if (!KEY_FORMATS.includes(format)) {
    throw invalidInput(`format must be one of: ${KEY_FORMATS.join(', ')}`, '/format');
  }
  const generator: KeyGenerator = KEY_GENERATORS[algorithm];
  if (generator.kind === 'post-quantum') {
    checkPostQuantumKeyFormat(algorithm, format);
    const pair = await generatePostQuantumKeyPair(algorithm, options.runner);
    if (format === 'raw') return { kind: 'pair', publicKey: pair.publicKey, privateKey: pair.privateKey };
    try {
      const encoded = exportPostQuantumKeyPair(algorithm, pair, format);
      return { kind: 'pair', publicKey: encoded.publicKey, privateKey: encoded.privateKey };
    } finally {
      // As below: the raw private key leaves only in the form asked for.
      wipe(pair.privateKey);
    }
  }
  if (generator.kind === 'secret') {
    if (format === 'pem') {
      throw invalidInput(
        `${algorithm} is a symmetric key, which has no PEM form; ask for format raw or jwk`,
        '/format',
      );
    }
    const bytes = randomBytes(generator.length);
    if (format === 'raw')
      return { kind: 'secret', key: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
    try {
      return { kind: 'secret', key: { kty: 'oct', k: bytes.toString('base64url') } };
    } finally {
      wipe(bytes);
    }
  }
  const raw = await generator.scheme.generate();
  if (format === 'raw') return { kind: 'pair', publicKey: raw.publicKey, privateKey: raw.privateKey };
  try {
    const encoded = generator.scheme.export(raw, format);
    return { kind: 'pair', publicKey: encoded.publicKey, privateKey: encoded.privateKey };
  } finally {
    // The raw private key was only the step to PEM / JWK: it leaves in that form, not this one.
    wipe(raw.privateKey);
  }
}
