/**
 * Multi-recipient envelopes: round trips (X25519, hybrid X-Wing and mixed), the one decryption
 * failure for every cause, input checks, and fast-check properties. The format's interoperability
 * with an independent HPKE implementation is in interop-hpke.test.ts (X25519 slots) and
 * interop-hpke-xwing.test.ts (hybrid slots); the HPKE core's known answers are in hpke.test.ts.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { ALGORITHM_REGISTRY } from '../src/registry.ts';
import {
  MAX_RECIPIENTS,
  MULTI_RECIPIENT_ALGORITHM,
  MULTI_RECIPIENT_INFO,
  multiRecipientDecrypt,
  multiRecipientEncrypt,
  MULTI_RECIPIENT_ALGORITHM_IDS,
  RECIPIENT_TYPES,
  SLOT_WRAPPED_KEY_LENGTH,
  type EnvelopeSlot,
  type MultiRecipientEnvelope,
} from '../src/multi-recipient.ts';
import { DHKEM_X25519_HKDF_SHA256 as kem, hpkeSeal, type KemKeyPair } from '../src/hpke.ts';
import { XWING_HPKE_KEM, xwingKeygen, type XWingKeyPair } from '../src/xwing.ts';
import { xchachaSeal, XCHACHA_OVERHEAD } from '../src/aead.ts';
import { CryptoError, DECRYPTION_FAILED_MESSAGE } from '../src/errors.ts';

const text = (value: string) => new TextEncoder().encode(value);
const hex = (value: Uint8Array) => Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex');

/** Fresh key pairs: DeriveKeyPair of random bytes, which is GenerateKeyPair (RFC 9180 §4). */
function keyPairs(count: number): KemKeyPair[] {
  return Array.from({ length: count }, () => kem.deriveKeyPair(randomBytes(32)));
}

function toX25519(pairs: readonly KemKeyPair[]) {
  return pairs.map((pair) => ({ type: 'x25519', publicKey: pair.publicKey }));
}

function decrypt(
  envelope: { ciphertext: Uint8Array; recipients: readonly EnvelopeSlot[] },
  pair: KemKeyPair,
): Promise<Uint8Array> {
  return multiRecipientDecrypt(envelope, { privateKey: pair.secretKey });
}

function isDecryptionFailure(error: unknown): boolean {
  return (
    error instanceof CryptoError &&
    error.code === 'DECRYPTION_FAILED' &&
    error.message === DECRYPTION_FAILED_MESSAGE &&
    error.field === undefined
  );
}

function isInputError(code: 'INVALID_INPUT' | 'UNSUPPORTED_ALGORITHM', field: string) {
  return (error: unknown) => error instanceof CryptoError && error.code === code && error.field === field;
}

function flipBit(value: Uint8Array, bit: number): Uint8Array {
  const copy = value.slice();
  copy[bit >> 3]! ^= 1 << (bit & 7);
  return copy;
}

function withSlot(envelope: MultiRecipientEnvelope, index: number, change: Partial<EnvelopeSlot>) {
  return {
    ciphertext: envelope.ciphertext,
    recipients: envelope.recipients.map((slot, i) => (i === index ? { ...slot, ...change } : slot)),
  };
}

