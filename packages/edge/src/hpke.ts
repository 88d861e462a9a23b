/**
 * The part of HPKE (RFC 9180) that the post-quantum sealed box needs: base mode, single shot,
 * HKDF-SHA256 and ChaCha20-Poly1305, over any KEM that hands over a shared secret. The KDF and
 * the AEAD are @noble's (Web Crypto has no ChaCha20, and HKDF there cannot take HPKE's labels).
 */
import { chacha20poly1305 } from '@noble/ciphers/chacha.js';
import { expand, extract } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { concatBytes } from './encoding.ts';
import { openOrFail } from './errors.ts';

const KDF_HKDF_SHA256 = 0x0001;
const AEAD_CHACHA20_POLY1305 = 0x0003;
const MODE_BASE = 0x00;
const AEAD_KEY_LENGTH = 32;
const AEAD_NONCE_LENGTH = 12;
export const HPKE_TAG_LENGTH = 16;

const EMPTY = new Uint8Array(0);
const encoder = new TextEncoder();
const HPKE_V1 = encoder.encode('HPKE-v1');

function twoBytes(value: number): Uint8Array {
  return Uint8Array.of(value >> 8, value & 0xff);
}

function suiteId(kemId: number): Uint8Array {
  return concatBytes(
    encoder.encode('HPKE'),
    twoBytes(kemId),
    twoBytes(KDF_HKDF_SHA256),
    twoBytes(AEAD_CHACHA20_POLY1305),
  );
}

function labeledExtract(suite: Uint8Array, salt: Uint8Array, label: string, ikm: Uint8Array): Uint8Array {
  return extract(sha256, concatBytes(HPKE_V1, suite, encoder.encode(label), ikm), salt);
}

function labeledExpand(suite: Uint8Array, prk: Uint8Array, label: string, info: Uint8Array, length: number) {
  return expand(sha256, prk, concatBytes(twoBytes(length), HPKE_V1, suite, encoder.encode(label), info), length);
}

/** KeySchedule(mode_base, shared_secret, info, "", ""): the AEAD key and base nonce. */
function keySchedule(kemId: number, sharedSecret: Uint8Array, info: Uint8Array) {
  const suite = suiteId(kemId);
  const context = concatBytes(
    Uint8Array.of(MODE_BASE),
    labeledExtract(suite, EMPTY, 'psk_id_hash', EMPTY),
    labeledExtract(suite, EMPTY, 'info_hash', info),
  );
  const secret = labeledExtract(suite, sharedSecret, 'secret', EMPTY);
  const schedule = {
    key: labeledExpand(suite, secret, 'key', context, AEAD_KEY_LENGTH),
    nonce: labeledExpand(suite, secret, 'base_nonce', context, AEAD_NONCE_LENGTH),
  };
  secret.fill(0);
  return schedule;
}

/** Single-shot Seal of the first (and only) message of a context: ciphertext ‖ tag. */
export function hpkeSealWithSecret(
  kemId: number,
  sharedSecret: Uint8Array,
  info: Uint8Array,
  aad: Uint8Array,
  plaintext: Uint8Array,
): Uint8Array {
  const { key, nonce } = keySchedule(kemId, sharedSecret, info);
  try {
    return chacha20poly1305(key, nonce, aad).encrypt(plaintext);
  } finally {
    key.fill(0);
  }
}

/** Single-shot Open; every failure is the one DECRYPTION_FAILED. */
export function hpkeOpenWithSecret(
  kemId: number,
  sharedSecret: Uint8Array,
  info: Uint8Array,
  aad: Uint8Array,
  ciphertext: Uint8Array,
): Uint8Array {
  const { key, nonce } = keySchedule(kemId, sharedSecret, info);
  try {
    return openOrFail(() => chacha20poly1305(key, nonce, aad).decrypt(ciphertext));
  } finally {
    key.fill(0);
  }
}
