/**
 * Key generation: every identifier in every format.
 *
 * What is checked against something other than the code under test: node:crypto parses every
 * PEM and JWK and must find the same key as the raw form; @noble/curves derives each raw public
 * key from its raw private key (so the raw encodings are the standard ones: Ed25519/Ed448 seeds,
 * ECDSA scalars, X25519/X448 scalars); generated signature keys sign and verify through
 * signMessage / verifySignature and @noble/curves; X25519 / X448 pairs agree on a shared secret
 * in node:crypto and in @noble/curves.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createPrivateKey, createPublicKey, diffieHellman, type KeyObject } from 'node:crypto';
import { ed25519, x25519 } from '@noble/curves/ed25519.js';
import { ed448, x448 } from '@noble/curves/ed448.js';
import { p256, p384 } from '@noble/curves/nist.js';
import { POST_QUANTUM_KEY_ALGORITHM_IDS } from '../src/pq-keys.ts';
import {
  generateKeyMaterial,
  isSymmetricKeyAlgorithm,
  KEY_GENERATION_IDS,
  type GeneratedKey,
  type GeneratedKeyPair,
  type GeneratedSecretKey,
  type KeyGenerationAlgorithm,
} from '../src/key-generation.ts';
import type { Jwk } from '../src/key-format.ts';
import { signMessage, verifySignature } from '../src/signature.ts';
import { CryptoError } from '../src/errors.ts';

const hex = (value: Uint8Array) => Buffer.from(value).toString('hex');
const fromB64url = (text: string | undefined) => new Uint8Array(Buffer.from(text ?? '', 'base64url'));

function asPair(generated: GeneratedKey): GeneratedKeyPair {
  assert.equal(generated.kind, 'pair');
  return generated as GeneratedKeyPair;
}

function asSecret(generated: GeneratedKey): GeneratedSecretKey {
  assert.equal(generated.kind, 'secret');
  return generated as GeneratedSecretKey;
}

function isError(code: 'INVALID_INPUT' | 'UNSUPPORTED_ALGORITHM', field: string) {
  return (error: unknown) => {
    assert.ok(error instanceof CryptoError, `expected a CryptoError, got ${String(error)}`);
    assert.equal(error.code, code);
    assert.equal(error.field, field);
    return true;
  };
}

interface PairSpec {
  readonly privateLength: number;
  readonly publicLength: number;
  /** node:crypto's asymmetricKeyType, and the named curve for EC. */
  readonly nodeType: string;
  readonly namedCurve?: string;
  /** What the JWK must say (RFC 8037 for OKP, RFC 7518 for EC). */
  readonly jwk: { kty: 'OKP' | 'EC'; crv: string };
  /** An independent derivation of the raw public key from the raw private key. */
  readonly derivePublic: (privateKey: Uint8Array) => Uint8Array;
}

const PAIRS: Record<string, PairSpec> = {
  ed25519: {
    privateLength: 32,
    publicLength: 32,
    nodeType: 'ed25519',
    jwk: { kty: 'OKP', crv: 'Ed25519' },
    derivePublic: (k) => ed25519.getPublicKey(k),
  },
  ed448: {
    privateLength: 57,
    publicLength: 57,
    nodeType: 'ed448',
    jwk: { kty: 'OKP', crv: 'Ed448' },
    derivePublic: (k) => ed448.getPublicKey(k),
  },
  'ecdsa-p256': {
    privateLength: 32,
    publicLength: 65,
    nodeType: 'ec',
    namedCurve: 'prime256v1',
    jwk: { kty: 'EC', crv: 'P-256' },
    derivePublic: (k) => p256.getPublicKey(k, false),
  },
  'ecdsa-p384': {
    privateLength: 48,
    publicLength: 97,
    nodeType: 'ec',
    namedCurve: 'secp384r1',
    jwk: { kty: 'EC', crv: 'P-384' },
    derivePublic: (k) => p384.getPublicKey(k, false),
  },
  x25519: {
    privateLength: 32,
    publicLength: 32,
    nodeType: 'x25519',
    jwk: { kty: 'OKP', crv: 'X25519' },
    derivePublic: (k) => x25519.getPublicKey(k),
  },
  x448: {
    privateLength: 56,
    publicLength: 56,
    nodeType: 'x448',
    jwk: { kty: 'OKP', crv: 'X448' },
    derivePublic: (k) => x448.getPublicKey(k),
  },
};

