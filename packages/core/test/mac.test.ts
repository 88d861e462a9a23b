/**
 * Tests of mac.ts. Expected values are copied from published sources, never computed by the code
 * under test:
 * - RFC 4231 §4.2–4.8: HMAC-SHA-256/384/512 test cases 1–7 (case 5 publishes only the first
 *   128 bits of each MAC);
 * - NIST's HMAC-SHA3 example values (csrc.nist.gov, "Cryptographic Standards and Guidelines:
 *   Examples with Intermediate Values", HMAC_SHA3-256/384/512.pdf): keys 00 01 02 … of lengths
 *   below, equal to and above the block size, messages "Sample message for keylen<blocklen" etc.
 * Both backends (node:crypto, and @noble/hashes for small messages on Node 24) are checked against
 * them.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { hmac as nobleHmac } from '@noble/hashes/hmac.js';
import { sha256, sha384, sha512 } from '@noble/hashes/sha2.js';
import { sha3_256, sha3_384, sha3_512 } from '@noble/hashes/sha3.js';
import {
  computeHmac,
  MAC_ALGORITHM_IDS,
  MAC_ALGORITHMS,
  macBackendFor,
  NOBLE_HMAC_BELOW,
  verifyHmac,
  type MacAlgorithm,
} from '../src/mac.ts';
import { CryptoError } from '../src/errors.ts';
import { isKeyGenerationAlgorithm } from '../src/key-generation.ts';
import { countNodeCryptoCalls } from './node-crypto-spy.ts';

const ascii = (text: string) => new TextEncoder().encode(text);
const hex = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
const unhex = (text: string) => new Uint8Array(Buffer.from(text.replace(/\s+/g, ''), 'hex'));
const repeated = (byte: number, count: number) => new Uint8Array(count).fill(byte);
/** Every published vector runs on both backends, each forced. */
const BACKENDS = ['native', 'noble'] as const;
/** The key 00 01 02 … (n - 1) of the NIST examples. */
const counting = (n: number) => Uint8Array.from({ length: n }, (_, i) => i);

function assertInvalid(fn: () => unknown, field: string): void {
  assert.throws(
    fn,
    (error: unknown) => error instanceof CryptoError && error.code === 'INVALID_INPUT' && error.field === field,
  );
}

