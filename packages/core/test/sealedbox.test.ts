/**
 * The libsodium sealed box (packages/core/src/sealedbox.ts): a published crypto_box_seal output,
 * RFC 7748's X25519 exchange through the sealed box's X25519, low-order keys refused, and the one
 * DECRYPTION_FAILED for every failure to open. Interoperation with libsodium in both directions is
 * in interop-libsodium.test.ts.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { SEALED_BOX_ALGORITHM_IDS, SEALED_BOX_OVERHEAD, openBox, sealBox, sealedBoxX25519 } from '../src/sealedbox.ts';
import { CryptoError, DECRYPTION_FAILED_MESSAGE } from '../src/errors.ts';

const fromHex = (hex: string) => Uint8Array.from(Buffer.from(hex, 'hex'));
const toHex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

function bytes(label: string, length: number): Uint8Array {
  return Uint8Array.from(createHash('shake256', { outputLength: length }).update(label).digest());
}

function flipBit(data: Uint8Array, bit: number): Uint8Array {
  const copy = Uint8Array.from(data);
  copy[bit >> 3]! ^= 1 << (bit & 7);
  return copy;
}

/** An X25519 key pair from node:crypto's generator, read out through JWK: independent of sealedbox.ts. */
function keyPair(): { publicKey: Uint8Array; secretKey: Uint8Array } {
  const { privateKey } = generateKeyPairSync('x25519');
  const jwk = privateKey.export({ format: 'jwk' });
  return {
    publicKey: Uint8Array.from(Buffer.from(jwk.x!, 'base64url')),
    secretKey: Uint8Array.from(Buffer.from(jwk.d!, 'base64url')),
  };
}

function assertDecryptionFailed(work: () => unknown, label: string): void {
  assert.throws(
    work,
    (error: unknown) => {
      assert.ok(error instanceof CryptoError, `${label}: not a CryptoError: ${String(error)}`);
      assert.equal(error.code, 'DECRYPTION_FAILED', label);
      assert.equal(error.message, DECRYPTION_FAILED_MESSAGE, label);
      assert.equal(error.field, undefined, label);
      return true;
    },
    label,
  );
}

function assertInvalidInput(work: () => unknown, field: string, label: string, message?: RegExp): void {
  assert.throws(
    work,
    (error: unknown) => {
      assert.ok(error instanceof CryptoError, `${label}: not a CryptoError: ${String(error)}`);
      assert.equal(error.code, 'INVALID_INPUT', label);
      assert.equal(error.field, field, label);
      if (message !== undefined) assert.match(error.message, message, label);
      return true;
    },
    label,
  );
}

// RFC 7748 §6.1: Alice's and Bob's keys and their shared secret.
const ALICE_SECRET = fromHex('77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a');
const ALICE_PUBLIC = fromHex('8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a');
const BOB_SECRET = fromHex('5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb');
const BOB_PUBLIC = fromHex('de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f');
const RFC7748_SHARED = '4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742';

/**
 * The seven low-order u-coordinates of Curve25519 (0, 1, the two points of order 8, p − 1, p, p + 1:
 * libsodium's blacklist), and each with bit 255 set, which RFC 7748 §5 masks off, so they are the
 * same points. X25519 with any of them gives all zeros.
 */
const LOW_ORDER_CANONICAL = [
  '0000000000000000000000000000000000000000000000000000000000000000',
  '0100000000000000000000000000000000000000000000000000000000000000',
  'e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800',
  '5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157',
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
];
const LOW_ORDER_POINTS = [
  ...LOW_ORDER_CANONICAL,
  ...LOW_ORDER_CANONICAL.map((hex) => {
    const point = fromHex(hex);
    point[31]! |= 0x80;
    return toHex(point);
  }),
];

test('the identifier list is the classical sealed box only (the post-quantum one has its own family)', () => {
  assert.deepEqual([...SEALED_BOX_ALGORITHM_IDS], ['x25519-xsalsa20-poly1305']);
  assert.equal(SEALED_BOX_OVERHEAD, 48);
});

describe('known answers', () => {
  test('opens the crypto_box_seal reference vector of PyNaCl (tests/data/sealed_box_ref.txt, made with libsodium)', () => {
    // pyca/pynacl at 526d9729a262d9954d2ec220bcfe1221f9dde166: recipient sk, pk, plaintext, sealed box.
    const secretKey = fromHex('77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a');
    const plaintext =
      'be075fc53c81f2d5cf141316ebeb0c7b5228c52a4c62cbd44b66849b64244ffce5ecbaaf33bd751a1ac728d45e6c61296cdc3c01233561f41db66cce314adb310e3be8250c46f06dceea3a7fa1348057e2f6556ad6b1318a024a838f21af1fde048977eb48f59ffd4924ca1c60902e52f0a089bc76897040e082f937763848645e0705';
    const sealed = fromHex(
      '199c808806a62c1be56951023ad3396b0ce0ef2c5b9ca688ac96d2d06ca43f65d314400cc9bbefb23dd26f824c9cb553f81e8c894ea9a553f4d777c77b66d5a6925da3f5961c5f7147172db5597ac14210066ee3ee13e6230a9a9610e9cddbf24094f54fbbf6694c08a436cec39ff5a373656d9584f4df9dd8c817e2e597540628d0ee21a6524a3fcf3eabdc0968390bd260a47366ead7f71cc2e774d411d96f3497c7e10291937bc16dc46a111686b85a8c86',
    );
    assert.equal(sealed.byteLength, plaintext.length / 2 + SEALED_BOX_OVERHEAD);
    assert.equal(toHex(openBox(secretKey, sealed)), plaintext);
    // And the same box fails under Bob's key: the vector is not opened by accident.
    assertDecryptionFailed(() => openBox(BOB_SECRET, sealed), 'wrong recipient');
  });

  test("the sealed box's X25519 reproduces RFC 7748 §6.1 in both directions", () => {
    assert.equal(toHex(sealedBoxX25519(ALICE_SECRET, BOB_PUBLIC)), RFC7748_SHARED);
    assert.equal(toHex(sealedBoxX25519(BOB_SECRET, ALICE_PUBLIC)), RFC7748_SHARED);
  });
});