describe('multi-recipient round trips', () => {
  test('one recipient: the envelope has the documented shape and opens', async () => {
    const [alice] = keyPairs(1);
    const envelope = await multiRecipientEncrypt(text('for alice'), toX25519([alice!]));
    assert.equal(envelope.algorithm, MULTI_RECIPIENT_ALGORITHM);
    assert.equal(envelope.algorithm, 'hpke-xchacha20-poly1305');
    assert.equal(envelope.ciphertext.byteLength, 'for alice'.length + XCHACHA_OVERHEAD);
    assert.equal(envelope.recipients.length, 1);
    const [slot] = envelope.recipients;
    assert.equal(slot!.type, 'x25519');
    assert.equal(slot!.enc.byteLength, kem.Nenc);
    assert.equal(slot!.wrappedKey.byteLength, SLOT_WRAPPED_KEY_LENGTH);
    assert.equal(new TextDecoder().decode(await decrypt(envelope, alice!)), 'for alice');
  });

  test('two recipients each open the same payload; slots keep the order of the recipients', async () => {
    const pairs = keyPairs(2);
    const plaintext = text('for both');
    const envelope = await multiRecipientEncrypt(plaintext, toX25519(pairs));
    assert.equal(envelope.recipients.length, 2);
    assert.notEqual(hex(envelope.recipients[0]!.enc), hex(envelope.recipients[1]!.enc));
    for (const pair of pairs) assert.deepEqual(await decrypt(envelope, pair), plaintext);
    // Each slot opens for its own recipient only: dropping the other's slot changes nothing for it.
    assert.deepEqual(
      await decrypt({ ciphertext: envelope.ciphertext, recipients: [envelope.recipients[1]!] }, pairs[1]!),
      plaintext,
    );
    await assert.rejects(
      decrypt({ ciphertext: envelope.ciphertext, recipients: [envelope.recipients[1]!] }, pairs[0]!),
      isDecryptionFailure,
    );
  });

  test('100 recipients, the most allowed: every one of them opens the envelope', async () => {
    const pairs = keyPairs(MAX_RECIPIENTS);
    const plaintext = text('for a hundred');
    const envelope = await multiRecipientEncrypt(plaintext, toX25519(pairs));
    assert.equal(envelope.recipients.length, 100);
    assert.equal(
      new Set(envelope.recipients.map((slot) => hex(slot.enc))).size,
      100,
      'every slot has its own ephemeral key',
    );
    for (const pair of pairs) assert.deepEqual(await decrypt(envelope, pair), plaintext);
  });

  test('100 recipients do not hold the event loop in one piece: a queued callback runs before the work ends', async () => {
    const pairs = keyPairs(MAX_RECIPIENTS);
    const during = async (work: () => Promise<unknown>) => {
      let done = false;
      const running = work().then(() => {
        done = true;
      });
      let ranBeforeEnd = false;
      setImmediate(() => {
        ranBeforeEnd = !done;
      });
      await running;
      return ranBeforeEnd;
    };
    let envelope: MultiRecipientEnvelope | undefined;
    assert.equal(
      await during(async () => {
        envelope = await multiRecipientEncrypt(text('x'), toX25519(pairs));
      }),
      true,
      'encrypt',
    );
    assert.equal(await during(() => decrypt(envelope!, pairs[99]!)), true, 'decrypt');
  });

  test("the type is optional and inferred from the key; the envelope names it; 'classical' and 'pq' are no names", async () => {
    const [pair] = keyPairs(1);
    const envelope = await multiRecipientEncrypt(text('inferred'), [{ publicKey: pair!.publicKey }]);
    assert.equal(envelope.recipients[0]!.type, 'x25519');
    assert.deepEqual(await decrypt(envelope, pair!), text('inferred'));
    for (const alias of ['classical', 'pq']) {
      await assert.rejects(
        multiRecipientEncrypt(text('alias'), [{ type: alias, publicKey: pair!.publicKey }]),
        isInputError('UNSUPPORTED_ALGORITHM', '/recipients/0/type'),
        alias,
      );
      await assert.rejects(
        decrypt(withSlot(envelope, 0, { type: alias }), pair!),
        isInputError('UNSUPPORTED_ALGORITHM', '/recipients/0/type'),
        alias,
      );
    }
  });

  test('a type that disagrees with the key is refused, naming the type', async () => {
    const [pair] = keyPairs(1);
    const hybrid = await xwingKeygen();
    await assert.rejects(
      multiRecipientEncrypt(text('x'), [{ type: 'x25519-ml-kem-768', publicKey: pair!.publicKey }]),
      isInputError('INVALID_INPUT', '/recipients/0/type'),
    );
    await assert.rejects(
      multiRecipientEncrypt(text('x'), [
        { publicKey: pair!.publicKey },
        { type: 'x25519', publicKey: hybrid.publicKey },
      ]),
      isInputError('INVALID_INPUT', '/recipients/1/type'),
    );
    await assert.rejects(
      multiRecipientEncrypt(text('x'), [
        { type: 'x25519', x25519PublicKey: hybrid.x25519PublicKey, mlKemPublicKey: hybrid.mlKemPublicKey },
      ]),
      isInputError('INVALID_INPUT', '/recipients/0/type'),
    );
  });

  test('slots that a privateKey does not open are skipped, not an error (hybrid slots are tried with it as a seed)', async () => {
    const [pair] = keyPairs(1);
    const envelope = await multiRecipientEncrypt(text('mixed'), toX25519([pair!]));
    const hybrid: EnvelopeSlot = {
      type: 'x25519-ml-kem-768',
      enc: new Uint8Array(1120),
      wrappedKey: new Uint8Array(SLOT_WRAPPED_KEY_LENGTH),
    };
    const mixed = {
      ciphertext: envelope.ciphertext,
      recipients: [hybrid, { ...hybrid }, envelope.recipients[0]!],
    };
    assert.deepEqual(await decrypt(mixed, pair!), text('mixed'));
  });

  test('the registry lists the envelope format and both slot types, which are the only type names', async () => {
    assert.deepEqual([...ALGORITHM_REGISTRY.recipientType], ['x25519', 'x25519-ml-kem-768']);
    assert.deepEqual([...RECIPIENT_TYPES], ['x25519', 'x25519-ml-kem-768']);
    assert.deepEqual([...ALGORITHM_REGISTRY.multiRecipient], ['hpke-xchacha20-poly1305']);
    assert.deepEqual([...MULTI_RECIPIENT_ALGORITHM_IDS], [MULTI_RECIPIENT_ALGORITHM]);
  });
});