const SECRETS: Record<string, number> = {
  'xchacha20-poly1305': 32,
  'aes-128': 16,
  'aes-192': 24,
  'aes-256': 32,
  'hmac-sha256': 32,
  'hmac-sha384': 48,
  'hmac-sha512': 64,
  'hmac-sha3-256': 32,
  'hmac-sha3-384': 48,
  'hmac-sha3-512': 64,
};

const SIGNATURE_IDS = ['ed25519', 'ed448', 'ecdsa-p256', 'ecdsa-p384'] as const;

/** Raw bytes of a JWK pair, the way an independent reader would take them (RFC 8037 / 7518). */
function rawFromJwk(
  spec: PairSpec,
  privateJwk: Jwk,
  publicJwk: Jwk,
): { privateKey: Uint8Array; publicKey: Uint8Array } {
  const publicKey =
    spec.jwk.kty === 'EC'
      ? new Uint8Array([0x04, ...fromB64url(publicJwk.x), ...fromB64url(publicJwk.y)])
      : fromB64url(publicJwk.x);
  return { privateKey: fromB64url(privateJwk.d), publicKey };
}

function checkNodeKey(spec: PairSpec, key: KeyObject, kind: 'private' | 'public'): void {
  assert.equal(key.type, kind);
  assert.equal(key.asymmetricKeyType, spec.nodeType);
  if (spec.namedCurve !== undefined) assert.equal(key.asymmetricKeyDetails?.namedCurve, spec.namedCurve);
}

describe('the identifier list', () => {
  test('every classical asymmetric algorithm, every symmetric key and every post-quantum key type of the service, once', () => {
    const postQuantum = [
      'ml-kem-512',
      'ml-kem-768',
      'ml-kem-1024',
      'x25519-ml-kem-768',
      'ml-dsa-44',
      'ml-dsa-65',
      'ml-dsa-87',
      ...['sha2', 'shake'].flatMap((hash) =>
        ['128s', '128f', '192s', '192f', '256s', '256f'].map((set) => `slh-dsa-${hash}-${set}`),
      ),
    ];
    assert.deepEqual([...POST_QUANTUM_KEY_ALGORITHM_IDS], postQuantum);
    assert.deepEqual([...KEY_GENERATION_IDS], [...Object.keys(PAIRS), ...Object.keys(SECRETS), ...postQuantum]);
    assert.equal(new Set(KEY_GENERATION_IDS).size, KEY_GENERATION_IDS.length);
    for (const id of KEY_GENERATION_IDS) assert.equal(isSymmetricKeyAlgorithm(id), id in SECRETS, id);
  });
});

