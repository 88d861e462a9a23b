/**
 * The two post-quantum backends against each other, in both directions: node:crypto (OpenSSL 3.5,
 * Node 24) and @noble/post-quantum (pure JavaScript, what Node 22 runs). Same keys from the same
 * seeds; what one encapsulates the other decapsulates; what one signs the other verifies; both
 * refuse the same malformed keys. Every ML-KEM and ML-DSA parameter set; SLH-DSA on three fast sets and one
 * small-signature ('s') set, within a few seconds.
 *
 * The comparison needs both backends in one process, so it runs where node:crypto has them (Node
 * 24). On a runtime without them (Node 22), each family instead checks that the native backend is
 * reported absent and that asking for it is an explicit error rather than a silent fallback.
 *
 * X-Wing is compared with two independent implementations of the whole KEM on every runtime:
 * @noble/post-quantum's ml_kem768_x25519 and @hpke/hybridkem-x-wing (HPKE's X-Wing KEM, which the
 * sealed box and the multi-recipient envelope will use).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { ml_kem512, ml_kem768, ml_kem1024 } from '@noble/post-quantum/ml-kem.js';
import { ml_dsa44, ml_dsa65, ml_dsa87 } from '@noble/post-quantum/ml-dsa.js';
import { ml_kem768_x25519 } from '@noble/post-quantum/hybrid.js';
import { XWing } from '@hpke/hybridkem-x-wing';
import { CryptoError } from '../src/errors.ts';
import {
  ML_KEM_ALGORITHM_IDS,
  ML_KEM_PARAMETERS,
  mlKemDecapsulate,
  mlKemEncapsulate,
  mlKemKeygen,
  mlKemKeyPairFromSeed,
} from '../src/ml-kem.ts';
import { ML_DSA_ALGORITHM_IDS, ML_DSA_PARAMETERS, mlDsaKeygen, mlDsaSign, mlDsaVerify } from '../src/ml-dsa.ts';
import { SLH_DSA_PARAMETERS, slhDsaKeygen, slhDsaSign, slhDsaVerify } from '../src/slh-dsa.ts';
import { PQ_NATIVE_SUPPORT, type PqBackend } from '../src/pq-common.ts';
import { xwingDecapsulate, xwingDeriveKeyPair, xwingEncapsulate, xwingKeyPairFromSeed } from '../src/xwing.ts';

const NOBLE_KEM = { 'ml-kem-512': ml_kem512, 'ml-kem-768': ml_kem768, 'ml-kem-1024': ml_kem1024 } as const;
const NOBLE_DSA = { 'ml-dsa-44': ml_dsa44, 'ml-dsa-65': ml_dsa65, 'ml-dsa-87': ml_dsa87 } as const;
const bytes = (length: number) => new Uint8Array(randomBytes(length));
const text = (value: string) => new TextEncoder().encode(value);
const ML_KEM_BACKENDS: PqBackend[] = PQ_NATIVE_SUPPORT.mlKem ? ['native', 'noble'] : ['noble'];

function refusesNative(family: string, call: () => Promise<unknown>) {
  test(`${family}: this runtime has no native backend; asking for one is an explicit error`, async () => {
    await assert.rejects(call(), (error: unknown) => {
      assert.ok(!(error instanceof CryptoError), 'a programming error, not a client one');
      assert.match(String(error), /node:crypto on Node .* has no .*; use the noble backend/);
      return true;
    });
  });
}

describe('ML-KEM: node:crypto ⇄ @noble/post-quantum', () => {
  if (!PQ_NATIVE_SUPPORT.mlKem) {
    refusesNative('ML-KEM', () => mlKemKeygen('ml-kem-768', { backend: 'native' }));
    return;
  }
  for (const id of ML_KEM_ALGORITHM_IDS) {
    test(`${id}: the same seed gives the same public key`, () => {
      for (let i = 0; i < 5; i++) {
        const seed = bytes(64);
        assert.deepEqual(
          mlKemKeyPairFromSeed(seed, id, { backend: 'native' }),
          mlKemKeyPairFromSeed(seed, id, { backend: 'noble' }),
        );
      }
    });

    test(`${id}: each decapsulates what the other encapsulates, from the seed and from the expanded key`, async () => {
      const native = await mlKemKeygen(id, { backend: 'native' });
      const noble = await mlKemKeygen(id, { backend: 'noble' });
      for (const [keys, sender, receiver] of [
        [native, 'noble', 'native'],
        [noble, 'native', 'noble'],
        [native, 'native', 'noble'],
        [noble, 'noble', 'native'],
      ] as const) {
        const sent = await mlKemEncapsulate(keys.publicKey, { backend: sender });
        const fromSeed = await mlKemDecapsulate(keys.secretKey, sent.ciphertext, id, { backend: receiver });
        assert.deepEqual(fromSeed.sharedSecret, sent.sharedSecret, `${sender} → ${receiver}`);
        const expanded = NOBLE_KEM[id].keygen(keys.secretKey).secretKey;
        const fromExpanded = await mlKemDecapsulate(expanded, sent.ciphertext, undefined, { backend: receiver });
        assert.deepEqual(fromExpanded.sharedSecret, sent.sharedSecret, `${sender} → ${receiver}, expanded key`);
      }
    });

    test(`${id}: the implicit-rejection secret of a tampered ciphertext is the same on both`, async () => {
      const keys = await mlKemKeygen(id);
      const sent = await mlKemEncapsulate(keys.publicKey);
      const tampered = sent.ciphertext.slice();
      tampered[tampered.length - 1] = (tampered[tampered.length - 1] ?? 0) ^ 0x40;
      const native = await mlKemDecapsulate(keys.secretKey, tampered, id, { backend: 'native' });
      const noble = await mlKemDecapsulate(keys.secretKey, tampered, id, { backend: 'noble' });
      assert.deepEqual(native, noble);
      assert.notDeepEqual(native.sharedSecret, sent.sharedSecret);
    });

    test(`${id}: both refuse an expanded key whose H(ek) is wrong, and an unreduced public key`, async () => {
      const seed = bytes(64);
      const expanded = NOBLE_KEM[id].keygen(seed).secretKey;
      expanded[expanded.length - 40] = (expanded[expanded.length - 40] ?? 0) ^ 1;
      const publicKey = mlKemKeyPairFromSeed(seed, id).publicKey;
      publicKey[0] = 0xff;
      publicKey[1] = (publicKey[1] ?? 0) | 0x0f;
      for (const backend of ['native', 'noble'] as const) {
        await assert.rejects(
          mlKemDecapsulate(expanded, new Uint8Array(ML_KEM_PARAMETERS[id].ciphertextLength), undefined, { backend }),
          CryptoError,
        );
        await assert.rejects(mlKemEncapsulate(publicKey, { backend }), CryptoError);
      }
    });
  }
});

describe('ML-DSA: node:crypto ⇄ @noble/post-quantum', () => {
  if (!PQ_NATIVE_SUPPORT.mlDsa) {
    refusesNative('ML-DSA', () => mlDsaSign(new Uint8Array(32), text('m'), { backend: 'native' }));
    return;
  }
  for (const id of ML_DSA_ALGORITHM_IDS) {
    test(`${id}: the same seed gives the same public key`, async () => {
      for (let i = 0; i < 3; i++) {
        const seed = bytes(32);
        assert.deepEqual(
          await mlDsaKeygen(id, { seed, backend: 'native' }),
          await mlDsaKeygen(id, { seed, backend: 'noble' }),
        );
      }
      const fresh = await mlDsaKeygen(id, { backend: 'native' });
      assert.deepEqual(await mlDsaKeygen(id, { seed: fresh.secretKey, backend: 'noble' }), fresh);
    });

    test(`${id}: each verifies what the other signs, with and without a context, from the seed and the expanded key`, async () => {
      const keys = await mlDsaKeygen(id);
      const expanded = NOBLE_DSA[id].keygen(keys.secretKey).secretKey;
      const message = bytes(100);
      for (const context of [undefined, text('differential')]) {
        for (const secretKey of [keys.secretKey, expanded]) {
          for (const [signer, verifier] of [
            ['native', 'noble'],
            ['noble', 'native'],
          ] as const) {
            const { signature } = await mlDsaSign(secretKey, message, { algorithm: id, context, backend: signer });
            const { valid } = await mlDsaVerify(keys.publicKey, message, signature, { context, backend: verifier });
            assert.equal(
              valid,
              true,
              `${signer} → ${verifier}, ${secretKey.byteLength}-byte key, context ${context === undefined ? 'none' : 'given'}`,
            );
          }
        }
      }
    });

    test(`${id}: both refuse the same altered expanded keys (OpenSSL's import check and ours)`, async () => {
      const { secretKey } = NOBLE_DSA[id].keygen(bytes(32));
      const { k, l, eta } = ML_DSA_PARAMETERS[id];
      const etaBytes = eta === 2 ? 96 : 128;
      const s2 = 128 + l * etaBytes;
      const t0 = s2 + k * etaBytes;
      // ρ, K (not checkable: both accept), tr, s1, s2, t0.
      for (const offset of [3, 40, 100, 128 + 5, s2 + 5, t0 + 5, secretKey.length - 1]) {
        const altered = secretKey.slice();
        altered[offset] = (altered[offset] ?? 0) ^ 0x01;
        const outcomes = [];
        for (const backend of ['native', 'noble'] as const) {
          outcomes.push(
            await mlDsaSign(altered, text('m'), { backend }).then(
              () => 'signed',
              (error: unknown) => (error instanceof CryptoError ? 'refused' : String(error)),
            ),
          );
        }
        assert.equal(outcomes[0], outcomes[1], `offset ${offset}: node:crypto ${outcomes[0]}, noble ${outcomes[1]}`);
        assert.equal(outcomes[0], offset === 40 ? 'signed' : 'refused', `offset ${offset}`);
      }
    });
  }
});

describe('SLH-DSA: node:crypto ⇄ @noble/post-quantum', () => {
  if (!PQ_NATIVE_SUPPORT.slhDsa) {
    refusesNative('SLH-DSA', () => slhDsaKeygen('slh-dsa-sha2-128f', { backend: 'native' }));
    return;
  }
  for (const algorithm of [
    'slh-dsa-sha2-128f',
    'slh-dsa-sha2-192f',
    'slh-dsa-shake-128f',
    'slh-dsa-sha2-128s',
  ] as const) {
    const { n } = SLH_DSA_PARAMETERS[algorithm];
    test(`${algorithm}: the same keys, and each verifies what the other signs`, async () => {
      // node:crypto takes no seed: its key pair is recomputed by noble from SK.seed ‖ SK.prf ‖
      // PK.seed, which checks its PK.root (the root of the top XMSS tree).
      const native = await slhDsaKeygen(algorithm, { backend: 'native' });
      const recomputed = await slhDsaKeygen(algorithm, { seed: native.secretKey.subarray(0, 3 * n) });
      assert.deepEqual(recomputed, native);
      const noble = await slhDsaKeygen(algorithm, { seed: bytes(3 * n) });
      const message = bytes(64);
      const context = text('slh');
      for (const [keys, signer, verifier] of [
        [noble, 'native', 'noble'],
        [native, 'noble', 'native'],
      ] as const) {
        const { signature } = await slhDsaSign(keys.secretKey, message, { algorithm, context, backend: signer });
        assert.equal(
          (await slhDsaVerify(keys.publicKey, message, signature, { algorithm, context, backend: verifier })).valid,
          true,
          `${signer} → ${verifier}`,
        );
        assert.equal(
          (await slhDsaVerify(keys.publicKey, message, signature, { algorithm, backend: verifier })).valid,
          false,
          `${signer} → ${verifier}, context dropped`,
        );
      }
    });
  }
});

describe('X-Wing against @noble/post-quantum ml_kem768_x25519 and @hpke/hybridkem-x-wing', () => {
  for (const backend of ML_KEM_BACKENDS) {
    test(`the same key pairs, and each decapsulates what the others encapsulate (ML-KEM on ${backend})`, async () => {
      const seed = bytes(32);
      const ours = xwingKeyPairFromSeed(seed, { backend });
      assert.deepEqual(ours.publicKey, ml_kem768_x25519.keygen(seed).publicKey);
      const hpke = new XWing();
      const hpkeKeys = await hpke.generateKeyPairDerand(seed);
      assert.deepEqual(ours.publicKey, new Uint8Array(await hpke.serializePublicKey(hpkeKeys.publicKey)));

      const fromNoble = ml_kem768_x25519.encapsulate(ours.publicKey);
      assert.deepEqual(
        (await xwingDecapsulate(seed, fromNoble.cipherText, { backend })).sharedSecret,
        fromNoble.sharedSecret,
      );
      const fromHpke = await hpke.encap({ recipientPublicKey: hpkeKeys.publicKey });
      assert.deepEqual(
        (await xwingDecapsulate(seed, new Uint8Array(fromHpke.enc), { backend })).sharedSecret,
        new Uint8Array(fromHpke.sharedSecret),
      );

      const sent = await xwingEncapsulate(ours.publicKey, { backend });
      assert.deepEqual(ml_kem768_x25519.decapsulate(sent.ciphertext, seed), sent.sharedSecret);
      assert.deepEqual(
        new Uint8Array(await hpke.decap({ enc: sent.ciphertext, recipientKey: hpkeKeys.privateKey })),
        sent.sharedSecret,
      );
    });
  }

  test('HPKE DeriveKeyPair matches @hpke/hybridkem-x-wing', async () => {
    const hpke = new XWing();
    for (const length of [32, 64, 100]) {
      const ikm = bytes(length);
      const theirs = await hpke.deriveKeyPair(ikm);
      const ours = xwingDeriveKeyPair(ikm);
      assert.deepEqual(ours.publicKey, new Uint8Array(await hpke.serializePublicKey(theirs.publicKey)));
      assert.deepEqual(ours.secretKey, new Uint8Array(await hpke.serializePrivateKey(theirs.privateKey)));
    }
  });

  test('a low-order X25519 ephemeral key is refused here and by noble alike', async () => {
    const seed = bytes(32);
    const ciphertext = (await xwingEncapsulate(xwingKeyPairFromSeed(seed).publicKey)).ciphertext;
    ciphertext.fill(0, 1088);
    await assert.rejects(xwingDecapsulate(seed, ciphertext), CryptoError);
    assert.throws(() => ml_kem768_x25519.decapsulate(ciphertext, seed));
  });
});
