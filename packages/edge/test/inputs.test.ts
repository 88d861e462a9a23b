/**
 * Input handling without the service: malformed fields are INVALID_INPUT naming the field (never
 * quoting the value), unknown algorithms UNSUPPORTED_ALGORITHM, and the wire codecs as strict as
 * the service's.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  base64ToBytes,
  bytesToBase64,
  decrypt,
  EdgeCryptoError,
  encrypt,
  hash,
  hmac,
  pqSealedBoxOpen,
  pqSealedBoxSeal,
  sealedBoxOpen,
  verify,
} from '../src/index.ts';

const KEY = 'a1'.repeat(32);

async function rejectsWith(promise: Promise<unknown>, code: string, field?: string): Promise<EdgeCryptoError> {
  let caught: unknown;
  await promise.catch((error: unknown) => (caught = error));
  assert.ok(caught instanceof EdgeCryptoError, `expected an EdgeCryptoError, got ${String(caught)}`);
  assert.equal(caught.code, code);
  if (field !== undefined) assert.equal(caught.field, field);
  return caught;
}

describe('input checks', () => {
  test('a key of the wrong length or not hex names its field and not its value', async () => {
    const short = await rejectsWith(encrypt({ key: KEY.slice(2), plaintext: 'p' }), 'INVALID_INPUT', '/key');
    assert.ok(!short.message.includes(KEY.slice(2)));
    await rejectsWith(encrypt({ key: `${KEY.slice(1)}z`, plaintext: 'p' }), 'INVALID_INPUT', '/key');
    await rejectsWith(sealedBoxOpen({ privateKey: '00', ciphertext: '' }), 'INVALID_INPUT', '/privateKey');
  });

  test('base64 must be standard, padded and canonical; the plaintext in its encoding', async () => {
    assert.deepEqual(base64ToBytes('YQ=='), Uint8Array.of(0x61));
    assert.equal(bytesToBase64(Uint8Array.of(0xfb, 0xff)), '+/8=');
    for (const text of ['YQ', 'YR==', '-_8=', 'Y Q=='])
      assert.throws(() => base64ToBytes(text), { code: 'INVALID_INPUT' });
    await rejectsWith(decrypt({ key: KEY, ciphertext: 'not base64!' }), 'INVALID_INPUT', '/ciphertext');
    await rejectsWith(encrypt({ key: KEY, plaintext: 'zz', encoding: 'hex' }), 'INVALID_INPUT', '/plaintext');
    await rejectsWith(encrypt({ key: KEY, plaintext: '\ud800' }), 'INVALID_INPUT', '/plaintext');
  });

  test('a plaintext that is not UTF-8 is refused under utf8 and returned under base64', async () => {
    const { ciphertext } = await encrypt({ key: KEY, plaintext: '/w==', encoding: 'base64' });
    await rejectsWith(decrypt({ key: KEY, ciphertext }), 'INVALID_INPUT', '/plaintext');
    assert.equal(await decrypt({ key: KEY, ciphertext, encoding: 'base64' }), '/w==');
  });

  test('too short a box is the one DECRYPTION_FAILED', async () => {
    await rejectsWith(decrypt({ key: KEY, ciphertext: 'AAAA' }), 'DECRYPTION_FAILED');
    await rejectsWith(sealedBoxOpen({ privateKey: KEY, ciphertext: 'AAAA' }), 'DECRYPTION_FAILED');
    await rejectsWith(pqSealedBoxOpen({ privateKey: KEY, ciphertext: 'AAAA' }), 'DECRYPTION_FAILED');
  });

  test('unknown algorithms are UNSUPPORTED_ALGORITHM', async () => {
    await rejectsWith(hash({ algorithm: 'md5' as 'sha256', data: 'x' }), 'UNSUPPORTED_ALGORITHM', '/algorithm');
    await rejectsWith(hmac({ algorithm: 'hmac-md5' as 'hmac-sha256', key: KEY, data: 'x' }), 'UNSUPPORTED_ALGORITHM');
    const slh = { algorithm: 'slh-dsa-sha2-128f' as 'ed25519', publicKey: KEY, message: 'm', signature: KEY };
    await rejectsWith(verify(slh), 'UNSUPPORTED_ALGORITHM');
    await rejectsWith(
      encrypt({ key: KEY, plaintext: 'p', algorithm: 'aes-gcm' as 'xchacha20-poly1305' }),
      'UNSUPPORTED_ALGORITHM',
    );
  });

  test('hash lengths: only for the XOFs, from 1 to 1024', async () => {
    await rejectsWith(hash({ algorithm: 'sha256', data: 'x', length: 16 }), 'INVALID_INPUT', '/length');
    await rejectsWith(hash({ algorithm: 'blake3', data: 'x', length: 1025 }), 'INVALID_INPUT', '/length');
    assert.equal((await hash({ algorithm: 'blake3', data: 'x', length: 1024 })).length, 2048);
  });

  test('the X-Wing key is given in exactly one form', async () => {
    await rejectsWith(pqSealedBoxSeal({ plaintext: 'p' }), 'INVALID_INPUT');
    await rejectsWith(pqSealedBoxSeal({ x25519PublicKey: KEY, plaintext: 'p' }), 'INVALID_INPUT');
    await rejectsWith(pqSealedBoxSeal({ publicKey: KEY, plaintext: 'p' }), 'INVALID_INPUT', '/publicKey');
  });

  test('a signature or key of the wrong length is an error, a context on Ed25519 too', async () => {
    const ed = { publicKey: KEY, message: 'm', signature: KEY };
    await rejectsWith(verify(ed), 'INVALID_INPUT', '/signature');
    await rejectsWith(verify({ ...ed, signature: KEY + KEY, context: 'c' }), 'INVALID_INPUT', '/context');
    const ecdsa = { algorithm: 'ecdsa-p256', publicKey: `04${KEY}${KEY}`, message: 'm', signature: KEY + KEY } as const;
    await rejectsWith(verify(ecdsa), 'INVALID_INPUT', '/publicKey');
  });
});
