/**
 * Tests of kdf.ts. Every expected value below is copied from the source named beside it; none was
 * produced by the code under test:
 * - RFC 7914 §11 (PBKDF2-HMAC-SHA256) and §12 (scrypt);
 * - RFC 5869 Appendix A.1–A.3 (HKDF-SHA256);
 * - the PBKDF2-HMAC-SHA256 results for RFC 6070's inputs (RFC 6070 gives them for SHA-1 only; the
 *   SHA-256 values are the ones published at stackoverflow.com/a/5136918 and used by many libraries).
 * The published vectors use costs far below this service's floors (N = 16, c = 1), so they run
 * through the `*Raw` functions, and the public entry point is shown to refuse them. Independent
 * implementations (@noble/hashes) check what no published vector covers.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { scrypt as nobleScrypt } from '@noble/hashes/scrypt.js';
import { hkdf as nobleHkdf } from '@noble/hashes/hkdf.js';
import { pbkdf2 as noblePbkdf2 } from '@noble/hashes/pbkdf2.js';
import { sha256, sha384, sha512 } from '@noble/hashes/sha2.js';
import {
  deriveKey,
  hkdfBackendFor,
  hkdfRaw,
  isExpensiveKdf,
  KDF_ALGORITHM_IDS,
  KDF_ALGORITHMS,
  pbkdf2Raw,
  planKdf,
  scryptMemoryBytes,
  scryptRaw,
  type KdfInput,
} from '../src/kdf.ts';
import { CryptoError } from '../src/errors.ts';
import { countNodeCryptoCalls } from './node-crypto-spy.ts';

const ascii = (text: string) => new TextEncoder().encode(text);
const hex = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
const unhex = (text: string) => new Uint8Array(Buffer.from(text.replace(/\s+/g, ''), 'hex'));

function assertRefused(input: KdfInput, field: string, code = 'INVALID_INPUT'): void {
  assert.throws(
    () => planKdf(input),
    (error: unknown) => {
      assert.ok(error instanceof CryptoError, String(error));
      assert.equal(error.code, code);
      assert.equal(error.field, field);
      return true;
    },
  );
}

describe('scrypt: RFC 7914 §12', () => {
  const vectors = [
    {
      password: '',
      salt: '',
      N: 16,
      r: 1,
      p: 1,
      dkLen: 64,
      dk: `77 d6 57 62 38 65 7b 20 3b 19 ca 42 c1 8a 04 97 f1 6b 48 44 e3 07 4a e8 df df fa 3f ed e2 14 42
           fc d0 06 9d ed 09 48 f8 32 6a 75 3a 0f c8 1f 17 e8 d3 e0 fb 2e 0d 36 28 cf 35 e2 0c 38 d1 89 06`,
    },
    {
      password: 'password',
      salt: 'NaCl',
      N: 1024,
      r: 8,
      p: 16,
      dkLen: 64,
      dk: `fd ba be 1c 9d 34 72 00 78 56 e7 19 0d 01 e9 fe 7c 6a d7 cb c8 23 78 30 e7 73 76 63 4b 37 31 62
           2e af 30 d9 2e 22 a3 88 6f f1 09 27 9d 98 30 da c7 27 af b9 4a 83 ee 6d 83 60 cb df a2 cc 06 40`,
    },
    {
      password: 'pleaseletmein',
      salt: 'SodiumChloride',
      N: 16384,
      r: 8,
      p: 1,
      dkLen: 64,
      dk: `70 23 bd cb 3a fd 73 48 46 1c 06 cd 81 fd 38 eb fd a8 fb ba 90 4f 8e 3e a9 b5 43 f6 54 5d a1 f2
           d5 43 29 55 61 3f 0f cf 62 d4 97 05 24 2a 9a f9 e6 1e 85 dc 0d 65 1e 40 df cf 01 7b 45 57 58 87`,
    },
  ];

  for (const v of vectors) {
    test(`scrypt(P="${v.password}", S="${v.salt}", N=${v.N}, r=${v.r}, p=${v.p}) through the raw function`, async () => {
      const out = await scryptRaw(ascii(v.password), ascii(v.salt), { N: v.N, r: v.r, p: v.p }, v.dkLen);
      assert.equal(hex(out), hex(unhex(v.dk)));
    });
  }

  test('the first two vectors are below the public floors and refused there', () => {
    // Vector 1 has an empty password (refused first); vector 2 has N = 1024 < 2^14.
    assertRefused(
      {
        algorithm: 'scrypt',
        password: ascii(''),
        salt: ascii('saltsalt'),
        keyLength: 64,
        params: { N: 16, r: 1, p: 1 },
      },
      '/password',
    );
    assertRefused(
      {
        algorithm: 'scrypt',
        password: ascii('password'),
        salt: ascii('NaClNaCl'),
        keyLength: 64,
        params: { N: 1024, r: 8, p: 16 },
      },
      '/params/N',
    );
  });

  test('the third vector (N = 2^14, r = 8, p = 1) is below the work floor, refused without running', () => {
    const v = vectors[2]!;
    assertRefused(
      {
        algorithm: 'scrypt',
        password: ascii(v.password),
        salt: ascii(v.salt),
        keyLength: 64,
        params: { N: v.N, r: v.r, p: v.p },
      },
      '/params',
    );
  });

  test('the fourth vector (N = 2^20, r = 8: 1 GiB) is over the memory cap, refused without running', () => {
    assertRefused(
      {
        algorithm: 'scrypt',
        password: ascii('pleaseletmein'),
        salt: ascii('SodiumChloride'),
        keyLength: 64,
        params: { N: 2 ** 20, r: 8, p: 1 },
      },
      '/params',
    );
  });
});

describe('PBKDF2-HMAC-SHA256', () => {
  const vectors = [
    // RFC 7914 §11.
    {
      password: 'passwd',
      salt: 'salt',
      c: 1,
      dkLen: 64,
      dk: `55 ac 04 6e 56 e3 08 9f ec 16 91 c2 25 44 b6 05 f9 41 85 21 6d de 04 65 e6 8b 9d 57 c2 0d ac bc
           49 ca 9c cc f1 79 b6 45 99 16 64 b3 9d 77 ef 31 7c 71 b8 45 b1 e3 0b d5 09 11 20 41 d3 a1 97 83`,
    },
    {
      password: 'Password',
      salt: 'NaCl',
      c: 80000,
      dkLen: 64,
      dk: `4d dc d8 f6 0b 98 be 21 83 0c ee 5e f2 27 01 f9 64 1a 44 18 d0 4c 04 14 ae ff 08 87 6b 34 ab 56
           a1 d4 25 a1 22 58 33 54 9a db 84 1b 51 c9 b3 17 6a 27 2b de bb a1 d0 78 47 8f 62 b3 97 f3 3c 8d`,
    },
    // RFC 6070's inputs with HMAC-SHA256.
    {
      password: 'password',
      salt: 'salt',
      c: 1,
      dkLen: 32,
      dk: '120fb6cffcf8b32c43e7225256c4f837a86548c92ccc35480805987cb70be17b',
    },
    {
      password: 'password',
      salt: 'salt',
      c: 2,
      dkLen: 32,
      dk: 'ae4d0c95af6b46d32d0adff928f06dd02a303f8ef3c251dfd6e2d85a95474c43',
    },
    {
      password: 'password',
      salt: 'salt',
      c: 4096,
      dkLen: 32,
      dk: 'c5e478d59288c841aa530db6845c4c8d962893a001ce4e11a4963873aa98134a',
    },
    {
      password: 'passwordPASSWORDpassword',
      salt: 'saltSALTsaltSALTsaltSALTsaltSALTsalt',
      c: 4096,
      dkLen: 40,
      dk: '348c89dbcbd32b2f32d814b8116e84cf2b17347ebc1800181c4e2a1fb8dd53e1c635518c7dac47e9',
    },
    { password: 'pass\0word', salt: 'sa\0lt', c: 4096, dkLen: 16, dk: '89b69d0516f829893c696226650a8687' },
  ];

  for (const v of vectors) {
    test(`PBKDF2-HMAC-SHA256(P=${JSON.stringify(v.password)}, S=${JSON.stringify(v.salt)}, c=${v.c}, dkLen=${v.dkLen})`, async () => {
      const out = await pbkdf2Raw('sha256', ascii(v.password), ascii(v.salt), v.c, v.dkLen);
      assert.equal(hex(out), hex(unhex(v.dk)));
    });
  }

  test('the published iteration counts are below the public floor and refused there', () => {
    for (const iterations of [1, 2, 4096, 80000, 99_999]) {
      assertRefused(
        { algorithm: 'pbkdf2-sha256', password: ascii('password'), salt: ascii('saltsalt'), params: { iterations } },
        '/params/iterations',
      );
    }
  });

  test('at the floor (600,000 iterations) the public path agrees with @noble/hashes', async () => {
    const password = ascii('correct horse battery staple');
    const salt = unhex('000102030405060708090a0b0c0d0e0f');
    const plan = planKdf({
      algorithm: 'pbkdf2-sha256',
      password,
      salt,
      keyLength: 64,
      params: { iterations: 600_000 },
    });
    assert.equal(hex(await deriveKey(plan)), hex(noblePbkdf2(sha256, password, salt, { c: 600_000, dkLen: 64 })));
  });
});

/** The bytes from..to inclusive, as hex (RFC 5869 A.2's inputs). */
const hexRange = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => (from + i).toString(16).padStart(2, '0')).join('');

