/**
 * The post-quantum sealed box (sealedbox-pq.ts) and X-Wing as an HPKE KEM (XWING_HPKE_KEM):
 * the format, round trips with every key form, the one DECRYPTION_FAILED for every way a box can
 * fail to open, key errors that name their field (and come before any look at the box), and
 * fast-check properties. Interoperability with an independent HPKE implementation is in
 * interop-hpke-xwing.test.ts; the draft's vectors through the KEM object in vectors/xwing.test.ts.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { ml_kem768 } from '@noble/post-quantum/ml-kem.js';
import {
  PQ_SEALED_BOX,
  PQ_SEALED_BOX_ALGORITHM_IDS,
  PQ_SEALED_BOX_INFO,
  PQ_SEALED_BOX_OVERHEAD,
  openBoxPq,
  sealBoxPq,
  type PqSealedBoxPrivateKey,
} from '../src/sealedbox-pq.ts';
import { SEALED_BOX_ALGORITHM_IDS } from '../src/sealedbox.ts';
import { XWING_HPKE_KEM, XWING_HPKE_KEM_ID, xwingDecapsulate, xwingKeygen, type XWingKeyPair } from '../src/xwing.ts';
import { hpkeKeySchedule, chacha20Poly1305Open } from '../src/hpke.ts';
import { CryptoError, DECRYPTION_FAILED_MESSAGE } from '../src/errors.ts';

const text = (value: string) => new TextEncoder().encode(value);
const hex = (value: Uint8Array) => Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex');

function isDecryptionFailure(error: unknown): boolean {
  return (
    error instanceof CryptoError &&
    error.code === 'DECRYPTION_FAILED' &&
    error.message === DECRYPTION_FAILED_MESSAGE &&
    error.field === undefined
  );
}

function isInvalid(field: string) {
  return (error: unknown) => {
    assert.ok(error instanceof CryptoError, String(error));
    assert.equal(error.code, 'INVALID_INPUT', error.message);
    assert.equal(error.field, field, error.message);
    return true;
  };
}

function flipBit(value: Uint8Array, bit: number): Uint8Array {
  const copy = value.slice();
  copy[bit >> 3]! ^= 1 << (bit & 7);
  return copy;
}

/** The 2400-byte ML-KEM-768 decapsulation key that a 64-byte seed expands to (@noble/post-quantum). */
const expandedOf = (seed: Uint8Array) => ml_kem768.keygen(seed).secretKey;

/** Every secret-key form of one X-Wing key: the seed, and its parts with the ML-KEM seed or expanded key. */
function secretForms(keys: XWingKeyPair): [string, PqSealedBoxPrivateKey][] {
  return [
    ['privateKey (the X-Wing seed)', { privateKey: keys.secretKey }],
    [
      'x25519PrivateKey + mlKemPrivateKey (seed)',
      { x25519PrivateKey: keys.x25519PrivateKey, mlKemPrivateKey: keys.mlKemSecretKey },
    ],
    [
      'x25519PrivateKey + mlKemPrivateKey (expanded)',
      { x25519PrivateKey: keys.x25519PrivateKey, mlKemPrivateKey: expandedOf(keys.mlKemSecretKey) },
    ],
  ];
}

/** A point of order 8 on Curve25519 (libsodium's blocklist): X25519 with it gives all zeros. */
const LOW_ORDER_POINT = new Uint8Array(
  Buffer.from('e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800', 'hex'),
);

