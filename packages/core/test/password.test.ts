/**
 * Tests of password.ts. Expected values are copied from published sources, never computed by the
 * code under test:
 * - RFC 9106 §5.3: the Argon2id test vector (with a secret and associated data);
 * - the Argon2 reference implementation's tests (P-H-C/phc-winner-argon2, src/test.c, the
 *   version 0x13 Argon2id and Argon2i cases, password "password", salt "somesalt"), whose PHC
 *   strings are also reproduced by other implementations' test suites (e.g. libar2), and the
 *   argon2i example of that repository's README.
 *
 * This file runs under Node 24 (native node:crypto Argon2 and @node-rs/argon2 both available: each
 * test runs on both) and under Node 22 (@node-rs/argon2 only). The same expected strings on both
 * runtimes are what show that the two backends give identical PHC strings for the same salt.
 *
 * @node-rs/argon2 has no associated-data input, so RFC 9106's vector can only be checked on the
 * native backend; on @node-rs the reference implementation's vectors (no secret, no associated
 * data) anchor it, and a request for associated data is refused rather than silently ignored.
 *
 * Costs are kept at OWASP's floor (m = 19456 KiB, t = 2, p = 1) wherever a test is not about the
 * defaults or a published vector.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { argon2id as hashWasmArgon2id } from 'hash-wasm';
import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import {
  ARGON2_BACKEND,
  ARGON2_DEFAULTS,
  ARGON2_MAX,
  ARGON2_MIN,
  argon2MemoryBytes,
  argon2Raw,
  availableArgon2Backends,
  decryptWithPassword,
  encodePhc,
  encryptWithPassword,
  hashPassword,
  needsRehash,
  parsePasswordEnvelope,
  parsePhc,
  PASSWORD_ALGORITHM_IDS,
  PASSWORD_ENCRYPTION_ALGORITHM,
  PASSWORD_HEADER_LENGTH,
  resolveArgon2Params,
  verifyPassword,
  type Argon2Params,
  type Argon2Variant,
} from '../src/password.ts';
import { CryptoError, DECRYPTION_FAILED_MESSAGE } from '../src/errors.ts';

const utf8 = (text: string) => new TextEncoder().encode(text);
const hex = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
const unhex = (text: string) => new Uint8Array(Buffer.from(text.replace(/\s+/g, ''), 'hex'));
const FLOOR: Argon2Params = { t: 2, m: 19456, p: 1 };
const BACKENDS = availableArgon2Backends();

function isCode(code: string, field?: string) {
  return (error: unknown) => {
    assert.ok(error instanceof CryptoError, String(error));
    assert.equal(error.code, code);
    if (field !== undefined) assert.equal(error.field, field);
    return true;
  };
}

describe('backends', () => {
  test('the backend is chosen by feature test: native exactly where node:crypto has argon2', async () => {
    const { default: nodeCrypto } = await import('node:crypto');
    const hasNative = typeof (nodeCrypto as unknown as Record<string, unknown>).argon2 === 'function';
    assert.equal(ARGON2_BACKEND, hasNative ? 'native' : 'node-rs');
    assert.deepEqual(BACKENDS, hasNative ? ['native', 'node-rs'] : ['node-rs']);
  });

  const rfc = {
    variant: 'argon2id' as const,
    password: new Uint8Array(32).fill(0x01),
    salt: new Uint8Array(16).fill(0x02),
    secret: new Uint8Array(8).fill(0x03),
    associatedData: new Uint8Array(12).fill(0x04),
    params: { t: 3, m: 32, p: 4 },
    tagLength: 32,
  };

  test('RFC 9106 §5.3 (Argon2id, secret and associated data): the native backend gives the published tag; without one, asking for it is refused', async () => {
    if (BACKENDS.includes('native')) {
      const tag = await argon2Raw(rfc, 'native');
      assert.equal(
        hex(tag),
        hex(unhex('0d 64 0d f5 8d 78 76 6c 08 c0 37 a3 4a 8b 53 c9 d0 1e f0 45 2d 75 b6 5e b5 25 20 e9 6b 01 e6 59')),
      );
    } else {
      await assert.rejects(argon2Raw(rfc, 'native'), isCode('UNSUPPORTED_ALGORITHM'));
    }
  });

  test('@node-rs/argon2 has no associated-data input: a request for one is refused, never ignored', async () => {
    await assert.rejects(argon2Raw(rfc, 'node-rs'), isCode('UNSUPPORTED_ALGORITHM'));
  });

  test('the secret K is honoured by every backend, identically', async () => {
    const input = { ...rfc, associatedData: undefined };
    const tags = await Promise.all(BACKENDS.map((backend) => argon2Raw(input, backend)));
    const withoutSecret = await argon2Raw({ ...input, secret: undefined }, BACKENDS[0]);
    for (const tag of tags) assert.equal(hex(tag), hex(tags[0]!));
    assert.notEqual(hex(tags[0]!), hex(withoutSecret));
  });
});

/** phc-winner-argon2 src/test.c, version 0x13: salt "somesalt" unless noted, 32-byte tags. */
const REFERENCE_ARGON2ID: { password: string; salt: string; params: Argon2Params; tag?: string; phc: string }[] = [
  {
    password: 'password',
    salt: 'somesalt',
    params: { m: 65536, t: 2, p: 1 },
    tag: '09316115d5cf24ed5a15a31a3ba326e5cf32edc24702987c02b6566f61913cf7',
    phc: '$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc',
  },
  {
    password: 'password',
    salt: 'somesalt',
    params: { m: 262144, t: 2, p: 1 },
    phc: '$argon2id$v=19$m=262144,t=2,p=1$c29tZXNhbHQ$eP4eyR+zqlZX1y5xCFTkw9m5GYx0L5YWwvCFvtlbLow',
  },
  {
    password: 'password',
    salt: 'somesalt',
    params: { m: 256, t: 2, p: 1 },
    phc: '$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4',
  },
  {
    password: 'password',
    salt: 'somesalt',
    params: { m: 256, t: 2, p: 2 },
    phc: '$argon2id$v=19$m=256,t=2,p=2$c29tZXNhbHQ$bQk8UB/VmZZF4Oo79iDXuL5/0ttZwg2f/5U52iv1cDc',
  },
  {
    password: 'password',
    salt: 'somesalt',
    params: { m: 65536, t: 1, p: 1 },
    phc: '$argon2id$v=19$m=65536,t=1,p=1$c29tZXNhbHQ$9qWtwbpyPd3vm1rB1GThgPzZ3/ydHL92zKL+15XZypg',
  },
  {
    password: 'password',
    salt: 'somesalt',
    params: { m: 65536, t: 4, p: 1 },
    phc: '$argon2id$v=19$m=65536,t=4,p=1$c29tZXNhbHQ$kCXUjmjvc5XMqQedpMTsOv+zyJEf5PhtGiUghW9jFyw',
  },
  {
    password: 'differentpassword',
    salt: 'somesalt',
    params: { m: 65536, t: 2, p: 1 },
    phc: '$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$C4TWUs9rDEvq7w3+J4umqA32aWKB1+DSiRuBfYxFj94',
  },
  {
    password: 'password',
    salt: 'diffsalt',
    params: { m: 65536, t: 2, p: 1 },
    phc: '$argon2id$v=19$m=65536,t=2,p=1$ZGlmZnNhbHQ$vfMrBczELrFdWP0ZsfhWsRPaHppYdP3MVEMIVlqoFBw',
  },
];

