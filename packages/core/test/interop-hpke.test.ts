/**
 * Interoperability of the multi-recipient slots with an independent RFC 9180 implementation:
 * @hpke/core with @hpke/dhkem-x25519's sibling KEM, HKDF-SHA256 and @hpke/chacha20poly1305, in
 * both directions. Nothing on that side is ours: KEM, labelled KDF, key schedule, nonces and AEAD.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CipherSuite, DhkemX25519HkdfSha256, HkdfSha256 } from '@hpke/core';
import { Chacha20Poly1305 } from '@hpke/chacha20poly1305';
import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import {
  MULTI_RECIPIENT_INFO,
  multiRecipientDecrypt,
  multiRecipientEncrypt,
  MULTI_RECIPIENT_PAYLOAD_KEY_LENGTH,
} from '../src/multi-recipient.ts';
import { DHKEM_X25519_HKDF_SHA256 as kem, hpkeOpen } from '../src/hpke.ts';
import { xchachaSeal } from '../src/aead.ts';
import { CryptoError } from '../src/errors.ts';

const suite = new CipherSuite({
  kem: new DhkemX25519HkdfSha256(),
  kdf: new HkdfSha256(),
  aead: new Chacha20Poly1305(),
});

describe('multi-recipient slots interoperate with @hpke/core', () => {
  test('@hpke/core opens each of our slots with the recipient key and info, and the payload key opens our payload', async () => {
    const pairs = [await kem.generateKeyPair(), await kem.generateKeyPair(), await kem.generateKeyPair()];
    for (const length of [0, 1, 100, 3000]) {
      const plaintext = new Uint8Array(length).map((_, i) => (i * 31 + 7) & 0xff);
      const envelope = await multiRecipientEncrypt(
        plaintext,
        pairs.map((pair) => ({ type: 'x25519', publicKey: pair.publicKey })),
      );
      for (const [index, pair] of pairs.entries()) {
        const slot = envelope.recipients[index]!;
        const recipientKey = await suite.kem.deserializePrivateKey(pair.secretKey);
        const payloadKey = new Uint8Array(
          await suite.open({ recipientKey, enc: slot.enc, info: MULTI_RECIPIENT_INFO }, slot.wrappedKey),
        );
        assert.equal(payloadKey.byteLength, MULTI_RECIPIENT_PAYLOAD_KEY_LENGTH);
        // @noble/ciphers' XChaCha20-Poly1305 opens the payload: nonce (24 B) ‖ ciphertext ‖ tag.
        const opened = xchacha20poly1305(payloadKey, envelope.ciphertext.subarray(0, 24)).decrypt(
          envelope.ciphertext.subarray(24),
        );
        assert.deepEqual(opened, plaintext, `length ${length}, recipient ${index}`);
      }
    }
  });

  test('a key pair that @hpke/core generates works on both sides: its public key for our envelope, its private key for both opens', async () => {
    const theirs = await suite.kem.generateKeyPair();
    const publicKey = new Uint8Array(await suite.kem.serializePublicKey(theirs.publicKey));
    const secretKey = new Uint8Array(await suite.kem.serializePrivateKey(theirs.privateKey));
    const plaintext = new TextEncoder().encode('to a key made by @hpke/core');
    const envelope = await multiRecipientEncrypt(plaintext, [{ type: 'x25519', publicKey }]);
    const slot = envelope.recipients[0]!;
    const payloadKey = new Uint8Array(
      await suite.open({ recipientKey: theirs, enc: slot.enc, info: MULTI_RECIPIENT_INFO }, slot.wrappedKey),
    );
    assert.deepEqual(
      xchacha20poly1305(payloadKey, envelope.ciphertext.subarray(0, 24)).decrypt(envelope.ciphertext.subarray(24)),
      plaintext,
    );
    assert.deepEqual(await multiRecipientDecrypt(envelope, { privateKey: secretKey }), plaintext);
  });

  test('@hpke/core refuses our slot under any other info string: the info is exactly the documented one', async () => {
    const pair = await kem.generateKeyPair();
    const envelope = await multiRecipientEncrypt(new Uint8Array([1, 2, 3]), [
      { type: 'x25519', publicKey: pair.publicKey },
    ]);
    const slot = envelope.recipients[0]!;
    const recipientKey = await suite.kem.deserializePrivateKey(pair.secretKey);
    assert.equal(new TextDecoder().decode(MULTI_RECIPIENT_INFO), 'crypto-service/v2/multi-recipient');
    for (const info of ['', 'crypto-service/v2/multi-recipient/', 'crypto-service/v2/sealedbox-pq']) {
      await assert.rejects(
        suite.open({ recipientKey, enc: slot.enc, info: new TextEncoder().encode(info) }, slot.wrappedKey),
        `info '${info}'`,
      );
    }
  });

  test('a slot that @hpke/core seals to our public key is opened by our core, and the envelope decrypts', async () => {
    const pair = await kem.generateKeyPair();
    const recipientPublicKey = await suite.kem.deserializePublicKey(pair.publicKey);
    for (const length of [0, 5, 4096]) {
      const plaintext = new Uint8Array(length).map((_, i) => (i * 17 + 3) & 0xff);
      const payloadKey = crypto.getRandomValues(new Uint8Array(MULTI_RECIPIENT_PAYLOAD_KEY_LENGTH));
      const sealed = await suite.seal({ recipientPublicKey, info: MULTI_RECIPIENT_INFO }, payloadKey);
      const enc = new Uint8Array(sealed.enc);
      const wrappedKey = new Uint8Array(sealed.ct);
      assert.deepEqual(
        await hpkeOpen(kem, pair.secretKey, enc, MULTI_RECIPIENT_INFO, new Uint8Array(0), wrappedKey),
        payloadKey,
      );
      const envelope = {
        ciphertext: xchachaSeal(payloadKey, plaintext),
        recipients: [{ type: 'x25519', enc, wrappedKey }],
      };
      assert.deepEqual(
        await multiRecipientDecrypt(envelope, { privateKey: pair.secretKey }),
        plaintext,
        `length ${length}`,
      );
    }
  });

  test('our core opens a whole message that @hpke/core sealed with a non-empty AAD, and refuses it without that AAD', async () => {
    const pair = await kem.generateKeyPair();
    const recipientPublicKey = await suite.kem.deserializePublicKey(pair.publicKey);
    const info = new TextEncoder().encode('interop info');
    const aad = new TextEncoder().encode('interop aad');
    const plaintext = new TextEncoder().encode('sealed by @hpke/core');
    const sealed = await suite.seal({ recipientPublicKey, info }, plaintext, aad);
    const enc = new Uint8Array(sealed.enc);
    const ciphertext = new Uint8Array(sealed.ct);
    assert.deepEqual(await hpkeOpen(kem, pair.secretKey, enc, info, aad, ciphertext), plaintext);
    await assert.rejects(
      hpkeOpen(kem, pair.secretKey, enc, info, new Uint8Array(0), ciphertext),
      (error: unknown) => error instanceof CryptoError && error.code === 'DECRYPTION_FAILED',
    );
  });
});
