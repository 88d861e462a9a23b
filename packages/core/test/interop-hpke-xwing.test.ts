/**
 * Interoperability of X-Wing in HPKE with an independent implementation: @hpke/core with
 * @hpke/hybridkem-x-wing's XWing KEM (its own ML-KEM, X25519 and SHA-3), HkdfSha256 and
 * @hpke/chacha20poly1305, in both directions, for the post-quantum sealed box
 * (`/v2/sealedbox/seal-pq`) and the hybrid slots of the multi-recipient envelope. The other side is
 * given only what a recipient holds: the 32-byte X-Wing seed, or the 1216-byte public key.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CipherSuite, DhkemX25519HkdfSha256, HkdfSha256 } from '@hpke/core';
import { Chacha20Poly1305 } from '@hpke/chacha20poly1305';
import { XWing } from '@hpke/hybridkem-x-wing';
import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { PQ_SEALED_BOX_INFO, openBoxPq, sealBoxPq } from '../src/sealedbox-pq.ts';
import {
  MULTI_RECIPIENT_INFO,
  MULTI_RECIPIENT_PAYLOAD_KEY_LENGTH,
  multiRecipientDecrypt,
  multiRecipientEncrypt,
} from '../src/multi-recipient.ts';
import { XWING_HPKE_KEM, xwingKeygen } from '../src/xwing.ts';
import { DHKEM_X25519_HKDF_SHA256 } from '../src/hpke.ts';
import { xchachaSeal } from '../src/aead.ts';

const suite = new CipherSuite({ kem: new XWing(), kdf: new HkdfSha256(), aead: new Chacha20Poly1305() });
const classicalSuite = new CipherSuite({
  kem: new DhkemX25519HkdfSha256(),
  kdf: new HkdfSha256(),
  aead: new Chacha20Poly1305(),
});

const text = (value: string) => new TextEncoder().encode(value);
const buffer = (bytes: Uint8Array) => bytes.slice().buffer;
const patterned = (length: number, step: number) => new Uint8Array(length).map((_, i) => (i * step + 1) & 0xff);

/** @hpke/core's recipient key from the X-Wing seed. */
const theirPrivateKey = (seed: Uint8Array) => suite.kem.deserializePrivateKey(buffer(seed));

describe('the post-quantum sealed box interoperates with @hpke/core + @hpke/hybridkem-x-wing', () => {
  test('@hpke/core opens our sealed boxes with the X-Wing seed, whichever public-key form sealed them', async () => {
    const keys = await xwingKeygen();
    const recipientKey = await theirPrivateKey(keys.secretKey);
    for (const length of [0, 1, 100, 5000]) {
      const plaintext = patterned(length, 13);
      for (const recipient of [
        { publicKey: keys.publicKey },
        { x25519PublicKey: keys.x25519PublicKey, mlKemPublicKey: keys.mlKemPublicKey },
      ]) {
        const sealed = await sealBoxPq(recipient, plaintext);
        const opened = await suite.open(
          { recipientKey, enc: buffer(sealed.subarray(0, 1120)), info: buffer(PQ_SEALED_BOX_INFO) },
          buffer(sealed.subarray(1120)),
        );
        assert.deepEqual(new Uint8Array(opened), plaintext, `length ${length}`);
      }
    }
  });

  test('a box that @hpke/core seals to our public key opens here, with the seed and with its parts', async () => {
    const keys = await xwingKeygen();
    const recipientPublicKey = await suite.kem.deserializePublicKey(buffer(keys.publicKey));
    for (const length of [0, 33, 4096]) {
      const plaintext = patterned(length, 29);
      const { enc, ct } = await suite.seal({ recipientPublicKey, info: buffer(PQ_SEALED_BOX_INFO) }, buffer(plaintext));
      assert.equal(enc.byteLength, 1120);
      const sealed = new Uint8Array([...new Uint8Array(enc), ...new Uint8Array(ct)]);
      assert.deepEqual(await openBoxPq({ privateKey: keys.secretKey }, sealed), plaintext, `seed, length ${length}`);
      assert.deepEqual(
        await openBoxPq({ x25519PrivateKey: keys.x25519PrivateKey, mlKemPrivateKey: keys.mlKemSecretKey }, sealed),
        plaintext,
        `parts, length ${length}`,
      );
    }
  });

  test('@hpke/core refuses our box under any other info: the info is exactly the documented one', async () => {
    const keys = await xwingKeygen();
    const sealed = await sealBoxPq({ publicKey: keys.publicKey }, text('bound to its use'));
    const recipientKey = await theirPrivateKey(keys.secretKey);
    for (const info of ['', 'crypto-service/v2/sealedbox-pq/', 'crypto-service/v2/multi-recipient']) {
      await assert.rejects(
        suite.open(
          { recipientKey, enc: buffer(sealed.subarray(0, 1120)), info: buffer(text(info)) },
          buffer(sealed.subarray(1120)),
        ),
        `info '${info}'`,
      );
    }
  });

  test('DeriveKeyPair agrees, and a key pair that @hpke/core generates works here on both sides', async () => {
    for (const ikm of [new Uint8Array(32), text('another input keying material, longer than 32 bytes')]) {
      const theirs = await suite.kem.deriveKeyPair(buffer(ikm));
      const ours = XWING_HPKE_KEM.deriveKeyPair(ikm);
      assert.deepEqual(new Uint8Array(await suite.kem.serializePublicKey(theirs.publicKey)), ours.publicKey);
      assert.deepEqual(new Uint8Array(await suite.kem.serializePrivateKey(theirs.privateKey)), ours.secretKey);
    }
    const generated = await suite.kem.generateKeyPair();
    const publicKey = new Uint8Array(await suite.kem.serializePublicKey(generated.publicKey));
    const secretKey = new Uint8Array(await suite.kem.serializePrivateKey(generated.privateKey));
    const sealed = await sealBoxPq({ publicKey }, text('to a key made by @hpke'));
    assert.deepEqual(await openBoxPq({ privateKey: secretKey }, sealed), text('to a key made by @hpke'));
  });
});

