/**
 * Post-quantum key formats (pq-keys.ts): raw, PEM (PKCS#8 / SPKI) and JWK (AKP).
 *
 * Checked against what the code under test did not make:
 * - the DER headers below, written out from the ASN.1 of RFC 9935 (ML-KEM), RFC 9881 (ML-DSA),
 *   RFC 9909 (SLH-DSA) and draft-connolly-cfrg-xwing-kem (X-Wing), and the public keys that
 *   @noble/post-quantum derives from the same seeds;
 * - the X-Wing PEMs of the draft's own repository (x509/xwing.pub and xwing.priv, made by CIRCL
 *   from the seed 00 01 … 1f), byte for byte;
 * - Node 24's OpenSSL, in a child process whatever runtime runs this file: it reads every PEM and
 *   JWK written here as the same key, and what it writes by default (the `both` private-key form)
 *   reads back here as the same key, so Node 22 and Node 24 agree in both directions.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { ml_kem512, ml_kem768, ml_kem1024 } from '@noble/post-quantum/ml-kem.js';
import { ml_dsa44, ml_dsa65, ml_dsa87 } from '@noble/post-quantum/ml-dsa.js';
import { ml_kem768_x25519 } from '@noble/post-quantum/hybrid.js';
import {
  DIRECT_POST_QUANTUM_RUNNER,
  POST_QUANTUM_KEY_ALGORITHM_IDS,
  POST_QUANTUM_KEY_TYPES,
  checkPostQuantumKeyFormat,
  exportPostQuantumKeyPair,
  generatePostQuantumKeyPair,
  postQuantumPrivateKeyFromPem,
  postQuantumPublicKeyFromPem,
  type PostQuantumKeyAlgorithm,
  type PostQuantumKeyPair,
  type PostQuantumRunner,
} from '../src/pq-keys.ts';
import { generateKeyMaterial, type GeneratedKeyPair } from '../src/key-generation.ts';
import { PQ_NATIVE_SUPPORT } from '../src/pq-common.ts';
import { CryptoError } from '../src/errors.ts';
import type { Jwk } from '../src/key-format.ts';
import { onNode24 } from './node24.ts';

const hex = (value: Uint8Array) => Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex');
const bytes = (text: string) => new Uint8Array(Buffer.from(text, 'hex'));
const fromB64url = (text: string | undefined) => new Uint8Array(Buffer.from(text ?? '', 'base64url'));
const derOf = (pem: string) =>
  new Uint8Array(Buffer.from(pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s/g, ''), 'base64'));
const pemOf = (der: Uint8Array, label: string) =>
  `-----BEGIN ${label}-----\n${(
    Buffer.from(der)
      .toString('base64')
      .match(/.{1,64}/g) ?? []
  ).join('\n')}\n-----END ${label}-----\n`;

function isInvalid(field: string, message?: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof CryptoError, `expected a CryptoError, got ${String(error)}`);
    assert.equal(error.code, 'INVALID_INPUT');
    assert.equal(error.field, field);
    if (message !== undefined) assert.match(error.message, message);
    return true;
  };
}

/**
 * From the standards' ASN.1: the OID, the SPKI bytes before the raw public key, and the PKCS#8
 * bytes before the raw private key (ML-KEM and ML-DSA: the `seed [0]` choice, 80 20 / 80 40).
 */