describe('key pairs', () => {
  for (const [algorithm, spec] of Object.entries(PAIRS)) {
    test(`${algorithm} raw: lengths, and @noble/curves derives the same public key from the private one`, async () => {
      const pair = asPair(await generateKeyMaterial(algorithm, 'raw'));
      assert.ok(pair.privateKey instanceof Uint8Array && pair.publicKey instanceof Uint8Array);
      assert.equal(pair.privateKey.byteLength, spec.privateLength);
      assert.equal(pair.publicKey.byteLength, spec.publicLength);
      if (spec.jwk.kty === 'EC') assert.equal(pair.publicKey[0], 0x04, 'SEC1 uncompressed');
      assert.equal(hex(spec.derivePublic(pair.privateKey)), hex(pair.publicKey));
      const again = asPair(await generateKeyMaterial(algorithm, 'raw'));
      assert.notEqual(hex(again.privateKey as Uint8Array), hex(pair.privateKey), 'fresh keys differ');
    });

    test(`${algorithm} pem: PKCS#8 and SPKI that node:crypto reads as one pair of the right type`, async () => {
      const pair = asPair(await generateKeyMaterial(algorithm, 'pem'));
      assert.equal(typeof pair.privateKey, 'string');
      assert.equal(typeof pair.publicKey, 'string');
      assert.match(
        pair.privateKey as string,
        /^-----BEGIN PRIVATE KEY-----\n[A-Za-z0-9+/=\n]+-----END PRIVATE KEY-----\n$/,
      );
      assert.match(
        pair.publicKey as string,
        /^-----BEGIN PUBLIC KEY-----\n[A-Za-z0-9+/=\n]+-----END PUBLIC KEY-----\n$/,
      );
      const privateKey = createPrivateKey(pair.privateKey as string);
      const publicKey = createPublicKey(pair.publicKey as string);
      checkNodeKey(spec, privateKey, 'private');
      checkNodeKey(spec, publicKey, 'public');
      // The public key that belongs to the private one is the one returned.
      assert.equal(
        createPublicKey(privateKey).export({ type: 'spki', format: 'der' }).toString('hex'),
        publicKey.export({ type: 'spki', format: 'der' }).toString('hex'),
      );
    });

    test(`${algorithm} jwk: RFC 7517 fields of the right lengths, the public JWK without d, and node:crypto reads them`, async () => {
      const pair = asPair(await generateKeyMaterial(algorithm, 'jwk'));
      const privateJwk = pair.privateKey as Jwk;
      const publicJwk = pair.publicKey as Jwk;
      assert.equal(privateJwk.kty, spec.jwk.kty);
      assert.equal(privateJwk.crv, spec.jwk.crv);
      assert.equal(publicJwk.kty, spec.jwk.kty);
      assert.equal(publicJwk.crv, spec.jwk.crv);
      assert.equal(publicJwk.d, undefined, 'the public JWK carries no private part');
      assert.equal(privateJwk.x, publicJwk.x);
      assert.equal(privateJwk.y, publicJwk.y);
      const coordinate = spec.jwk.kty === 'EC' ? (spec.publicLength - 1) / 2 : spec.publicLength;
      assert.equal(fromB64url(publicJwk.x).byteLength, coordinate);
      if (spec.jwk.kty === 'EC') assert.equal(fromB64url(publicJwk.y).byteLength, coordinate);
      else assert.equal(publicJwk.y, undefined);
      assert.equal(fromB64url(privateJwk.d).byteLength, spec.privateLength);
      // base64url without padding (RFC 7515 §2).
      for (const value of [privateJwk.d, publicJwk.x, publicJwk.y])
        if (value !== undefined) assert.match(value, /^[A-Za-z0-9_-]+$/);
      checkNodeKey(spec, createPrivateKey({ key: privateJwk, format: 'jwk' }), 'private');
      checkNodeKey(spec, createPublicKey({ key: publicJwk, format: 'jwk' }), 'public');
      const raw = rawFromJwk(spec, privateJwk, publicJwk);
      assert.equal(hex(spec.derivePublic(raw.privateKey)), hex(raw.publicKey));
    });
  }

  for (const algorithm of SIGNATURE_IDS) {
    test(`${algorithm}: keys generated in every format sign and verify (raw and PEM directly, JWK through its raw parts)`, async () => {
      const spec = PAIRS[algorithm]!;
      const message = new TextEncoder().encode(`generated ${algorithm} key`);
      const raw = asPair(await generateKeyMaterial(algorithm, 'raw'));
      const rawSignature = await signMessage(algorithm, raw.privateKey as Uint8Array, message);
      assert.equal(await verifySignature(algorithm, raw.publicKey as Uint8Array, message, rawSignature), true);

      const pem = asPair(await generateKeyMaterial(algorithm, 'pem'));
      const pemSignature = await signMessage(algorithm, pem.privateKey as string, message);
      assert.equal(await verifySignature(algorithm, pem.publicKey as string, message, pemSignature), true);
      assert.equal(
        await verifySignature(algorithm, raw.publicKey as Uint8Array, message, pemSignature),
        false,
        'another pair',
      );

      const jwk = asPair(await generateKeyMaterial(algorithm, 'jwk'));
      const parts = rawFromJwk(spec, jwk.privateKey as Jwk, jwk.publicKey as Jwk);
      const jwkSignature = await signMessage(algorithm, parts.privateKey, message);
      assert.equal(await verifySignature(algorithm, parts.publicKey, message, jwkSignature), true);
    });
  }

  for (const [algorithm, curve] of [
    ['x25519', x25519],
    ['x448', x448],
  ] as const) {
    test(`${algorithm}: two generated pairs agree on a shared secret, in node:crypto and in @noble/curves`, async () => {
      const alice = asPair(await generateKeyMaterial(algorithm, 'raw'));
      const bob = asPair(await generateKeyMaterial(algorithm, 'raw'));
      const [a, b] = [alice.privateKey as Uint8Array, bob.privateKey as Uint8Array];
      const [aPublic, bPublic] = [alice.publicKey as Uint8Array, bob.publicKey as Uint8Array];
      const nobleAB = curve.getSharedSecret(a, bPublic);
      const nobleBA = curve.getSharedSecret(b, aPublic);
      assert.equal(hex(nobleAB), hex(nobleBA));
      assert.equal(nobleAB.byteLength, PAIRS[algorithm]!.publicLength);
      // node:crypto, reading the same raw keys as JWKs (RFC 8037), computes the same secret.
      const crv = algorithm === 'x25519' ? 'X25519' : 'X448';
      const jwkOf = (d: Uint8Array | undefined, x: Uint8Array) => ({
        kty: 'OKP',
        crv,
        x: Buffer.from(x).toString('base64url'),
        ...(d ? { d: Buffer.from(d).toString('base64url') } : {}),
      });
      const nodeSecret = diffieHellman({
        privateKey: createPrivateKey({ key: jwkOf(a, aPublic), format: 'jwk' }),
        publicKey: createPublicKey({ key: jwkOf(undefined, bPublic), format: 'jwk' }),
      });
      assert.equal(nodeSecret.toString('hex'), hex(nobleAB));
    });

    test(`${algorithm}: PEM pairs agree on a shared secret in node:crypto`, async () => {
      const alice = asPair(await generateKeyMaterial(algorithm, 'pem'));
      const bob = asPair(await generateKeyMaterial(algorithm, 'pem'));
      const ab = diffieHellman({
        privateKey: createPrivateKey(alice.privateKey as string),
        publicKey: createPublicKey(bob.publicKey as string),
      });
      const ba = diffieHellman({
        privateKey: createPrivateKey(bob.privateKey as string),
        publicKey: createPublicKey(alice.publicKey as string),
      });
      assert.equal(ab.toString('hex'), ba.toString('hex'));
      assert.equal(ab.byteLength, PAIRS[algorithm]!.publicLength);
    });
  }
});