describe('sealing and opening', () => {
  test('round trip; the output is 48 bytes longer; a fresh ephemeral key every time', () => {
    const { publicKey, secretKey } = keyPair();
    const plaintext = bytes('round trip', 77);
    const first = sealBox(publicKey, plaintext);
    const second = sealBox(publicKey, plaintext);
    assert.equal(first.byteLength, plaintext.byteLength + SEALED_BOX_OVERHEAD);
    assert.notEqual(toHex(first.subarray(0, 32)), toHex(second.subarray(0, 32)));
    assert.equal(toHex(openBox(secretKey, first)), toHex(plaintext));
    assert.equal(toHex(openBox(secretKey, second)), toHex(plaintext));
  });

  test('the empty message seals to exactly epk ‖ tag, and opens', () => {
    const { publicKey, secretKey } = keyPair();
    const sealed = sealBox(publicKey, new Uint8Array(0));
    assert.equal(sealed.byteLength, SEALED_BOX_OVERHEAD);
    assert.equal(openBox(secretKey, sealed).byteLength, 0);
  });

  test('the RFC 7748 keys work as a recipient key pair', () => {
    const sealed = sealBox(BOB_PUBLIC, bytes('to bob', 10));
    assert.equal(toHex(openBox(BOB_SECRET, sealed)), toHex(bytes('to bob', 10)));
    assertDecryptionFailed(() => openBox(ALICE_SECRET, sealed), "Alice cannot open Bob's box");
  });
});

describe('low-order keys', () => {
  for (const point of LOW_ORDER_POINTS) {
    test(`sealing to ${point} is INVALID_INPUT naming /publicKey`, () => {
      assertInvalidInput(() => sealBox(fromHex(point), bytes('secret', 10)), '/publicKey', 'seal', /low-order/);
      // Again: the recipient's key now comes from the import cache, and is refused all the same.
      assertInvalidInput(() => sealBox(fromHex(point), bytes('secret', 10)), '/publicKey', 'seal again', /low-order/);
      assertInvalidInput(() => sealedBoxX25519(ALICE_SECRET, fromHex(point)), '/publicKey', 'x25519', /low-order/);
    });

    test(`a box whose ephemeral key is ${point} does not open, with DECRYPTION_FAILED`, () => {
      const forged = Uint8Array.from([...fromHex(point), ...bytes('forged box', 16 + 10)]);
      assertDecryptionFailed(() => openBox(BOB_SECRET, forged), 'low-order ephemeral key');
    });
  }
});

describe('every failure to open is the one DECRYPTION_FAILED', () => {
  const recipient = keyPair();
  const plaintext = bytes('failures', 40);
  const sealed = sealBox(recipient.publicKey, plaintext);

  test('the unmodified box opens (so each case below fails for its one change)', () => {
    assert.equal(toHex(openBox(recipient.secretKey, sealed)), toHex(plaintext));
  });

  test('wrong secret key', () => {
    assertDecryptionFailed(() => openBox(keyPair().secretKey, sealed), 'unrelated key');
    assertDecryptionFailed(() => openBox(flipBit(recipient.secretKey, 100), sealed), 'key one bit off');
  });

  test('a changed bit in the ephemeral key (including bit 255, which X25519 ignores but the nonce does not), tag or ciphertext', () => {
    for (const bit of [0, 7, 128, 254, 255, 256, 383, 384, sealed.byteLength * 8 - 1]) {
      assertDecryptionFailed(() => openBox(recipient.secretKey, flipBit(sealed, bit)), `bit ${bit}`);
    }
  });

  test('truncated to every length below 48 bytes, one byte short, one byte long', () => {
    for (let length = 0; length < SEALED_BOX_OVERHEAD; length++) {
      assertDecryptionFailed(() => openBox(recipient.secretKey, sealed.subarray(0, length)), `${length} bytes`);
    }
    assertDecryptionFailed(
      () => openBox(recipient.secretKey, sealed.subarray(0, sealed.byteLength - 1)),
      'one byte short',
    );
    assertDecryptionFailed(() => openBox(recipient.secretKey, Uint8Array.from([...sealed, 0])), 'one byte long');
  });

  test('the ephemeral key of another box', () => {
    const other = sealBox(recipient.publicKey, plaintext);
    assertDecryptionFailed(
      () => openBox(recipient.secretKey, Uint8Array.from([...other.subarray(0, 32), ...sealed.subarray(32)])),
      'swapped epk',
    );
  });
});

describe('malformed keys are INVALID_INPUT', () => {
  for (const length of [0, 16, 31, 33, 64]) {
    test(`a ${length}-byte key`, () => {
      assertInvalidInput(() => sealBox(new Uint8Array(length), new Uint8Array(1)), '/publicKey', 'seal');
      assertInvalidInput(
        () => openBox(new Uint8Array(length), new Uint8Array(SEALED_BOX_OVERHEAD)),
        '/privateKey',
        'open',
      );
    });
  }
});
