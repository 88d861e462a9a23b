/**
 * The RFC 8410 curves (Ed25519, Ed448, X25519, X448) as node:crypto keys: raw keys in and out,
 * generation, and PEM input. Raw keys are imported in their PKCS#8 / SPKI framing, which Node 22
 * reads as well as Node 24 (Node 22 has no raw key formats).
 */
import { generateKeyPair, type KeyObject } from 'node:crypto';
import { createPrivateKey, createPublicKey } from './node-crypto.ts';
import { asBuffer, concatBytes } from './bytes.ts';
import { wipe } from './ct.ts';
import { DER_BIT_STRING, DER_OCTET_STRING, DER_OID, DER_SEQUENCE, derTlv, type PemKind } from './der.ts';
import {
  exportKeyObjects,
  jwkMemberBytes,
  readPemKey,
  wrongPemKeyType,
  type Jwk,
  type KeyPairScheme,
} from './key-format.ts';

/** An RFC 8410 curve: its OID under 1.3.101, JWK name (RFC 8037) and raw key lengths. */
export interface OkpCurve {
  readonly nodeType: 'ed25519' | 'ed448' | 'x25519' | 'x448';
  readonly jwkCurve: 'Ed25519' | 'Ed448' | 'X25519' | 'X448';
  /** Last byte of the OID 1.3.101.x: 110 X25519, 111 X448, 112 Ed25519, 113 Ed448. */
  readonly oidArc: number;
  readonly privateKeyLength: number;
  readonly publicKeyLength: number;
}

export const X25519_CURVE: OkpCurve = {
  nodeType: 'x25519',
  jwkCurve: 'X25519',
  oidArc: 110,
  privateKeyLength: 32,
  publicKeyLength: 32,
};
export const X448_CURVE: OkpCurve = {
  nodeType: 'x448',
  jwkCurve: 'X448',
  oidArc: 111,
  privateKeyLength: 56,
  publicKeyLength: 56,
};
export const ED25519_CURVE: OkpCurve = {
  nodeType: 'ed25519',
  jwkCurve: 'Ed25519',
  oidArc: 112,
  privateKeyLength: 32,
  publicKeyLength: 32,
};
export const ED448_CURVE: OkpCurve = {
  nodeType: 'ed448',
  jwkCurve: 'Ed448',
  oidArc: 113,
  privateKeyLength: 57,
  publicKeyLength: 57,
};

interface Framing {
  /** PKCS#8 version 1 (no public key) up to the raw private key, which ends it. */
  readonly pkcs8: Uint8Array;
  /** SubjectPublicKeyInfo up to the raw public key, which ends it. */
  readonly spki: Uint8Array;
}

const framings = new WeakMap<OkpCurve, Framing>();

/** A key's DER is a fixed prefix and the raw key: the prefix is built once per curve, with der.ts. */
function framingOf(curve: OkpCurve): Framing {
  let framing = framings.get(curve);
  if (framing === undefined) {
    const algorithm = derTlv(DER_SEQUENCE, derTlv(DER_OID, Uint8Array.of(0x2b, 0x65, curve.oidArc)));
    const pkcs8 = derTlv(
      DER_SEQUENCE,
      Uint8Array.of(0x02, 0x01, 0x00),
      algorithm,
      derTlv(DER_OCTET_STRING, derTlv(DER_OCTET_STRING, new Uint8Array(curve.privateKeyLength))),
    );
    const spki = derTlv(
      DER_SEQUENCE,
      algorithm,
      derTlv(DER_BIT_STRING, Uint8Array.of(0), new Uint8Array(curve.publicKeyLength)),
    );
    framing = {
      pkcs8: pkcs8.subarray(0, pkcs8.byteLength - curve.privateKeyLength),
      spki: spki.subarray(0, spki.byteLength - curve.publicKeyLength),
    };
    framings.set(curve, framing);
  }
  return framing;
}

/** A private KeyObject from the raw private key. Throws what createPrivateKey throws. */
export function okpPrivateKeyObject(curve: OkpCurve, raw: Uint8Array): KeyObject {
  const der = concatBytes(framingOf(curve).pkcs8, raw);
  try {
    return createPrivateKey({ key: asBuffer(der), format: 'der', type: 'pkcs8' });
  } finally {
    // OpenSSL has parsed its own copy; this one holds the private key.
    wipe(der);
  }
}

/** A public KeyObject from the raw public key. Throws what createPublicKey throws. */
export function okpPublicKeyObject(curve: OkpCurve, raw: Uint8Array): KeyObject {
  return createPublicKey({ key: asBuffer(concatBytes(framingOf(curve).spki, raw)), format: 'der', type: 'spki' });
}

/** The raw public key of a public or private KeyObject: the tail of its SPKI encoding. */
export function okpRawPublicKey(curve: OkpCurve, key: KeyObject): Uint8Array {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  const spki = publicKey.export({ format: 'der', type: 'spki' });
  return Uint8Array.from(spki.subarray(spki.byteLength - curve.publicKeyLength));
}

/** The raw private key of a private KeyObject, through its JWK (a PKCS#8 read from PEM may carry more). */
export function okpRawPrivateKey(curve: OkpCurve, key: KeyObject): Uint8Array {
  return jwkMemberBytes((key.export({ format: 'jwk' }) as Jwk).d, curve.privateKeyLength);
}

/** Generation and export for an RFC 8410 curve: key-generation.ts uses it for X25519 and X448 too. */
export function okpKeyPairScheme(curve: OkpCurve): KeyPairScheme {
  return {
    generate: () =>
      new Promise((resolve, reject) => {
        // The asynchronous form draws the key on libuv's pool, off the event loop.
        generateKeyPair(curve.nodeType as 'ed25519', {}, (error, publicKey, privateKey) => {
          if (error !== null) return reject(error);
          resolve({ publicKey: okpRawPublicKey(curve, publicKey), privateKey: okpRawPrivateKey(curve, privateKey) });
        });
      }),
    export: (pair, format) => {
      if (format === 'raw') return { publicKey: pair.publicKey, privateKey: pair.privateKey };
      return exportKeyObjects(
        okpPrivateKeyObject(curve, pair.privateKey),
        okpPublicKeyObject(curve, pair.publicKey),
        format,
      );
    },
  };
}

/** PEM → raw for an RFC 8410 curve, refusing a key of another type. */
export function okpFromPem(curve: OkpCurve, pem: string, kind: PemKind): Uint8Array {
  const key = readPemKey(pem, kind);
  if (key.asymmetricKeyType !== curve.nodeType) wrongPemKeyType(kind, curve.nodeType);
  return kind === 'private' ? okpRawPrivateKey(curve, key) : okpRawPublicKey(curve, key);
}