describe('symmetric keys', () => {
  for (const [algorithm, length] of Object.entries(SECRETS)) {
    test(`${algorithm}: ${length} random bytes raw, an oct JWK, and no PEM`, async () => {
      const raw = asSecret(await generateKeyMaterial(algorithm, 'raw'));
      assert.ok(raw.key instanceof Uint8Array);
      assert.equal(raw.key.byteLength, length);
      const other = asSecret(await generateKeyMaterial(algorithm));
      assert.notEqual(hex(other.key as Uint8Array), hex(raw.key), 'fresh keys differ');
      const jwk = asSecret(await generateKeyMaterial(algorithm, 'jwk')).key as Jwk;
      assert.deepEqual(Object.keys(jwk).sort(), ['k', 'kty']);
      assert.equal(jwk.kty, 'oct');
      assert.match(jwk.k!, /^[A-Za-z0-9_-]+$/);
      assert.equal(fromB64url(jwk.k).byteLength, length);
      await assert.rejects(generateKeyMaterial(algorithm, 'pem'), isError('INVALID_INPUT', '/format'));
    });
  }
});

describe('defaults and refusals', () => {
  test('the default is an Ed25519 pair in raw form', async () => {
    const pair = asPair(await generateKeyMaterial('ed25519'));
    assert.equal((pair.privateKey as Uint8Array).byteLength, 32);
    assert.equal(hex(ed25519.getPublicKey(pair.privateKey as Uint8Array)), hex(pair.publicKey as Uint8Array));
  });

  test('an unknown algorithm is UNSUPPORTED_ALGORITHM; an unknown format is INVALID_INPUT', async () => {
    for (const algorithm of ['rsa', 'ecdsa-p521', 'aes-512', '__proto__', 'toString']) {
      await assert.rejects(generateKeyMaterial(algorithm), isError('UNSUPPORTED_ALGORITHM', '/algorithm'), algorithm);
    }
    await assert.rejects(generateKeyMaterial('ed25519', 'der' as never), isError('INVALID_INPUT', '/format'));
  });

  test('every identifier generates in every format it supports, and refuses the others with a 400 naming /format', async () => {
    // SLH-DSA 's' sets take seconds to generate in pure JavaScript: the routine suite keeps to 'f'
    // sets (their formats are the 's' sets' too, pq-keys.test.ts checks them all).
    for (const id of (KEY_GENERATION_IDS as KeyGenerationAlgorithm[]).filter(
      (algorithm) => !/^slh-dsa-.*s$/.test(algorithm),
    )) {
      for (const format of ['raw', 'pem', 'jwk'] as const) {
        const refused =
          (format === 'pem' && isSymmetricKeyAlgorithm(id)) || (format === 'jwk' && id === 'x25519-ml-kem-768');
        if (refused) {
          await assert.rejects(generateKeyMaterial(id, format), isError('INVALID_INPUT', '/format'), `${id} ${format}`);
          continue;
        }
        const generated = await generateKeyMaterial(id, format);
        assert.equal(generated.kind, isSymmetricKeyAlgorithm(id) ? 'secret' : 'pair', `${id} ${format}`);
      }
    }
  });
});