const EXPECTED: Record<PostQuantumKeyAlgorithm, { oid: string; spki: string; pkcs8: string }> = {
  'ml-kem-512': {
    oid: '608648016503040401',
    spki: '30820332300b06096086480165030404010382032100',
    pkcs8: '3054020100300b060960864801650304040104428040',
  },
  'ml-kem-768': {
    oid: '608648016503040402',
    spki: '308204b2300b0609608648016503040402038204a100',
    pkcs8: '3054020100300b060960864801650304040204428040',
  },
  'ml-kem-1024': {
    oid: '608648016503040403',
    spki: '30820632300b06096086480165030404030382062100',
    pkcs8: '3054020100300b060960864801650304040304428040',
  },
  'x25519-ml-kem-768': {
    oid: '2b0601040183e62d81c87a',
    spki: '308204d4300d060b2b0601040183e62d81c87a038204c100',
    pkcs8: '3034020100300d060b2b0601040183e62d81c87a0420',
  },
  'ml-dsa-44': {
    oid: '608648016503040311',
    spki: '30820532300b06096086480165030403110382052100',
    pkcs8: '3034020100300b060960864801650304031104228020',
  },
  'ml-dsa-65': {
    oid: '608648016503040312',
    spki: '308207b2300b0609608648016503040312038207a100',
    pkcs8: '3034020100300b060960864801650304031204228020',
  },
  'ml-dsa-87': {
    oid: '608648016503040313',
    spki: '30820a32300b060960864801650304031303820a2100',
    pkcs8: '3034020100300b060960864801650304031304228020',
  },
  'slh-dsa-sha2-128s': {
    oid: '608648016503040314',
    spki: '3030300b0609608648016503040314032100',
    pkcs8: '3052020100300b06096086480165030403140440',
  },
  'slh-dsa-sha2-128f': {
    oid: '608648016503040315',
    spki: '3030300b0609608648016503040315032100',
    pkcs8: '3052020100300b06096086480165030403150440',
  },
  'slh-dsa-sha2-192s': {
    oid: '608648016503040316',
    spki: '3040300b0609608648016503040316033100',
    pkcs8: '3072020100300b06096086480165030403160460',
  },
  'slh-dsa-sha2-192f': {
    oid: '608648016503040317',
    spki: '3040300b0609608648016503040317033100',
    pkcs8: '3072020100300b06096086480165030403170460',
  },
  'slh-dsa-sha2-256s': {
    oid: '608648016503040318',
    spki: '3050300b0609608648016503040318034100',
    pkcs8: '308193020100300b0609608648016503040318048180',
  },
  'slh-dsa-sha2-256f': {
    oid: '608648016503040319',
    spki: '3050300b0609608648016503040319034100',
    pkcs8: '308193020100300b0609608648016503040319048180',
  },
  'slh-dsa-shake-128s': {
    oid: '60864801650304031a',
    spki: '3030300b060960864801650304031a032100',
    pkcs8: '3052020100300b060960864801650304031a0440',
  },
  'slh-dsa-shake-128f': {
    oid: '60864801650304031b',
    spki: '3030300b060960864801650304031b032100',
    pkcs8: '3052020100300b060960864801650304031b0440',
  },
  'slh-dsa-shake-192s': {
    oid: '60864801650304031c',
    spki: '3040300b060960864801650304031c033100',
    pkcs8: '3072020100300b060960864801650304031c0460',
  },
  'slh-dsa-shake-192f': {
    oid: '60864801650304031d',
    spki: '3040300b060960864801650304031d033100',
    pkcs8: '3072020100300b060960864801650304031d0460',
  },
  'slh-dsa-shake-256s': {
    oid: '60864801650304031e',
    spki: '3050300b060960864801650304031e034100',
    pkcs8: '308193020100300b060960864801650304031e048180',
  },
  'slh-dsa-shake-256f': {
    oid: '60864801650304031f',
    spki: '3050300b060960864801650304031f034100',
    pkcs8: '308193020100300b060960864801650304031f048180',
  },
};