describe('HKDF: RFC 5869 Appendix A (SHA-256)', () => {
  test('A.1: basic test case', async () => {
    const plan = planKdf({
      algorithm: 'hkdf-sha256',
      password: unhex('0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b'),
      salt: unhex('000102030405060708090a0b0c'),
      keyLength: 42,
      params: { info: unhex('f0f1f2f3f4f5f6f7f8f9') },
    });
    assert.equal(isExpensiveKdf(plan), false);
    assert.equal(
      hex(await deriveKey(plan)),
      '3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865',
    );
  });

  test('A.2: longer inputs and outputs', async () => {
    const plan = planKdf({
      algorithm: 'hkdf-sha256',
      password: unhex(`000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
                       202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f404142434445464748494a4b4c4d4e4f`),
      salt: unhex(`606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f
                   808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9fa0a1a2a3a4a5a6a7a8a9aaabacadaeaf`),
      keyLength: 82,
      params: {
        info: unhex(`b0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0c1c2c3c4c5c6c7c8c9cacbcccdcecf
                     d0d1d2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff`),
      },
    });
    assert.equal(
      hex(await deriveKey(plan)),
      hex(
        unhex(`b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c
      59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71cc30c58179ec3e87c14c01d5c1f3434f1d87`),
      ),
    );
  });

  test('A.3: zero-length salt and info, here simply omitted', async () => {
    const plan = planKdf({
      algorithm: 'hkdf-sha256',
      password: unhex('0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b'),
      keyLength: 42,
    });
    assert.equal(plan.salt.byteLength, 0, 'no salt is generated for HKDF');
    assert.equal(
      hex(await deriveKey(plan)),
      '8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8',
    );
  });

  test('keyLength reaches 255 · HashLen and no further, for each hash', async () => {
    for (const [algorithm, hashLength] of [
      ['hkdf-sha256', 32],
      ['hkdf-sha384', 48],
      ['hkdf-sha512', 64],
    ] as const) {
      const plan = planKdf({ algorithm, password: ascii('ikm'), keyLength: 255 * hashLength });
      assert.equal((await deriveKey(plan)).byteLength, 255 * hashLength);
      assertRefused({ algorithm, password: ascii('ikm'), keyLength: 255 * hashLength + 1 }, '/keyLength');
    }
  });

  test('the native backend (OpenSSL) agrees with @noble/hashes called directly on random inputs, and so does the default', async () => {
    const hashes = { 'hkdf-sha256': sha256, 'hkdf-sha384': sha384, 'hkdf-sha512': sha512 } as const;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('hkdf-sha256', 'hkdf-sha384', 'hkdf-sha512'),
        fc.uint8Array({ minLength: 1, maxLength: 100 }),
        fc.uint8Array({ maxLength: 100 }),
        fc.uint8Array({ maxLength: 100 }),
        fc.integer({ min: 16, max: 600 }),
        async (algorithm, ikm, salt, info, keyLength) => {
          const expected = hex(nobleHkdf(hashes[algorithm], ikm, salt, info, keyLength));
          assert.equal(
            hex(hkdfRaw(KDF_ALGORITHMS[algorithm].hash, ikm, salt, info, keyLength, { backend: 'native' })),
            expected,
          );
          const ours = await deriveKey(planKdf({ algorithm, password: ikm, salt, keyLength, params: { info } }));
          assert.equal(hex(ours), expected);
        },
      ),
      { numRuns: 100 },
    );
  });

  test('RFC 5869 A.1-A.3 on each backend, forced', () => {
    const cases = [
      {
        ikm: '0b'.repeat(22),
        salt: '000102030405060708090a0b0c',
        info: 'f0f1f2f3f4f5f6f7f8f9',
        length: 42,
        okm: '3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865',
      },
      {
        ikm: hexRange(0x00, 0x4f),
        salt: hexRange(0x60, 0xaf),
        info: hexRange(0xb0, 0xff),
        length: 82,
        okm: 'b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71cc30c58179ec3e87c14c01d5c1f3434f1d87',
      },
      {
        ikm: '0b'.repeat(22),
        salt: '',
        info: '',
        length: 42,
        okm: '8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8',
      },
    ];
    for (const backend of ['native', 'noble'] as const) {
      for (const c of cases) {
        assert.equal(
          hex(hkdfRaw('sha256', unhex(c.ikm), unhex(c.salt), unhex(c.info), c.length, { backend })),
          c.okm,
          backend,
        );
      }
      // RFC 5869 §2.3: at most 255 · HashLen bytes of output, on either backend.
      assert.throws(
        () => hkdfRaw('sha256', unhex('0b'), new Uint8Array(0), new Uint8Array(0), 255 * 32 + 1, { backend }),
        (error: unknown) => error instanceof Error && /length/i.test(error.message),
        backend,
      );
    }
  });

  test("hkdfRaw calls node:crypto's hkdfSync exactly where auto says native", (t) => {
    const hkdfSyncCalls = countNodeCryptoCalls(t, 'hkdfSync');
    const ikm = new Uint8Array(32).fill(1);
    for (const [hash, hashLength] of [
      ['sha256', 32],
      ['sha384', 48],
      ['sha512', 64],
    ] as const) {
      for (const [infoLength, keyLength] of [
        [0, 32],
        [16, 64],
        [0, 255 * hashLength],
        [1024, 32],
      ] as const) {
        const before = hkdfSyncCalls();
        hkdfRaw(hash, ikm, new Uint8Array(0), new Uint8Array(infoLength), keyLength);
        const expected = hkdfBackendFor(hash, ikm.byteLength, infoLength, keyLength) === 'native' ? 1 : 0;
        assert.equal(hkdfSyncCalls() - before, expected, `${hash}, info ${infoLength}, keyLength ${keyLength}`);
      }
    }
    assert.ok(hkdfSyncCalls() > 0, "the spy sees the module's calls");
  });

  test("auto: @noble/hashes when the HMAC work is below mac.ts's threshold for the hash (Node 24), node:crypto otherwise and on Node 22", () => {
    const node24 = Number(process.versions.node.split('.')[0]) >= 24;
    // A 32-byte key from a 32-byte IKM with a short info: a few hundred bytes of HMAC work.
    for (const hash of ['sha256', 'sha384', 'sha512'])
      assert.equal(hkdfBackendFor(hash, 32, 16, 32), node24 ? 'noble' : 'native', hash);
    // The longest output (255 blocks) is far more work than one HMAC's threshold, on any runtime.
    for (const [hash, hashLength] of [
      ['sha256', 32],
      ['sha384', 48],
      ['sha512', 64],
    ] as const) {
      assert.equal(hkdfBackendFor(hash, 32, 0, 255 * hashLength), 'native', hash);
    }
    // A large IKM alone crosses it too.
    assert.equal(hkdfBackendFor('sha256', 16384, 0, 32), 'native');
    // Info over node:crypto's 1024-byte limit goes native, which refuses it, as on Node 22.
    assert.equal(hkdfBackendFor('sha256', 32, 1025, 32), 'native');
    assert.throws(() => hkdfRaw('sha256', new Uint8Array(32), new Uint8Array(0), new Uint8Array(1025), 32));
  });

  test('no salt, an empty salt and HashLen zero bytes give the same key (RFC 5869 §2.2)', async () => {
    const password = ascii('input keying material');
    const omitted = await deriveKey(planKdf({ algorithm: 'hkdf-sha384', password }));
    const empty = await deriveKey(planKdf({ algorithm: 'hkdf-sha384', password, salt: new Uint8Array(0) }));
    const zeros = await deriveKey(planKdf({ algorithm: 'hkdf-sha384', password, salt: new Uint8Array(48) }));
    const other = await deriveKey(planKdf({ algorithm: 'hkdf-sha384', password, salt: new Uint8Array(48).fill(1) }));
    assert.equal(hex(omitted), hex(empty));
    assert.equal(hex(omitted), hex(zeros));
    assert.notEqual(hex(omitted), hex(other));
  });

  test('hkdfRaw has no floor on the output length (for the vector suite)', () => {
    assert.equal(hkdfRaw('sha256', ascii('ikm'), new Uint8Array(0), new Uint8Array(0), 4).byteLength, 4);
  });
});

