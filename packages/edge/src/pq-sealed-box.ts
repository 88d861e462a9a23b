/**
 * The post-quantum sealed box of `/v2/sealedbox/seal-pq` and `/open-pq`: HPKE (RFC 9180) base
 * mode, single shot, KEM X-Wing (0x647a), HKDF-SHA256, ChaCha20-Poly1305, info
 * "crypto-service/v2/sealedbox-pq", empty aad; sealed = enc (1120 B) ‖ ciphertext ‖ tag (16 B).
 */
import type { Sealed } from './aead.ts';
import {
  base64Field,
  bytesToBase64,
  checkEncoding,
  concatBytes,
  decodeText,
  encodeText,
  hexField,
  type BinaryInput,
  type TextEncoding,
} from './encoding.ts';
import { decryptionFailed, invalidInput, unsupportedAlgorithm } from './errors.ts';
import { HPKE_TAG_LENGTH, hpkeOpenWithSecret, hpkeSealWithSecret } from './hpke.ts';
import {
  ML_KEM_768_EXPANDED_KEY_LENGTH,
  ML_KEM_768_PUBLIC_KEY_LENGTH,
  ML_KEM_768_SEED_LENGTH,
  wipeXWingPrivateKey,
  X25519_KEY_LENGTH,
  XWING_CIPHERTEXT_LENGTH,
  XWING_HPKE_KEM_ID,
  XWING_SEED_LENGTH,
  xwingDecapsulate,
  xwingEncapsulate,
  xwingPrivateKeyFromParts,
  xwingPrivateKeyFromSeed,
  type XWingPrivateKey,
} from './xwing.ts';

export const PQ_SEALED_BOX_ALGORITHM = 'hpke-x25519-ml-kem-768-chacha20-poly1305';
export type PqSealedBoxAlgorithm = typeof PQ_SEALED_BOX_ALGORITHM;

const INFO = new TextEncoder().encode('crypto-service/v2/sealedbox-pq');
const EMPTY = new Uint8Array(0);

/**
 * The body of `POST /v2/sealedbox/seal-pq`: the recipient's X-Wing public key whole (1216 B,
 * ML-KEM-768 pk ‖ X25519 pk), or as its two parts.
 */
export interface PqSealedBoxSealInput {
  publicKey?: BinaryInput;
  x25519PublicKey?: BinaryInput;
  mlKemPublicKey?: BinaryInput;
  plaintext: BinaryInput;
  encoding?: TextEncoding;
  algorithm?: PqSealedBoxAlgorithm;
}

/**
 * The body of `POST /v2/sealedbox/open-pq`: the 32-byte X-Wing seed, or its two parts (the
 * X25519 private key, and the ML-KEM-768 seed or its expanded key).
 */
export interface PqSealedBoxOpenInput {
  privateKey?: BinaryInput;
  x25519PrivateKey?: BinaryInput;
  mlKemPrivateKey?: BinaryInput;
  ciphertext: BinaryInput;
  encoding?: TextEncoding;
  algorithm?: PqSealedBoxAlgorithm;
}

function checkAlgorithm(algorithm: string | undefined): void {
  if (algorithm !== undefined && algorithm !== PQ_SEALED_BOX_ALGORITHM) {
    throw unsupportedAlgorithm(`unsupported post-quantum sealed box algorithm; use ${PQ_SEALED_BOX_ALGORITHM}`);
  }
}

function oneKeyForm(whole: unknown, parts: readonly unknown[], names: string): void {
  const partCount = parts.filter((part) => part !== undefined).length;
  if (whole !== undefined ? partCount !== 0 : partCount !== parts.length) {
    throw invalidInput(`give either ${names}`);
  }
}