/** draft-connolly-cfrg-xwing-kem, x509/xwing.priv and xwing.pub: CIRCL's encodings of the seed 00 01 … 1f. */
const DRAFT_XWING_PRIVATE_PEM = `-----BEGIN PRIVATE KEY-----
MDQCAQAwDQYLKwYBBAGD5i2ByHoEIAABAgMEBQYHCAkKCwwNDg8QERITFBUWFxgZ
GhscHR4f
-----END PRIVATE KEY-----
`;
const DRAFT_XWING_PUBLIC_PEM = `-----BEGIN PUBLIC KEY-----
MIIE1DANBgsrBgEEAYPmLYHIegOCBMEAb1QJigoOZBFGYUtpYLpg2GA9YvRH+atJ
m0e9aQbMQLBh2GNKPoiQbyhJWOdEHKbHJcu5cJW3ZxpGK2aByeZYC7yNYLFJ+mAm
EEOvu6UvIFpgKDhIUVlq3zcavqmNM0c4PSu2c0OPZ4NhK/hwFPe5Gol0AmU0XfZ5
NARz0cTBdohuXim48Fi7fHNTFmhs/1w764wmHLAJcKacGvzFS5TLhuHOY7pjbjlc
pFEB4hx70EwxPqGa8kFB79KtREFqJbpPZZEO99iAnDCT8EqvAOPNluNcSqPIAsGK
1vOdpLS42YyL15Atg6B7pFOWZ0pgJDyrk+gP2bHId3N2qcwNb6EV4mOTgLnGvnhI
vRNYjGRwOgU10ZoPgWM6l2oKEFtm7ihdD9JV6CwDMZJfQ4O278dh72CZI1oLmHJj
WKqdAbi4llGfkhR0u3wUuyIlK1wvENQSRsmyPnZEhJNn9UGhX2O8koo5u3vHPwe2
ZcSWu2VYyPRUiacuxLrNNOnFlMM4cbcj8DSV6ItDkasm5DBD3rYRezkZ5FxMGxar
KOR93XI2Y4VHZhkvwYBspwq7eGy9swky5oyKNwvPsHmDoBLDJmuT76YmV/S4ODdM
sLuV4OwGVBsHZdmc8VO8a5YTXKeApVs2R3ieMZFeRig8+ce7boRT+2aCEFFB8dwN
ANhe7XA7bGyWH3nIRSdrQkiUnAZ4LlE+spkbldlgQuOMvto1JEmytQhOvaUiamIG
QAeJEwowlkSYSLYp/upKLCp0PEoN3Jyz89Z2/FY3MbJsShpm3IRZFwBW1XaX8UQ7
gamjRBK7e/BfMydXWlkR3TAdYFOGfzwwgHEfG/EVh7C7KYQnayaF53ViEOSz+JVT
hCMeVYxvUQyR4PxWtdGIX/KUnpWka8G+4fpx9QJ+EMRDsOkdD9dED0Z6JyISEuiP
XGumQpbK4NIHv8YPiMfPtcRaoYOdGMs3xFhD5UJqSpDIArZCj5U8NZxKwGA0UvrA
tzYeL9NdzIhakhRdT8oBWPG31wtLzRGOSipBVEON8xDESpobmepBWQcmeoiwYkJB
V5wXIvRu1hwuPspUXJlwUXF1OZuADbJdo5WT0GSQ1xQsAOiNLbBH6YmL23rLftkH
9uMEFswN5UokLAohJjAvXVTIW8Zqwvg8eXlFtQZ8qkK9LgwZypdQblB6sKXJ9WM3
CEmcGfJK7FE705A6XXO27EmR98cuuZHBw3iJgFyx6jigzAIXayfFjWOM5aMmaEV8
+bm+AnygIUBXlxcl1UEC6JlnFusq2CNFO2BbhVNwsbIbOTLN7UFgqplzx+uuWsR2
TZTPfMlQbwd7rXMBLbtKyBQKOHRkEuszyVFFliBfcHY1hiIX2bYJGMYmjZNEkVuE
eiR2waJw8VSlyEI0FlrPyGk5hwLOqemgfnsOmeqb3LeEH+nA+iXIM4CSVho+3dxw
AfR4rWV4GmAkqtFl2baXmtrESKRGL1ZGhVJ/diQ0/ppCWoRDe0VzkuyoDJE1BhUe
OhMjnzQvynZVtuquhFoiHOs+Z/VjnGGT9v3u9X45m4CLfzqitXQKre2QFj3F13XJ
+vfx+9B12rNE6dfRRmRygfu6ezxWyv1YM7epMOxCBufDptd2T+gdeg==
-----END PUBLIC KEY-----
`;

const SEED_32 = Uint8Array.from({ length: 32 }, (_, i) => i);
const SEED_64 = Uint8Array.from({ length: 64 }, (_, i) => 0x40 + i);

/** A key pair from a fixed seed, its public key derived by @noble/post-quantum (not by pq-keys.ts). */
const FIXED: Partial<Record<PostQuantumKeyAlgorithm, PostQuantumKeyPair>> = {
  'ml-kem-512': { privateKey: SEED_64, publicKey: ml_kem512.keygen(SEED_64).publicKey },
  'ml-kem-768': { privateKey: SEED_64, publicKey: ml_kem768.keygen(SEED_64).publicKey },
  'ml-kem-1024': { privateKey: SEED_64, publicKey: ml_kem1024.keygen(SEED_64).publicKey },
  'x25519-ml-kem-768': { privateKey: SEED_32, publicKey: ml_kem768_x25519.keygen(SEED_32).publicKey },
  'ml-dsa-44': { privateKey: SEED_32, publicKey: ml_dsa44.keygen(SEED_32).publicKey },
  'ml-dsa-65': { privateKey: SEED_32, publicKey: ml_dsa65.keygen(SEED_32).publicKey },
  'ml-dsa-87': { privateKey: SEED_32, publicKey: ml_dsa87.keygen(SEED_32).publicKey },
};

/**
 * A pair in the right encodings for every identifier. SLH-DSA pairs are random bytes of the right
 * lengths: the formats carry the secret key as it is (SLH-DSA has no seed form), and generating an
 * 's' key takes seconds in pure JavaScript; the 'f' pairs below are generated for real.
 */
