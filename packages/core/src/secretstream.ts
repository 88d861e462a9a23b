/**
 * libsodium's crypto_secretstream_xchacha20poly1305: a header (24 random bytes), then chunks of
 * tag (1 B, encrypted) ‖ ciphertext ‖ MAC (16 B), each chunk's MAC folded into the nonce of the
 * next, so that chunks can be neither reordered, dropped nor replayed; the last chunk carries
 * the FINAL tag, so that a truncated stream is told from a complete one. Same state machine,
 * tags and rekeying as libsodium, so that each side opens what the other writes.
 *
 * A chunk's MAC is Poly1305 over AD, the 64-byte block that carries the tag, and the ciphertext,
 * as in the RFC 8439 AEAD except for libsodium's padding after the ciphertext (`mlen mod 16` zero
 * bytes, where the RFC pads to a multiple of 16). The two agree when the message length is a
 * multiple of 8, as every full chunk of the service's streams is: such chunks go through
 * node:crypto's chacha20-poly1305 (OpenSSL's speed per byte), the others through @noble/ciphers.
 */
import { chacha20 } from '@noble/ciphers/chacha.js';
import { poly1305 } from '@noble/ciphers/_poly1305.js';
import { checkLength } from './checks.ts';
import { constantTimeEqual, wipe } from './ct.ts';
import { decryptionFailed, invalidInput, openOrFail } from './errors.ts';
import { hchacha20 } from './hchacha-hsalsa.ts';
import { createCipheriv, createDecipheriv } from './node-crypto.ts';
import { fillNonce } from './nonces.ts';

export const SECRETSTREAM_KEY_LENGTH = 32;
export const SECRETSTREAM_HEADER_LENGTH = 24;
/** Bytes a chunk adds to its message: the encrypted tag and the MAC. */
export const SECRETSTREAM_ABYTES = 17;

/** The tags of libsodium (crypto_secretstream_xchacha20poly1305_TAG_*). */
export const SECRETSTREAM_TAG = { MESSAGE: 0, PUSH: 1, REKEY: 2, FINAL: 3 } as const;

const MAC_LENGTH = 16;
const BLOCK_LENGTH = 64;
const COUNTER_LENGTH = 4;
const NONCE_LENGTH = 12;
const INONCE_LENGTH = 8;
const EMPTY = new Uint8Array(0);

/** The key and the 12-byte nonce (32-bit little-endian counter ‖ 8-byte inonce) of a stream. */
class StreamState {
  readonly key: Uint8Array;
  readonly nonce = new Uint8Array(NONCE_LENGTH);

  constructor(key: Uint8Array, header: Uint8Array) {
    this.key = hchacha20(key, header.subarray(0, 16));
    this.nonce.set(header.subarray(16, SECRETSTREAM_HEADER_LENGTH), COUNTER_LENGTH);
    this.resetCounter();
  }

  private resetCounter(): void {
    this.nonce.fill(0, 0, COUNTER_LENGTH);
    this.nonce[0] = 1;
  }

  /** The keystream block at counter 1, which encrypts the tag's block. */
  tagKeystream(): Uint8Array {
    return chacha20(this.key, this.nonce, new Uint8Array(BLOCK_LENGTH), undefined, 1);
  }

  /** After each chunk: fold its MAC into the inonce, step the counter, rekey when asked or on wrap. */
  advance(mac: Uint8Array, tag: number): void {
    for (let i = 0; i < INONCE_LENGTH; i++) this.nonce[COUNTER_LENGTH + i]! ^= mac[i]!;
    let carry = 1;
    for (let i = 0; i < COUNTER_LENGTH; i++) {
      carry += this.nonce[i]!;
      this.nonce[i] = carry & 0xff;
      carry >>= 8;
    }
    const counterWrapped = this.nonce.subarray(0, COUNTER_LENGTH).every((byte) => byte === 0);
    if ((tag & SECRETSTREAM_TAG.REKEY) !== 0 || counterWrapped) this.rekey();
  }