/** The same file's Argon2i version 0x13 cases, and the README's argon2i example (a 24-byte tag). */
const REFERENCE_ARGON2I = [
  {
    password: 'password',
    phc: '$argon2i$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$wWKIMhR9lyDFvRz9YTZweHKfbftvj+qf+YFY4NeBbtA',
  },
  { password: 'password', phc: '$argon2i$v=19$m=256,t=2,p=2$c29tZXNhbHQ$T/XOJ2mh1/TIpJHfCdQan76Q5esCFVoT5MAeIM1Oq2E' },
  { password: 'password', phc: '$argon2i$v=19$m=65536,t=2,p=4$c29tZXNhbHQ$RdescudvJCsgt3ub+b+dWRWJTmaaJObG' },
];

for (const backend of BACKENDS) {
  describe(`reference implementation vectors, ${backend} backend`, () => {
    for (const v of REFERENCE_ARGON2ID) {
      test(`${v.phc.slice(0, 40)}…: our encoder gives the published PHC string`, async () => {
        const tag = await argon2Raw(
          { variant: 'argon2id', password: utf8(v.password), salt: utf8(v.salt), params: v.params, tagLength: 32 },
          backend,
        );
        if (v.tag !== undefined) assert.equal(hex(tag), v.tag);
        assert.equal(encodePhc('argon2id', v.params, utf8(v.salt), tag), v.phc);
      });
    }

    test('hashPassword with the fixed salt gives the published string (parameters within the policy)', async () => {
      const v = REFERENCE_ARGON2ID[0]!;
      assert.ok(v.params.t >= ARGON2_MIN.t && v.params.m >= ARGON2_MIN.m);
      const { hash, params } = await hashPassword(utf8(v.password), v.params, { salt: utf8(v.salt), backend });
      assert.equal(hash, v.phc);
      assert.deepEqual(params, v.params);
    });

    // Concurrent, as the server runs them: each verification is its own job on libuv's pool. The
    // string at the cap (256 MiB) is left to the encoder test above, to keep the suite quick.
    test('every published Argon2id string verifies with its password, and not with another', async () => {
      const vectors = REFERENCE_ARGON2ID.filter((vector) => vector.params.m < ARGON2_MAX.m);
      const right = await Promise.all(vectors.map((v) => verifyPassword(utf8(v.password), v.phc, { backend })));
      const wrong = await Promise.all(vectors.map((v) => verifyPassword(utf8(`${v.password}!`), v.phc, { backend })));
      vectors.forEach((v, i) => {
        assert.deepEqual(right[i], { valid: true, needsRehash: true }, v.phc);
        assert.deepEqual(wrong[i], { valid: false, needsRehash: true }, v.phc);
      });
    });

    test('published Argon2i strings verify too, always with needsRehash', async () => {
      const right = await Promise.all(
        REFERENCE_ARGON2I.map((v) => verifyPassword(utf8(v.password), v.phc, { backend })),
      );
      const wrong = await Promise.all(
        REFERENCE_ARGON2I.map((v) => verifyPassword(utf8('passwore'), v.phc, { backend })),
      );
      REFERENCE_ARGON2I.forEach((v, i) => {
        assert.deepEqual(right[i], { valid: true, needsRehash: true }, v.phc);
        assert.deepEqual(wrong[i], { valid: false, needsRehash: true }, v.phc);
      });
    });
  });
}

