/**
 * node:crypto's functions that take a key, called so that Node 24's key checks cost no stack trace.
 * Core imports these from here, never from node:crypto (a test holds it to that).
 *
 * Why: on Node 24 (since the KeyObject hardening of nodejs/node#63111), node:crypto tells a
 * KeyObject or CryptoKey from other input by asking its C++ binding for the object's slots and
 * catching the TypeError the binding throws when there are none. That error captures a stack
 * trace like any other, up to Error.stackTraceLimit frames of the caller's stack, and is thrown
 * away. A call with raw key bytes or an options object (`{ key, dsaEncoding }`, `{ key: der,
 * format, type }`) pays two such throws per object it inspects, which deep in a server's stack can
 * cost more than the call's own work (docs/performance.md). Node 22 checks a symbol and throws
 * nothing.
 *
 * - Secret keys (HMAC, ChaCha20-Poly1305, AES key wrap, HKDF) are handed over as a KeyObject made by
 *   createSecretKey, which takes bytes without any check: the checks that follow find a KeyObject at
 *   once. The KeyObject holds a copy of the key in native memory until it is collected, as the
 *   cipher or HMAC context made from a Buffer key does.
 * - Asymmetric keys come in options objects that Node must inspect, so those calls run with stack
 *   traces off (the limit restored after), so Node's own error, if it throws one, is made without
 *   frames. Mostly such an error means a key the caller sent was malformed, and core answers it
 *   with its own (tryOrThrow, which keeps stack traces off until it has); an error that is not the
 *   caller's fault (OpenSSL failing inside a signature, a JWK import of core's own making) gets its
 *   frames on the way out, from the call that failed, and reaches the log as a 500 with them.
 */
import {
  createCipheriv as nodeCreateCipheriv,
  createDecipheriv as nodeCreateDecipheriv,
  createHmac as nodeCreateHmac,
  createPrivateKey as nodeCreatePrivateKey,
  createPublicKey as nodeCreatePublicKey,
  createSecretKey,
  hkdfSync as nodeHkdfSync,
  sign as nodeSign,
  verify as nodeVerify,
  type CipherChaCha20Poly1305,
  type CipherChaCha20Poly1305Options,
  type CipherChaCha20Poly1305Types,
  type Cipheriv,
  type DecipherChaCha20Poly1305,
  type Decipheriv,
  type Hmac,
} from 'node:crypto';
import { withFramesAbove, withoutStackTraces } from './errors.ts';

/**
 * node:crypto's function, called through withoutStackTraces; the same function type, overloads
 * included. `current` reads the import's live binding at each call, so that a test that replaces
 * the export (test/node-crypto-spy.ts, node-crypto.test.ts) sees the calls.
 */
function stackless<F extends (...args: never[]) => unknown>(current: () => F): F {
  const call = function (this: unknown, ...args: Parameters<F>): ReturnType<F> {
    // Inside tryOr, where a failure means bad input and is answered with core's own error, stack
    // traces are already off: nothing to add, not even a rethrow (a throw is not free).
    if (Error.stackTraceLimit === 0) return current().apply(this, args) as ReturnType<F>;
    try {
      return withoutStackTraces(() => current().apply(this, args) as ReturnType<F>);
    } catch (error) {
      // Node's error was made with stack traces off. Nothing expected this call to fail: it will
      // be logged as a 500, so it gets the frames of the failed call.
      throw withFramesAbove(error, call);
    }
  };
  return call as F;
}

export const createPublicKey = stackless(() => nodeCreatePublicKey);
export const createPrivateKey = stackless(() => nodeCreatePrivateKey);
export const sign = stackless(() => nodeSign);
export const verify = stackless(() => nodeVerify);

export function createHmac(algorithm: string, key: Uint8Array): Hmac {
  return nodeCreateHmac(algorithm, createSecretKey(key));
}

export function createCipheriv(
  algorithm: CipherChaCha20Poly1305Types,
  key: Uint8Array,
  iv: Uint8Array,
  options: CipherChaCha20Poly1305Options,
): CipherChaCha20Poly1305;
export function createCipheriv(algorithm: string, key: Uint8Array, iv: Uint8Array | null): Cipheriv;
export function createCipheriv(
  algorithm: string,
  key: Uint8Array,
  iv: Uint8Array | null,
  options?: CipherChaCha20Poly1305Options,
): Cipheriv {
  return nodeCreateCipheriv(algorithm, createSecretKey(key), iv, options);
}

export function createDecipheriv(
  algorithm: CipherChaCha20Poly1305Types,
  key: Uint8Array,
  iv: Uint8Array,
  options: CipherChaCha20Poly1305Options,
): DecipherChaCha20Poly1305;
export function createDecipheriv(algorithm: string, key: Uint8Array, iv: Uint8Array | null): Decipheriv;
export function createDecipheriv(
  algorithm: string,
  key: Uint8Array,
  iv: Uint8Array | null,
  options?: CipherChaCha20Poly1305Options,
): Decipheriv {
  return nodeCreateDecipheriv(algorithm, createSecretKey(key), iv, options);
}

export function hkdfSync(
  digest: string,
  ikm: Uint8Array,
  salt: Uint8Array,
  info: Uint8Array,
  keyLength: number,
): ArrayBuffer {
  return nodeHkdfSync(digest, createSecretKey(ikm), salt, info, keyLength);
}