describe('HMAC-SHA-2: RFC 4231', () => {
  const cases: {
    name: string;
    key: Uint8Array;
    data: Uint8Array;
    sha256: string;
    sha384: string;
    sha512: string;
    truncated?: true;
  }[] = [
    {
      name: 'test case 1',
      key: repeated(0x0b, 20),
      data: ascii('Hi There'),
      sha256: 'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7',
      sha384: 'afd03944d84895626b0825f4ab46907f15f9dadbe4101ec682aa034c7cebc59cfaea9ea9076ede7f4af152e8b2fa9cb6',
      sha512:
        '87aa7cdea5ef619d4ff0b4241a1d6cb02379f4e2ce4ec2787ad0b30545e17cdedaa833b7d6b8a702038b274eaea3f4e4be9d914eeb61f1702e696c203a126854',
    },
    {
      name: 'test case 2 (a key shorter than the output)',
      key: ascii('Jefe'),
      data: ascii('what do ya want for nothing?'),
      sha256: '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
      sha384: 'af45d2e376484031617f78d2b58a6b1b9c7ef464f5a01b47e42ec3736322445e8e2240ca5e69e2c78b3239ecfab21649',
      sha512:
        '164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737',
    },
    {
      name: 'test case 3',
      key: repeated(0xaa, 20),
      data: repeated(0xdd, 50),
      sha256: '773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe',
      sha384: '88062608d3e6ad8a0aa2ace014c8a86f0aa635d947ac9febe83ef4e55966144b2a5ab39dc13814b94e3ab6e101a34f27',
      sha512:
        'fa73b0089d56a284efb0f0756c890be9b1b5dbdd8ee81a3655f83e33b2279d39bf3e848279a722c806b485a47e67c807b946a337bee8942674278859e13292fb',
    },
    {
      name: 'test case 4',
      key: unhex('0102030405060708090a0b0c0d0e0f10111213141516171819'),
      data: repeated(0xcd, 50),
      sha256: '82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b',
      sha384: '3e8a69b7783c25851933ab6290af6ca77a9981480850009cc5577c6e1f573b4e6801dd23c4a7d679ccf8a386c674cffb',
      sha512:
        'b0ba465637458c6990e5a8c5f61d4af7e576d97ff94b872de76f8050361ee3dba91ca5c11aa25eb4d679275cc5788063a5f19741120c4f2de2adebeb10a298dd',
    },
    {
      name: 'test case 5 (published truncated to 128 bits)',
      key: repeated(0x0c, 20),
      data: ascii('Test With Truncation'),
      truncated: true,
      sha256: 'a3b6167473100ee06e0c796c2955552b',
      sha384: '3abf34c3503b2a23a46efc619baef897',
      sha512: '415fad6271580a531d4179bc891d87a6',
    },
    {
      name: 'test case 6 (a key larger than the block)',
      key: repeated(0xaa, 131),
      data: ascii('Test Using Larger Than Block-Size Key - Hash Key First'),
      sha256: '60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54',
      sha384: '4ece084485813e9088d2c63a041bc5b44f9ef1012a2b588f3cd11f05033ac4c60c2ef6ab4030fe8296248df163f44952',
      sha512:
        '80b24263c7c1a3ebb71493c1dd7be8b49b46d1f41b4aeec1121b013783f8f3526b56d037e05f2598bd0fd2215d6a1e5295e64f73f63f0aec8b915a985d786598',
    },
    {
      name: 'test case 7 (key and data larger than the block)',
      key: repeated(0xaa, 131),
      data: ascii(
        'This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.',
      ),
      sha256: '9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2',
      sha384: '6617178e941f020d351e2f254e8fd32c602420feb0b8fb9adccebb82461e99c5a678cc31e799176d3860e6110c46523e',
      sha512:
        'e37b6a775dc87dbaa4dfa9f96e5e3ffddebd71f8867289865df5a32d20cdc944b6022cac3c4982b10d5eeb55c3e4de15134676fb6de0446065c97440fa8c6a58',
    },
  ];

  for (const c of cases) {
    for (const hash of ['sha256', 'sha384', 'sha512'] as const) {
      const algorithm = `hmac-${hash}` as const;
      for (const backend of BACKENDS) {
        test(`${c.name}, ${algorithm}, ${backend} backend`, () => {
          const mac = computeHmac(algorithm, c.key, c.data, { backend });
          assert.equal(mac.byteLength, MAC_ALGORITHMS[algorithm].outputLength);
          if (c.truncated) {
            // Our MAC is full length; its first 128 bits are the published value.
            assert.equal(hex(mac.subarray(0, 16)), c[hash]);
            // The published 16-byte tag itself is refused by verification: no truncated MACs.
            assertInvalid(() => verifyHmac(algorithm, c.key, c.data, unhex(c[hash]), { backend }), '/mac');
          } else {
            assert.equal(hex(mac), c[hash]);
            assert.equal(verifyHmac(algorithm, c.key, c.data, unhex(c[hash]), { backend }), true);
          }
        });
      }
    }
  }
});