function pairOf(algorithm: PostQuantumKeyAlgorithm): PostQuantumKeyPair {
  const fixed = FIXED[algorithm];
  if (fixed !== undefined) return fixed;
  const type = POST_QUANTUM_KEY_TYPES[algorithm];
  return {
    privateKey: new Uint8Array(randomBytes(type.privateKeyLength)),
    publicKey: new Uint8Array(randomBytes(type.publicKeyLength)),
  };
}

describe('the table', () => {
  test('every post-quantum identifier once, KEMs first, with the OID of its standard and the raw lengths of /v2/pq', () => {
    assert.deepEqual([...POST_QUANTUM_KEY_ALGORITHM_IDS], Object.keys(EXPECTED));
    for (const id of POST_QUANTUM_KEY_ALGORITHM_IDS) {
      assert.equal(hex(POST_QUANTUM_KEY_TYPES[id].oid), EXPECTED[id].oid, id);
    }
    const lengths = Object.fromEntries(
      POST_QUANTUM_KEY_ALGORITHM_IDS.map((id) => [
        id,
        [POST_QUANTUM_KEY_TYPES[id].publicKeyLength, POST_QUANTUM_KEY_TYPES[id].privateKeyLength],
      ]),
    );
    assert.deepEqual(lengths['ml-kem-768'], [1184, 64]);
    assert.deepEqual(lengths['x25519-ml-kem-768'], [1216, 32]);
    assert.deepEqual(lengths['ml-dsa-87'], [2592, 32]);
    assert.deepEqual(lengths['slh-dsa-shake-192s'], [48, 96]);
  });

  test('JWK algorithm names: ML-KEM-*, ML-DSA-* and SLH-DSA-{SHA2,SHAKE}-*{s,f}; X-Wing has none', () => {
    assert.deepEqual(
      POST_QUANTUM_KEY_ALGORITHM_IDS.map((id) => POST_QUANTUM_KEY_TYPES[id].jwkAlg),
      [
        'ML-KEM-512',
        'ML-KEM-768',
        'ML-KEM-1024',
        undefined,
        'ML-DSA-44',
        'ML-DSA-65',
        'ML-DSA-87',
        'SLH-DSA-SHA2-128s',
        'SLH-DSA-SHA2-128f',
        'SLH-DSA-SHA2-192s',
        'SLH-DSA-SHA2-192f',
        'SLH-DSA-SHA2-256s',
        'SLH-DSA-SHA2-256f',
        'SLH-DSA-SHAKE-128s',
        'SLH-DSA-SHAKE-128f',
        'SLH-DSA-SHAKE-192s',
        'SLH-DSA-SHAKE-192f',
        'SLH-DSA-SHAKE-256s',
        'SLH-DSA-SHAKE-256f',
      ],
    );
  });
});

describe('PEM output', () => {
  for (const id of POST_QUANTUM_KEY_ALGORITHM_IDS) {
    test(`${id}: SPKI and PKCS#8 are the standard's header and the raw key, nothing else; they read back`, async () => {
      const pair = pairOf(id);
      const { publicKey, privateKey } = exportPostQuantumKeyPair(id, pair, 'pem');
      assert.match(
        publicKey as string,
        /^-----BEGIN PUBLIC KEY-----\n(?:[A-Za-z0-9+/=]{64}\n)*[A-Za-z0-9+/=]{1,64}\n-----END PUBLIC KEY-----\n$/,
      );
      assert.match(
        privateKey as string,
        /^-----BEGIN PRIVATE KEY-----\n(?:[A-Za-z0-9+/=]{64}\n)*[A-Za-z0-9+/=]{1,64}\n-----END PRIVATE KEY-----\n$/,
      );
      assert.equal(hex(derOf(publicKey as string)), EXPECTED[id].spki + hex(pair.publicKey));
      assert.equal(hex(derOf(privateKey as string)), EXPECTED[id].pkcs8 + hex(pair.privateKey));
      assert.equal(hex(postQuantumPublicKeyFromPem(id, publicKey as string)), hex(pair.publicKey));
      assert.equal(hex(await postQuantumPrivateKeyFromPem(id, privateKey as string)), hex(pair.privateKey));
    });
  }

  test("X-Wing: the PEMs of the seed 00 01 … 1f are the draft's CIRCL fixtures, byte for byte", () => {
    const { publicKey, privateKey } = exportPostQuantumKeyPair('x25519-ml-kem-768', FIXED['x25519-ml-kem-768']!, 'pem');
    assert.equal(privateKey, DRAFT_XWING_PRIVATE_PEM);
    assert.equal(publicKey, DRAFT_XWING_PUBLIC_PEM);
  });
});

