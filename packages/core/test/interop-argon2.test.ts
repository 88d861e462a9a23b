/**
 * Argon2 interoperability (`password/hash` must interoperate with libsodium's
 * crypto_pwhash_str_verify and the reference implementation). Two independent implementations, in
 * both directions:
 * - libsodium (libsodium-wrappers-sumo): its crypto_pwhash_str_verify accepts our PHC strings, and
 *   the strings its crypto_pwhash_str makes verify here;
 * - hash-wasm: its argon2Verify accepts our strings, and its encoded argon2id/argon2i output
 *   verifies here.
 * Parameters stay at OWASP's floor (m = 19456 KiB, t = 2, p = 1) except where a test is about
 * several lanes or the defaults. Each direction runs on every Argon2 backend of the runtime.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import sodium from 'libsodium-wrappers-sumo';
import { argon2Verify, argon2i as hashWasmArgon2i, argon2id as hashWasmArgon2id } from 'hash-wasm';
import { availableArgon2Backends, hashPassword, parsePhc, verifyPassword, type Argon2Params } from '../src/password.ts';

const utf8 = (text: string) => new TextEncoder().encode(text);
const FLOOR: Argon2Params = { t: 2, m: 19456, p: 1 };
const BACKENDS = availableArgon2Backends();
const PASSWORDS = ['correct horse battery staple', 'pässwörd ✓ 🔑', 'x', ' leading and trailing spaces '];

await sodium.ready;

for (const backend of BACKENDS) {
  describe(`our PHC strings are accepted elsewhere (${backend} backend)`, () => {
    test('libsodium crypto_pwhash_str_verify accepts them, and rejects another password', async () => {
      for (const password of PASSWORDS) {
        const { hash } = await hashPassword(utf8(password), FLOOR, { backend });
        assert.equal(sodium.crypto_pwhash_str_verify(hash, password), true, password);
        assert.equal(sodium.crypto_pwhash_str_verify(hash, `${password}.`), false, password);
      }
    });

    test('libsodium accepts several lanes and our default parameters', async () => {
      for (const params of [
        { t: 2, m: 19456, p: 4 },
        { t: 3, m: 65536, p: 4 },
      ]) {
        const { hash } = await hashPassword(utf8('lanes'), params, { backend });
        assert.equal(sodium.crypto_pwhash_str_verify(hash, 'lanes'), true, hash.slice(0, 32));
      }
    });

    test('hash-wasm argon2Verify accepts them, and rejects another password', async () => {
      for (const password of PASSWORDS) {
        const { hash } = await hashPassword(utf8(password), FLOOR, { backend });
        assert.equal(await argon2Verify({ password, hash }), true, password);
        assert.equal(await argon2Verify({ password: `${password}.`, hash }), false, password);
      }
    });
  });

  describe(`strings made elsewhere verify here (${backend} backend)`, () => {
    test('libsodium crypto_pwhash_str (argon2id, its own random salt)', async () => {
      for (const password of PASSWORDS) {
        const hash = sodium.crypto_pwhash_str(password, FLOOR.t, FLOOR.m * 1024);
        assert.match(hash, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
        assert.deepEqual(
          await verifyPassword(utf8(password), hash, { backend }),
          { valid: true, needsRehash: true },
          password,
        );
        assert.equal((await verifyPassword(utf8(`${password}.`), hash, { backend })).valid, false, password);
      }
    });

    test('hash-wasm argon2id, with salt and tag lengths other than ours', async () => {
      for (const [saltLength, hashLength] of [
        [16, 32],
        [8, 16],
        [32, 64],
      ] as const) {
        const hash = await hashWasmArgon2id({
          password: 'hash-wasm',
          salt: randomBytes(saltLength),
          iterations: 2,
          parallelism: 2,
          memorySize: 19456,
          hashLength,
          outputType: 'encoded',
        });
        const parsed = parsePhc(hash);
        assert.equal(parsed.salt.byteLength, saltLength);
        assert.equal(parsed.tag.byteLength, hashLength);
        assert.equal((await verifyPassword(utf8('hash-wasm'), hash, { backend })).valid, true, hash);
        assert.equal((await verifyPassword(utf8('hash-wasn'), hash, { backend })).valid, false, hash);
      }
    });

    test('hash-wasm argon2i verifies, with needsRehash', async () => {
      const hash = await hashWasmArgon2i({
        password: 'legacy',
        salt: randomBytes(16),
        iterations: 3,
        parallelism: 1,
        memorySize: 19456,
        hashLength: 32,
        outputType: 'encoded',
      });
      assert.match(hash, /^\$argon2i\$v=19\$/);
      assert.deepEqual(await verifyPassword(utf8('legacy'), hash, { backend }), { valid: true, needsRehash: true });
    });
  });
}
