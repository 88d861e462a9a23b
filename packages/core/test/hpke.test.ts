/**
 * HPKE (RFC 9180) known answers. Every expected value below was copied from RFC 9180 Appendix A.2.1
 * ("DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20Poly1305", Base Setup Information, and its
 * Encryptions), as printed in the CFRG's final draft text (cfrg/draft-irtf-cfrg-hpke,
 * auth48/draft-irtf-cfrg-hpke.txt, where the same section is numbered B.2.1); none was produced by
 * the code under test. The small-order X25519 points are the seven of libsodium's blocklist
 * (RFC 7748 §5's points of order 1, 2, 4 and 8 and their non-canonical spellings).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { hkdfSync, randomBytes } from 'node:crypto';
import {
  chacha20Poly1305Open,
  chacha20Poly1305Seal,
  DHKEM_X25519_HKDF_SHA256 as kem,
  HPKE_KEM_DHKEM_X25519_HKDF_SHA256,
  hpkeKdfExpand,
  hpkeKdfExtract,
  hpkeKeySchedule,
  hpkeOpen,
  hpkeSeal,
  hpkeSuiteId,
} from '../src/hpke.ts';
import { CryptoError, DECRYPTION_FAILED_MESSAGE } from '../src/errors.ts';

function bytes(hex: string): Uint8Array {
  return new Uint8Array(Buffer.from(hex, 'hex'));
}

function hex(value: Uint8Array): string {
  return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex');
}

/** RFC 9180 A.2.1: mode 0, kem_id 32, kdf_id 1, aead_id 3. */
const A21 = {
  info: '4f6465206f6e2061204772656369616e2055726e',
  ikmE: '909a9b35d3dc4713a5e72a4da274b55d3d3821a37e5d099e74a647db583a904b',
  pkEm: '1afa08d3dec047a643885163f1180476fa7ddb54c6a8029ea33f95796bf2ac4a',
  skEm: 'f4ec9b33b792c372c1d2c2063507b684ef925b8c75a42dbcbf57d63ccd381600',
  ikmR: '1ac01f181fdf9f352797655161c58b75c656a6cc2716dcb66372da835542e1df',
  pkRm: '4310ee97d88cc1f088a5576c77ab0cf5c3ac797f3d95139c6c84b5429c59662a',
  skRm: '8057991eef8f1f1af18f4a9491d16a1ce333f695d4db8e38da75975c4478e0fb',
  enc: '1afa08d3dec047a643885163f1180476fa7ddb54c6a8029ea33f95796bf2ac4a',
  sharedSecret: '0bbe78490412b4bbea4812666f7916932b828bba79942424abb65244930d69a7',
  keyScheduleContext:
    '00431df6cd95e11ff49d7013563baf7f11588c75a6611ee2a4404a49306ae4cfc5b69c5718a60cc5876c358d3f7fc31ddb598503f67be58ea1e798c0bb19eb9796',
  secret: '5b9cd775e64b437a2335cf499361b2e0d5e444d5cb41a8a53336d8fe402282c6',
  key: 'ad2744de8e17f4ebba575b3f5f5a8fa1f69c2a07f6e7500bc60ca6e3e3ec1c91',
  baseNonce: '5c4d98150661b848853b547f',
  pt: '4265617574792069732074727574682c20747275746820626561757479',
} as const;

/** RFC 9180 A.2.1.1: the encryptions of pt under the context above, by sequence number. */
const A21_ENCRYPTIONS = [
  {
    sequence: 0,
    aad: '436f756e742d30',
    nonce: '5c4d98150661b848853b547f',
    ct: '1c5250d8034ec2b784ba2cfd69dbdb8af406cfe3ff938e131f0def8c8b60b4db21993c62ce81883d2dd1b51a28',
  },
  {
    sequence: 1,
    aad: '436f756e742d31',
    nonce: '5c4d98150661b848853b547e',
    ct: '6b53c051e4199c518de79594e1c4ab18b96f081549d45ce015be002090bb119e85285337cc95ba5f59992dc98c',
  },
  {
    sequence: 2,
    aad: '436f756e742d32',
    nonce: '5c4d98150661b848853b547d',
    ct: '71146bd6795ccc9c49ce25dda112a48f202ad220559502cef1f34271e0cb4b02b4f10ecac6f48c32f878fae86b',
  },
  {
    sequence: 4,
    aad: '436f756e742d34',
    nonce: '5c4d98150661b848853b547b',
    ct: '63357a2aa291f5a4e5f27db6baa2af8cf77427c7c1a909e0b37214dd47db122bb153495ff0b02e9e54a50dbe16',
  },
  {
    sequence: 255,
    aad: '436f756e742d323535',
    nonce: '5c4d98150661b848853b5480',
    ct: '18ab939d63ddec9f6ac2b60d61d36a7375d2070c9b683861110757062c52b8880a5f6b3936da9cd6c23ef2a95c',
  },
  {
    sequence: 256,
    aad: '436f756e742d323536',
    nonce: '5c4d98150661b848853b557f',
    ct: '7a4a13e9ef23978e2c520fd4d2e757514ae160cd0cd05e556ef692370ca53076214c0c40d4c728d6ed9e727a5b',
  },
] as const;

