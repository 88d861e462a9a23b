/**
 * ECDSA on the NIST curves (FIPS 186-5): P-256 with SHA-256 and P-384 with SHA-384.
 *
 * Raw encodings: the private key is the scalar d (32 / 48 B, big-endian), the public key a SEC1
 * point, uncompressed (65 / 97 B) or compressed (33 / 49 B), and a signature r ‖ s of fixed length
 * (64 / 96 B, IEEE P1363, as in JOSE and WebCrypto). Signing is randomized (OpenSSL), so two
 * signatures of one message differ; both verify.
 *
 * Backend: node:crypto (OpenSSL) on Node 22 and 24. Keys are imported from SPKI DER and JWK, which
 * both runtimes read (Node 22 has no raw key formats).
 */
import { createECDH, generateKeyPair, type KeyObject } from 'node:crypto';
import { createPrivateKey, createPublicKey, verify } from './node-crypto.ts';
import { asBuffer, asBytes, concatBytes } from './bytes.ts';
import { checkLength } from './checks.ts';
import { bytesToBase64Url } from './codec.ts';
import { DER_BIT_STRING, DER_OID, DER_SEQUENCE, derTlv, oidContent } from './der.ts';
import { invalidInput, tryOr, tryOrThrow } from './errors.ts';
import { exportKeyObjects, jwkMemberBytes, readPemKey, wrongPemKeyType, type Jwk } from './key-format.ts';
import { cachedPublicKey, nativeSign, nativeVerify, type SignatureScheme } from './signature-scheme.ts';
import { scopedPrivateKey } from './private-key-scope.ts';

interface EcdsaCurve {
  readonly id: 'ecdsa-p256' | 'ecdsa-p384';
  /** OpenSSL's name, for createECDH. */
  readonly opensslName: 'prime256v1' | 'secp384r1';
  readonly jwkCurve: 'P-256' | 'P-384';
  readonly hash: 'sha256' | 'sha384';
  /** Field and scalar size in bytes. */
  readonly size: number;
  /** DER of the curve's OID (SEC 2 / RFC 5480). */
  readonly curveOid: Uint8Array;
  /** Whether signing and verifying go to libuv's pool (see nativeSign). */
  readonly threadPool: boolean;
}

/** id-ecPublicKey (RFC 5480), the algorithm of every EC SubjectPublicKeyInfo. */
const EC_PUBLIC_KEY_OID = derTlv(DER_OID, oidContent('1.2.840.10045.2.1'));

const P256: EcdsaCurve = {
  id: 'ecdsa-p256',
  opensslName: 'prime256v1',
  jwkCurve: 'P-256',
  hash: 'sha256',
  size: 32,
  curveOid: derTlv(DER_OID, oidContent('1.2.840.10045.3.1.7')),
  threadPool: false,
};
const P384: EcdsaCurve = {
  id: 'ecdsa-p384',
  opensslName: 'secp384r1',
  jwkCurve: 'P-384',
  hash: 'sha384',
  size: 48,
  curveOid: derTlv(DER_OID, oidContent('1.3.132.0.34')),
  threadPool: true,
};

/**
 * SEC1 point → KeyObject, through an RFC 5480 SubjectPublicKeyInfo (OpenSSL reads compressed
 * points there and checks that the point is on the curve). The first byte is checked here:
 * OpenSSL would also take the "hybrid" forms 0x06 / 0x07, which the service does not offer.
 */
function ecPublicKey(curve: EcdsaCurve, point: Uint8Array): KeyObject {
  const prefix = point[0];
  const shapeOk = point.byteLength === 2 * curve.size + 1 ? prefix === 0x04 : prefix === 0x02 || prefix === 0x03;
  if (!shapeOk) {
    throw invalidInput(
      `publicKey must be a SEC1 point: 0x04 ‖ x ‖ y (${2 * curve.size + 1} bytes) or 0x02/0x03 ‖ x (${curve.size + 1} bytes)`,
      '/publicKey',
    );
  }
  return cachedPublicKey(curve.id, point, () => ecPublicKeyObject(curve, point));
}

function ecPublicKeyObject(curve: EcdsaCurve, point: Uint8Array): KeyObject {
  const der = derTlv(
    DER_SEQUENCE,
    derTlv(DER_SEQUENCE, EC_PUBLIC_KEY_OID, curve.curveOid),
    derTlv(DER_BIT_STRING, Uint8Array.of(0), point),
  );
  return tryOrThrow(
    () => createPublicKey({ key: asBuffer(der), format: 'der', type: 'spki' }),
    () => invalidInput(`publicKey is not a point on ${curve.jwkCurve}`, '/publicKey'),
  );
}

/**
 * Scalar → KeyObject, through a JWK (both runtimes read it). createECDH computes the public point
 * that the JWK needs and refuses a scalar outside [1, n-1], which PKCS#8 import would accept.
 */