describe('multi-recipient decryption failures: one error, no oracle', () => {
  const pairs = keyPairs(2);
  const plaintext = text('the secret payload');
  let envelope: MultiRecipientEnvelope;
  test.before(async () => {
    envelope = await multiRecipientEncrypt(plaintext, toX25519(pairs));
  });

  test("a key that is not a recipient's fails with DECRYPTION_FAILED", async () => {
    const [stranger] = keyPairs(1);
    await assert.rejects(decrypt(envelope, stranger!), isDecryptionFailure);
  });

  test('any single-bit change of the payload is rejected', async () => {
    for (let bit = 0; bit < envelope.ciphertext.byteLength * 8; bit++) {
      await assert.rejects(
        decrypt({ ...envelope, ciphertext: flipBit(envelope.ciphertext, bit) }, pairs[0]!),
        isDecryptionFailure,
        `bit ${bit}`,
      );
    }
  });

  test("any single-bit change of a slot's enc or wrappedKey is rejected for that slot's recipient", async () => {
    const slot = envelope.recipients[0]!;
    for (let bit = 0; bit < slot.enc.byteLength * 8; bit++) {
      await assert.rejects(
        decrypt(withSlot(envelope, 0, { enc: flipBit(slot.enc, bit) }), pairs[0]!),
        isDecryptionFailure,
        `enc bit ${bit}`,
      );
    }
    for (let bit = 0; bit < slot.wrappedKey.byteLength * 8; bit++) {
      await assert.rejects(
        decrypt(withSlot(envelope, 0, { wrappedKey: flipBit(slot.wrappedKey, bit) }), pairs[0]!),
        isDecryptionFailure,
        `wrappedKey bit ${bit}`,
      );
    }
    // The other recipient's slot is untouched, so that recipient still opens the envelope.
    assert.deepEqual(await decrypt(withSlot(envelope, 0, { enc: flipBit(slot.enc, 0) }), pairs[1]!), plaintext);
  });

  test("swapping the two slots' encs, truncating, or emptying fields fails the same way", async () => {
    const [first, second] = envelope.recipients;
    const swapped = {
      ciphertext: envelope.ciphertext,
      recipients: [
        { ...first!, enc: second!.enc },
        { ...second!, enc: first!.enc },
      ],
    };
    for (const pair of pairs) await assert.rejects(decrypt(swapped, pair), isDecryptionFailure);
    for (const length of [0, 1, 24, XCHACHA_OVERHEAD - 1, envelope.ciphertext.byteLength - 1]) {
      await assert.rejects(
        decrypt({ ...envelope, ciphertext: envelope.ciphertext.subarray(0, length) }, pairs[0]!),
        isDecryptionFailure,
        `ciphertext ${length}`,
      );
    }
    for (const length of [0, 16, 31, 33, 1120]) {
      await assert.rejects(
        decrypt(withSlot(envelope, 0, { enc: new Uint8Array(length).fill(7) }), pairs[0]!),
        isDecryptionFailure,
        `enc ${length}`,
      );
    }
    for (const length of [0, 16, 47, 49]) {
      await assert.rejects(
        decrypt(withSlot(envelope, 0, { wrappedKey: new Uint8Array(length) }), pairs[0]!),
        isDecryptionFailure,
        `wrappedKey ${length}`,
      );
    }
  });

  test("an envelope with no slot of the recipient's type fails the same way", async () => {
    const onlyHybrid = {
      ciphertext: envelope.ciphertext,
      recipients: [{ type: 'x25519-ml-kem-768', enc: new Uint8Array(1120), wrappedKey: new Uint8Array(48) }],
    };
    await assert.rejects(decrypt(onlyHybrid, pairs[0]!), isDecryptionFailure);
  });

  test('a slot that opens to a key of the wrong size (anyone can seal to a public key) fails the same way', async () => {
    for (const size of [0, 16, 31, 33, 64]) {
      const forged = await hpkeSeal(
        kem,
        pairs[0]!.publicKey,
        MULTI_RECIPIENT_INFO,
        new Uint8Array(0),
        new Uint8Array(size).fill(1),
      );
      const payload = xchachaSeal(new Uint8Array(32).fill(1), plaintext);
      await assert.rejects(
        decrypt(
          { ciphertext: payload, recipients: [{ type: 'x25519', enc: forged.enc, wrappedKey: forged.ciphertext }] },
          pairs[0]!,
        ),
        isDecryptionFailure,
        `key size ${size}`,
      );
    }
  });

  test('a slot sealed with another info string does not open: the slot is bound to this use', async () => {
    const payloadKey = new Uint8Array(32).fill(3);
    const payload = xchachaSeal(payloadKey, plaintext);
    const other = await hpkeSeal(
      kem,
      pairs[0]!.publicKey,
      text('crypto-service/v2/sealedbox-pq'),
      new Uint8Array(0),
      payloadKey,
    );
    const right = await hpkeSeal(kem, pairs[0]!.publicKey, MULTI_RECIPIENT_INFO, new Uint8Array(0), payloadKey);
    await assert.rejects(
      decrypt(
        { ciphertext: payload, recipients: [{ type: 'x25519', enc: other.enc, wrappedKey: other.ciphertext }] },
        pairs[0]!,
      ),
      isDecryptionFailure,
    );
    assert.deepEqual(
      await decrypt(
        { ciphertext: payload, recipients: [{ type: 'x25519', enc: right.enc, wrappedKey: right.ciphertext }] },
        pairs[0]!,
      ),
      plaintext,
    );
  });

  test('the envelope opens with the payload key of any slot: a later matching slot is tried after a failing one', async () => {
    const duplicate = {
      ciphertext: envelope.ciphertext,
      recipients: [{ ...envelope.recipients[0]!, wrappedKey: new Uint8Array(48) }, envelope.recipients[0]!],
    };
    assert.deepEqual(await decrypt(duplicate, pairs[0]!), plaintext);
  });
});