describe('defaults, generated salts and memory accounting', () => {
  test("scrypt defaults are OWASP's N = 2^17, r = 8, p = 1, a 32-byte key and a fresh 16-byte salt", async () => {
    const password = ascii('hunter2');
    const first = planKdf({ algorithm: 'scrypt', password });
    const second = planKdf({ algorithm: 'scrypt', password });
    assert.deepEqual(first.params, { N: 131072, r: 8, p: 1 });
    assert.equal(first.keyLength, 32);
    assert.equal(first.salt.byteLength, 16);
    assert.notEqual(hex(first.salt), hex(second.salt), 'each plan draws its own salt');
    // The declared cost is 128 · N · r: 128 MiB at the defaults.
    assert.equal(first.memoryBytes, 128 * 1024 * 1024);
    assert.equal((await deriveKey(first)).byteLength, 32);
  });

  test('PBKDF2 defaults to 600,000 iterations (OWASP), a 32-byte key and a fresh 16-byte salt', () => {
    const plan = planKdf({ algorithm: 'pbkdf2-sha256', password: ascii('hunter2') });
    assert.deepEqual(plan.params, { iterations: 600_000 });
    assert.equal(plan.keyLength, 32);
    assert.equal(plan.salt.byteLength, 16);
    assert.equal(plan.memoryBytes, 0);
    assert.ok(isExpensiveKdf(plan));
  });

  test('scrypt through the public path agrees with @noble/hashes', async () => {
    for (const params of [
      { N: 2 ** 14, r: 8, p: 5 },
      { N: 2 ** 15, r: 4, p: 5 },
    ]) {
      const password = ascii('a password with ünïcödé');
      const salt = unhex('a0a1a2a3a4a5a6a7a8a9aaabacadaeaf');
      const ours = await deriveKey(planKdf({ algorithm: 'scrypt', password, salt, keyLength: 48, params }));
      assert.equal(hex(ours), hex(nobleScrypt(password, salt, { ...params, dkLen: 48 })), JSON.stringify(params));
    }
  });

  test("at the memory cap (128 · N · r = 256 MiB) the derivation runs: maxmem covers OpenSSL's exact need", async () => {
    const plan = planKdf({ algorithm: 'scrypt', password: ascii('p'), params: { N: 2 ** 20, r: 2, p: 1 } });
    assert.equal(plan.memoryBytes, 256 * 1024 * 1024, 'the declared cost is exactly the cap');
    // OpenSSL needs V (128 · r · (N + 2)) plus B (128 · r · p): a little more than the cap.
    assert.equal(scryptMemoryBytes({ N: 2 ** 20, r: 2, p: 1 }), 128 * 2 * (2 ** 20 + 2) + 128 * 2 * 1);
    assert.equal((await deriveKey(plan)).byteLength, 32);
  });
});