const SEQUENCE_0 = A21_ENCRYPTIONS[0];

/** The X25519 public keys of small order (libsodium's blocklist): DH with any gives all zeros. */
const SMALL_ORDER_POINTS = [
  '0000000000000000000000000000000000000000000000000000000000000000',
  '0100000000000000000000000000000000000000000000000000000000000000',
  'e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800',
  '5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157',
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
] as const;

const BACKENDS = ['noble', 'native'] as const;

function isDecryptionFailure(error: unknown): boolean {
  return (
    error instanceof CryptoError && error.code === 'DECRYPTION_FAILED' && error.message === DECRYPTION_FAILED_MESSAGE
  );
}

describe('DHKEM(X25519, HKDF-SHA256): RFC 9180 A.2.1', () => {
  test('the KEM declares the sizes and identifier of RFC 9180 §7.1', async () => {
    assert.equal(kem.id, 0x0020);
    assert.equal(HPKE_KEM_DHKEM_X25519_HKDF_SHA256, 0x0020);
    assert.deepEqual([kem.Nsecret, kem.Nenc, kem.Npk, kem.Nsk, kem.Nseed], [32, 32, 32, 32, 32]);
  });

  test('DeriveKeyPair(ikmE) and DeriveKeyPair(ikmR) give the vector key pairs', async () => {
    const ephemeral = kem.deriveKeyPair(bytes(A21.ikmE));
    assert.equal(hex(ephemeral.secretKey), A21.skEm);
    assert.equal(hex(ephemeral.publicKey), A21.pkEm);
    const recipient = kem.deriveKeyPair(bytes(A21.ikmR));
    assert.equal(hex(recipient.secretKey), A21.skRm);
    assert.equal(hex(recipient.publicKey), A21.pkRm);
  });

  test('Encap(pkRm) with the fixed ephemeral (ikmE) gives enc and shared_secret', async () => {
    const { enc, sharedSecret } = await kem.encap(bytes(A21.pkRm), { seed: bytes(A21.ikmE) });
    assert.equal(hex(enc), A21.enc);
    assert.equal(hex(sharedSecret), A21.sharedSecret);
  });

  test('Decap(enc, skRm) gives the same shared_secret, from raw bytes or from an imported key', async () => {
    assert.equal(hex(await kem.decap(bytes(A21.enc), bytes(A21.skRm))), A21.sharedSecret);
    const imported = await kem.importPrivateKey(bytes(A21.skRm));
    assert.equal(hex(imported.publicKey), A21.pkRm);
    assert.equal(hex(await imported.decap(bytes(A21.enc))), A21.sharedSecret);
    assert.equal(hex(await kem.decap(bytes(A21.enc), imported)), A21.sharedSecret);
  });

  test('without a seed, each encapsulation draws a fresh ephemeral key and still decapsulates', async () => {
    const recipient = await kem.generateKeyPair();
    const first = await kem.encap(recipient.publicKey);
    const second = await kem.encap(recipient.publicKey);
    assert.notEqual(hex(first.enc), hex(second.enc));
    assert.notEqual(hex(first.sharedSecret), hex(second.sharedSecret));
    assert.equal(hex(await kem.decap(first.enc, recipient.secretKey)), hex(first.sharedSecret));
    assert.equal(hex(await kem.decap(second.enc, recipient.secretKey)), hex(second.sharedSecret));
  });
});