describe('hashing', () => {
  test('a new hash: PHC form, 16-byte random salt, 32-byte tag, the parameters asked for; it round-trips through parsePhc', async () => {
    const first = await hashPassword(utf8('correct horse'), FLOOR);
    const second = await hashPassword(utf8('correct horse'), FLOOR);
    assert.match(first.hash, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    assert.notEqual(first.hash, second.hash, 'a fresh salt every time');
    const parsed = parsePhc(first.hash);
    assert.equal(parsed.variant, 'argon2id');
    assert.deepEqual(parsed.params, FLOOR);
    assert.equal(parsed.salt.byteLength, 16);
    assert.equal(parsed.tag.byteLength, 32);
    assert.equal(encodePhc(parsed.variant, parsed.params, parsed.salt, parsed.tag), first.hash);
    assert.deepEqual(await verifyPassword(utf8('correct horse'), first.hash), { valid: true, needsRehash: true });
    assert.deepEqual(await verifyPassword(utf8('correct horsf'), parsed), { valid: false, needsRehash: true });
  });

  test('with the defaults (RFC 9106: m = 65536, t = 3, p = 4) the hash needs no rehash', async () => {
    const { hash, params } = await hashPassword(utf8('pässwörd'));
    assert.deepEqual(params, { t: 3, m: 65536, p: 4 });
    assert.match(hash, /^\$argon2id\$v=19\$m=65536,t=3,p=4\$/);
    assert.deepEqual(await verifyPassword(utf8('pässwörd'), hash), { valid: true, needsRehash: false });
  });

  test('passwords are bytes: composed and decomposed "é" are different passwords (no normalisation)', async () => {
    const { hash } = await hashPassword(utf8('caf\u00e9'), FLOOR);
    assert.equal((await verifyPassword(utf8('cafe\u0301'), hash)).valid, false);
    assert.equal((await verifyPassword(utf8('caf\u00e9'), hash)).valid, true);
  });

  test('an empty password is refused for hashing, but simply does not match on verification', async () => {
    await assert.rejects(hashPassword(new Uint8Array(0), FLOOR), isCode('INVALID_INPUT', '/password'));
    const { hash } = await hashPassword(utf8('x'), FLOOR);
    assert.equal((await verifyPassword(new Uint8Array(0), hash)).valid, false);
  });

  test('the memory cost to budget is m KiB', () => {
    assert.equal(argon2MemoryBytes(ARGON2_DEFAULTS), 64 * 1024 * 1024);
    assert.equal(argon2MemoryBytes(ARGON2_MAX), 256 * 1024 * 1024);
  });
});

describe('parameters: defaults, floor and caps', () => {
  test('defaults fill in what is not given', () => {
    assert.deepEqual(resolveArgon2Params(), { t: 3, m: 65536, p: 4 });
    assert.deepEqual(resolveArgon2Params({ memoryCost: 19456 }), { t: 3, m: 19456, p: 4 });
  });

  test('the floor and the caps themselves are accepted', () => {
    assert.deepEqual(resolveArgon2Params({ timeCost: 2, memoryCost: 19456, parallelism: 1 }), FLOOR);
    assert.deepEqual(resolveArgon2Params({ timeCost: 10, memoryCost: 262144, parallelism: 16 }), {
      t: 10,
      m: 262144,
      p: 16,
    });
  });

  const refused: [string, Parameters<typeof resolveArgon2Params>[0], string][] = [
    ["t below OWASP's floor", { timeCost: 1 }, '/timeCost'],
    ['t above the cap', { timeCost: 11 }, '/timeCost'],
    ["m below OWASP's floor", { memoryCost: 19455 }, '/memoryCost'],
    ['m above the cap', { memoryCost: 262145 }, '/memoryCost'],
    ['p of 0', { parallelism: 0 }, '/parallelism'],
    ['p above the cap', { parallelism: 17 }, '/parallelism'],
    ['t not an integer', { timeCost: 2.5 }, '/timeCost'],
    ['m not a number', { memoryCost: Number.NaN }, '/memoryCost'],
  ];
  for (const [name, input, field] of refused) {
    test(`refused: ${name}`, () => assert.throws(() => resolveArgon2Params(input), isCode('INVALID_INPUT', field)));
  }

  test('hashPassword applies the same checks to parameters given directly', async () => {
    await assert.rejects(hashPassword(utf8('x'), { t: 1, m: 19456, p: 1 }), isCode('INVALID_INPUT', '/timeCost'));
    await assert.rejects(hashPassword(utf8('x'), { t: 2, m: 262145, p: 1 }), isCode('INVALID_INPUT', '/memoryCost'));
  });
});

describe('needsRehash', () => {
  const salt16 = new Uint8Array(16).fill(7);
  const tag32 = new Uint8Array(32).fill(9);
  const phc = (variant: Argon2Variant, params: Argon2Params, salt = salt16, tag = tag32) =>
    parsePhc(encodePhc(variant, params, salt, tag));

  test('false exactly for what hashPassword makes today', () => {
    assert.equal(needsRehash(phc('argon2id', { t: 3, m: 65536, p: 4 })), false);
  });

  const cases: [string, ReturnType<typeof phc>][] = [
    ['fewer passes', phc('argon2id', { t: 2, m: 65536, p: 4 })],
    ['more passes', phc('argon2id', { t: 4, m: 65536, p: 4 })],
    ['less memory', phc('argon2id', { t: 3, m: 19456, p: 4 })],
    ['more memory', phc('argon2id', { t: 3, m: 131072, p: 4 })],
    ['other lanes', phc('argon2id', { t: 3, m: 65536, p: 1 })],
    ['argon2i', phc('argon2i', { t: 3, m: 65536, p: 4 })],
    ['argon2d', phc('argon2d', { t: 3, m: 65536, p: 4 })],
    ['an 8-byte salt', phc('argon2id', { t: 3, m: 65536, p: 4 }, new Uint8Array(8))],
    ['a 64-byte tag', phc('argon2id', { t: 3, m: 65536, p: 4 }, salt16, new Uint8Array(64))],
  ];
  for (const [name, parsed] of cases) {
    test(`true for ${name}`, () => assert.equal(needsRehash(parsed), true));
  }
});

describe('PHC parsing: malformed strings and the caps', () => {
  const salt = 'c29tZXNhbHRzb21lc2FsdA'; // 16 bytes
  const tag = 'CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc'; // 32 bytes
  const good = `$argon2id$v=19$m=65536,t=3,p=4$${salt}$${tag}`;

  test('the well-formed string parses (the baseline the cases below change)', () => {
    assert.deepEqual(parsePhc(good).params, { t: 3, m: 65536, p: 4 });
  });

  const malformed: [string, string][] = [
    ['empty', ''],
    ['no leading $', good.slice(1)],
    ['missing version (the pre-1.3 form)', `$argon2id$m=65536,t=3,p=4$${salt}$${tag}`],
    ['version 16', `$argon2id$v=16$m=65536,t=3,p=4$${salt}$${tag}`],
    ['an unknown variant', `$argon2x$v=19$m=65536,t=3,p=4$${salt}$${tag}`],
    ['an upper-case variant', `$ARGON2ID$v=19$m=65536,t=3,p=4$${salt}$${tag}`],
    ['scrypt', `$scrypt$ln=17,r=8,p=1$${salt}$${tag}`],
    ['bcrypt', '$2b$12$R9h/cIPz0gi.URNNX3kh2OPST9/PgBkqquzi.Ss7KIUgO2t0jWMUW'],
    ['parameters out of order', `$argon2id$v=19$t=3,m=65536,p=4$${salt}$${tag}`],
    ['a parameter missing', `$argon2id$v=19$m=65536,t=3$${salt}$${tag}`],
    ['an extra parameter (keyid)', `$argon2id$v=19$m=65536,t=3,p=4,keyid=AAAA$${salt}$${tag}`],
    ['a leading zero', `$argon2id$v=19$m=065536,t=3,p=4$${salt}$${tag}`],
    ['a sign', `$argon2id$v=19$m=+65536,t=3,p=4$${salt}$${tag}`],
    ['a number beyond any integer type', `$argon2id$v=19$m=999999999999999999999,t=3,p=4$${salt}$${tag}`],
    ['m over the cap (4 GiB)', `$argon2id$v=19$m=4194304,t=3,p=4$${salt}$${tag}`],
    ['m one over the cap', `$argon2id$v=19$m=262145,t=3,p=4$${salt}$${tag}`],
    ['t over the cap', `$argon2id$v=19$m=65536,t=11,p=4$${salt}$${tag}`],
    ['t of 0', `$argon2id$v=19$m=65536,t=0,p=4$${salt}$${tag}`],
    ['p over the cap', `$argon2id$v=19$m=65536,t=3,p=17$${salt}$${tag}`],
    ['p of 0', `$argon2id$v=19$m=65536,t=3,p=0$${salt}$${tag}`],
    ['m under 8 · p', `$argon2id$v=19$m=31,t=3,p=4$${salt}$${tag}`],
    ['an empty salt', `$argon2id$v=19$m=65536,t=3,p=4$$${tag}`],
    ['a 4-byte salt', `$argon2id$v=19$m=65536,t=3,p=4$c29tZQ$${tag}`],
    ['a padded salt', `$argon2id$v=19$m=65536,t=3,p=4$${salt}==$${tag}`],
    ['a URL-safe character', `$argon2id$v=19$m=65536,t=3,p=4$${salt.slice(0, -1)}-$${tag}`],
    ['non-canonical base64 (unused bits set)', `$argon2id$v=19$m=65536,t=3,p=4$${salt.slice(0, -1)}B$${tag}`],
    ['an impossible base64 length', `$argon2id$v=19$m=65536,t=3,p=4$${salt}AAA$${tag}`],
    ['an 8-byte hash', `$argon2id$v=19$m=65536,t=3,p=4$${salt}$CTFhFdXPJO0`],
    ['a 65-byte hash', `$argon2id$v=19$m=65536,t=3,p=4$${salt}$${'A'.repeat(86)}Q`],
    ['a trailing $', `${good}$`],
    ['whitespace', ` ${good}`],
    ['a trailing newline', `${good}\n`],
    ['far too long', `${good}${'A'.repeat(300)}`],
  ];
  for (const [name, text] of malformed) {
    test(`INVALID_INPUT on /hash: ${name}`, () =>
      assert.throws(() => parsePhc(text), isCode('INVALID_INPUT', '/hash')));
  }

  test('verifyPassword parses first: a string over the cap is refused before any work', async () => {
    await assert.rejects(
      verifyPassword(utf8('password'), `$argon2id$v=19$m=4194304,t=2,p=1$${salt}$${tag}`),
      isCode('INVALID_INPUT', '/hash'),
    );
  });

  test('the error message names the rule, never echoes the string', () => {
    const secretish = `$argon2id$v=19$m=65536,t=3,p=4$${salt}$SECRETSECRETSECRET`;
    assert.throws(
      () => parsePhc(secretish),
      (error: unknown) => error instanceof CryptoError && !error.message.includes('SECRET'),
    );
  });

  test('verification accepts hashes below the floor (legacy users can still sign in) but not above the caps', () => {
    assert.deepEqual(parsePhc(`$argon2id$v=19$m=8,t=1,p=1$${salt}$${tag}`).params, { t: 1, m: 8, p: 1 });
    assert.deepEqual(parsePhc(`$argon2id$v=19$m=262144,t=10,p=16$${salt}$${tag}`).params, { t: 10, m: 262144, p: 16 });
  });
});

describe('password-based encryption', () => {
  const password = utf8('correct horse battery staple');

  test('round trip at several lengths (both AEAD backends), blob = 53-byte header ‖ ciphertext ‖ 16-byte tag', async () => {
    for (const length of [0, 1, 100, 5000]) {
      const plaintext = Uint8Array.from({ length }, (_, i) => (i * 7) & 0xff);
      const blob = await encryptWithPassword(password, plaintext, { params: FLOOR });
      assert.equal(blob.byteLength, PASSWORD_HEADER_LENGTH + length + 16);
      assert.equal(hex(await decryptWithPassword(password, blob)), hex(plaintext));
    }
  });

  test('the header layout: version 1, t, m, p as big-endian 32-bit, salt, nonce', async () => {
    const salt = Uint8Array.from({ length: 16 }, (_, i) => 0xa0 + i);
    const nonce = Uint8Array.from({ length: 24 }, (_, i) => 0xb0 + i);
    const blob = await encryptWithPassword(password, utf8('x'), { params: FLOOR, salt, nonce });
    assert.equal(hex(blob.subarray(0, 13)), '01' + '00000002' + '00004c00' + '00000001');
    assert.equal(hex(blob.subarray(13, 29)), hex(salt));
    assert.equal(hex(blob.subarray(29, 53)), hex(nonce));
    const header = parsePasswordEnvelope(blob);
    assert.deepEqual({ version: header.version, params: header.params }, { version: 1, params: FLOOR });
  });

  test('the header alone says how to decrypt: an independent Argon2id (hash-wasm) and XChaCha20-Poly1305 (@noble/ciphers) open it', async () => {
    const plaintext = utf8('interoperable');
    const blob = await encryptWithPassword(password, plaintext, { params: FLOOR });
    const view = new DataView(blob.buffer, blob.byteOffset);
    const key = await hashWasmArgon2id({
      password,
      salt: blob.slice(13, 29),
      iterations: view.getUint32(1),
      memorySize: view.getUint32(5),
      parallelism: view.getUint32(9),
      hashLength: 32,
      outputType: 'binary',
    });
    const opened = xchacha20poly1305(key, blob.slice(29, 53), blob.slice(0, 53)).decrypt(blob.slice(53));
    assert.equal(hex(opened), hex(plaintext));
  });

  test('by default the header carries the default parameters (m = 65536, t = 3, p = 4)', async () => {
    const blob = await encryptWithPassword(password, utf8('x'));
    assert.deepEqual(parsePasswordEnvelope(blob).params, ARGON2_DEFAULTS);
    assert.equal(new TextDecoder().decode(await decryptWithPassword(password, blob)), 'x');
  });

  test('every backend opens what every other backend sealed', async () => {
    for (const sealer of BACKENDS) {
      const blob = await encryptWithPassword(password, utf8('across backends'), { params: FLOOR, backend: sealer });
      for (const opener of BACKENDS) {
        assert.equal(
          new TextDecoder().decode(await decryptWithPassword(password, blob, { backend: opener })),
          'across backends',
          `${sealer} → ${opener}`,
        );
      }
    }
  });

  test('a change to any header field, the ciphertext or the tag is the one DECRYPTION_FAILED', async () => {
    const blob = await encryptWithPassword(password, utf8('tamper with me'), { params: FLOOR });
    const edits: [string, (copy: Uint8Array, view: DataView) => void][] = [
      ['version 1 → 2', (_, view) => view.setUint8(0, 2)],
      ['version 1 → 0', (_, view) => view.setUint8(0, 0)],
      ['t 2 → 3', (_, view) => view.setUint32(1, 3)],
      ['m 19456 → 19457', (_, view) => view.setUint32(5, 19457)],
      ['p 1 → 2', (_, view) => view.setUint32(9, 2)],
      [
        'first salt byte',
        (copy) => {
          copy[13]! ^= 1;
        },
      ],
      [
        'last salt byte',
        (copy) => {
          copy[28]! ^= 0x80;
        },
      ],
      [
        'first nonce byte',
        (copy) => {
          copy[29]! ^= 1;
        },
      ],
      [
        'last nonce byte',
        (copy) => {
          copy[52]! ^= 0x80;
        },
      ],
      [
        'ciphertext',
        (copy) => {
          copy[53]! ^= 1;
        },
      ],
      [
        'tag',
        (copy) => {
          copy[copy.byteLength - 1]! ^= 1;
        },
      ],
    ];
    for (const [name, edit] of edits) {
      const copy = blob.slice();
      edit(copy, new DataView(copy.buffer));
      await assert.rejects(decryptWithPassword(password, copy), (error: unknown) => {
        assert.ok(error instanceof CryptoError, name);
        assert.equal(error.code, 'DECRYPTION_FAILED', name);
        assert.equal(error.message, DECRYPTION_FAILED_MESSAGE, name);
        return true;
      });
    }
    // The untouched blob still opens: the failures above are the edits'.
    assert.equal(new TextDecoder().decode(await decryptWithPassword(password, blob)), 'tamper with me');
  });

  test('a wrong, empty or differently-normalised password, or a truncated blob, is DECRYPTION_FAILED', async () => {
    const blob = await encryptWithPassword(utf8('caf\u00e9'), utf8('data'), { params: FLOOR });
    for (const wrong of [utf8('cafe\u0301'), utf8('cafe'), new Uint8Array(0)]) {
      await assert.rejects(decryptWithPassword(wrong, blob), isCode('DECRYPTION_FAILED'));
    }
    for (const length of [0, 1, 52, 53, 68]) {
      await assert.rejects(decryptWithPassword(utf8('caf\u00e9'), blob.slice(0, length)), isCode('DECRYPTION_FAILED'));
    }
  });

  test('out-of-range header parameters are refused while parsing, before any Argon2 work', () => {
    const base = new Uint8Array(PASSWORD_HEADER_LENGTH + 16);
    const view = new DataView(base.buffer);
    view.setUint8(0, 1);
    const headers: [string, number, number, number][] = [
      ['t = 1 (below the floor)', 1, 19456, 1],
      ['t = 11 (above the cap)', 11, 19456, 1],
      ['m = 19455 (below the floor)', 2, 19455, 1],
      ['m = 262145 (above the cap)', 2, 262145, 1],
      ['m = 2^32 - 1 (4 TiB)', 2, 0xffffffff, 1],
      ['p = 0', 2, 19456, 0],
      ['p = 17', 2, 19456, 17],
    ];
    for (const [name, t, m, p] of headers) {
      view.setUint32(1, t);
      view.setUint32(5, m);
      view.setUint32(9, p);
      // Synchronous: the refusal cannot have waited for an Argon2 computation.
      assert.throws(() => parsePasswordEnvelope(base), isCode('DECRYPTION_FAILED'), name);
    }
    view.setUint32(1, 2);
    view.setUint32(5, 19456);
    view.setUint32(9, 1);
    assert.deepEqual(parsePasswordEnvelope(base).params, FLOOR, 'the same header with in-range values parses');
  });

  test('encryption refuses an empty password and parameters outside the policy', async () => {
    await assert.rejects(
      encryptWithPassword(new Uint8Array(0), utf8('x'), { params: FLOOR }),
      isCode('INVALID_INPUT', '/password'),
    );
    await assert.rejects(
      encryptWithPassword(password, utf8('x'), { params: { t: 1, m: 19456, p: 1 } }),
      isCode('INVALID_INPUT', '/timeCost'),
    );
  });

  test('identifiers', () => {
    assert.deepEqual([...PASSWORD_ALGORITHM_IDS], ['argon2id']);
    assert.equal(PASSWORD_ENCRYPTION_ALGORITHM, 'argon2id-xchacha20-poly1305');
  });
});
