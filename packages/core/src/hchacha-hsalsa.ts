/**
 * HChaCha20 and HSalsa20: the functions that turn a 32-byte key and 16 bytes of nonce into a
 * subkey, which is how XChaCha20 (aead.ts) and crypto_box's XSalsa20 (sealedbox.ts) reach their
 * 24-byte nonces. The cores are @noble/ciphers'; this file only converts bytes to words and back.
 */
import { hchacha } from '@noble/ciphers/chacha.js';
import { hsalsa } from '@noble/ciphers/salsa.js';
import { littleEndianBytes, littleEndianWords } from './bytes.ts';

/** "expand 32-byte k" as four little-endian words: the constant of both functions. */
const SIGMA = new Uint32Array([0x61707865, 0x3320646e, 0x79622d32, 0x6b206574]);

type Core = (sigma: Uint32Array, key: Uint32Array, nonce: Uint32Array, out: Uint32Array) => void;

function subkey(core: Core, key: Uint8Array, nonce16: Uint8Array): Uint8Array {
  const keyWords = littleEndianWords(key);
  const out = new Uint32Array(8);
  try {
    core(SIGMA, keyWords, littleEndianWords(nonce16), out);
    return littleEndianBytes(out);
  } finally {
    // Both hold the key, or what the subkey is made of.
    keyWords.fill(0);
    out.fill(0);
  }
}

/** HChaCha20(key, nonce[0..16]): the subkey that turns ChaCha20 into XChaCha20. */
export function hchacha20(key: Uint8Array, nonce16: Uint8Array): Uint8Array {
  return subkey(hchacha, key, nonce16);
}

/** HSalsa20(key, nonce[0..16]): crypto_core_hsalsa20, the subkey of XSalsa20 and crypto_box. */
export function hsalsa20(key: Uint8Array, nonce16: Uint8Array): Uint8Array {
  return subkey(hsalsa, key, nonce16);
}
