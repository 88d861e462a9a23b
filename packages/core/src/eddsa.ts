/**
 * EdDSA (RFC 8032): Ed25519 and Ed448, the latter with an optional context.
 *
 * Raw encodings: Ed25519's private key is the 32-byte seed, its public key 32 B, a signature 64 B;
 * Ed448's are 57, 57 and 114 B.
 *
 * Backend: node:crypto (OpenSSL) on Node 22 and 24, keys imported through their RFC 8410 framing
 * (okp.ts). One gap: Node 22 ignores the Ed448 `context` option silently, so where a load-time test
 * finds that, an Ed448 call with a non-empty context goes to @noble/curves instead (same RFC 8032
 * output, strict decoding).
 */
import type { KeyObject, SignKeyObjectInput, VerifyKeyObjectInput } from 'node:crypto';
import { sign } from './node-crypto.ts';
import { ed448 } from '@noble/curves/ed448.js';
import { bytesToHex, hexToBytes } from './codec.ts';
import { invalidInput, tryOr, tryOrThrow } from './errors.ts';
import {
  ED25519_CURVE,
  ED448_CURVE,
  okpFromPem,
  okpKeyPairScheme,
  okpPrivateKeyObject,
  okpPublicKeyObject,
  type OkpCurve,
} from './okp.ts';
import { cachedPublicKey, nativeSign, nativeVerify, type SignatureScheme } from './signature-scheme.ts';
import { scopedPrivateKey, type PrivateKeyScope } from './private-key-scope.ts';

function okpPrivateKey(curve: OkpCurve, raw: Uint8Array, keys: PrivateKeyScope | undefined): KeyObject {
  return scopedPrivateKey(keys, curve.nodeType, raw, () => okpPrivateKeyObject(curve, raw));
}

function eddsaPublicKey(curve: OkpCurve, raw: Uint8Array): KeyObject {
  return cachedPublicKey(curve.nodeType, raw, () =>
    tryOrThrow(
      () => okpPublicKeyObject(curve, raw),
      () => invalidInput(`publicKey is not a valid ${curve.nodeType} public key`, '/publicKey'),
    ),
  );
}

export const ED25519_SCHEME: SignatureScheme = {
  privateKeyLengths: [ED25519_CURVE.privateKeyLength],
  publicKeyLengths: [ED25519_CURVE.publicKeyLength],
  signatureLength: 64,
  maxContextLength: 0,
  sign: async (privateKey, message, _context, keys) =>
    nativeSign(null, message, { key: okpPrivateKey(ED25519_CURVE, privateKey, keys) }, false),
  verify: async (publicKey, message, signature) =>
    nativeVerify(null, message, { key: eddsaPublicKey(ED25519_CURVE, publicKey) }, signature, false),
  fromPem: (pem, kind) => okpFromPem(ED25519_CURVE, pem, kind),
  ...okpKeyPairScheme(ED25519_CURVE),
};

/**
 * RFC 8032 Ed448 on @noble/curves: the fallback for an Ed448 context where the runtime's own
 * Ed448 has none (Node 22). Strict decoding (zip215: false), as RFC 8032 §5.2.7 and OpenSSL.
 * Exported so that the tests run it against the same vectors on every runtime.
 */
export const ed448Noble = {
  sign(privateKey: Uint8Array, message: Uint8Array, context: Uint8Array): Uint8Array {
    return ed448.sign(message, privateKey, { context });
  },
  verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array, context: Uint8Array): boolean {
    // noble throws on an undecodable point or scalar: for a verifier that is simply "invalid".
    return tryOr(
      () => ed448.verify(signature, message, publicKey, { context, zip215: false }),
      () => false,
    );
  },
};

/**
 * Whether this runtime's Ed448 honours `context`. Node 22 accepts the option and ignores it, so
 * the test signs RFC 8032 §7.4's "1 octet with context" example and compares with the published
 * signature: only a runtime that applies the context reproduces it.
 */
export const NATIVE_ED448_CONTEXT: boolean = (() => {
  const seed = hexToBytes(
    'c4eab05d357007c632f3dbb48489924d552b08fe0c353a0d4a1f00acda2c463afbea67c5e8d2877c5e3bc397a659949ef8021e954e0a12274e',
  );
  const expected =
    'd4f8f6131770dd46f40867d6fd5d5055de43541f8c5e35abbcd001b32a89f7d2151f7647f11d8ca2ae279fb842d607217fce6e042f6815ea000c85741de5c8da1144a6a1aba7f96de42505d7a7298524fda538fccbbb754f578c1cad10d54d0d5428407e85dcbc98a49155c13764e66c3c00';
  try {
    const signature = sign(null, Uint8Array.of(0x03), {
      key: okpPrivateKeyObject(ED448_CURVE, seed),
      context: hexToBytes('666f6f'),
    } as SignKeyObjectInput);
    return bytesToHex(signature) === expected;
  } catch {
    return false;
  }
})();

export const ED448_SCHEME: SignatureScheme = {
  privateKeyLengths: [ED448_CURVE.privateKeyLength],
  publicKeyLengths: [ED448_CURVE.publicKeyLength],
  signatureLength: 114,
  maxContextLength: 255,
  sign: async (privateKey, message, context, keys) => {
    if (context === undefined || context.byteLength === 0) {
      // Ed448 always hashes a context; none and the empty one are the same signature.
      return nativeSign(null, message, { key: okpPrivateKey(ED448_CURVE, privateKey, keys) }, true);
    }
    if (!NATIVE_ED448_CONTEXT) return ed448Noble.sign(privateKey, message, context);
    return nativeSign(
      null,
      message,
      { key: okpPrivateKey(ED448_CURVE, privateKey, keys), context } as SignKeyObjectInput,
      true,
    );
  },
  verify: async (publicKey, message, signature, context) => {
    if (context !== undefined && context.byteLength > 0) {
      if (!NATIVE_ED448_CONTEXT) return ed448Noble.verify(publicKey, message, signature, context);
      return nativeVerify(
        null,
        message,
        { key: eddsaPublicKey(ED448_CURVE, publicKey), context } as VerifyKeyObjectInput,
        signature,
        true,
      );
    }
    return nativeVerify(null, message, { key: eddsaPublicKey(ED448_CURVE, publicKey) }, signature, true);
  },
  fromPem: (pem, kind) => okpFromPem(ED448_CURVE, pem, kind),
  ...okpKeyPairScheme(ED448_CURVE),
};