describe('X-Wing as an HPKE KEM', () => {
  test("the KEM of draft-connolly-cfrg-xwing-kem's HPKE section: id 0x647a and its sizes", () => {
    assert.equal(XWING_HPKE_KEM.id, 0x647a);
    assert.equal(XWING_HPKE_KEM_ID, 0x647a);
    assert.deepEqual(
      [XWING_HPKE_KEM.Nsecret, XWING_HPKE_KEM.Nenc, XWING_HPKE_KEM.Npk, XWING_HPKE_KEM.Nsk, XWING_HPKE_KEM.Nseed],
      [32, 1120, 1216, 32, 64],
    );
  });

  test("Encap's enc and shared secret are X-Wing's ciphertext and shared secret, unchanged", async () => {
    const keys = await xwingKeygen();
    const { enc, sharedSecret } = await XWING_HPKE_KEM.encap(keys.publicKey);
    assert.equal(enc.byteLength, 1120);
    assert.equal(hex((await xwingDecapsulate(keys.secretKey, enc)).sharedSecret), hex(sharedSecret));
    assert.equal(hex(await XWING_HPKE_KEM.decap(enc, keys.secretKey)), hex(sharedSecret));
  });

  test('DeriveKeyPair(ikm) is the key pair of the seed SHAKE256(ikm, 32); GenerateKeyPair gives fresh 32-byte seeds', async () => {
    const ikm = text('an input keying material of any length');
    const pair = XWING_HPKE_KEM.deriveKeyPair(ikm);
    const seed = new Uint8Array(createHash('shake256', { outputLength: 32 }).update(ikm).digest());
    assert.equal(hex(pair.secretKey), hex(seed));
    const [a, b] = [await XWING_HPKE_KEM.generateKeyPair(), await XWING_HPKE_KEM.generateKeyPair()];
    assert.equal(a.secretKey.byteLength, 32);
    assert.equal(a.publicKey.byteLength, 1216);
    assert.notEqual(hex(a.secretKey), hex(b.secretKey));
  });

  test('a DHKEM private key is refused by the X-Wing KEM (a programming error, not a client one)', async () => {
    const foreign = { kemId: 0x0020, publicKey: new Uint8Array(32), decap: async () => new Uint8Array(32) };
    await assert.rejects(XWING_HPKE_KEM.decap(new Uint8Array(1120), foreign), TypeError);
  });
});

describe('post-quantum sealed box round trips', () => {
  test('the format: enc (1120 B) ‖ ciphertext ‖ tag, HPKE base mode with the documented info; the identifier is listed', async () => {
    const keys = await xwingKeygen();
    const plaintext = text('sealed for the hybrid key');
    const sealed = await sealBoxPq({ publicKey: keys.publicKey }, plaintext);
    assert.equal(sealed.byteLength, plaintext.byteLength + PQ_SEALED_BOX_OVERHEAD);
    assert.equal(PQ_SEALED_BOX_OVERHEAD, 1136);
    assert.equal(PQ_SEALED_BOX, 'hpke-x25519-ml-kem-768-chacha20-poly1305');
    assert.deepEqual([...SEALED_BOX_ALGORITHM_IDS], ['x25519-xsalsa20-poly1305']);
    assert.deepEqual([...PQ_SEALED_BOX_ALGORITHM_IDS], [PQ_SEALED_BOX]);
    assert.equal(new TextDecoder().decode(PQ_SEALED_BOX_INFO), 'crypto-service/v2/sealedbox-pq');
    // Opened by hand from the pieces: X-Wing decapsulation, RFC 9180's key schedule with this info,
    // ChaCha20-Poly1305 with base_nonce and empty AAD.
    const { sharedSecret } = await xwingDecapsulate(keys.secretKey, sealed.subarray(0, 1120));
    const schedule = hpkeKeySchedule(XWING_HPKE_KEM, sharedSecret, PQ_SEALED_BOX_INFO);
    assert.deepEqual(
      chacha20Poly1305Open(schedule.key, schedule.baseNonce, new Uint8Array(0), sealed.subarray(1120)),
      plaintext,
    );
  });

  test('both public-key forms seal, and every secret-key form opens what either sealed', async () => {
    const keys = await xwingKeygen();
    const plaintext = text('any form, the same box');
    const boxes = [
      await sealBoxPq({ publicKey: keys.publicKey }, plaintext),
      await sealBoxPq({ x25519PublicKey: keys.x25519PublicKey, mlKemPublicKey: keys.mlKemPublicKey }, plaintext),
    ];
    assert.notEqual(hex(boxes[0]!.subarray(0, 1120)), hex(boxes[1]!.subarray(0, 1120)), 'fresh randomness per box');
    for (const box of boxes) {
      for (const [label, secret] of secretForms(keys)) {
        assert.deepEqual(await openBoxPq(secret, box), plaintext, label);
      }
    }
  });

  test('the empty plaintext and 64 KiB round-trip', async () => {
    const keys = await xwingKeygen();
    for (const length of [0, 65536]) {
      const plaintext = new Uint8Array(length).map((_, i) => (i * 7) & 0xff);
      assert.deepEqual(
        await openBoxPq({ privateKey: keys.secretKey }, await sealBoxPq({ publicKey: keys.publicKey }, plaintext)),
        plaintext,
        `length ${length}`,
      );
    }
  });
});