describe('HPKE key schedule and single-shot seal/open: RFC 9180 A.2.1', () => {
  test('KeySchedule(mode_base, shared_secret, info) gives key_schedule_context, secret, key and base_nonce', async () => {
    const schedule = hpkeKeySchedule(kem, bytes(A21.sharedSecret), bytes(A21.info));
    assert.equal(hex(schedule.keyScheduleContext), A21.keyScheduleContext);
    assert.equal(hex(schedule.secret), A21.secret);
    assert.equal(hex(schedule.key), A21.key);
    assert.equal(hex(schedule.baseNonce), A21.baseNonce);
  });

  test('suite_id is "HPKE" ‖ kem_id ‖ kdf_id ‖ aead_id', async () => {
    assert.equal(hex(hpkeSuiteId(kem)), `${Buffer.from('HPKE').toString('hex')}002000010003`);
  });

  for (const backend of BACKENDS) {
    test(`SealBase with the fixed ephemeral gives enc and the sequence-0 ct (${backend} AEAD)`, async () => {
      const { enc, ciphertext } = await hpkeSeal(
        kem,
        bytes(A21.pkRm),
        bytes(A21.info),
        bytes(SEQUENCE_0.aad),
        bytes(A21.pt),
        {
          seed: bytes(A21.ikmE),
          backend,
        },
      );
      assert.equal(hex(enc), A21.enc);
      assert.equal(hex(ciphertext), SEQUENCE_0.ct);
    });

    test(`OpenBase(enc, skRm) recovers pt from the sequence-0 ct (${backend} AEAD)`, async () => {
      const plaintext = await hpkeOpen(
        kem,
        bytes(A21.skRm),
        bytes(A21.enc),
        bytes(A21.info),
        bytes(SEQUENCE_0.aad),
        bytes(SEQUENCE_0.ct),
        { backend },
      );
      assert.equal(hex(plaintext), A21.pt);
    });

    test(`the AEAD reproduces every listed encryption under the vector's key and nonces (${backend})`, async () => {
      for (const { sequence, aad, nonce, ct } of A21_ENCRYPTIONS) {
        assert.equal(
          hex(chacha20Poly1305Seal(bytes(A21.key), bytes(nonce), bytes(aad), bytes(A21.pt), backend)),
          ct,
          `sequence ${sequence}`,
        );
        assert.equal(
          hex(chacha20Poly1305Open(bytes(A21.key), bytes(nonce), bytes(aad), bytes(ct), backend)),
          A21.pt,
          `sequence ${sequence}`,
        );
      }
    });
  }

  test('the two AEAD backends agree on every length around the switch-over, both ways', async () => {
    const key = bytes(A21.key);
    const nonce = bytes(A21.baseNonce);
    const aad = bytes(SEQUENCE_0.aad);
    for (const length of [0, 1, 15, 16, 17, 63, 64, 65, 2047, 2048, 2049, 4096]) {
      const plaintext = new Uint8Array(length).map((_, i) => (i * 7 + length) & 0xff);
      const noble = chacha20Poly1305Seal(key, nonce, aad, plaintext, 'noble');
      const native = chacha20Poly1305Seal(key, nonce, aad, plaintext, 'native');
      assert.equal(hex(native), hex(noble), `length ${length}`);
      assert.equal(hex(chacha20Poly1305Open(key, nonce, aad, noble, 'native')), hex(plaintext));
      assert.equal(hex(chacha20Poly1305Open(key, nonce, aad, native, 'noble')), hex(plaintext));
    }
  });
});

describe('HKDF-SHA256 split into Extract and Expand', () => {
  test("Extract then Expand equals node:crypto's one-call HKDF for every output length from 1 to 255 blocks", async () => {
    for (const length of [1, 31, 32, 33, 64, 65, 100, 1000, 255 * 32]) {
      const ikm = new Uint8Array(randomBytes((length % 50) + 1));
      const salt = new Uint8Array(randomBytes(length % 3 === 0 ? 0 : 16));
      const info = new Uint8Array(randomBytes(length % 40));
      const expected = Buffer.from(hkdfSync('sha256', ikm, salt, info, length)).toString('hex');
      assert.equal(hex(hpkeKdfExpand(hpkeKdfExtract(salt, ikm), info, length)), expected, `length ${length}`);
    }
  });

  test('Expand refuses more than 255 blocks, as RFC 5869 requires', async () => {
    assert.throws(() => hpkeKdfExpand(new Uint8Array(32), new Uint8Array(0), 255 * 32 + 1), RangeError);
  });
});