describe('multi-recipient input checks', () => {
  const [pair, other] = keyPairs(2);

  test('0 and 101 recipients are refused, on encryption and on decryption', async () => {
    await assert.rejects(multiRecipientEncrypt(text('x'), []), isInputError('INVALID_INPUT', '/recipients'));
    const many = keyPairs(101);
    await assert.rejects(
      multiRecipientEncrypt(text('x'), toX25519(many)),
      isInputError('INVALID_INPUT', '/recipients'),
    );
    const envelope = await multiRecipientEncrypt(text('x'), toX25519([pair!]));
    await assert.rejects(
      decrypt({ ciphertext: envelope.ciphertext, recipients: [] }, pair!),
      isInputError('INVALID_INPUT', '/recipients'),
    );
    const tooMany = Array.from({ length: 101 }, () => envelope.recipients[0]!);
    await assert.rejects(
      decrypt({ ciphertext: envelope.ciphertext, recipients: tooMany }, pair!),
      isInputError('INVALID_INPUT', '/recipients'),
    );
  });

  test('a public key of any wrong length is refused with its index in the field', async () => {
    for (const length of [0, 1, 16, 31, 33, 64, 1184, 1216]) {
      const recipients = [
        { type: 'x25519', publicKey: pair!.publicKey },
        { type: 'x25519', publicKey: new Uint8Array(length).fill(5) },
      ];
      // 1216 bytes is an X-Wing key's length: then the x25519 type is what disagrees.
      await assert.rejects(
        multiRecipientEncrypt(text('x'), recipients),
        isInputError('INVALID_INPUT', length === 1216 ? '/recipients/1/type' : '/recipients/1/publicKey'),
        `length ${length}`,
      );
    }
  });

  test('a small-order public key is refused as an input error naming the recipient', async () => {
    const zero = new Uint8Array(32);
    await assert.rejects(
      multiRecipientEncrypt(text('x'), [
        { type: 'x25519', publicKey: pair!.publicKey },
        { type: 'x25519', publicKey: zero },
      ]),
      isInputError('INVALID_INPUT', '/recipients/1/publicKey'),
    );
  });

  test('the same public key listed twice is refused, also when one entry leaves the type out', async () => {
    await assert.rejects(
      multiRecipientEncrypt(text('x'), [
        { type: 'x25519', publicKey: pair!.publicKey },
        { type: 'x25519', publicKey: other!.publicKey },
        { publicKey: pair!.publicKey.slice() },
      ]),
      (error: unknown) =>
        isInputError('INVALID_INPUT', '/recipients/2/publicKey')(error) &&
        /repeats recipients\/0\/publicKey/.test((error as Error).message),
    );
  });

  test('an unknown type is UNSUPPORTED_ALGORITHM, on encryption and in a slot on decryption', async () => {
    for (const type of ['X25519', 'x448', '', 'ml-kem-768', 'classical', 'pq', '__proto__', 'toString']) {
      await assert.rejects(
        multiRecipientEncrypt(text('x'), [{ type, publicKey: pair!.publicKey }]),
        isInputError('UNSUPPORTED_ALGORITHM', '/recipients/0/type'),
        type,
      );
      const envelope = await multiRecipientEncrypt(text('x'), toX25519([pair!]));
      await assert.rejects(
        decrypt(withSlot(envelope, 0, { type }), pair!),
        isInputError('UNSUPPORTED_ALGORITHM', '/recipients/0/type'),
        type,
      );
    }
  });

  test('mlKemPublicKey beside a whole publicKey is refused rather than ignored', async () => {
    const parts = { publicKey: pair!.publicKey, mlKemPublicKey: new Uint8Array(1184) };
    await assert.rejects(
      multiRecipientEncrypt(text('x'), [{ type: 'x25519', ...parts }]),
      isInputError('INVALID_INPUT', '/recipients/0/mlKemPublicKey'),
    );
  });

  test('a whole public key of neither length is refused, naming it', async () => {
    for (const length of [0, 31, 33, 1184, 1215, 1217]) {
      await assert.rejects(
        multiRecipientEncrypt(text('x'), [{ publicKey: new Uint8Array(length) }]),
        isInputError('INVALID_INPUT', '/recipients/0/publicKey'),
        `length ${length}`,
      );
    }
  });

  test('a private key of the wrong length is an input error naming privateKey', async () => {
    const envelope = await multiRecipientEncrypt(text('x'), toX25519([pair!]));
    for (const length of [0, 31, 33, 64]) {
      await assert.rejects(
        multiRecipientDecrypt(envelope, { privateKey: new Uint8Array(length) }),
        isInputError('INVALID_INPUT', '/privateKey'),
        `length ${length}`,
      );
    }
  });
});