describe('post-quantum sealed box: every failure to open is the one DECRYPTION_FAILED', () => {
  let keys: XWingKeyPair;
  let other: XWingKeyPair;
  let sealed: Uint8Array;
  const plaintext = text('the secret');
  test.before(async () => {
    keys = await xwingKeygen();
    other = await xwingKeygen();
    sealed = await sealBoxPq({ publicKey: keys.publicKey }, plaintext);
  });

  test('another key, in every form, and parts of two different keys', async () => {
    for (const [label, secret] of secretForms(other))
      await assert.rejects(openBoxPq(secret, sealed), isDecryptionFailure, label);
    await assert.rejects(
      openBoxPq({ x25519PrivateKey: keys.x25519PrivateKey, mlKemPrivateKey: other.mlKemSecretKey }, sealed),
      isDecryptionFailure,
      'foreign ML-KEM part',
    );
    await assert.rejects(
      openBoxPq({ x25519PrivateKey: other.x25519PrivateKey, mlKemPrivateKey: keys.mlKemSecretKey }, sealed),
      isDecryptionFailure,
      'foreign X25519 part',
    );
  });

  test('a changed bit in the ML-KEM ciphertext, the X25519 ephemeral key, the ciphertext or the tag', async () => {
    const bits = [
      0,
      8 * 500 + 3,
      8 * 1087 + 7,
      8 * 1088,
      8 * 1119 + 6,
      8 * 1120,
      8 * (sealed.byteLength - 17),
      8 * sealed.byteLength - 1,
    ];
    for (const bit of bits) {
      for (const [label, secret] of secretForms(keys))
        await assert.rejects(openBoxPq(secret, flipBit(sealed, bit)), isDecryptionFailure, `bit ${bit}, ${label}`);
    }
  });

  test('truncation, an extra byte, the empty box, and a low-order X25519 ephemeral key', async () => {
    for (const length of [0, 1, 1119, 1120, 1135, sealed.byteLength - 1]) {
      await assert.rejects(
        openBoxPq({ privateKey: keys.secretKey }, sealed.subarray(0, length)),
        isDecryptionFailure,
        `length ${length}`,
      );
    }
    await assert.rejects(
      openBoxPq({ privateKey: keys.secretKey }, new Uint8Array([...sealed, 0])),
      isDecryptionFailure,
      'extra byte',
    );
    const lowOrder = sealed.slice();
    lowOrder.set(LOW_ORDER_POINT, 1088);
    for (const [label, secret] of secretForms(keys))
      await assert.rejects(openBoxPq(secret, lowOrder), isDecryptionFailure, `low order, ${label}`);
    // The box itself still opens: each failure was the change, not the key.
    assert.deepEqual(await openBoxPq({ privateKey: keys.secretKey }, sealed), plaintext);
  });
});