describe('the public entry point refuses what it should, naming the field', () => {
  const password = ascii('password');
  const cases: [string, KdfInput, string][] = [
    ['empty password', { algorithm: 'hkdf-sha256', password: new Uint8Array(0) }, '/password'],
    ['N not a power of two', { algorithm: 'scrypt', password, params: { N: 3 * 2 ** 14 } }, '/params/N'],
    ['N below 2^13', { algorithm: 'scrypt', password, params: { N: 2 ** 12, p: 16 } }, '/params/N'],
    ['N · r · p under the floor', { algorithm: 'scrypt', password, params: { N: 2 ** 14, r: 8, p: 4 } }, '/params'],
    [
      'iterations under the floor',
      { algorithm: 'pbkdf2-sha256', password, params: { iterations: 599_999 } },
      '/params/iterations',
    ],
    ['N above 2^20', { algorithm: 'scrypt', password, params: { N: 2 ** 21, r: 1 } }, '/params/N'],
    ['N not an integer', { algorithm: 'scrypt', password, params: { N: 16384.5 } }, '/params/N'],
    ['r = 0', { algorithm: 'scrypt', password, params: { r: 0 } }, '/params/r'],
    ['r = 33', { algorithm: 'scrypt', password, params: { N: 2 ** 14, r: 33 } }, '/params/r'],
    ['p = 0', { algorithm: 'scrypt', password, params: { p: 0 } }, '/params/p'],
    ['p = 17', { algorithm: 'scrypt', password, params: { N: 2 ** 14, r: 1, p: 17 } }, '/params/p'],
    ['128 · N · r over 256 MiB', { algorithm: 'scrypt', password, params: { N: 2 ** 18, r: 16 } }, '/params'],
    ['N · r · p over 2^22', { algorithm: 'scrypt', password, params: { N: 2 ** 17, r: 8, p: 5 } }, '/params'],
    ['iterations on scrypt', { algorithm: 'scrypt', password, params: { iterations: 600_000 } }, '/params/iterations'],
    ['info on scrypt', { algorithm: 'scrypt', password, params: { info: ascii('x') } }, '/params/info'],
    ['N on PBKDF2', { algorithm: 'pbkdf2-sha256', password, params: { N: 2 ** 14 } }, '/params/N'],
    ['r on HKDF', { algorithm: 'hkdf-sha256', password, params: { r: 8 } }, '/params/r'],
    [
      'iterations on HKDF',
      { algorithm: 'hkdf-sha512', password, params: { iterations: 600_000 } },
      '/params/iterations',
    ],
    [
      'iterations above the cap',
      { algorithm: 'pbkdf2-sha256', password, params: { iterations: 2_000_001 } },
      '/params/iterations',
    ],
    ['salt of 7 bytes (scrypt)', { algorithm: 'scrypt', password, salt: new Uint8Array(7) }, '/salt'],
    ['salt of 7 bytes (PBKDF2)', { algorithm: 'pbkdf2-sha256', password, salt: new Uint8Array(7) }, '/salt'],
    ['salt of 1025 bytes', { algorithm: 'pbkdf2-sha256', password, salt: new Uint8Array(1025) }, '/salt'],
    ['HKDF salt of 1025 bytes', { algorithm: 'hkdf-sha256', password, salt: new Uint8Array(1025) }, '/salt'],
    [
      'HKDF info of 1025 bytes',
      { algorithm: 'hkdf-sha256', password, params: { info: new Uint8Array(1025) } },
      '/params/info',
    ],
    ['keyLength 15', { algorithm: 'hkdf-sha256', password, keyLength: 15 }, '/keyLength'],
    ['keyLength 65 for PBKDF2', { algorithm: 'pbkdf2-sha256', password, keyLength: 65 }, '/keyLength'],
    ['keyLength 1025 for scrypt', { algorithm: 'scrypt', password, keyLength: 1025 }, '/keyLength'],
    ['keyLength not an integer', { algorithm: 'scrypt', password, keyLength: 32.5 }, '/keyLength'],
  ];
  for (const [name, input, field] of cases) {
    test(name, () => assertRefused(input, field));
  }

  test('an unknown or insecure algorithm is UNSUPPORTED_ALGORITHM', () => {
    for (const algorithm of ['bcrypt', 'pbkdf2-sha1', 'hkdf-md5', 'SCRYPT']) {
      assertRefused({ algorithm, password }, '/algorithm', 'UNSUPPORTED_ALGORITHM');
    }
  });

  test('the identifier list is the documented one', () => {
    assert.deepEqual([...KDF_ALGORITHM_IDS].sort(), [
      'hkdf-sha256',
      'hkdf-sha384',
      'hkdf-sha512',
      'pbkdf2-sha256',
      'scrypt',
    ]);
  });

  test('the largest parameters within every cap are accepted', () => {
    assert.doesNotThrow(() =>
      planKdf({ algorithm: 'scrypt', password, keyLength: 1024, params: { N: 2 ** 14, r: 16, p: 16 } }),
    );
    assert.doesNotThrow(() => planKdf({ algorithm: 'scrypt', password, params: { N: 2 ** 17, r: 8, p: 4 } }));
    assert.doesNotThrow(() =>
      planKdf({
        algorithm: 'pbkdf2-sha256',
        password,
        keyLength: 64,
        salt: new Uint8Array(1024),
        params: { iterations: 2_000_000 },
      }),
    );
  });
});