function ecPrivateKey(curve: EcdsaCurve, d: Uint8Array): KeyObject {
  const ecdh = createECDH(curve.opensslName);
  tryOrThrow(
    () => ecdh.setPrivateKey(d),
    () =>
      invalidInput(
        `privateKey is not a ${curve.jwkCurve} private key: the scalar must be from 1 to n-1`,
        '/privateKey',
      ),
  );
  const point = asBytes(ecdh.getPublicKey());
  return createPrivateKey({ key: ecJwk(curve, point, d), format: 'jwk' });
}

function ecJwk(curve: EcdsaCurve, uncompressed: Uint8Array, d?: Uint8Array): Jwk & { kty: 'EC' } {
  const jwk: Jwk & { kty: 'EC' } = {
    kty: 'EC',
    crv: curve.jwkCurve,
    x: bytesToBase64Url(uncompressed.subarray(1, 1 + curve.size)),
    y: bytesToBase64Url(uncompressed.subarray(1 + curve.size)),
  };
  if (d !== undefined) jwk.d = bytesToBase64Url(d);
  return jwk;
}

function ecRawPublic(curve: EcdsaCurve, key: KeyObject): Uint8Array {
  const jwk = key.export({ format: 'jwk' }) as Jwk;
  return concatBytes(Uint8Array.of(0x04), jwkMemberBytes(jwk.x, curve.size), jwkMemberBytes(jwk.y, curve.size));
}

function ecRawPrivate(curve: EcdsaCurve, key: KeyObject): Uint8Array {
  return jwkMemberBytes((key.export({ format: 'jwk' }) as Jwk).d, curve.size);
}

function ecdsaScheme(curve: EcdsaCurve): SignatureScheme {
  return {
    privateKeyLengths: [curve.size],
    publicKeyLengths: [curve.size + 1, 2 * curve.size + 1],
    signatureLength: 2 * curve.size,
    maxContextLength: 0,
    sign: async (privateKey, message, _context, keys) =>
      nativeSign(
        curve.hash,
        message,
        {
          key: scopedPrivateKey(keys, curve.id, privateKey, () => ecPrivateKey(curve, privateKey)),
          dsaEncoding: 'ieee-p1363',
        },
        curve.threadPool,
      ),
    verify: async (publicKey, message, signature) =>
      nativeVerify(
        curve.hash,
        message,
        { key: ecPublicKey(curve, publicKey), dsaEncoding: 'ieee-p1363' },
        signature,
        curve.threadPool,
      ),
    fromPem: (pem, kind) => {
      const key = readPemKey(pem, kind);
      if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== curve.opensslName)
        wrongPemKeyType(kind, curve.id);
      return kind === 'private' ? ecRawPrivate(curve, key) : ecRawPublic(curve, key);
    },
    generate: () =>
      new Promise((resolve, reject) => {
        generateKeyPair('ec', { namedCurve: curve.opensslName }, (error, publicKey, privateKey) => {
          if (error !== null) return reject(error);
          resolve({ publicKey: ecRawPublic(curve, publicKey), privateKey: ecRawPrivate(curve, privateKey) });
        });
      }),
    export: (pair, format) => {
      if (format === 'raw') return { publicKey: pair.publicKey, privateKey: pair.privateKey };
      // Uncached: a freshly generated key is not one that verification will see again soon.
      return exportKeyObjects(ecPrivateKey(curve, pair.privateKey), ecPublicKeyObject(curve, pair.publicKey), format);
    },
  };
}

export const ECDSA_P256_SCHEME: SignatureScheme = ecdsaScheme(P256);
export const ECDSA_P384_SCHEME: SignatureScheme = ecdsaScheme(P384);

/**
 * ECDSA verification of a DER (X9.62 `ECDSA-Sig-Value`) signature, with the same key import as
 * verifySignature. DER is not a wire format of this service: this exists for the Wycheproof
 * suite, whose ECDSA vectors are DER. Any signature OpenSSL cannot parse as strict DER is false.
 */
export async function verifyEcdsaDer(
  algorithm: 'ecdsa-p256' | 'ecdsa-p384',
  publicKey: Uint8Array,
  message: Uint8Array,
  derSignature: Uint8Array,
): Promise<boolean> {
  const curve = algorithm === 'ecdsa-p256' ? P256 : P384;
  const scheme = algorithm === 'ecdsa-p256' ? ECDSA_P256_SCHEME : ECDSA_P384_SCHEME;
  checkLength(publicKey, scheme.publicKeyLengths, 'publicKey');
  const key = ecPublicKey(curve, publicKey);
  return tryOr(
    () => verify(curve.hash, message, { key, dsaEncoding: 'der' }, derSignature),
    () => false,
  );
}