describe('multi-recipient properties (fast-check, fixed seed)', () => {
  const pairs = keyPairs(3);

  test('every plaintext of 0 to 4096 bytes round-trips for every recipient', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 0, maxLength: 4096 }),
        fc.integer({ min: 1, max: 3 }),
        async (plaintext, count) => {
          const chosen = pairs.slice(0, count);
          const envelope = await multiRecipientEncrypt(plaintext, toX25519(chosen));
          assert.equal(envelope.ciphertext.byteLength, plaintext.byteLength + XCHACHA_OVERHEAD);
          for (const pair of chosen) assert.deepEqual(await decrypt(envelope, pair), plaintext);
        },
      ),
      { seed: 0x6d72, numRuns: 60 },
    );
  });

  test('the edge lengths 0 and 4096 round-trip', async () => {
    for (const length of [0, 4096]) {
      const plaintext = new Uint8Array(length).map((_, i) => (i * 13) & 0xff);
      assert.deepEqual(await decrypt(await multiRecipientEncrypt(plaintext, toX25519(pairs)), pairs[2]!), plaintext);
    }
  });

  test('a single-bit change anywhere in the envelope is rejected', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 0, maxLength: 512 }),
        fc.nat(),
        fc.constantFrom('ciphertext', 'enc', 'wrappedKey'),
        async (plaintext, position, part) => {
          const envelope = await multiRecipientEncrypt(plaintext, toX25519([pairs[0]!]));
          const slot = envelope.recipients[0]!;
          const target = part === 'ciphertext' ? envelope.ciphertext : slot[part];
          const changed = flipBit(target, position % (target.byteLength * 8));
          const tampered =
            part === 'ciphertext' ? { ...envelope, ciphertext: changed } : withSlot(envelope, 0, { [part]: changed });
          await assert.rejects(decrypt(tampered, pairs[0]!), isDecryptionFailure);
        },
      ),
      { seed: 0x6269, numRuns: 150 },
    );
  });
});