describe('HMAC-SHA3: NIST example values', () => {
  const samples: { algorithm: MacAlgorithm; keyLength: number; message: string; mac: string }[] = [
    {
      algorithm: 'hmac-sha3-256',
      keyLength: 32,
      message: 'Sample message for keylen<blocklen',
      mac: '4fe8e202c4f058e8dddc23d8c34e467343e23555e24fc2f025d598f558f67205',
    },
    {
      algorithm: 'hmac-sha3-256',
      keyLength: 136,
      message: 'Sample message for keylen=blocklen',
      mac: '68b94e2e538a9be4103bebb5aa016d47961d4d1aa906061313b557f8af2c3faa',
    },
    {
      algorithm: 'hmac-sha3-256',
      keyLength: 168,
      message: 'Sample message for keylen>blocklen',
      mac: '9bcf2c238e235c3ce88404e813bd2f3a97185ac6f238c63d6229a00b07974258',
    },
    {
      algorithm: 'hmac-sha3-384',
      keyLength: 48,
      message: 'Sample message for keylen<blocklen',
      mac: 'd588a3c51f3f2d906e8298c1199aa8ff6296218127f6b38a90b6afe2c5617725bc99987f79b22a557b6520db710b7f42',
    },
    {
      algorithm: 'hmac-sha3-384',
      keyLength: 104,
      message: 'Sample message for keylen=blocklen',
      mac: 'a27d24b592e8c8cbf6d4ce6fc5bf62d8fc98bf2d486640d9eb8099e24047837f5f3bffbe92dcce90b4ed5b1e7e44fa90',
    },
    {
      algorithm: 'hmac-sha3-384',
      keyLength: 152,
      message: 'Sample message for keylen>blocklen',
      mac: 'e5ae4c739f455279368ebf36d4f5354c95aa184c899d3870e460ebc288ef1f9470053f73f7c6da2a71bcaec38ce7d6ac',
    },
    {
      algorithm: 'hmac-sha3-512',
      keyLength: 64,
      message: 'Sample message for keylen<blocklen',
      mac: '4efd629d6c71bf86162658f29943b1c308ce27cdfa6db0d9c3ce81763f9cbce5f7ebe9868031db1a8f8eb7b6b95e5c5e3f657a8996c86a2f6527e307f0213196',
    },
    {
      algorithm: 'hmac-sha3-512',
      keyLength: 72,
      message: 'Sample message for keylen=blocklen',
      mac: '544e257ea2a3e5ea19a590e6a24b724ce6327757723fe2751b75bf007d80f6b360744bf1b7a88ea585f9765b47911976d3191cf83c039f5ffab0d29cc9d9b6da',
    },
    {
      algorithm: 'hmac-sha3-512',
      keyLength: 136,
      message: 'Sample message for keylen>blocklen',
      mac: '5f464f5e5b7848e3885e49b2c385f0694985d0e38966242dc4a5fe3fea4b37d46b65ceced5dcf59438dd840bab22269f0ba7febdb9fcf74602a35666b2a32915',
    },
  ];

  for (const s of samples) {
    for (const backend of BACKENDS) {
      test(`HMAC-${s.algorithm}, ${s.keyLength}-byte key: "${s.message}", ${backend} backend`, () => {
        const key = counting(s.keyLength);
        assert.equal(hex(computeHmac(s.algorithm, key, ascii(s.message), { backend })), s.mac);
        assert.equal(verifyHmac(s.algorithm, key, ascii(s.message), unhex(s.mac), { backend }), true);
      });
    }
  }
});

describe('verification', () => {
  test('any single changed bit of the MAC, the data or the key gives false', () => {
    const key = counting(32);
    const data = ascii('the quick brown fox');
    for (const algorithm of MAC_ALGORITHM_IDS) {
      const mac = computeHmac(algorithm, key, data);
      for (let bit = 0; bit < mac.byteLength * 8; bit += 1) {
        const changed = mac.slice();
        changed[bit >> 3]! ^= 1 << (bit & 7);
        assert.equal(verifyHmac(algorithm, key, data, changed), false, `${algorithm} bit ${bit}`);
      }
      const otherData = data.slice();
      otherData[0]! ^= 1;
      assert.equal(verifyHmac(algorithm, key, otherData, mac), false);
      const otherKey = key.slice();
      otherKey[31]! ^= 0x80;
      assert.equal(verifyHmac(algorithm, otherKey, data, mac), false);
    }
  });

  test('a MAC of any length but the full one is refused as INVALID_INPUT on /mac, not compared', () => {
    const key = counting(32);
    const data = ascii('data');
    for (const algorithm of MAC_ALGORITHM_IDS) {
      const mac = computeHmac(algorithm, key, data);
      for (const length of [0, 1, 16, mac.byteLength - 1, mac.byteLength + 1]) {
        const candidate = new Uint8Array(length);
        candidate.set(mac.subarray(0, Math.min(length, mac.byteLength)));
        assertInvalid(() => verifyHmac(algorithm, key, data, candidate), '/mac');
      }
    }
  });

  test('an empty key is refused for both compute and verify', () => {
    assertInvalid(() => computeHmac('hmac-sha256', new Uint8Array(0), ascii('x')), '/key');
    assertInvalid(() => verifyHmac('hmac-sha256', new Uint8Array(0), ascii('x'), new Uint8Array(32)), '/key');
  });

  test('an unknown or insecure algorithm, or a bare hash name, is UNSUPPORTED_ALGORITHM on /algorithm', () => {
    for (const algorithm of ['hmac-md5', 'hmac-sha1', 'hmac-sha224', 'HMAC-SHA256', 'sha256', 'sha3-256', 'blake3']) {
      assert.throws(
        () => computeHmac(algorithm, counting(16), ascii('x')),
        (error: unknown) =>
          error instanceof CryptoError &&
          error.code === 'UNSUPPORTED_ALGORITHM' &&
          error.field === '/algorithm' &&
          error.message.includes('hmac-sha256, hmac-sha384'),
        algorithm,
      );
    }
  });

  test('the identifier list is the documented one, the names of /v2/keys/generate', () => {
    assert.deepEqual(
      [...MAC_ALGORITHM_IDS],
      ['hmac-sha256', 'hmac-sha384', 'hmac-sha512', 'hmac-sha3-256', 'hmac-sha3-384', 'hmac-sha3-512'],
    );
    for (const algorithm of MAC_ALGORITHM_IDS) assert.ok(isKeyGenerationAlgorithm(algorithm), algorithm);
  });
});