describe('HPKE failures', () => {
  const pkR = bytes(A21.pkRm);
  const skR = bytes(A21.skRm);
  const info = bytes(A21.info);
  const aad = bytes(SEQUENCE_0.aad);
  const ct = bytes(SEQUENCE_0.ct);
  const enc = bytes(A21.enc);

  test('Encap to a small-order public key is refused: the DH output would be all zeros (RFC 9180 §7.1.4)', async () => {
    for (const point of SMALL_ORDER_POINTS) {
      await assert.rejects(
        kem.encap(bytes(point), { label: 'recipients/0/publicKey' }),
        (error: unknown) =>
          error instanceof CryptoError &&
          error.code === 'INVALID_INPUT' &&
          error.field === '/recipients/0/publicKey' &&
          /low-order/.test(error.message),
        point,
      );
      await assert.rejects(
        hpkeSeal(kem, bytes(point), info, aad, bytes(A21.pt)),
        (error: unknown) => error instanceof CryptoError && error.code === 'INVALID_INPUT',
        point,
      );
    }
  });

  test('a small-order enc is refused on Decap with the one decryption failure', async () => {
    for (const point of SMALL_ORDER_POINTS) {
      await assert.rejects(kem.decap(bytes(point), skR), isDecryptionFailure, point);
      await assert.rejects(hpkeOpen(kem, skR, bytes(point), info, aad, ct), isDecryptionFailure, point);
    }
  });

  test('any single-bit change of enc, ct, info or aad makes OpenBase fail with the one decryption failure', async () => {
    const flips = (value: Uint8Array) =>
      Array.from({ length: value.byteLength * 8 }, (_, bit) => {
        const copy = value.slice();
        copy[bit >> 3]! ^= 1 << (bit & 7);
        return copy;
      });
    for (const changed of flips(enc))
      await assert.rejects(hpkeOpen(kem, skR, changed, info, aad, ct), isDecryptionFailure);
    for (const changed of flips(ct))
      await assert.rejects(hpkeOpen(kem, skR, enc, info, aad, changed), isDecryptionFailure);
    for (const changed of flips(info))
      await assert.rejects(hpkeOpen(kem, skR, enc, changed, aad, ct), isDecryptionFailure);
    for (const changed of flips(aad))
      await assert.rejects(hpkeOpen(kem, skR, enc, info, changed, ct), isDecryptionFailure);
  });

  test('another recipient key, a truncated ct or an enc of the wrong length fail the same way', async () => {
    const other = await kem.generateKeyPair();
    await assert.rejects(hpkeOpen(kem, other.secretKey, enc, info, aad, ct), isDecryptionFailure);
    for (const length of [0, 1, 15, 16, ct.byteLength - 1]) {
      await assert.rejects(
        hpkeOpen(kem, skR, enc, info, aad, ct.subarray(0, length)),
        isDecryptionFailure,
        `ct length ${length}`,
      );
    }
    for (const length of [0, 31, 33, 64]) {
      const wrong = new Uint8Array(length).fill(9);
      await assert.rejects(hpkeOpen(kem, skR, wrong, info, aad, ct), isDecryptionFailure, `enc length ${length}`);
    }
  });

  test('keys of the wrong length are input errors that name their field, not decryption failures', async () => {
    for (const length of [0, 31, 33, 64]) {
      await assert.rejects(
        kem.encap(new Uint8Array(length), { label: 'recipientPublicKey' }),
        (error: unknown) =>
          error instanceof CryptoError && error.code === 'INVALID_INPUT' && error.field === '/recipientPublicKey',
      );
      await assert.rejects(
        kem.importPrivateKey(new Uint8Array(length), 'recipientSecretKey'),
        (error: unknown) =>
          error instanceof CryptoError && error.code === 'INVALID_INPUT' && error.field === '/recipientSecretKey',
      );
      await assert.rejects(
        hpkeOpen(kem, new Uint8Array(length), enc, info, aad, ct),
        (error: unknown) => error instanceof CryptoError && error.code === 'INVALID_INPUT',
      );
    }
    await assert.rejects(
      kem.encap(pkR, { seed: new Uint8Array(31) }),
      (error: unknown) => error instanceof CryptoError && error.code === 'INVALID_INPUT',
    );
  });

  test('round trips with random keys, empty and long messages, and a different info per message', async () => {
    const recipient = await kem.generateKeyPair();
    const imported = await kem.importPrivateKey(recipient.secretKey);
    for (const length of [0, 1, 100, 5000]) {
      const plaintext = new Uint8Array(length).map((_, i) => i & 0xff);
      const label = new TextEncoder().encode(`message ${length}`);
      const sealed = await hpkeSeal(kem, recipient.publicKey, label, new Uint8Array(0), plaintext);
      assert.equal(sealed.ciphertext.byteLength, length + 16);
      assert.equal(
        hex(await hpkeOpen(kem, imported, sealed.enc, label, new Uint8Array(0), sealed.ciphertext)),
        hex(plaintext),
      );
      await assert.rejects(
        hpkeOpen(kem, imported, sealed.enc, info, new Uint8Array(0), sealed.ciphertext),
        isDecryptionFailure,
      );
    }
  });
});