describe('hybrid (x25519-ml-kem-768) recipients', () => {
  let alice: XWingKeyPair;
  let bob: XWingKeyPair;
  const [carol] = keyPairs(1);
  test.before(async () => {
    alice = await xwingKeygen();
    bob = await xwingKeygen();
  });
  const credentials = (keys: XWingKeyPair) => [
    { privateKey: keys.secretKey } as const,
    { x25519PrivateKey: keys.x25519PrivateKey, mlKemPrivateKey: keys.mlKemSecretKey } as const,
  ];
  const LOW_ORDER = new Uint8Array(
    Buffer.from('e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800', 'hex'),
  );

  test('the key whole (1216 B) and as its parts (x25519PublicKey + mlKemPublicKey) both make X-Wing slots that open with the seed and with the parts', async () => {
    const plaintext = text('for the hybrid recipients');
    const envelope = await multiRecipientEncrypt(plaintext, [
      { type: 'x25519-ml-kem-768', publicKey: alice.publicKey },
      { x25519PublicKey: bob.x25519PublicKey, mlKemPublicKey: bob.mlKemPublicKey },
    ]);
    assert.deepEqual(
      envelope.recipients.map((slot) => [slot.type, slot.enc.byteLength, slot.wrappedKey.byteLength]),
      [
        ['x25519-ml-kem-768', XWING_HPKE_KEM.Nenc, SLOT_WRAPPED_KEY_LENGTH],
        ['x25519-ml-kem-768', XWING_HPKE_KEM.Nenc, SLOT_WRAPPED_KEY_LENGTH],
      ],
    );
    for (const keys of [alice, bob]) {
      for (const credential of credentials(keys))
        assert.deepEqual(await multiRecipientDecrypt(envelope, credential), plaintext);
    }
    // The type is inferred from the whole key's length as well.
    const inferred = await multiRecipientEncrypt(plaintext, [{ publicKey: alice.publicKey }]);
    assert.equal(inferred.recipients[0]!.type, 'x25519-ml-kem-768');
    assert.deepEqual(await multiRecipientDecrypt(inferred, credentials(alice)[0]!), plaintext);
  });

  test('mixed envelopes: every recipient opens with privateKey, in any order, whichever type its slot has; the parts open hybrid slots only', async () => {
    const plaintext = text('for everyone');
    const orders = [
      [
        { type: 'x25519', publicKey: carol!.publicKey },
        { type: 'x25519-ml-kem-768', publicKey: alice.publicKey },
      ],
      [
        { type: 'x25519-ml-kem-768', publicKey: alice.publicKey },
        { publicKey: carol!.publicKey },
        { publicKey: bob.publicKey },
      ],
    ];
    for (const recipients of orders) {
      const envelope = await multiRecipientEncrypt(plaintext, recipients);
      assert.deepEqual(await decrypt(envelope, carol!), plaintext);
      for (const credential of credentials(alice))
        assert.deepEqual(await multiRecipientDecrypt(envelope, credential), plaintext);
      const hybridOnly = {
        ciphertext: envelope.ciphertext,
        recipients: envelope.recipients.filter((slot) => slot.type !== 'x25519'),
      };
      await assert.rejects(
        decrypt(hybridOnly, carol!),
        isDecryptionFailure,
        'an X25519 key has no hybrid slot to open',
      );
      const classicalOnly = {
        ciphertext: envelope.ciphertext,
        recipients: envelope.recipients.filter((slot) => slot.type === 'x25519'),
      };
      await assert.rejects(
        multiRecipientDecrypt(classicalOnly, credentials(alice)[0]!),
        isDecryptionFailure,
        'a hybrid key has no X25519 slot to open',
      );
      await assert.rejects(
        multiRecipientDecrypt(classicalOnly, {
          x25519PrivateKey: carol!.secretKey,
          mlKemPrivateKey: alice.mlKemSecretKey,
        }),
        isDecryptionFailure,
        'the parts form does not open an X25519 slot, even with its X25519 key',
      );
    }
  });

  test('one privateKey field serves both types: an X25519 key and an X-Wing seed each find their slot', async () => {
    const plaintext = text('one field for both');
    const envelope = await multiRecipientEncrypt(plaintext, [
      { publicKey: alice.publicKey },
      { publicKey: carol!.publicKey },
      { publicKey: bob.publicKey },
    ]);
    assert.deepEqual(
      envelope.recipients.map((slot) => slot.type),
      ['x25519-ml-kem-768', 'x25519', 'x25519-ml-kem-768'],
    );
    assert.deepEqual(await multiRecipientDecrypt(envelope, { privateKey: carol!.secretKey }), plaintext);
    assert.deepEqual(await multiRecipientDecrypt(envelope, { privateKey: bob.secretKey }), plaintext);
    assert.deepEqual(await multiRecipientDecrypt(envelope, { privateKey: alice.secretKey }), plaintext);
    await assert.rejects(
      multiRecipientDecrypt(envelope, { privateKey: new Uint8Array(32).fill(7) }),
      isDecryptionFailure,
      'a key of nobody',
    );
  });

  test('one hybrid recipient given whole and again as parts is a repeat, named at the second entry', async () => {
    await assert.rejects(
      multiRecipientEncrypt(text('x'), [
        { type: 'x25519-ml-kem-768', publicKey: alice.publicKey },
        { x25519PublicKey: alice.x25519PublicKey, mlKemPublicKey: alice.mlKemPublicKey },
      ]),
      (error: unknown) =>
        isInputError('INVALID_INPUT', '/recipients/1/x25519PublicKey')(error) &&
        /repeats recipients\/0\/publicKey/.test((error as Error).message),
    );
  });

  test('malformed hybrid keys are INVALID_INPUT naming the entry and the part', async () => {
    const unreduced = alice.mlKemPublicKey.slice();
    unreduced.set([0xff, 0xff], 0);
    const first = { type: 'x25519', publicKey: carol!.publicKey };
    const cases: [Record<string, unknown>, string][] = [
      [{ publicKey: alice.publicKey.subarray(1) }, '/recipients/1/publicKey'],
      // A 32-byte key is an X25519 key: the hybrid type given with it disagrees.
      [{ publicKey: alice.x25519PublicKey }, '/recipients/1/type'],
      [{ publicKey: new Uint8Array(1184) }, '/recipients/1/publicKey'],
      [{ publicKey: alice.publicKey, mlKemPublicKey: alice.mlKemPublicKey }, '/recipients/1/mlKemPublicKey'],
      [
        { x25519PublicKey: alice.x25519PublicKey, mlKemPublicKey: alice.mlKemPublicKey.subarray(2) },
        '/recipients/1/mlKemPublicKey',
      ],
      [
        { x25519PublicKey: alice.x25519PublicKey.subarray(1), mlKemPublicKey: alice.mlKemPublicKey },
        '/recipients/1/x25519PublicKey',
      ],
      [{ x25519PublicKey: LOW_ORDER, mlKemPublicKey: alice.mlKemPublicKey }, '/recipients/1/x25519PublicKey'],
      [{ x25519PublicKey: alice.x25519PublicKey, mlKemPublicKey: unreduced }, '/recipients/1/mlKemPublicKey'],
      [{ publicKey: new Uint8Array([...alice.mlKemPublicKey, ...LOW_ORDER]) }, '/recipients/1/publicKey'],
      [{ publicKey: new Uint8Array([...unreduced, ...alice.x25519PublicKey]) }, '/recipients/1/publicKey'],
    ];
    for (const [recipient, field] of cases) {
      await assert.rejects(
        multiRecipientEncrypt(text('x'), [first, { type: 'x25519-ml-kem-768', ...recipient } as never]),
        isInputError('INVALID_INPUT', field),
        `${Object.keys(recipient).join('+')} → ${field}`,
      );
    }
  });

  test('malformed hybrid credentials are INVALID_INPUT naming their field, before any slot is tried', async () => {
    const envelope = await multiRecipientEncrypt(text('x'), [
      { type: 'x25519-ml-kem-768', publicKey: alice.publicKey },
    ]);
    const expanded = new Uint8Array(2400);
    const cases: [Parameters<typeof multiRecipientDecrypt>[1], string][] = [
      [{ privateKey: alice.secretKey.subarray(1) }, '/privateKey'],
      [{ privateKey: new Uint8Array(64) }, '/privateKey'],
      [{ x25519PrivateKey: new Uint8Array(33), mlKemPrivateKey: alice.mlKemSecretKey }, '/x25519PrivateKey'],
      [
        { x25519PrivateKey: alice.x25519PrivateKey, mlKemPrivateKey: alice.mlKemSecretKey.subarray(1) },
        '/mlKemPrivateKey',
      ],
      // An all-zero "expanded key" fails the H(ek) check of FIPS 203 §7.3.
      [{ x25519PrivateKey: alice.x25519PrivateKey, mlKemPrivateKey: expanded }, '/mlKemPrivateKey'],
    ];
    for (const [credential, field] of cases)
      await assert.rejects(multiRecipientDecrypt(envelope, credential), isInputError('INVALID_INPUT', field), field);
  });

  test('a tampered hybrid slot, an enc of another length, or another hybrid key fails with the one DECRYPTION_FAILED', async () => {
    const plaintext = text('tamper-evident');
    const envelope = await multiRecipientEncrypt(plaintext, [
      { type: 'x25519-ml-kem-768', publicKey: alice.publicKey },
    ]);
    const slot = envelope.recipients[0]!;
    const [seed, parts] = credentials(alice);
    for (const bit of [0, 8 * 600 + 1, 8 * 1087 + 7, 8 * 1088, 8 * 1119 + 7]) {
      for (const credential of [seed!, parts!])
        await assert.rejects(
          multiRecipientDecrypt(withSlot(envelope, 0, { enc: flipBit(slot.enc, bit) }), credential),
          isDecryptionFailure,
          `enc bit ${bit}`,
        );
    }
    for (const bit of [0, 8 * 32, 8 * SLOT_WRAPPED_KEY_LENGTH - 1]) {
      await assert.rejects(
        multiRecipientDecrypt(withSlot(envelope, 0, { wrappedKey: flipBit(slot.wrappedKey, bit) }), seed!),
        isDecryptionFailure,
        `wrappedKey bit ${bit}`,
      );
    }
    for (const length of [0, 32, 1119, 1121]) {
      await assert.rejects(
        multiRecipientDecrypt(withSlot(envelope, 0, { enc: new Uint8Array(length).fill(3) }), seed!),
        isDecryptionFailure,
        `enc of ${length}`,
      );
    }
    const lowOrder = slot.enc.slice();
    lowOrder.set(LOW_ORDER, 1088);
    await assert.rejects(
      multiRecipientDecrypt(withSlot(envelope, 0, { enc: lowOrder }), parts!),
      isDecryptionFailure,
      'low-order ephemeral key',
    );
    for (const credential of credentials(bob))
      await assert.rejects(multiRecipientDecrypt(envelope, credential), isDecryptionFailure, 'another key');
    assert.deepEqual(await multiRecipientDecrypt(envelope, seed!), plaintext);
  });

  test('100 hybrid recipients do not hold the event loop in one piece, and the last one opens', async () => {
    const many = [alice, bob, ...(await Promise.all(Array.from({ length: 98 }, () => xwingKeygen())))];
    let done = false;
    let ranBeforeEnd = false;
    const running = multiRecipientEncrypt(
      text('x'),
      many.map((keys) => ({ publicKey: keys.publicKey })),
    ).then((envelope) => {
      done = true;
      return envelope;
    });
    setImmediate(() => {
      ranBeforeEnd = !done;
    });
    const envelope = await running;
    assert.equal(ranBeforeEnd, true);
    assert.deepEqual(await multiRecipientDecrypt(envelope, credentials(many[99]!)[1]!), text('x'));
  });

  test('property: mixed envelopes of 1 to 4 recipients round-trip for each of them (fast-check, fixed seed)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 0, maxLength: 1024 }),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 4 }),
        async (plaintext, hybridFlags) => {
          const classical = keyPairs(hybridFlags.length);
          const hybrid = [alice, bob, alice, bob];
          // Each recipient at most once: a hybrid key may appear only once per envelope.
          const usedHybrid = new Set<number>();
          const recipients = hybridFlags.map((isHybrid, index) => {
            if (isHybrid && !usedHybrid.has(index % 2)) {
              usedHybrid.add(index % 2);
              return {
                type: 'x25519-ml-kem-768',
                publicKey: hybrid[index]!.publicKey,
                credential: credentials(hybrid[index]!)[index % 2]!,
              };
            }
            return {
              type: 'x25519',
              publicKey: classical[index]!.publicKey,
              credential: { privateKey: classical[index]!.secretKey } as const,
            };
          });
          const envelope = await multiRecipientEncrypt(plaintext, recipients);
          for (const { credential } of recipients)
            assert.deepEqual(await multiRecipientDecrypt(envelope, credential), plaintext);
        },
      ),
      { seed: 0x6879, numRuns: 20 },
    );
  });
});
