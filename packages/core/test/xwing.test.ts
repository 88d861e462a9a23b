import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { x25519 } from '@noble/curves/ed25519.js';
import { CryptoError } from '../src/errors.ts';
import { mlKemKeyPairFromSeed } from '../src/ml-kem.ts';
import {
  XWING_ALGORITHM,
  xwingDecapsulate,
  xwingDecapsulateParts,
  xwingDeriveKeyPair,
  xwingEncapsulate,
  xwingEncapsulateParts,
  xwingKeygen,
  xwingKeyPairFromSeed,
} from '../src/xwing.ts';
import { x25519PublicKeyOf } from '../src/x25519.ts';

function invalid(field: string) {
  return (error: unknown) => {
    assert.ok(error instanceof CryptoError, String(error));
    assert.equal(error.code, 'INVALID_INPUT');
    assert.equal(error.field, field, error.message);
    return true;
  };
}

const seedOf = (byte: number) => new Uint8Array(32).fill(byte);

describe('X-Wing keys', () => {
  test('a key pair and its parts: lengths, and the parts are what the seed expands to', async () => {
    const keys = await xwingKeygen();
    assert.equal(keys.algorithm, XWING_ALGORITHM);
    assert.equal(keys.secretKey.byteLength, 32);
    assert.equal(keys.publicKey.byteLength, 1216);
    assert.equal(keys.mlKemSecretKey.byteLength, 64);
    assert.equal(keys.mlKemPublicKey.byteLength, 1184);
    assert.equal(keys.x25519PrivateKey.byteLength, 32);
    assert.equal(keys.x25519PublicKey.byteLength, 32);
    assert.deepEqual(keys.publicKey, new Uint8Array(Buffer.concat([keys.mlKemPublicKey, keys.x25519PublicKey])));
    // expandDecapsulationKey: SHAKE256(seed, 96) = ML-KEM seed (64) ‖ X25519 private key (32).
    const expanded = createHash('shake256', { outputLength: 96 }).update(keys.secretKey).digest();
    assert.deepEqual(keys.mlKemSecretKey, new Uint8Array(expanded.subarray(0, 64)));
    assert.deepEqual(keys.x25519PrivateKey, new Uint8Array(expanded.subarray(64)));
    assert.deepEqual(mlKemKeyPairFromSeed(keys.mlKemSecretKey, 'ml-kem-768').publicKey, keys.mlKemPublicKey);
    // The X25519 public key, by an independent implementation (@noble/curves).
    assert.deepEqual(keys.x25519PublicKey, x25519.getPublicKey(keys.x25519PrivateKey));
    assert.deepEqual(xwingKeyPairFromSeed(keys.secretKey), keys);
  });

  test('x25519PublicKeyOf agrees with @noble/curves', () => {
    for (const byte of [0, 1, 9, 0xff]) {
      const privateKey = new Uint8Array(32).fill(byte);
      assert.deepEqual(x25519PublicKeyOf(privateKey), x25519.getPublicKey(privateKey));
    }
  });

  test("keygen with a seed is that seed's key pair; a seed must be 32 bytes", async () => {
    assert.deepEqual(await xwingKeygen({ seed: seedOf(1) }), xwingKeyPairFromSeed(seedOf(1)));
    await assert.rejects(xwingKeygen({ seed: new Uint8Array(31) }), invalid('/seed'));
    assert.throws(() => xwingKeyPairFromSeed(new Uint8Array(33)), invalid('/privateKey'));
  });

  test('DeriveKeyPair (HPKE) is deterministic in the input keying material', () => {
    const a = xwingDeriveKeyPair(new Uint8Array(32).fill(5));
    const b = xwingDeriveKeyPair(new Uint8Array(32).fill(5));
    const c = xwingDeriveKeyPair(new Uint8Array(32).fill(6));
    assert.deepEqual(a, b);
    assert.notDeepEqual(a.publicKey, c.publicKey);
    // SHAKE256(ikm, 32) is the seed.
    assert.deepEqual(
      a.secretKey,
      new Uint8Array(createHash('shake256', { outputLength: 32 }).update(new Uint8Array(32).fill(5)).digest()),
    );
  });
});