function recipientParts(input: PqSealedBoxSealInput) {
  oneKeyForm(
    input.publicKey,
    [input.x25519PublicKey, input.mlKemPublicKey],
    'publicKey, or x25519PublicKey and mlKemPublicKey',
  );
  if (input.publicKey !== undefined) {
    const publicKey = hexField(input.publicKey, 'publicKey', [ML_KEM_768_PUBLIC_KEY_LENGTH + X25519_KEY_LENGTH]);
    return {
      mlKem: publicKey.subarray(0, ML_KEM_768_PUBLIC_KEY_LENGTH),
      x25519: publicKey.subarray(ML_KEM_768_PUBLIC_KEY_LENGTH),
      fields: { mlKem: 'publicKey', x25519: 'publicKey' },
    };
  }
  return {
    mlKem: hexField(input.mlKemPublicKey, 'mlKemPublicKey', [ML_KEM_768_PUBLIC_KEY_LENGTH]),
    x25519: hexField(input.x25519PublicKey, 'x25519PublicKey', [X25519_KEY_LENGTH]),
    fields: { mlKem: 'mlKemPublicKey', x25519: 'x25519PublicKey' },
  };
}

function recipientPrivateKey(input: PqSealedBoxOpenInput): XWingPrivateKey {
  oneKeyForm(
    input.privateKey,
    [input.x25519PrivateKey, input.mlKemPrivateKey],
    'privateKey, or x25519PrivateKey and mlKemPrivateKey',
  );
  if (input.privateKey !== undefined) {
    return xwingPrivateKeyFromSeed(hexField(input.privateKey, 'privateKey', [XWING_SEED_LENGTH]));
  }
  return xwingPrivateKeyFromParts(
    hexField(input.x25519PrivateKey, 'x25519PrivateKey', [X25519_KEY_LENGTH]),
    hexField(input.mlKemPrivateKey, 'mlKemPrivateKey', [ML_KEM_768_SEED_LENGTH, ML_KEM_768_EXPANDED_KEY_LENGTH]),
  );
}

/** Opens a post-quantum sealed box with a decapsulation-ready key; every failure is DECRYPTION_FAILED. */
export function openBoxPqBytes(key: XWingPrivateKey, sealed: Uint8Array): Uint8Array {
  if (sealed.byteLength < XWING_CIPHERTEXT_LENGTH + HPKE_TAG_LENGTH) throw decryptionFailed();
  const sharedSecret = xwingDecapsulate(key, sealed.subarray(0, XWING_CIPHERTEXT_LENGTH));
  try {
    return hpkeOpenWithSecret(XWING_HPKE_KEM_ID, sharedSecret, INFO, EMPTY, sealed.subarray(XWING_CIPHERTEXT_LENGTH));
  } finally {
    sharedSecret.fill(0);
  }
}

/** `/v2/sealedbox/seal-pq` without the network. */
export async function pqSealedBoxSeal(input: PqSealedBoxSealInput): Promise<Sealed<PqSealedBoxAlgorithm>> {
  checkAlgorithm(input.algorithm);
  const encoding = checkEncoding(input.encoding);
  const recipient = recipientParts(input);
  const plaintext = decodeText(input.plaintext, encoding, 'plaintext');
  const { ciphertext: enc, sharedSecret } = xwingEncapsulate(recipient.mlKem, recipient.x25519, recipient.fields);
  try {
    const body = hpkeSealWithSecret(XWING_HPKE_KEM_ID, sharedSecret, INFO, EMPTY, plaintext);
    return { ciphertext: bytesToBase64(concatBytes(enc, body)), algorithm: PQ_SEALED_BOX_ALGORITHM };
  } finally {
    sharedSecret.fill(0);
  }
}

/** `/v2/sealedbox/open-pq` without the network: the plaintext in `encoding` (utf8 by default). */
export async function pqSealedBoxOpen(input: PqSealedBoxOpenInput): Promise<string> {
  checkAlgorithm(input.algorithm);
  const encoding = checkEncoding(input.encoding);
  const key = recipientPrivateKey(input);
  try {
    const sealed = base64Field(input.ciphertext, 'ciphertext');
    return encodeText(openBoxPqBytes(key, sealed), encoding);
  } finally {
    wipeXWingPrivateKey(key);
  }
}