describe('JWK output (AKP)', () => {
  for (const id of POST_QUANTUM_KEY_ALGORITHM_IDS.filter((algorithm) => algorithm !== 'x25519-ml-kem-768')) {
    test(`${id}: { kty: 'AKP', alg, pub } and the private one with priv; base64url of the raw keys`, () => {
      const pair = pairOf(id);
      const { publicKey, privateKey } = exportPostQuantumKeyPair(id, pair, 'jwk') as {
        publicKey: Jwk;
        privateKey: Jwk;
      };
      assert.deepEqual(Object.keys(publicKey).sort(), ['alg', 'kty', 'pub']);
      assert.deepEqual(Object.keys(privateKey).sort(), ['alg', 'kty', 'priv', 'pub']);
      assert.equal(publicKey.kty, 'AKP');
      assert.equal(publicKey.alg, POST_QUANTUM_KEY_TYPES[id].jwkAlg);
      assert.equal(privateKey.alg, publicKey.alg);
      assert.equal(privateKey.pub, publicKey.pub);
      for (const value of [publicKey.pub, privateKey.priv]) assert.match(value ?? '', /^[A-Za-z0-9_-]+$/);
      assert.equal(hex(fromB64url(publicKey.pub)), hex(pair.publicKey));
      assert.equal(hex(fromB64url(privateKey.priv)), hex(pair.privateKey));
    });
  }

  test('X-Wing has no published JWK form: INVALID_INPUT naming /format, before any key is made', async () => {
    assert.throws(
      () => checkPostQuantumKeyFormat('x25519-ml-kem-768', 'jwk'),
      isInvalid('/format', /no published JWK form/),
    );
    assert.throws(
      () => exportPostQuantumKeyPair('x25519-ml-kem-768', FIXED['x25519-ml-kem-768']!, 'jwk'),
      isInvalid('/format'),
    );
    let generated = 0;
    const counting: PostQuantumRunner = {
      ...DIRECT_POST_QUANTUM_RUNNER,
      xwingKeygen: async (...args) => {
        generated += 1;
        return DIRECT_POST_QUANTUM_RUNNER.xwingKeygen(...args);
      },
    };
    await assert.rejects(generateKeyMaterial('x25519-ml-kem-768', 'jwk', { runner: counting }), isInvalid('/format'));
    assert.equal(generated, 0);
    for (const format of ['raw', 'pem'] as const) checkPostQuantumKeyFormat('x25519-ml-kem-768', format);
  });
});

