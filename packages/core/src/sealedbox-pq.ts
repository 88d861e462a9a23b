/**
 * The post-quantum sealed box of `/v2/sealedbox/seal-pq` and `/open-pq`: anonymous
 * public-key encryption to an X-Wing key, built from HPKE (RFC 9180) rather than invented here.
 *
 *   mode      base, single shot (one message at sequence number 0)
 *   suite     KEM X-Wing (0x647a), KDF HKDF-SHA256 (0x0001), AEAD ChaCha20-Poly1305 (0x0003)
 *   info      ASCII "crypto-service/v2/sealedbox-pq" (binds the box to this use)
 *   aad       empty
 *   sealed    enc (the 1120-byte X-Wing ciphertext) ‖ ciphertext ‖ tag (16 B)
 *
 * Any HPKE implementation with X-Wing opens it given the recipient's 32-byte X-Wing seed, and
 * seals boxes that this module opens (test/interop-hpke-xwing.test.ts: @hpke/core with
 * @hpke/hybridkem-x-wing).
 *
 * Keys. The recipient's public key is the X-Wing public key, given whole (1216 B) or as its two
 * parts, the X25519 public key and the ML-KEM-768 public key (it is their concatenation, ML-KEM
 * first). The private key is the 32-byte X-Wing seed, or its two parts: the X25519 private key and
 * the 64-byte ML-KEM-768 seed (or its expanded key) into which X-Wing expands the seed; both forms
 * decapsulate identically.
 *
 * Errors: a malformed key is an INVALID_INPUT naming its field; every failure to open (short or
 * tampered box, wrong key, low-order ephemeral key) is the one DECRYPTION_FAILED: no oracle.
 */
import { concatBytes } from './bytes.ts';
import { checkLength } from './checks.ts';
import { decryptionFailed } from './errors.ts';
import { HPKE_AEAD_TAG_LENGTH, hpkeOpen, hpkeSeal, type KemPrivateKey } from './hpke.ts';
import { ML_KEM_PARAMETERS } from './ml-kem.ts';
import { X25519_KEY_LENGTH } from './x25519.ts';
import {
  XWING_CIPHERTEXT_LENGTH,
  XWING_HPKE_KEM,
  XWING_SEED_LENGTH,
  xwingHpkePrivateKeyFromParts,
  type XWingPrivateKeyParts,
} from './xwing.ts';

/** The identifier of this box (`GET /v2/algorithms` pqSealedBox, and seal-pq's `algorithm`). */
export const PQ_SEALED_BOX = 'hpke-x25519-ml-kem-768-chacha20-poly1305' as const;
export const PQ_SEALED_BOX_ALGORITHM_IDS = [PQ_SEALED_BOX] as const;
export const PQ_SEALED_BOX_INFO: Uint8Array = new TextEncoder().encode('crypto-service/v2/sealedbox-pq');
/** Bytes that sealing adds: the X-Wing ciphertext and the Poly1305 tag. */
export const PQ_SEALED_BOX_OVERHEAD = XWING_CIPHERTEXT_LENGTH + HPKE_AEAD_TAG_LENGTH;

const ML_KEM_768_PUBLIC_KEY_LENGTH = ML_KEM_PARAMETERS['ml-kem-768'].publicKeyLength;
const EMPTY = new Uint8Array(0);

/** The recipient's X-Wing public key: whole, or as its two parts. */
export type PqSealedBoxPublicKey =
  { readonly publicKey: Uint8Array } | { readonly x25519PublicKey: Uint8Array; readonly mlKemPublicKey: Uint8Array };

/** The recipient's X-Wing private key: the 32-byte seed, or its two parts. */
export type PqSealedBoxPrivateKey = { readonly privateKey: Uint8Array } | XWingPrivateKeyParts;

/** Seals `plaintext` to an X-Wing public key; the result is PQ_SEALED_BOX_OVERHEAD bytes longer. */
export async function sealBoxPq(recipient: PqSealedBoxPublicKey, plaintext: Uint8Array): Promise<Uint8Array> {
  let publicKey: Uint8Array;
  let options;
  if ('publicKey' in recipient) {
    publicKey = recipient.publicKey;
    options = { label: 'publicKey' };
  } else {
    checkLength(recipient.x25519PublicKey, X25519_KEY_LENGTH, 'x25519PublicKey');
    checkLength(recipient.mlKemPublicKey, ML_KEM_768_PUBLIC_KEY_LENGTH, 'mlKemPublicKey');
    publicKey = concatBytes(recipient.mlKemPublicKey, recipient.x25519PublicKey);
    options = { label: 'publicKey', partLabels: { mlKem: 'mlKemPublicKey', x25519: 'x25519PublicKey' } };
  }
  const { enc, ciphertext } = await hpkeSeal(XWING_HPKE_KEM, publicKey, PQ_SEALED_BOX_INFO, EMPTY, plaintext, options);
  return concatBytes(enc, ciphertext);
}

/** Reads the private key once, checking it (INVALID_INPUT naming the field) before any ciphertext. */
export async function pqSealedBoxPrivateKey(secret: PqSealedBoxPrivateKey): Promise<KemPrivateKey> {
  if ('privateKey' in secret) {
    checkLength(secret.privateKey, XWING_SEED_LENGTH, 'privateKey');
    return XWING_HPKE_KEM.importPrivateKey(secret.privateKey, 'privateKey');
  }
  return xwingHpkePrivateKeyFromParts(secret, { x25519: 'x25519PrivateKey', mlKem: 'mlKemPrivateKey' });
}

/** Opens a post-quantum sealed box. Every failure to open is the same DECRYPTION_FAILED. */
export async function openBoxPq(secret: PqSealedBoxPrivateKey, sealed: Uint8Array): Promise<Uint8Array> {
  const privateKey = await pqSealedBoxPrivateKey(secret);
  try {
    if (sealed.byteLength < PQ_SEALED_BOX_OVERHEAD) throw decryptionFailed();
    return await hpkeOpen(
      XWING_HPKE_KEM,
      privateKey,
      sealed.subarray(0, XWING_CIPHERTEXT_LENGTH),
      PQ_SEALED_BOX_INFO,
      EMPTY,
      sealed.subarray(XWING_CIPHERTEXT_LENGTH),
    );
  } finally {
    privateKey.wipe?.();
  }
}