describe('X-Wing encapsulation and decapsulation', () => {
  test('every combination of the combined and the parts forms agrees', async () => {
    const keys = xwingKeyPairFromSeed(seedOf(2));
    const combined = await xwingEncapsulate(keys.publicKey);
    const parts = await xwingEncapsulateParts(keys.x25519PublicKey, keys.mlKemPublicKey);
    for (const sent of [combined, parts]) {
      assert.equal(sent.algorithm, XWING_ALGORITHM);
      assert.equal(sent.ciphertext.byteLength, 1120);
      assert.deepEqual(
        sent.ciphertext,
        new Uint8Array(Buffer.concat([sent.mlKemCiphertext, sent.x25519EphemeralPublic])),
      );
      const fromSeed = await xwingDecapsulate(keys.secretKey, sent.ciphertext);
      const fromParts = await xwingDecapsulateParts(
        { x25519PrivateKey: keys.x25519PrivateKey, mlKemPrivateKey: keys.mlKemSecretKey },
        sent.ciphertext,
      );
      assert.deepEqual(fromSeed, { algorithm: XWING_ALGORITHM, sharedSecret: sent.sharedSecret });
      assert.deepEqual(fromParts, fromSeed);
    }
    assert.notDeepEqual(combined.sharedSecret, parts.sharedSecret);
  });

  test('a tampered ciphertext of the right length gives another secret, not an error (both halves)', async () => {
    const keys = xwingKeyPairFromSeed(seedOf(3));
    const sent = await xwingEncapsulate(keys.publicKey);
    for (const offset of [0, 1087, 1088, 1119]) {
      const tampered = sent.ciphertext.slice();
      tampered[offset] = (tampered[offset] ?? 0) ^ 0x02;
      const received = await xwingDecapsulate(keys.secretKey, tampered);
      assert.notDeepEqual(received.sharedSecret, sent.sharedSecret, `offset ${offset}`);
    }
  });

  test('the ML-KEM expanded key (2400 bytes) is accepted in the parts form', async () => {
    const keys = xwingKeyPairFromSeed(seedOf(4));
    const sent = await xwingEncapsulate(keys.publicKey);
    const { ml_kem768 } = await import('@noble/post-quantum/ml-kem.js');
    const expanded = ml_kem768.keygen(keys.mlKemSecretKey).secretKey;
    const received = await xwingDecapsulateParts(
      { x25519PrivateKey: keys.x25519PrivateKey, mlKemPrivateKey: expanded },
      sent.ciphertext,
    );
    assert.deepEqual(received.sharedSecret, sent.sharedSecret);
  });

  test('a low-order X25519 point is refused, naming the field (no all-zero X25519 secret)', async () => {
    const keys = xwingKeyPairFromSeed(seedOf(5));
    const zero = new Uint8Array(32);
    const one = new Uint8Array(32);
    one[0] = 1;
    for (const point of [zero, one]) {
      const publicKey = keys.publicKey.slice();
      publicKey.set(point, 1184);
      await assert.rejects(xwingEncapsulate(publicKey), invalid('/publicKey'));
      await assert.rejects(xwingEncapsulateParts(point, keys.mlKemPublicKey), invalid('/x25519PublicKey'));
      const sent = await xwingEncapsulate(keys.publicKey);
      const ciphertext = sent.ciphertext.slice();
      ciphertext.set(point, 1088);
      await assert.rejects(xwingDecapsulate(keys.secretKey, ciphertext), invalid('/ciphertext'));
      await assert.rejects(
        xwingDecapsulateParts(
          { x25519PrivateKey: keys.x25519PrivateKey, mlKemPrivateKey: keys.mlKemSecretKey },
          ciphertext,
        ),
        (error: unknown) => {
          assert.ok(invalid('/ciphertext')(error));
          assert.match((error as Error).message, /the X25519 part of ciphertext/);
          return true;
        },
      );
    }
  });

  test('an ML-KEM key that fails the modulus check is refused, naming the field', async () => {
    const keys = xwingKeyPairFromSeed(seedOf(6));
    const mlKemPublicKey = keys.mlKemPublicKey.slice();
    mlKemPublicKey[0] = 0xff;
    mlKemPublicKey[1] = (mlKemPublicKey[1] ?? 0) | 0x0f;
    await assert.rejects(xwingEncapsulateParts(keys.x25519PublicKey, mlKemPublicKey), invalid('/mlKemPublicKey'));
    const publicKey = keys.publicKey.slice();
    publicKey.set(mlKemPublicKey, 0);
    await assert.rejects(xwingEncapsulate(publicKey), (error: unknown) => {
      assert.ok(invalid('/publicKey')(error));
      assert.match((error as Error).message, /ML-KEM-768 part of publicKey/);
      return true;
    });
  });

  test('every field of the wrong length is refused, naming it', async () => {
    const keys = xwingKeyPairFromSeed(seedOf(7));
    const sent = await xwingEncapsulate(keys.publicKey);
    await assert.rejects(xwingEncapsulate(new Uint8Array(1215)), invalid('/publicKey'));
    await assert.rejects(xwingEncapsulateParts(new Uint8Array(31), keys.mlKemPublicKey), invalid('/x25519PublicKey'));
    await assert.rejects(xwingEncapsulateParts(keys.x25519PublicKey, new Uint8Array(1568)), invalid('/mlKemPublicKey'));
    await assert.rejects(xwingDecapsulate(new Uint8Array(64), sent.ciphertext), invalid('/privateKey'));
    await assert.rejects(xwingDecapsulate(keys.secretKey, new Uint8Array(1121)), invalid('/ciphertext'));
    const parts = { x25519PrivateKey: keys.x25519PrivateKey, mlKemPrivateKey: keys.mlKemSecretKey };
    await assert.rejects(
      xwingDecapsulateParts({ ...parts, x25519PrivateKey: new Uint8Array(33) }, sent.ciphertext),
      invalid('/x25519PrivateKey'),
    );
    await assert.rejects(
      xwingDecapsulateParts({ ...parts, mlKemPrivateKey: new Uint8Array(32) }, sent.ciphertext),
      invalid('/mlKemPrivateKey'),
    );
    // Another parameter set's expanded key is not an ML-KEM-768 key.
    await assert.rejects(
      xwingDecapsulateParts({ ...parts, mlKemPrivateKey: new Uint8Array(1632) }, sent.ciphertext),
      invalid('/mlKemPrivateKey'),
    );
    // The parts form takes the whole ciphertext: its halves alone are refused.
    for (const half of [sent.ciphertext.subarray(1088), sent.ciphertext.subarray(0, 1088), new Uint8Array(0)]) {
      await assert.rejects(xwingDecapsulateParts(parts, half), invalid('/ciphertext'), `${half.byteLength} bytes`);
    }
    await assert.rejects(
      xwingEncapsulate(keys.publicKey, { encapsulationSeed: new Uint8Array(63) }),
      invalid('/encapsulationSeed'),
    );
  });

  test('errors can name the fields of another request', async () => {
    const keys = xwingKeyPairFromSeed(seedOf(8));
    const sent = await xwingEncapsulate(keys.publicKey);
    const parts = { x25519PrivateKey: new Uint8Array(31), mlKemPrivateKey: keys.mlKemSecretKey };
    await assert.rejects(
      xwingDecapsulateParts(parts, sent.ciphertext, { fields: { x25519PrivateKey: 'recipientX25519Key' } }),
      invalid('/recipientX25519Key'),
    );
    const lowOrder = keys.publicKey.slice();
    lowOrder.fill(0, 1184);
    await assert.rejects(
      xwingEncapsulate(lowOrder, { fields: { publicKey: 'recipientPublicKey' } }),
      (error: unknown) => {
        assert.ok(invalid('/recipientPublicKey')(error));
        assert.match((error as Error).message, /the X25519 part of recipientPublicKey/);
        return true;
      },
    );
    await assert.rejects(
      xwingDecapsulate(keys.secretKey, new Uint8Array(3), { fields: { ciphertext: 'sealed' } }),
      invalid('/sealed'),
    );
  });
});