describe("Node 24 (OpenSSL) and this runtime read each other's keys", () => {
  test('Node 24 reads every PEM and JWK written here as the same key (its raw export equals ours)', () => {
    const written = POST_QUANTUM_KEY_ALGORITHM_IDS.filter((id) => id !== 'x25519-ml-kem-768').map((id) => {
      const pair = pairOf(id);
      const pem = exportPostQuantumKeyPair(id, pair, 'pem');
      const jwk = exportPostQuantumKeyPair(id, pair, 'jwk');
      return { id, pem, jwk, publicKey: hex(pair.publicKey), privateKey: hex(pair.privateKey) };
    });
    const read = onNode24<{ id: string; types: string[]; publics: string[]; privates: string[] }[]>(
      `
      const rawPrivate = (key) => key.export({ format: key.asymmetricKeyType.startsWith('slh-dsa') ? 'raw-private' : 'raw-seed' }).toString('hex');
      return input.map(({ id, pem, jwk }) => {
        const privates = [crypto.createPrivateKey(pem.privateKey), crypto.createPrivateKey({ key: jwk.privateKey, format: 'jwk' })];
        const publics = [crypto.createPublicKey(pem.publicKey), crypto.createPublicKey({ key: jwk.publicKey, format: 'jwk' }), crypto.createPublicKey(privates[0])];
        return {
          id,
          types: [...privates, ...publics].map((key) => key.asymmetricKeyType),
          publics: publics.map((key) => key.export({ format: 'raw-public' }).toString('hex')),
          privates: privates.map(rawPrivate),
        };
      });
    `,
      written,
    );
    assert.equal(read.length, written.length);
    for (const [index, result] of read.entries()) {
      const ours = written[index]!;
      assert.equal(result.id, ours.id);
      assert.deepEqual(result.types, Array(5).fill(ours.id), ours.id);
      assert.deepEqual(result.privates, [ours.privateKey, ours.privateKey], ours.id);
      // For the fixed ML-KEM / ML-DSA seeds, OpenSSL's own public key of the seed is noble's too.
      const publics =
        FIXED[ours.id as PostQuantumKeyAlgorithm] === undefined ? result.publics.slice(0, 2) : result.publics;
      for (const value of publics) assert.equal(value, ours.publicKey, ours.id);
    }
  });

  test('what Node 24 writes (PKCS#8 in its default `both` form, SPKI, AKP JWK) reads here as the same key', async () => {
    const ids = [
      'ml-kem-512',
      'ml-kem-768',
      'ml-kem-1024',
      'ml-dsa-44',
      'ml-dsa-65',
      'ml-dsa-87',
      'slh-dsa-sha2-128f',
      'slh-dsa-shake-128f',
      'slh-dsa-sha2-192f',
    ] as const;
    const made = onNode24<
      { id: string; pkcs8: string; spki: string; jwkPrivate: Jwk; rawPublic: string; rawPrivate: string }[]
    >(
      `
      return input.map((id) => {
        const { publicKey, privateKey } = crypto.generateKeyPairSync(id);
        return {
          id,
          pkcs8: privateKey.export({ type: 'pkcs8', format: 'pem' }),
          spki: publicKey.export({ type: 'spki', format: 'pem' }),
          jwkPrivate: privateKey.export({ format: 'jwk' }),
          rawPublic: publicKey.export({ format: 'raw-public' }).toString('hex'),
          rawPrivate: privateKey.export({ format: id.startsWith('slh-dsa') ? 'raw-private' : 'raw-seed' }).toString('hex'),
        };
      });
    `,
      ids,
    );
    const backends = PQ_NATIVE_SUPPORT.mlDsa ? (['noble', 'native'] as const) : (['noble'] as const);
    for (const key of made) {
      const id = key.id as PostQuantumKeyAlgorithm;
      const type = POST_QUANTUM_KEY_TYPES[id];
      if (type.family === 'ml-kem' || type.family === 'ml-dsa') {
        // OpenSSL writes the seed and the expanded key: the form this service reads but does not write.
        assert.ok(derOf(key.pkcs8).byteLength > type.expandedLength + type.privateKeyLength, `${id}: the both form`);
      }
      for (const backend of backends) {
        assert.equal(
          hex(await postQuantumPrivateKeyFromPem(id, key.pkcs8, { backend })),
          key.rawPrivate,
          `${id} ${backend}`,
        );
      }
      assert.equal(hex(postQuantumPublicKeyFromPem(id, key.spki)), key.rawPublic, id);
      // Node's JWK is the one written here, member for member.
      const ours = exportPostQuantumKeyPair(
        id,
        { publicKey: bytes(key.rawPublic), privateKey: bytes(key.rawPrivate) },
        'jwk',
      );
      assert.deepEqual(
        ours.privateKey,
        { kty: key.jwkPrivate.kty, alg: key.jwkPrivate.alg, pub: key.jwkPrivate.pub, priv: key.jwkPrivate.priv },
        id,
      );
      assert.deepEqual(Object.keys(key.jwkPrivate).sort(), ['alg', 'kty', 'priv', 'pub']);
    }
  });
});

