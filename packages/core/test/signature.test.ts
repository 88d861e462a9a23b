/**
 * Signatures: Ed25519, Ed448, ECDSA P-256 / P-384.
 *
 * - Known answers: RFC 8032 §7.1 (Ed25519) and §7.4 (Ed448, including the "1 octet with
 *   context" example). EdDSA is deterministic, so our signature must equal the published one.
 *   ECDSA signing is randomized here (OpenSSL), so RFC 6979's deterministic signatures cannot be
 *   reproduced; instead the published RFC 6979 A.2.5 / A.2.6 signatures must verify under the
 *   published public keys, and our signatures made with the published private keys must verify
 *   under those public keys too (which proves the private-key encoding).
 * - An independent implementation, @noble/curves, in both directions with the same keys: it
 *   derives our public keys from our private keys, verifies our signatures, and we verify its.
 * - fast-check properties: round trips at message lengths 0-4096, any single-bit change refused.
 * - Every malformed input is an INVALID_INPUT that names its field.
 * Every expected value was copied from the source named beside it, never computed by this code.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { ed25519 } from '@noble/curves/ed25519.js';
import { ed448 } from '@noble/curves/ed448.js';
import { p256, p384 } from '@noble/curves/nist.js';
import { ed448Noble, NATIVE_ED448_CONTEXT } from '../src/eddsa.ts';
import { decodeKeyField, type RawKeyPair } from '../src/key-format.ts';
import {
  CLASSICAL_SIGNATURE_ALGORITHM_IDS,
  SIGNATURE_ALGORITHM_IDS,
  SIGNATURE_SCHEMES,
  signMessage,
  verifySignature,
  type ClassicalSignatureAlgorithm as SignatureAlgorithm,
} from '../src/signature.ts';
import { CryptoError } from '../src/errors.ts';

const bytes = (hex: string) => new Uint8Array(Buffer.from(hex, 'hex'));
const hex = (value: Uint8Array) => Buffer.from(value).toString('hex');
const utf8 = (text: string) => new TextEncoder().encode(text);

function isError(code: 'INVALID_INPUT' | 'UNSUPPORTED_ALGORITHM', field: string) {
  return (error: unknown) => {
    assert.ok(error instanceof CryptoError, `expected a CryptoError, got ${String(error)}`);
    assert.equal(error.code, code);
    assert.equal(error.field, field);
    return true;
  };
}

function flipBit(value: Uint8Array, bit: number): Uint8Array {
  const copy = value.slice();
  copy[bit >> 3]! ^= 1 << (bit & 7);
  return copy;
}

interface EddsaKnownAnswer {
  readonly name: string;
  readonly secretKey: string;
  readonly publicKey: string;
  readonly message: string;
  readonly context?: string;
  readonly signature: string;
}

// RFC 8032 §7.1, the Ed25519 examples TEST 1, TEST 2, TEST 3 and TEST SHA(abc).
const ED25519_RFC8032: EddsaKnownAnswer[] = [
  {
    name: 'TEST 1 (empty message)',
    secretKey: '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60',
    publicKey: 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
    message: '',
    signature:
      'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
  },
  {
    name: 'TEST 2 (1 byte)',
    secretKey: '4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb',
    publicKey: '3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c',
    message: '72',
    signature:
      '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00',
  },
  {
    name: 'TEST 3 (2 bytes)',
    secretKey: 'c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7',
    publicKey: 'fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025',
    message: 'af82',
    signature:
      '6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a',
  },
  {
    name: 'TEST SHA(abc) (64 bytes)',
    secretKey: '833fe62409237b9d62ec77587520911e9a759cec1d19755b7da901b96dca3d42',
    publicKey: 'ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf',
    message:
      'ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f',
    signature:
      'dc2a4459e7369633a52b1bf277839a00201009a3efbf3ecb69bea2186c26b58909351fc9ac90b3ecfdfbc7c66431e0303dca179c138ac17ad9bef1177331a704',
  },
];

// RFC 8032 §7.4, the Ed448 examples: blank, 1 octet, 1 octet with context "foo", 11, 12, 13 and 64 octets.
const ED448_RFC8032: EddsaKnownAnswer[] = [
  {
    name: 'blank',
    secretKey:
      '6c82a562cb808d10d632be89c8513ebf6c929f34ddfa8c9f63c9960ef6e348a3528c8a3fcc2f044e39a3fc5b94492f8f032e7549a20098f95b',
    publicKey:
      '5fd7449b59b461fd2ce787ec616ad46a1da1342485a70e1f8a0ea75d80e96778edf124769b46c7061bd6783df1e50f6cd1fa1abeafe8256180',
    message: '',
    signature:
      '533a37f6bbe457251f023c0d88f976ae2dfb504a843e34d2074fd823d41a591f2b233f034f628281f2fd7a22ddd47d7828c59bd0a21bfd3980ff0d2028d4b18a9df63e006c5d1c2d345b925d8dc00b4104852db99ac5c7cdda8530a113a0f4dbb61149f05a7363268c71d95808ff2e652600',
  },
  {
    name: '1 octet',
    secretKey:
      'c4eab05d357007c632f3dbb48489924d552b08fe0c353a0d4a1f00acda2c463afbea67c5e8d2877c5e3bc397a659949ef8021e954e0a12274e',
    publicKey:
      '43ba28f430cdff456ae531545f7ecd0ac834a55d9358c0372bfa0c6c6798c0866aea01eb00742802b8438ea4cb82169c235160627b4c3a9480',
    message: '03',
    signature:
      '26b8f91727bd62897af15e41eb43c377efb9c610d48f2335cb0bd0087810f4352541b143c4b981b7e18f62de8ccdf633fc1bf037ab7cd779805e0dbcc0aae1cbcee1afb2e027df36bc04dcecbf154336c19f0af7e0a6472905e799f1953d2a0ff3348ab21aa4adafd1d234441cf807c03a00',
  },
  {
    name: '1 octet with context "foo"',
    secretKey:
      'c4eab05d357007c632f3dbb48489924d552b08fe0c353a0d4a1f00acda2c463afbea67c5e8d2877c5e3bc397a659949ef8021e954e0a12274e',
    publicKey:
      '43ba28f430cdff456ae531545f7ecd0ac834a55d9358c0372bfa0c6c6798c0866aea01eb00742802b8438ea4cb82169c235160627b4c3a9480',
    message: '03',
    context: '666f6f',
    signature:
      'd4f8f6131770dd46f40867d6fd5d5055de43541f8c5e35abbcd001b32a89f7d2151f7647f11d8ca2ae279fb842d607217fce6e042f6815ea000c85741de5c8da1144a6a1aba7f96de42505d7a7298524fda538fccbbb754f578c1cad10d54d0d5428407e85dcbc98a49155c13764e66c3c00',
  },
  {
    name: '11 octets',
    secretKey:
      'cd23d24f714274e744343237b93290f511f6425f98e64459ff203e8985083ffdf60500553abc0e05cd02184bdb89c4ccd67e187951267eb328',
    publicKey:
      'dcea9e78f35a1bf3499a831b10b86c90aac01cd84b67a0109b55a36e9328b1e365fce161d71ce7131a543ea4cb5f7e9f1d8b00696447001400',
    message: '0c3e544074ec63b0265e0c',
    signature:
      '1f0a8888ce25e8d458a21130879b840a9089d999aaba039eaf3e3afa090a09d389dba82c4ff2ae8ac5cdfb7c55e94d5d961a29fe0109941e00b8dbdeea6d3b051068df7254c0cdc129cbe62db2dc957dbb47b51fd3f213fb8698f064774250a5028961c9bf8ffd973fe5d5c206492b140e00',
  },
  {
    name: '12 octets',
    secretKey:
      '258cdd4ada32ed9c9ff54e63756ae582fb8fab2ac721f2c8e676a72768513d939f63dddb55609133f29adf86ec9929dccb52c1c5fd2ff7e21b',
    publicKey:
      '3ba16da0c6f2cc1f30187740756f5e798d6bc5fc015d7c63cc9510ee3fd44adc24d8e968b6e46e6f94d19b945361726bd75e149ef09817f580',
    message: '64a65f3cdedcdd66811e2915',
    signature:
      '7eeeab7c4e50fb799b418ee5e3197ff6bf15d43a14c34389b59dd1a7b1b85b4ae90438aca634bea45e3a2695f1270f07fdcdf7c62b8efeaf00b45c2c96ba457eb1a8bf075a3db28e5c24f6b923ed4ad747c3c9e03c7079efb87cb110d3a99861e72003cbae6d6b8b827e4e6c143064ff3c00',
  },
  {
    name: '13 octets',
    secretKey:
      '7ef4e84544236752fbb56b8f31a23a10e42814f5f55ca037cdcc11c64c9a3b2949c1bb60700314611732a6c2fea98eebc0266a11a93970100e',
    publicKey:
      'b3da079b0aa493a5772029f0467baebee5a8112d9d3a22532361da294f7bb3815c5dc59e176b4d9f381ca0938e13c6c07b174be65dfa578e80',
    message: '64a65f3cdedcdd66811e2915e7',
    signature:
      '6a12066f55331b6c22acd5d5bfc5d71228fbda80ae8dec26bdd306743c5027cb4890810c162c027468675ecf645a83176c0d7323a2ccde2d80efe5a1268e8aca1d6fbc194d3f77c44986eb4ab4177919ad8bec33eb47bbb5fc6e28196fd1caf56b4e7e0ba5519234d047155ac727a1053100',
  },
  {
    name: '64 octets',
    secretKey:
      'd65df341ad13e008567688baedda8e9dcdc17dc024974ea5b4227b6530e339bff21f99e68ca6968f3cca6dfe0fb9f4fab4fa135d5542ea3f01',
    publicKey:
      'df9705f58edbab802c7f8363cfe5560ab1c6132c20a9f1dd163483a26f8ac53a39d6808bf4a1dfbd261b099bb03b3fb50906cb28bd8a081f00',
    message:
      'bd0f6a3747cd561bdddf4640a332461a4a30a12a434cd0bf40d766d9c6d458e5512204a30c17d1f50b5079631f64eb3112182da3005835461113718d1a5ef944',
    signature:
      '554bc2480860b49eab8532d2a533b7d578ef473eeb58c98bb2d0e1ce488a98b18dfde9b9b90775e67f47d4a1c3482058efc9f40d2ca033a0801b63d45b3b722ef552bad3b4ccb667da350192b61c508cf7b6b5adadc2c8d9a446ef003fb05cba5f30e88e36ec2703b349ca229c2670833900',
  },
];

interface EcdsaKnownAnswer {
  readonly algorithm: 'ecdsa-p256' | 'ecdsa-p384';
  readonly privateKey: string;
  readonly ux: string;
  readonly uy: string;
  readonly r: string;
  readonly s: string;
}

// RFC 6979 A.2.5 (P-256, SHA-256) and A.2.6 (P-384, SHA-384), message "sample".
const ECDSA_RFC6979: EcdsaKnownAnswer[] = [
  {
    algorithm: 'ecdsa-p256',
    privateKey: 'c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721',
    ux: '60fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6',
    uy: '7903fe1008b8bc99a41ae9e95628bc64f2f1b20c2d7e9f5177a3c294d4462299',
    r: 'efd48b2aacb6a8fd1140dd9cd45e81d69d2c877b56aaf991c34d0ea84eaf3716',
    s: 'f7cb1c942d657c41d436c7a1b6e29f65f3e900dbb9aff4064dc4ab2f843acda8',
  },
  {
    algorithm: 'ecdsa-p384',
    privateKey: '6b9d3dad2e1b8c1c05b19875b6659f4de23c3b667bf297ba9aa47740787137d896d5724e4c70a825f872c9ea60d2edf5',
    ux: 'ec3a4e415b4e19a4568618029f427fa5da9a8bc4ae92e02e06aae5286b300c64def8f0ea9055866064a254515480bc13',
    uy: '8015d9b72d7d57244ea8ef9ac0c621896708a59367f9dfb9f54ca84b3f1c9db1288b231c3ae0d4fe7344fd2533264720',
    r: '94edbb92a5ecb8aad4736e56c691916b3f88140666ce9fa73d64c4ea95ad133c81a648152e44acf96e36dd1e80fabe46',
    s: '99ef4aeb15f178cea1fe40db2603138f130e740a19624526203b6351d0a3a94fa329c145786e679e7b82c71a38628ac8',
  },
];

// The group orders n (SEC 2 / FIPS 186-5), for scalars at and beyond the valid range.
const ORDER = {
  'ecdsa-p256': 'ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551',
  'ecdsa-p384': 'ffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973',
} as const;

function compress(ux: string, uy: string): Uint8Array {
  const y = bytes(uy);
  return bytes(((y.at(-1)! & 1) === 1 ? '03' : '02') + ux);
}

describe('the table', () => {
  test('lists the four classical schemes, Ed25519 first, with their documented lengths', () => {
    assert.deepEqual(CLASSICAL_SIGNATURE_ALGORITHM_IDS, ['ed25519', 'ed448', 'ecdsa-p256', 'ecdsa-p384']);
    // The full list (the registry's) is the classical schemes, then ML-DSA, then the twelve SLH-DSA sets.
    assert.deepEqual(SIGNATURE_ALGORITHM_IDS.slice(0, 7), [
      ...CLASSICAL_SIGNATURE_ALGORITHM_IDS,
      'ml-dsa-44',
      'ml-dsa-65',
      'ml-dsa-87',
    ]);
    assert.equal(SIGNATURE_ALGORITHM_IDS.filter((id) => id.startsWith('slh-dsa-')).length, 12);
    assert.equal(SIGNATURE_ALGORITHM_IDS.length, 19);
    const lengths = Object.fromEntries(
      CLASSICAL_SIGNATURE_ALGORITHM_IDS.map((id) => {
        const scheme = SIGNATURE_SCHEMES[id];
        return [
          id,
          [scheme.privateKeyLengths, scheme.publicKeyLengths, scheme.signatureLength, scheme.maxContextLength],
        ];
      }),
    );
    assert.deepEqual(lengths, {
      ed25519: [[32], [32], 64, 0],
      ed448: [[57], [57], 114, 255],
      'ecdsa-p256': [[32], [33, 65], 64, 0],
      'ecdsa-p384': [[48], [49, 97], 96, 0],
    });
  });
});

describe('Ed25519, RFC 8032 §7.1', () => {
  for (const vector of ED25519_RFC8032) {
    test(`${vector.name}: our signature is the published one, and it verifies`, async () => {
      const signature = await signMessage('ed25519', bytes(vector.secretKey), bytes(vector.message));
      assert.equal(hex(signature), vector.signature);
      assert.equal(
        await verifySignature('ed25519', bytes(vector.publicKey), bytes(vector.message), bytes(vector.signature)),
        true,
      );
      assert.equal(
        await verifySignature('ed25519', bytes(vector.publicKey), utf8('other'), bytes(vector.signature)),
        false,
      );
    });
  }
});

describe('Ed448, RFC 8032 §7.4', () => {
  for (const vector of ED448_RFC8032) {
    const context = vector.context === undefined ? undefined : bytes(vector.context);
    test(`${vector.name}: our signature is the published one, and it verifies`, async () => {
      const signature = await signMessage('ed448', bytes(vector.secretKey), bytes(vector.message), { context });
      assert.equal(hex(signature), vector.signature);
      assert.equal(
        await verifySignature('ed448', bytes(vector.publicKey), bytes(vector.message), bytes(vector.signature), {
          context,
        }),
        true,
      );
    });
    test(`${vector.name}: the @noble/curves fallback gives the same signature and verdict`, () => {
      const ctx = context ?? new Uint8Array(0);
      assert.equal(hex(ed448Noble.sign(bytes(vector.secretKey), bytes(vector.message), ctx)), vector.signature);
      assert.equal(
        ed448Noble.verify(bytes(vector.publicKey), bytes(vector.message), bytes(vector.signature), ctx),
        true,
      );
    });
  }

  test('a context is bound into the signature: another context, or none, does not verify', async () => {
    const vector = ED448_RFC8032.find((v) => v.context !== undefined)!;
    const [publicKey, message, signature] = [bytes(vector.publicKey), bytes(vector.message), bytes(vector.signature)];
    assert.equal(await verifySignature('ed448', publicKey, message, signature), false);
    assert.equal(await verifySignature('ed448', publicKey, message, signature, { context: utf8('bar') }), false);
    assert.equal(await verifySignature('ed448', publicKey, message, signature, { context: new Uint8Array(0) }), false);
    assert.equal(ed448Noble.verify(publicKey, message, signature, utf8('bar')), false);
  });

  test('the empty context and no context are the same signature (RFC 8032 §5.2: dom4 with an empty context)', async () => {
    const vector = ED448_RFC8032[0]!;
    const withEmpty = await signMessage('ed448', bytes(vector.secretKey), bytes(vector.message), {
      context: new Uint8Array(0),
    });
    assert.equal(hex(withEmpty), vector.signature);
  });

  test('contexts up to 255 bytes, in either backend, verify in the other', async () => {
    const { secretKey, publicKey } = {
      secretKey: bytes(ED448_RFC8032[1]!.secretKey),
      publicKey: bytes(ED448_RFC8032[1]!.publicKey),
    };
    for (const length of [1, 17, 254, 255]) {
      const context = new Uint8Array(length).map((_, i) => (i * 7 + 1) & 0xff);
      const message = utf8(`context of ${length} bytes`);
      const ours = await signMessage('ed448', secretKey, message, { context });
      assert.equal(ed448Noble.verify(publicKey, message, ours, context), true, `noble verifies ours, ${length}`);
      assert.equal(ed448.verify(ours, message, publicKey, { context }), true, `@noble/curves directly, ${length}`);
      const theirs = ed448.sign(message, secretKey, { context });
      assert.equal(
        await verifySignature('ed448', publicKey, message, theirs, { context }),
        true,
        `we verify noble's, ${length}`,
      );
    }
  });

  test('the runtime probe is right: Node 24 applies Ed448 contexts natively, Node 22 falls back', () => {
    const hasNativeContexts = Number(process.versions.node.split('.')[0]) >= 24;
    assert.equal(NATIVE_ED448_CONTEXT, hasNativeContexts);
  });
});

describe('ECDSA, RFC 6979 A.2.5 / A.2.6 (message "sample")', () => {
  for (const vector of ECDSA_RFC6979) {
    const uncompressed = bytes(`04${vector.ux}${vector.uy}`);
    const compressed = compress(vector.ux, vector.uy);
    const message = utf8('sample');
    const published = bytes(vector.r + vector.s);

    test(`${vector.algorithm}: the published r ‖ s verifies under the published key, uncompressed and compressed`, async () => {
      assert.equal(await verifySignature(vector.algorithm, uncompressed, message, published), true);
      assert.equal(await verifySignature(vector.algorithm, compressed, message, published), true);
      assert.equal(await verifySignature(vector.algorithm, uncompressed, utf8('test'), published), false);
      assert.equal(
        await verifySignature(
          vector.algorithm,
          uncompressed,
          message,
          flipBit(published, published.byteLength * 8 - 1),
        ),
        false,
      );
    });

    test(`${vector.algorithm}: our signatures with the published private key verify under the published public key`, async () => {
      const first = await signMessage(vector.algorithm, bytes(vector.privateKey), message);
      const second = await signMessage(vector.algorithm, bytes(vector.privateKey), message);
      assert.equal(first.byteLength, published.byteLength);
      // Randomized signing: two signatures of one message differ, and both verify.
      assert.notEqual(hex(first), hex(second));
      assert.equal(await verifySignature(vector.algorithm, uncompressed, message, first), true);
      assert.equal(await verifySignature(vector.algorithm, compressed, message, second), true);
    });

    test(`${vector.algorithm}: a high-s signature (n - s) also verifies, as in OpenSSL and FIPS 186-5 (no low-s rule)`, async () => {
      const n = BigInt(`0x${ORDER[vector.algorithm]}`);
      const size = vector.r.length / 2;
      const highS = (n - BigInt(`0x${vector.s}`)).toString(16).padStart(2 * size, '0');
      assert.equal(await verifySignature(vector.algorithm, uncompressed, message, bytes(vector.r + highS)), true);
    });
  }
});

type Noble = {
  readonly publicKey: (privateKey: Uint8Array) => Uint8Array;
  readonly sign: (message: Uint8Array, privateKey: Uint8Array) => Uint8Array;
  readonly verify: (signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array) => boolean;
};

// @noble/curves with the settings of this service: prehash with the curve's hash (SHA-256 /
// SHA-384), compact r ‖ s, and no low-s rule on verification (OpenSSL signs with either s).
const NOBLE: Record<SignatureAlgorithm, Noble> = {
  ed25519: {
    publicKey: (key) => ed25519.getPublicKey(key),
    sign: (message, key) => ed25519.sign(message, key),
    verify: (signature, message, key) => ed25519.verify(signature, message, key, { zip215: false }),
  },
  ed448: {
    publicKey: (key) => ed448.getPublicKey(key),
    sign: (message, key) => ed448.sign(message, key),
    verify: (signature, message, key) => ed448.verify(signature, message, key),
  },
  'ecdsa-p256': {
    publicKey: (key) => p256.getPublicKey(key, false),
    sign: (message, key) => p256.sign(message, key),
    verify: (signature, message, key) => p256.verify(signature, message, key, { lowS: false }),
  },
  'ecdsa-p384': {
    publicKey: (key) => p384.getPublicKey(key, false),
    sign: (message, key) => p384.sign(message, key),
    verify: (signature, message, key) => p384.verify(signature, message, key, { lowS: false }),
  },
};

describe('differential against @noble/curves, same keys, both directions', () => {
  for (const algorithm of CLASSICAL_SIGNATURE_ALGORITHM_IDS) {
    test(`${algorithm}: noble derives our public key, verifies our signatures, and we verify noble's`, async () => {
      const noble = NOBLE[algorithm];
      for (let round = 0; round < 8; round += 1) {
        const pair = await SIGNATURE_SCHEMES[algorithm].generate();
        assert.equal(hex(noble.publicKey(pair.privateKey)), hex(pair.publicKey));
        const message = utf8(`message ${round} `.repeat(round * 37));
        const ours = await signMessage(algorithm, pair.privateKey, message);
        assert.equal(noble.verify(ours, message, pair.publicKey), true, 'noble verifies ours');
        const theirs = noble.sign(message, pair.privateKey);
        assert.equal(await verifySignature(algorithm, pair.publicKey, message, theirs), true, "we verify noble's");
        assert.equal(
          noble.verify(flipBit(ours, round), message, pair.publicKey),
          false,
          'noble refuses a changed one of ours',
        );
        assert.equal(
          await verifySignature(algorithm, pair.publicKey, message, flipBit(theirs, round)),
          false,
          "we refuse a changed one of noble's",
        );
      }
    });
  }
});

describe('properties (fast-check, fixed seed)', () => {
  for (const algorithm of CLASSICAL_SIGNATURE_ALGORITHM_IDS) {
    test(`${algorithm}: every message of 0 to 4096 bytes round-trips; any single-bit change of message or signature is refused`, async () => {
      const pair = await SIGNATURE_SCHEMES[algorithm].generate();
      await fc.assert(
        fc.asyncProperty(
          fc.uint8Array({ minLength: 0, maxLength: 4096 }),
          fc.nat(),
          fc.boolean(),
          async (message, position, inSignature) => {
            const signature = await signMessage(algorithm, pair.privateKey, message);
            assert.equal(await verifySignature(algorithm, pair.publicKey, message, signature), true);
            if (inSignature || message.byteLength === 0) {
              const changed = flipBit(signature, position % (signature.byteLength * 8));
              assert.equal(await verifySignature(algorithm, pair.publicKey, message, changed), false);
            } else {
              const changed = flipBit(message, position % (message.byteLength * 8));
              assert.equal(await verifySignature(algorithm, pair.publicKey, changed, signature), false);
            }
          },
        ),
        { seed: 0x5167, numRuns: 40 },
      );
    });
  }

  test('the edge lengths 0 and 4096 round-trip for every scheme', async () => {
    for (const algorithm of CLASSICAL_SIGNATURE_ALGORITHM_IDS) {
      const pair = await SIGNATURE_SCHEMES[algorithm].generate();
      for (const length of [0, 4096]) {
        const message = new Uint8Array(length).map((_, i) => (i * 31) & 0xff);
        const signature = await signMessage(algorithm, pair.privateKey, message);
        assert.equal(
          await verifySignature(algorithm, pair.publicKey, message, signature),
          true,
          `${algorithm} ${length}`,
        );
      }
    }
  });
});

describe('PEM keys (PKCS#8 private, SPKI public), as OpenSSL writes them', () => {
  const NODE_TYPES: Record<SignatureAlgorithm, () => ReturnType<typeof generateKeyPairSync>> = {
    ed25519: () => generateKeyPairSync('ed25519'),
    ed448: () => generateKeyPairSync('ed448'),
    'ecdsa-p256': () => generateKeyPairSync('ec', { namedCurve: 'P-256' }),
    'ecdsa-p384': () => generateKeyPairSync('ec', { namedCurve: 'P-384' }),
  };

  for (const algorithm of CLASSICAL_SIGNATURE_ALGORITHM_IDS) {
    test(`${algorithm}: a PEM pair from node:crypto signs and verifies, and agrees with the raw form`, async () => {
      const { privateKey, publicKey } = NODE_TYPES[algorithm]();
      const privatePem = String(privateKey.export({ type: 'pkcs8', format: 'pem' }));
      const publicPem = String(publicKey.export({ type: 'spki', format: 'pem' }));
      const message = utf8('signed with a PEM key');
      const signature = await signMessage(algorithm, privatePem, message);
      assert.equal(await verifySignature(algorithm, publicPem, message, signature), true);
      // The raw public key that noble derives from the PEM's private scalar / seed verifies it too.
      const jwk = privateKey.export({ format: 'jwk' });
      const raw = NOBLE[algorithm].publicKey(new Uint8Array(Buffer.from(jwk.d!, 'base64url')));
      assert.equal(await verifySignature(algorithm, raw, message, signature), true);
      assert.equal(NOBLE[algorithm].verify(signature, message, raw), true);
    });
  }

  test('CRLF line ends and a trailing newline are read', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const privatePem = String(privateKey.export({ type: 'pkcs8', format: 'pem' })).replaceAll('\n', '\r\n');
    const publicPem = String(publicKey.export({ type: 'spki', format: 'pem' })).trimEnd();
    const signature = await signMessage('ed25519', privatePem, utf8('m'));
    assert.equal(await verifySignature('ed25519', publicPem, utf8('m'), signature), true);
  });

  test('a PEM key of another algorithm, another label, or garbage is an INVALID_INPUT naming the field', async () => {
    const ed = generateKeyPairSync('ed25519');
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const edPrivate = String(ed.privateKey.export({ type: 'pkcs8', format: 'pem' }));
    const edPublic = String(ed.publicKey.export({ type: 'spki', format: 'pem' }));
    const ecPrivate = String(ec.privateKey.export({ type: 'pkcs8', format: 'pem' }));
    const sec1 = String(ec.privateKey.export({ type: 'sec1', format: 'pem' }));
    const m = utf8('m');
    const signature = new Uint8Array(64);
    await assert.rejects(signMessage('ed448', edPrivate, m), isError('INVALID_INPUT', '/privateKey'));
    await assert.rejects(signMessage('ecdsa-p384', ecPrivate, m), isError('INVALID_INPUT', '/privateKey'));
    await assert.rejects(signMessage('ecdsa-p256', sec1, m), isError('INVALID_INPUT', '/privateKey'));
    await assert.rejects(signMessage('ed25519', edPublic, m), isError('INVALID_INPUT', '/privateKey'));
    await assert.rejects(verifySignature('ed25519', edPrivate, m, signature), isError('INVALID_INPUT', '/publicKey'));
    await assert.rejects(verifySignature('ecdsa-p256', edPublic, m, signature), isError('INVALID_INPUT', '/publicKey'));
    const garbage = '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n';
    await assert.rejects(signMessage('ed25519', garbage, m), isError('INVALID_INPUT', '/privateKey'));
    const badBase64 = '-----BEGIN PRIVATE KEY-----\nA!AA\n-----END PRIVATE KEY-----\n';
    await assert.rejects(signMessage('ed25519', badBase64, m), isError('INVALID_INPUT', '/privateKey'));
    const twoBlocks = edPrivate + edPrivate;
    await assert.rejects(signMessage('ed25519', twoBlocks, m), isError('INVALID_INPUT', '/privateKey'));
  });
});

describe('malformed input is an INVALID_INPUT that names the field', () => {
  const m = utf8('m');

  test('keys and signatures of every wrong length', async () => {
    for (const algorithm of CLASSICAL_SIGNATURE_ALGORITHM_IDS) {
      const scheme = SIGNATURE_SCHEMES[algorithm];
      const pair = await scheme.generate();
      const signature = await signMessage(algorithm, pair.privateKey, m);
      const good = scheme.privateKeyLengths[0]!;
      for (const length of [0, 1, good - 1, good + 1, 64, 65, 97, 114, 200]) {
        if (scheme.privateKeyLengths.includes(length)) continue;
        await assert.rejects(
          signMessage(algorithm, new Uint8Array(length).fill(1), m),
          isError('INVALID_INPUT', '/privateKey'),
          `${algorithm} private ${length}`,
        );
      }
      for (const length of [0, 1, 31, 32, 33, 48, 49, 56, 57, 58, 64, 65, 96, 97, 98]) {
        if (scheme.publicKeyLengths.includes(length)) continue;
        await assert.rejects(
          verifySignature(algorithm, new Uint8Array(length).fill(2), m, signature),
          isError('INVALID_INPUT', '/publicKey'),
          `${algorithm} public ${length}`,
        );
      }
      for (const length of [0, 1, scheme.signatureLength - 1, scheme.signatureLength + 1, 2 * scheme.signatureLength]) {
        await assert.rejects(
          verifySignature(algorithm, pair.publicKey, m, new Uint8Array(length)),
          isError('INVALID_INPUT', '/signature'),
          `${algorithm} signature ${length}`,
        );
      }
    }
  });

  test('a context on a scheme without one (even empty), or longer than 255 bytes', async () => {
    for (const algorithm of ['ed25519', 'ecdsa-p256', 'ecdsa-p384'] as const) {
      const pair = await SIGNATURE_SCHEMES[algorithm].generate();
      for (const context of [new Uint8Array(0), utf8('ctx')]) {
        await assert.rejects(
          signMessage(algorithm, pair.privateKey, m, { context }),
          isError('INVALID_INPUT', '/context'),
        );
        await assert.rejects(
          verifySignature(algorithm, pair.publicKey, m, new Uint8Array(SIGNATURE_SCHEMES[algorithm].signatureLength), {
            context,
          }),
          isError('INVALID_INPUT', '/context'),
        );
      }
    }
    const pair = await SIGNATURE_SCHEMES.ed448.generate();
    await assert.rejects(
      signMessage('ed448', pair.privateKey, m, { context: new Uint8Array(256) }),
      isError('INVALID_INPUT', '/context'),
    );
    await assert.rejects(
      verifySignature('ed448', pair.publicKey, m, new Uint8Array(114), { context: new Uint8Array(256) }),
      isError('INVALID_INPUT', '/context'),
    );
  });

  test('an ECDSA public key off the curve, with a bad prefix, or with an x that has no point', async () => {
    for (const vector of ECDSA_RFC6979) {
      const size = vector.ux.length / 2;
      const y = bytes(vector.uy);
      y[size - 1]! ^= 1;
      const offCurve = bytes(`04${vector.ux}${hex(y)}`);
      const hybrid = bytes(`06${vector.ux}${vector.uy}`);
      const wrongPrefix = bytes(`05${vector.ux}`);
      const signature = bytes(vector.r + vector.s);
      for (const key of [
        offCurve,
        hybrid,
        bytes(`07${vector.ux}${vector.uy}`),
        wrongPrefix,
        bytes(`04${'00'.repeat(2 * size)}`),
      ]) {
        await assert.rejects(
          verifySignature(vector.algorithm, key, utf8('sample'), signature),
          isError('INVALID_INPUT', '/publicKey'),
          hex(key),
        );
      }
      // x = 2^(8·size) - 1 is not below p, so it is no field element at all.
      await assert.rejects(
        verifySignature(vector.algorithm, bytes(`02${'ff'.repeat(size)}`), utf8('sample'), signature),
        isError('INVALID_INPUT', '/publicKey'),
      );
    }
  });

  test('an ECDSA private scalar of 0, n, or above n is refused; n - 1 is a key', async () => {
    for (const algorithm of ['ecdsa-p256', 'ecdsa-p384'] as const) {
      const n = BigInt(`0x${ORDER[algorithm]}`);
      const size = ORDER[algorithm].length / 2;
      const scalar = (value: bigint) => bytes(value.toString(16).padStart(2 * size, '0'));
      for (const value of [0n, n, n + 1n, 2n ** BigInt(8 * size) - 1n]) {
        await assert.rejects(
          signMessage(algorithm, scalar(value), m),
          isError('INVALID_INPUT', '/privateKey'),
          `${algorithm} d = ${value}`,
        );
      }
      const signature = await signMessage(algorithm, scalar(n - 1n), m);
      assert.equal(NOBLE[algorithm].verify(signature, m, NOBLE[algorithm].publicKey(scalar(n - 1n))), true);
    }
  });

  test('an unknown algorithm is UNSUPPORTED_ALGORITHM', async () => {
    await assert.rejects(signMessage('rsa', new Uint8Array(32), m), isError('UNSUPPORTED_ALGORITHM', '/algorithm'));
    await assert.rejects(
      verifySignature('ed25519ph', new Uint8Array(32), m, new Uint8Array(64)),
      isError('UNSUPPORTED_ALGORITHM', '/algorithm'),
    );
    await assert.rejects(
      signMessage('__proto__', new Uint8Array(32), m),
      isError('UNSUPPORTED_ALGORITHM', '/algorithm'),
    );
  });

  test('decodeKeyField: PEM text by its prefix, otherwise strict hex', () => {
    assert.equal(decodeKeyField('-----BEGIN PUBLIC KEY-----\n', '/publicKey'), '-----BEGIN PUBLIC KEY-----\n');
    assert.deepEqual(decodeKeyField('00FFab', '/publicKey'), Uint8Array.of(0, 255, 0xab));
    for (const text of ['0', 'zz', ' 00', '00 ', '0x00', ' -----BEGIN PUBLIC KEY-----']) {
      assert.throws(
        () => decodeKeyField(text, '/publicKey'),
        isError('INVALID_INPUT', '/publicKey'),
        JSON.stringify(text),
      );
    }
  });
});

describe('the public-key cache', () => {
  test('more distinct keys than it holds, interleaved, each verify only their own signature', async () => {
    const message = utf8('cache');
    const entries: { pair: RawKeyPair; signature: Uint8Array }[] = [];
    for (let i = 0; i < 300; i += 1) {
      const pair = await SIGNATURE_SCHEMES.ed25519.generate();
      entries.push({ pair, signature: await signMessage('ed25519', pair.privateKey, message) });
    }
    for (let pass = 0; pass < 2; pass += 1) {
      for (let i = 0; i < entries.length; i += 1) {
        const own = entries[i]!;
        const other = entries[(i + 1) % entries.length]!;
        assert.equal(await verifySignature('ed25519', own.pair.publicKey, message, own.signature), true);
        assert.equal(await verifySignature('ed25519', own.pair.publicKey, message, other.signature), false);
      }
    }
  });

  test('a refused key is not remembered as good', async () => {
    const vector = ECDSA_RFC6979[0]!;
    const y = bytes(vector.uy);
    y[31]! ^= 1;
    const offCurve = bytes(`04${vector.ux}${hex(y)}`);
    for (let i = 0; i < 2; i += 1) {
      await assert.rejects(
        verifySignature('ecdsa-p256', offCurve, utf8('sample'), bytes(vector.r + vector.s)),
        isError('INVALID_INPUT', '/publicKey'),
      );
    }
    assert.equal(
      await verifySignature(
        'ecdsa-p256',
        bytes(`04${vector.ux}${vector.uy}`),
        utf8('sample'),
        bytes(vector.r + vector.s),
      ),
      true,
    );
  });
});