describe('post-quantum sealed box: malformed keys are INVALID_INPUT naming the field', () => {
  test('sealing: lengths, a low-order X25519 key and an ML-KEM key with an unreduced coefficient', async () => {
    const keys = await xwingKeygen();
    const unreduced = keys.mlKemPublicKey.slice();
    unreduced.set([0xff, 0xff], 0);
    const cases: [Parameters<typeof sealBoxPq>[0], string][] = [
      [{ x25519PublicKey: keys.x25519PublicKey.subarray(1), mlKemPublicKey: keys.mlKemPublicKey }, '/x25519PublicKey'],
      [{ x25519PublicKey: keys.x25519PublicKey, mlKemPublicKey: keys.mlKemPublicKey.subarray(1) }, '/mlKemPublicKey'],
      [{ x25519PublicKey: keys.x25519PublicKey, mlKemPublicKey: new Uint8Array(800) }, '/mlKemPublicKey'],
      [{ x25519PublicKey: LOW_ORDER_POINT, mlKemPublicKey: keys.mlKemPublicKey }, '/x25519PublicKey'],
      [{ x25519PublicKey: keys.x25519PublicKey, mlKemPublicKey: unreduced }, '/mlKemPublicKey'],
      [{ publicKey: keys.publicKey.subarray(1) }, '/publicKey'],
      [{ publicKey: new Uint8Array([...keys.mlKemPublicKey, ...LOW_ORDER_POINT]) }, '/publicKey'],
      [{ publicKey: new Uint8Array([...unreduced, ...keys.x25519PublicKey]) }, '/publicKey'],
    ];
    for (const [recipient, field] of cases)
      await assert.rejects(sealBoxPq(recipient, text('x')), isInvalid(field), field);
  });

  test('opening: key lengths and an expanded ML-KEM key whose H(ek) does not match, whatever the box holds', async () => {
    const keys = await xwingKeygen();
    const expanded = expandedOf(keys.mlKemSecretKey);
    expanded[1152 + 1184]! ^= 1;
    const garbage = new Uint8Array(2000);
    const cases: [PqSealedBoxPrivateKey, string][] = [
      [{ privateKey: keys.secretKey.subarray(1) }, '/privateKey'],
      [{ privateKey: new Uint8Array(64) }, '/privateKey'],
      [{ x25519PrivateKey: new Uint8Array(31), mlKemPrivateKey: keys.mlKemSecretKey }, '/x25519PrivateKey'],
      [
        { x25519PrivateKey: keys.x25519PrivateKey, mlKemPrivateKey: keys.mlKemSecretKey.subarray(1) },
        '/mlKemPrivateKey',
      ],
      [{ x25519PrivateKey: keys.x25519PrivateKey, mlKemPrivateKey: new Uint8Array(1632) }, '/mlKemPrivateKey'],
      [{ x25519PrivateKey: keys.x25519PrivateKey, mlKemPrivateKey: expanded }, '/mlKemPrivateKey'],
    ];
    for (const [secret, field] of cases) {
      for (const box of [garbage, new Uint8Array(0)])
        await assert.rejects(openBoxPq(secret, box), isInvalid(field), `${field}, box of ${box.byteLength}`);
    }
  });
});

describe('post-quantum sealed box properties (fast-check, fixed seed)', () => {
  test('every plaintext of 0 to 4096 bytes round-trips, with the seed and with the parts', async () => {
    const keys = await xwingKeygen();
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 0, maxLength: 4096 }), fc.boolean(), async (plaintext, asParts) => {
        const recipient = asParts
          ? { x25519PublicKey: keys.x25519PublicKey, mlKemPublicKey: keys.mlKemPublicKey }
          : { publicKey: keys.publicKey };
        const sealed = await sealBoxPq(recipient, plaintext);
        assert.equal(sealed.byteLength, plaintext.byteLength + PQ_SEALED_BOX_OVERHEAD);
        assert.deepEqual(await openBoxPq({ privateKey: keys.secretKey }, sealed), plaintext);
        assert.deepEqual(
          await openBoxPq({ x25519PrivateKey: keys.x25519PrivateKey, mlKemPrivateKey: keys.mlKemSecretKey }, sealed),
          plaintext,
        );
      }),
      { seed: 0x7071, numRuns: 40 },
    );
  });

  test('a single-bit change anywhere in the box is rejected', async () => {
    const keys = await xwingKeygen();
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 0, maxLength: 256 }), fc.nat(), async (plaintext, position) => {
        const sealed = await sealBoxPq({ publicKey: keys.publicKey }, plaintext);
        await assert.rejects(
          openBoxPq({ privateKey: keys.secretKey }, flipBit(sealed, position % (sealed.byteLength * 8))),
          isDecryptionFailure,
        );
      }),
      { seed: 0x6269, numRuns: 60 },
    );
  });
});