describe('the hybrid multi-recipient slots interoperate with @hpke/core + @hpke/hybridkem-x-wing', () => {
  test('@hpke/core opens each hybrid slot of a mixed envelope with the X-Wing seed, and the payload key opens the payload', async () => {
    const hybrid = [await xwingKeygen(), await xwingKeygen()];
    const classical = await DHKEM_X25519_HKDF_SHA256.generateKeyPair();
    const plaintext = patterned(777, 7);
    const envelope = await multiRecipientEncrypt(plaintext, [
      { type: 'x25519-ml-kem-768', publicKey: hybrid[0]!.publicKey },
      { type: 'x25519', publicKey: classical.publicKey },
      { x25519PublicKey: hybrid[1]!.x25519PublicKey, mlKemPublicKey: hybrid[1]!.mlKemPublicKey },
    ]);
    assert.deepEqual(
      envelope.recipients.map((slot) => [slot.type, slot.enc.byteLength]),
      [
        ['x25519-ml-kem-768', 1120],
        ['x25519', 32],
        ['x25519-ml-kem-768', 1120],
      ],
    );
    const open = (slotIndex: number, recipientKey: Parameters<typeof suite.open>[0]['recipientKey'], using = suite) => {
      const slot = envelope.recipients[slotIndex]!;
      return using.open(
        { recipientKey, enc: buffer(slot.enc), info: buffer(MULTI_RECIPIENT_INFO) },
        buffer(slot.wrappedKey),
      );
    };
    for (const [slotIndex, keys] of [
      [0, hybrid[0]!],
      [2, hybrid[1]!],
    ] as const) {
      const payloadKey = new Uint8Array(await open(slotIndex, await theirPrivateKey(keys.secretKey)));
      assert.equal(payloadKey.byteLength, MULTI_RECIPIENT_PAYLOAD_KEY_LENGTH);
      assert.deepEqual(
        xchacha20poly1305(payloadKey, envelope.ciphertext.subarray(0, 24)).decrypt(envelope.ciphertext.subarray(24)),
        plaintext,
      );
    }
    // And the classical slot with @hpke's DHKEM(X25519), the same payload key.
    const classicalKey = new Uint8Array(
      await open(1, await classicalSuite.kem.deserializePrivateKey(buffer(classical.secretKey)), classicalSuite),
    );
    assert.deepEqual(
      xchacha20poly1305(classicalKey, envelope.ciphertext.subarray(0, 24)).decrypt(envelope.ciphertext.subarray(24)),
      plaintext,
    );
  });

  test('a hybrid slot that @hpke/core seals to our key opens here, with the seed and with the parts', async () => {
    const keys = await xwingKeygen();
    const recipientPublicKey = await suite.kem.deserializePublicKey(buffer(keys.publicKey));
    const payloadKey = crypto.getRandomValues(new Uint8Array(MULTI_RECIPIENT_PAYLOAD_KEY_LENGTH));
    const { enc, ct } = await suite.seal(
      { recipientPublicKey, info: buffer(MULTI_RECIPIENT_INFO) },
      buffer(payloadKey),
    );
    const plaintext = text('an envelope assembled around a slot of @hpke/core');
    const envelope = {
      ciphertext: xchachaSeal(payloadKey, plaintext),
      recipients: [{ type: 'x25519-ml-kem-768', enc: new Uint8Array(enc), wrappedKey: new Uint8Array(ct) }],
    };
    assert.deepEqual(await multiRecipientDecrypt(envelope, { privateKey: keys.secretKey }), plaintext);
    assert.deepEqual(
      await multiRecipientDecrypt(envelope, {
        x25519PrivateKey: keys.x25519PrivateKey,
        mlKemPrivateKey: keys.mlKemSecretKey,
      }),
      plaintext,
    );
  });
});