  /** crypto_secretstream_xchacha20poly1305_rekey: key ‖ inonce encrypted under themselves at counter 0. */
  rekey(): void {
    const next = new Uint8Array(SECRETSTREAM_KEY_LENGTH + INONCE_LENGTH);
    next.set(this.key);
    next.set(this.nonce.subarray(COUNTER_LENGTH), SECRETSTREAM_KEY_LENGTH);
    chacha20(this.key, this.nonce, next, next, 0);
    this.key.set(next.subarray(0, SECRETSTREAM_KEY_LENGTH));
    this.nonce.set(next.subarray(SECRETSTREAM_KEY_LENGTH), COUNTER_LENGTH);
    wipe(next);
    this.resetCounter();
  }

  wipe(): void {
    wipe(this.key, this.nonce);
  }
}

function checkTag(tag: number): void {
  if (!Object.values(SECRETSTREAM_TAG).includes(tag as 0))
    throw invalidInput('tag must be one of the secretstream tags (0 to 3)', '/tag');
}

/** Whether libsodium's padding equals the RFC 8439 AEAD's, so that OpenSSL's AEAD computes the MAC. */
function paddingAgrees(length: number): boolean {
  return length % 8 === 0;
}

const ZERO_PAD = new Uint8Array(16);

/** libsodium's MAC, computed directly: Poly1305 keyed with keystream block 0 over its exact layout. */
function libsodiumMac(state: StreamState, ad: Uint8Array, sealedBlock: Uint8Array, ciphertext: Uint8Array): Uint8Array {
  const polyKey = chacha20(state.key, state.nonce, new Uint8Array(BLOCK_LENGTH), undefined, 0);
  const lengths = new Uint8Array(16);
  const view = new DataView(lengths.buffer);
  view.setBigUint64(0, BigInt(ad.byteLength), true);
  view.setBigUint64(8, BigInt(BLOCK_LENGTH + ciphertext.byteLength), true);
  const mac = poly1305
    .create(polyKey.subarray(0, 32))
    .update(ad)
    .update(ZERO_PAD.subarray(0, (0x10 - ad.byteLength) & 0xf))
    .update(sealedBlock)
    .update(ciphertext)
    .update(ZERO_PAD.subarray(0, ciphertext.byteLength & 0xf))
    .update(lengths)
    .digest();
  wipe(polyKey);
  return mac;
}

/** The writing side: crypto_secretstream_xchacha20poly1305_init_push, then push per chunk. */
export class SecretStreamPush {
  /** What the reader needs first: send it before the chunks. */
  readonly header: Uint8Array;
  private readonly state: StreamState;

  /** The header is random unless a test supplies one. */
  constructor(key: Uint8Array, options: { header?: Uint8Array } = {}) {
    checkLength(key, SECRETSTREAM_KEY_LENGTH, 'key');
    if (options.header !== undefined) checkLength(options.header, SECRETSTREAM_HEADER_LENGTH, 'header');
    this.header = options.header?.slice() ?? fillNonce(new Uint8Array(SECRETSTREAM_HEADER_LENGTH));
    this.state = new StreamState(key, this.header);
  }

  /** Encrypts one chunk: returns tag ‖ ciphertext ‖ MAC (message length + SECRETSTREAM_ABYTES). */
  push(message: Uint8Array, tag: number = SECRETSTREAM_TAG.MESSAGE, ad: Uint8Array = EMPTY): Uint8Array {
    checkTag(tag);
    const out = new Uint8Array(message.byteLength + SECRETSTREAM_ABYTES);
    const mac = paddingAgrees(message.byteLength)
      ? this.pushNative(message, tag, ad, out)
      : this.pushNoble(message, tag, ad, out);
    out.set(mac, 1 + message.byteLength);
    this.state.advance(mac, tag);
    return out;
  }

  private pushNative(message: Uint8Array, tag: number, ad: Uint8Array, out: Uint8Array): Uint8Array {
    const block = new Uint8Array(BLOCK_LENGTH);
    block[0] = tag;
    const cipher = createCipheriv('chacha20-poly1305', this.state.key, this.state.nonce, { authTagLength: MAC_LENGTH });
    cipher.setAAD(ad, { plaintextLength: BLOCK_LENGTH + message.byteLength });
    out[0] = cipher.update(block)[0]!;
    const body = cipher.update(message);
    out.set(body, 1);
    out.set(cipher.final(), 1 + body.byteLength);
    return cipher.getAuthTag();
  }