describe('PEM input: what is refused', () => {
  const mlDsa65 = FIXED['ml-dsa-65']!;
  const oursPem = exportPostQuantumKeyPair('ml-dsa-65', mlDsa65, 'pem');
  const header = bytes('300b0609608648016503040312');
  const tlv = (tag: number, content: Uint8Array) => {
    const n = content.byteLength;
    const length = n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : [0x82, n >> 8, n & 0xff];
    return new Uint8Array([tag, ...length, ...content]);
  };
  const pkcs8 = (algorithm: Uint8Array, octets: Uint8Array, version = bytes('020100')) =>
    pemOf(tlv(0x30, new Uint8Array([...version, ...algorithm, ...tlv(0x04, octets)])), 'PRIVATE KEY');
  const expanded = ml_dsa65.keygen(SEED_32).secretKey;
  const both = (expandedKey: Uint8Array) =>
    tlv(0x30, new Uint8Array([...tlv(0x04, SEED_32), ...tlv(0x04, expandedKey)]));

  test('the seed, the expanded key alone and the consistent `both` form are read (all three CHOICE forms)', async () => {
    assert.equal(hex(await postQuantumPrivateKeyFromPem('ml-dsa-65', pkcs8(header, tlv(0x80, SEED_32)))), hex(SEED_32));
    assert.equal(
      hex(await postQuantumPrivateKeyFromPem('ml-dsa-65', pkcs8(header, tlv(0x04, expanded)))),
      hex(expanded),
    );
    for (const backend of PQ_NATIVE_SUPPORT.mlDsa ? (['noble', 'native'] as const) : (['noble'] as const)) {
      assert.equal(
        hex(await postQuantumPrivateKeyFromPem('ml-dsa-65', pkcs8(header, both(expanded)), { backend })),
        hex(SEED_32),
        backend,
      );
    }
  });

  test("a `both` form whose expanded key is not its seed's is refused, on every backend", async () => {
    for (const position of [0, 40, 2000, expanded.byteLength - 1]) {
      const altered = expanded.slice();
      altered[position]! ^= 0x01;
      for (const backend of PQ_NATIVE_SUPPORT.mlDsa ? (['noble', 'native'] as const) : (['noble'] as const)) {
        await assert.rejects(
          postQuantumPrivateKeyFromPem('ml-dsa-65', pkcs8(header, both(altered)), { backend }),
          isInvalid('/privateKey', /not the one its seed expands to/),
          `${position} ${backend}`,
        );
      }
    }
  });

  test('malformed DER, other algorithms and wrong lengths are INVALID_INPUT naming the field, never another key', async () => {
    const ed25519Pem =
      '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIAABAgMEBQYHCAkKCwwNDg8QERITFBUWFxgZGhscHR4f\n-----END PRIVATE KEY-----\n';
    const der = derOf(oursPem.privateKey as string);
    const cases: [string, string, RegExp][] = [
      [
        'an ML-DSA-44 key',
        exportPostQuantumKeyPair('ml-dsa-44', FIXED['ml-dsa-44']!, 'pem').privateKey as string,
        /another algorithm/,
      ],
      ['an Ed25519 key', ed25519Pem, /another algorithm/],
      ['a public key', oursPem.publicKey as string, /PRIVATE KEY/],
      ['trailing bytes after the key', pemOf(new Uint8Array([...der, 0x00]), 'PRIVATE KEY'), /readable/],
      [
        'a non-minimal length',
        pemOf(new Uint8Array([0x30, 0x81, 0x34, ...der.subarray(2)]), 'PRIVATE KEY'),
        /readable/,
      ],
      [
        'an indefinite length',
        pemOf(new Uint8Array([0x30, 0x80, ...der.subarray(2), 0x00, 0x00]), 'PRIVATE KEY'),
        /readable/,
      ],
      ['a truncated key', pemOf(der.subarray(0, der.byteLength - 1), 'PRIVATE KEY'), /readable/],
      ['version 1', pkcs8(header, tlv(0x80, SEED_32), bytes('020101')), /readable/],
      ['NULL parameters', pkcs8(bytes('300d06096086480165030403120500'), tlv(0x80, SEED_32)), /readable/],
      [
        'attributes',
        pemOf(
          tlv(
            0x30,
            new Uint8Array([...bytes('020100'), ...header, ...tlv(0x04, tlv(0x80, SEED_32)), ...bytes('a000')]),
          ),
          'PRIVATE KEY',
        ),
        /readable/,
      ],
      ['a 31-byte seed', pkcs8(header, tlv(0x80, SEED_32.subarray(1))), /seed/],
      ['the seed as a plain OCTET STRING', pkcs8(header, tlv(0x04, SEED_32)), /seed/],
      ['the seed twice', pkcs8(header, new Uint8Array([...tlv(0x80, SEED_32), ...tlv(0x80, SEED_32)])), /seed/],
      ['an expanded key of another level', pkcs8(header, tlv(0x04, ml_dsa44.keygen(SEED_32).secretKey)), /seed/],
      ['the raw seed without the CHOICE tag', pkcs8(header, SEED_32), /seed/],
      ['not canonical base64', '-----BEGIN PRIVATE KEY-----\nYR==\n-----END PRIVATE KEY-----\n', /base64/],
      [
        'not one PEM block',
        '-----BEGIN PRIVATE KEY-----\n!!!!\n-----END PRIVATE KEY-----\n',
        /one '-----BEGIN PRIVATE KEY-----' block/,
      ],
    ];
    for (const [label, pem, message] of cases) {
      await assert.rejects(postQuantumPrivateKeyFromPem('ml-dsa-65', pem), isInvalid('/privateKey', message), label);
    }
    // SLH-DSA and X-Wing keys are the raw bytes: any other length is refused.
    const slh = exportPostQuantumKeyPair('slh-dsa-sha2-128f', pairOf('slh-dsa-sha2-128f'), 'pem');
    const slhDer = derOf(slh.privateKey as string);
    await assert.rejects(
      postQuantumPrivateKeyFromPem(
        'slh-dsa-sha2-128f',
        pkcs8(bytes('300b0609608648016503040315'), slhDer.subarray(slhDer.byteLength - 63)),
      ),
      isInvalid('/privateKey', /64 bytes/),
    );
    await assert.rejects(
      postQuantumPrivateKeyFromPem('slh-dsa-sha2-192f', slh.privateKey as string),
      isInvalid('/privateKey', /another algorithm/),
    );
    await assert.rejects(
      postQuantumPrivateKeyFromPem('x25519-ml-kem-768', slh.privateKey as string, { field: 'secretKey' }),
      isInvalid('/secretKey', /another algorithm/),
    );
  });

  test('SPKI: another algorithm, unused bits, trailing bytes and wrong lengths are refused', () => {
    const der = derOf(oursPem.publicKey as string);
    const withUnusedBits = der.slice();
    withUnusedBits[bytes(EXPECTED['ml-dsa-65'].spki).byteLength - 1] = 0x01;
    const shortKey = pemOf(
      new Uint8Array([...bytes('308207b1300b0609608648016503040312038207a000'), ...mlDsa65.publicKey.subarray(1)]),
      'PUBLIC KEY',
    );
    const cases: [string, string, RegExp][] = [
      [
        'an ML-DSA-87 key',
        exportPostQuantumKeyPair('ml-dsa-87', FIXED['ml-dsa-87']!, 'pem').publicKey as string,
        /another algorithm/,
      ],
      ['a private key', oursPem.privateKey as string, /PUBLIC KEY/],
      ['unused bits', pemOf(withUnusedBits, 'PUBLIC KEY'), /readable/],
      ['trailing bytes', pemOf(new Uint8Array([...der, 0x00]), 'PUBLIC KEY'), /readable/],
      ['a key one byte short', shortKey, /1952 bytes/],
    ];
    for (const [label, pem, message] of cases) {
      assert.throws(() => postQuantumPublicKeyFromPem('ml-dsa-65', pem), isInvalid('/publicKey', message), label);
    }
    assert.throws(
      () => postQuantumPublicKeyFromPem('rsa', oursPem.publicKey as string),
      (error: unknown) => error instanceof CryptoError && error.code === 'UNSUPPORTED_ALGORITHM',
    );
  });
});