describe('the two backends, and agreement with @noble/hashes on random keys and data', () => {
  const noble = { sha256, sha384, sha512, 'sha3-256': sha3_256, 'sha3-384': sha3_384, 'sha3-512': sha3_512 } as const;
  test('native (OpenSSL) against @noble/hashes called directly: every algorithm, keys of 1 to 300 bytes (both sides of every block size), data of 0 to 4096 bytes', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...MAC_ALGORITHM_IDS),
        fc.uint8Array({ minLength: 1, maxLength: 300 }),
        fc.uint8Array({ maxLength: 4096 }),
        (algorithm, key, data) => {
          const expected = nobleHmac(noble[MAC_ALGORITHMS[algorithm].hash], key, data);
          assert.equal(hex(computeHmac(algorithm, key, data, { backend: 'native' })), hex(expected));
          assert.equal(verifyHmac(algorithm, key, data, expected, { backend: 'native' }), true);
        },
      ),
      { numRuns: 300 },
    );
  });

  test("the default (auto) gives native's bytes for every algorithm, on both sides of each threshold", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...MAC_ALGORITHM_IDS),
        fc.uint8Array({ minLength: 1, maxLength: 200 }),
        fc.nat({ max: 3 }),
        fc.integer({ min: -2, max: 2 }),
        fc.integer({ min: 0, max: 255 }),
        (algorithm, key, scale, offset, fill) => {
          // Lengths around the algorithm's threshold (and around 0 where there is none).
          const length = Math.max(0, (NOBLE_HMAC_BELOW[MAC_ALGORITHMS[algorithm].hash] * scale) / 2 + offset);
          const data = new Uint8Array(length).fill(fill);
          const native = computeHmac(algorithm, key, data, { backend: 'native' });
          assert.equal(hex(computeHmac(algorithm, key, data)), hex(native));
          assert.equal(verifyHmac(algorithm, key, data, native), true);
        },
      ),
      { numRuns: 200 },
    );
  });

  test('computeHmac and verifyHmac call node:crypto exactly where auto says native, and not otherwise', (t) => {
    const createHmacCalls = countNodeCryptoCalls(t, 'createHmac');
    const key = counting(32);
    for (const algorithm of MAC_ALGORITHM_IDS) {
      const below = NOBLE_HMAC_BELOW[MAC_ALGORITHMS[algorithm].hash];
      for (const length of [0, Math.max(0, below - 1), below, below + 1000]) {
        const before = createHmacCalls();
        const mac = computeHmac(algorithm, key, new Uint8Array(length));
        verifyHmac(algorithm, key, new Uint8Array(length), mac);
        const calls = createHmacCalls() - before;
        assert.equal(calls, macBackendFor(algorithm, length) === 'native' ? 2 : 0, `${algorithm}, ${length} bytes`);
      }
    }
    assert.ok(createHmacCalls() > 0, "the spy sees the module's calls");
  });

  test("auto: @noble/hashes below each algorithm's threshold on Node 24, whose HMAC object is slow to set up; node:crypto at every size on Node 22", () => {
    const node24 = Number(process.versions.node.split('.')[0]) >= 24;
    const expected = node24
      ? { sha256: 8192, sha384: 2048, sha512: 2048, 'sha3-256': 512, 'sha3-384': 256, 'sha3-512': 256 }
      : { sha256: 0, sha384: 0, sha512: 0, 'sha3-256': 0, 'sha3-384': 0, 'sha3-512': 0 };
    assert.deepEqual({ ...NOBLE_HMAC_BELOW }, expected);
    for (const algorithm of MAC_ALGORITHM_IDS) {
      const below = expected[MAC_ALGORITHMS[algorithm].hash];
      assert.equal(macBackendFor(algorithm, 0), below > 0 ? 'noble' : 'native', algorithm);
      if (below > 0) assert.equal(macBackendFor(algorithm, below - 1), 'noble', algorithm);
      assert.equal(macBackendFor(algorithm, below), 'native', algorithm);
      assert.equal(macBackendFor(algorithm, 1 << 20), 'native', algorithm);
    }
  });
});