  private pushNoble(message: Uint8Array, tag: number, ad: Uint8Array, out: Uint8Array): Uint8Array {
    const block = new Uint8Array(BLOCK_LENGTH);
    block[0] = tag;
    chacha20(this.state.key, this.state.nonce, block, block, 1);
    out[0] = block[0]!;
    const ciphertext = out.subarray(1, 1 + message.byteLength);
    chacha20(this.state.key, this.state.nonce, message, ciphertext, 2);
    return libsodiumMac(this.state, ad, block, ciphertext);
  }

  rekey(): void {
    this.state.rekey();
  }

  /** Zeroes the key and nonce: the stream cannot go on. */
  wipe(): void {
    this.state.wipe();
  }
}

/** The reading side: crypto_secretstream_xchacha20poly1305_init_pull, then pull per chunk. */
export class SecretStreamPull {
  private readonly state: StreamState;

  constructor(key: Uint8Array, header: Uint8Array) {
    checkLength(key, SECRETSTREAM_KEY_LENGTH, 'key');
    if (header.byteLength !== SECRETSTREAM_HEADER_LENGTH) throw decryptionFailed();
    this.state = new StreamState(key, header);
  }

  /**
   * Decrypts one chunk and returns its message and tag. A chunk that is too short, tampered, out of
   * order or from another stream throws decryptionFailed(), and the state is left as it was.
   */
  pull(chunk: Uint8Array, ad: Uint8Array = EMPTY): { message: Uint8Array; tag: number } {
    if (chunk.byteLength < SECRETSTREAM_ABYTES) throw decryptionFailed();
    const length = chunk.byteLength - SECRETSTREAM_ABYTES;
    const mac = chunk.subarray(1 + length);
    // The block's ciphertext: its first byte from the chunk, the rest the keystream over zeros.
    const sealedBlock = this.state.tagKeystream();
    const tag = (sealedBlock[0]! ^ chunk[0]!) & 0xff;
    sealedBlock[0] = chunk[0]!;
    const ciphertext = chunk.subarray(1, 1 + length);
    const message = paddingAgrees(length)
      ? this.pullNative(sealedBlock, ciphertext, mac, ad)
      : this.pullNoble(sealedBlock, ciphertext, mac, ad);
    this.state.advance(mac, tag);
    return { message, tag };
  }

  private pullNative(sealedBlock: Uint8Array, ciphertext: Uint8Array, mac: Uint8Array, ad: Uint8Array): Uint8Array {
    let block: Uint8Array | undefined;
    let unverified: Uint8Array | undefined;
    let message: Uint8Array | undefined;
    try {
      message = openOrFail(() => {
        const decipher = createDecipheriv('chacha20-poly1305', this.state.key, this.state.nonce, {
          authTagLength: MAC_LENGTH,
        });
        decipher.setAAD(ad, { plaintextLength: BLOCK_LENGTH + ciphertext.byteLength });
        decipher.setAuthTag(mac);
        block = decipher.update(sealedBlock);
        // OpenSSL hands out plaintext before the MAC is checked: wiped below unless final() succeeds.
        unverified = decipher.update(ciphertext);
        const rest = decipher.final();
        return rest.byteLength === 0 ? unverified : Buffer.concat([unverified, rest]);
      });
    } finally {
      if (message !== unverified) wipe(unverified);
      wipe(block);
    }
    return message;
  }

  private pullNoble(sealedBlock: Uint8Array, ciphertext: Uint8Array, mac: Uint8Array, ad: Uint8Array): Uint8Array {
    const expected = libsodiumMac(this.state, ad, sealedBlock, ciphertext);
    if (!constantTimeEqual(expected, mac)) throw decryptionFailed();
    return chacha20(this.state.key, this.state.nonce, ciphertext, undefined, 2);
  }

  rekey(): void {
    this.state.rekey();
  }

  wipe(): void {
    this.state.wipe();
  }
}