describe('generation', () => {
  test('every family through the runner it is given: the calls and their parameters, and keys of the right lengths', async () => {
    const calls: string[] = [];
    const recording: PostQuantumRunner = {
      ...DIRECT_POST_QUANTUM_RUNNER,
      mlKemKeygen: async (...args) => {
        calls.push(`ml-kem ${args[0]}`);
        return DIRECT_POST_QUANTUM_RUNNER.mlKemKeygen(...args);
      },
      xwingKeygen: async (...args) => {
        calls.push('x-wing');
        return DIRECT_POST_QUANTUM_RUNNER.xwingKeygen(...args);
      },
      mlDsaKeygen: async (...args) => {
        calls.push(`ml-dsa ${args[0]}`);
        return DIRECT_POST_QUANTUM_RUNNER.mlDsaKeygen(...args);
      },
      slhDsaKeygen: async (...args) => {
        calls.push(`slh-dsa ${args[0]}`);
        return DIRECT_POST_QUANTUM_RUNNER.slhDsaKeygen(...args);
      },
    };
    for (const id of ['ml-kem-1024', 'x25519-ml-kem-768', 'ml-dsa-44', 'slh-dsa-shake-128f'] as const) {
      const pair = await generatePostQuantumKeyPair(id, recording);
      assert.equal(pair.publicKey.byteLength, POST_QUANTUM_KEY_TYPES[id].publicKeyLength, id);
      assert.equal(pair.privateKey.byteLength, POST_QUANTUM_KEY_TYPES[id].privateKeyLength, id);
    }
    assert.deepEqual(calls, ['ml-kem ml-kem-1024', 'x-wing', 'ml-dsa ml-dsa-44', 'slh-dsa slh-dsa-shake-128f']);
  });

  test('X-Wing raw output is the pair of the seed alone, as @noble/post-quantum computes it', async () => {
    const generated = (await generateKeyMaterial('x25519-ml-kem-768', 'raw')) as GeneratedKeyPair;
    const seed = generated.privateKey as Uint8Array;
    assert.equal(seed.byteLength, 32);
    assert.equal(hex(generated.publicKey as Uint8Array), hex(ml_kem768_x25519.keygen(seed).publicKey));
    assert.deepEqual(Object.keys(generated).sort(), ['kind', 'privateKey', 'publicKey']);
  });
});
