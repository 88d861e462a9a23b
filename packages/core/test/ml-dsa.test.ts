import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ml_dsa44, ml_dsa65, ml_dsa87 } from '@noble/post-quantum/ml-dsa.js';
import { CryptoError } from '../src/errors.ts';
import {
  ML_DSA_ALGORITHM_IDS,
  ML_DSA_PARAMETERS,
  mlDsaAlgorithmForPublicKey,
  mlDsaAlgorithmForSecretKey,
  mlDsaExpandedKeyIsConsistent,
  mlDsaKeygen,
  mlDsaSign,
  mlDsaVerify,
} from '../src/ml-dsa.ts';

function invalid(field: string) {
  return (error: unknown) => {
    assert.ok(error instanceof CryptoError, String(error));
    assert.equal(error.code, 'INVALID_INPUT');
    assert.equal(error.field, field, error.message);
    return true;
  };
}

/** Asserts a CryptoError UNSUPPORTED_ALGORITHM that names `field` and lists the valid identifiers. */
function unsupported(field: string) {
  return (error: unknown) => {
    assert.ok(error instanceof CryptoError, String(error));
    assert.equal(error.code, 'UNSUPPORTED_ALGORITHM');
    assert.equal(error.field, field, error.message);
    assert.match(error.message, /must be one of: /);
    return true;
  };
}

const NOBLE = { 'ml-dsa-44': ml_dsa44, 'ml-dsa-65': ml_dsa65, 'ml-dsa-87': ml_dsa87 } as const;
const seedOf = (byte: number) => new Uint8Array(32).fill(byte);
const text = (value: string) => new TextEncoder().encode(value);

describe('ML-DSA parameters (FIPS 204 Table 2)', () => {
  test('the identifiers, levels and sizes', () => {
    assert.deepEqual(ML_DSA_ALGORITHM_IDS, ['ml-dsa-44', 'ml-dsa-65', 'ml-dsa-87']);
    const sizes = ML_DSA_ALGORITHM_IDS.map((id) => {
      const { level, publicKeyLength, expandedSecretKeyLength, signatureLength } = ML_DSA_PARAMETERS[id];
      return [level, publicKeyLength, expandedSecretKeyLength, signatureLength];
    });
    assert.deepEqual(sizes, [
      [44, 1312, 2560, 2420],
      [65, 1952, 4032, 3309],
      [87, 2592, 4896, 4627],
    ]);
  });
});

describe('ML-DSA signatures', () => {
  for (const id of ML_DSA_ALGORITHM_IDS) {
    const { publicKeyLength, signatureLength } = ML_DSA_PARAMETERS[id];
    test(`${id}: sign and verify, with and without a context; the wrong message, context or key fail`, async () => {
      const keys = await mlDsaKeygen(id);
      assert.equal(keys.algorithm, id);
      assert.equal(keys.publicKey.byteLength, publicKeyLength);
      assert.equal(keys.secretKey.byteLength, 32);
      const message = text('attack at dawn');
      const context = text('crypto-service test');
      const plain = await mlDsaSign(keys.secretKey, message, { algorithm: id });
      const bound = await mlDsaSign(keys.secretKey, message, { algorithm: id, context });
      assert.equal(plain.signature.byteLength, signatureLength);
      assert.deepEqual(await mlDsaVerify(keys.publicKey, message, plain.signature), { algorithm: id, valid: true });
      assert.equal((await mlDsaVerify(keys.publicKey, message, bound.signature, { context })).valid, true);
      // The context is part of what is signed (FIPS 204 Algorithm 2, M′ = 0 ‖ |ctx| ‖ ctx ‖ M).
      assert.equal((await mlDsaVerify(keys.publicKey, message, bound.signature)).valid, false);
      assert.equal((await mlDsaVerify(keys.publicKey, message, plain.signature, { context })).valid, false);
      assert.equal((await mlDsaVerify(keys.publicKey, text('attack at dusk'), plain.signature)).valid, false);
      const other = await mlDsaKeygen(id);
      assert.equal((await mlDsaVerify(other.publicKey, message, plain.signature)).valid, false);
    });
  }

  test('signing is hedged: two signatures of one message differ and both verify', async () => {
    const keys = await mlDsaKeygen('ml-dsa-44');
    const message = text('same message');
    const a = await mlDsaSign(keys.secretKey, message, { algorithm: 'ml-dsa-44' });
    const b = await mlDsaSign(keys.secretKey, message, { algorithm: 'ml-dsa-44' });
    assert.notDeepEqual(a.signature, b.signature);
    assert.equal((await mlDsaVerify(keys.publicKey, message, a.signature)).valid, true);
    assert.equal((await mlDsaVerify(keys.publicKey, message, b.signature)).valid, true);
  });

  test('the deterministic variant (rnd = 0^32, tests only) gives one signature, which verifies', async () => {
    const randomness = new Uint8Array(32);
    const a = await mlDsaSign(seedOf(1), text('m'), { algorithm: 'ml-dsa-44', randomness });
    const b = await mlDsaSign(seedOf(1), text('m'), { algorithm: 'ml-dsa-44', randomness });
    assert.deepEqual(a, b);
    const keys = await mlDsaKeygen('ml-dsa-44', { seed: seedOf(1) });
    assert.equal((await mlDsaVerify(keys.publicKey, text('m'), a.signature)).valid, true);
    await assert.rejects(mlDsaSign(seedOf(1), text('m'), { randomness, backend: 'native' }), /noble backend/);
    await assert.rejects(mlDsaSign(seedOf(1), text('m'), { randomness: new Uint8Array(31) }), invalid('/randomness'));
  });

  test('any single-bit change of a signature makes it fail', async () => {
    const keys = await mlDsaKeygen('ml-dsa-44', { seed: seedOf(2) });
    const message = text('bit flips');
    const { signature } = await mlDsaSign(keys.secretKey, message, { algorithm: 'ml-dsa-44' });
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: signature.byteLength * 8 - 1 }), async (bit) => {
        const tampered = signature.slice();
        tampered[bit >> 3] = (tampered[bit >> 3] ?? 0) ^ (1 << (bit & 7));
        assert.equal((await mlDsaVerify(keys.publicKey, message, tampered)).valid, false);
      }),
      { numRuns: 30 },
    );
  });

  test('a 32-byte seed is ml-dsa-65 by default; algorithm picks another', async () => {
    const seed = seedOf(3);
    const signed = await mlDsaSign(seed, text('m'));
    assert.equal(signed.algorithm, 'ml-dsa-65');
    assert.equal(signed.signature.byteLength, 3309);
    assert.equal((await mlDsaSign(seed, text('m'), { algorithm: 'ml-dsa-87' })).algorithm, 'ml-dsa-87');
    assert.equal(mlDsaAlgorithmForSecretKey(32), 'ml-dsa-65');
    assert.equal(mlDsaAlgorithmForSecretKey(32, 'ml-dsa-44'), 'ml-dsa-44');
  });

  test('the empty message and a 255-byte context are signed like any other', async () => {
    const keys = await mlDsaKeygen('ml-dsa-44', { seed: seedOf(4) });
    const context = new Uint8Array(255).fill(0x41);
    const { signature } = await mlDsaSign(keys.secretKey, new Uint8Array(0), { algorithm: 'ml-dsa-44', context });
    assert.equal((await mlDsaVerify(keys.publicKey, new Uint8Array(0), signature, { context })).valid, true);
  });
});

describe('ML-DSA expanded secret keys', () => {
  for (const id of ML_DSA_ALGORITHM_IDS) {
    test(`${id}: an expanded key signs (its length gives the parameter set), and is consistent`, async () => {
      const seed = seedOf(ML_DSA_PARAMETERS[id].level);
      const { publicKey, secretKey } = NOBLE[id].keygen(seed);
      assert.equal(mlDsaExpandedKeyIsConsistent(id, secretKey), true);
      const signed = await mlDsaSign(secretKey, text('expanded'));
      assert.equal(signed.algorithm, id);
      assert.equal((await mlDsaVerify(publicKey, text('expanded'), signed.signature)).valid, true);
      assert.equal(mlDsaAlgorithmForSecretKey(secretKey.byteLength), id);
    });
  }

  test('an expanded key whose tr or t0 does not follow from ρ, s1 and s2 is refused', async () => {
    const { secretKey } = ml_dsa65.keygen(seedOf(5));
    // ρ (0..32), tr (64..128), s1 (128..768), s2 (768..1536), t0 (1536..4032); K (32..64) is the
    // signing seed, which nothing can check.
    for (const offset of [0, 64, 130, 800, 1600, 4031]) {
      const altered = secretKey.slice();
      altered[offset] = (altered[offset] ?? 0) ^ 1;
      assert.equal(mlDsaExpandedKeyIsConsistent('ml-dsa-65', altered), false, `offset ${offset}`);
      await assert.rejects(mlDsaSign(altered, text('m')), invalid('/privateKey'), `offset ${offset}`);
    }
    const alteredK = secretKey.slice();
    alteredK[40] = (alteredK[40] ?? 0) ^ 1;
    assert.equal(mlDsaExpandedKeyIsConsistent('ml-dsa-65', alteredK), true);
  });

  test('a coefficient of s1 outside [−η, η] is refused', async () => {
    const { secretKey } = ml_dsa44.keygen(seedOf(6));
    const altered = secretKey.slice();
    // η = 2 packs each coefficient in 3 bits as η − s ∈ [0, 4]; 7 is out of range.
    altered[128] = (altered[128] ?? 0) | 0x07;
    assert.equal(mlDsaExpandedKeyIsConsistent('ml-dsa-44', altered), false);
    await assert.rejects(mlDsaSign(altered, text('m')), invalid('/privateKey'));
  });

  test('an algorithm that contradicts an expanded key is refused, naming /algorithm', async () => {
    const { secretKey } = ml_dsa87.keygen(seedOf(7));
    await assert.rejects(mlDsaSign(secretKey, text('m'), { algorithm: 'ml-dsa-44' }), (error: unknown) => {
      assert.ok(invalid('/algorithm')(error));
      assert.match((error as Error).message, /ml-dsa-44 does not match privateKey, a key of ml-dsa-87/);
      return true;
    });
    assert.equal(mlDsaAlgorithmForSecretKey(secretKey.byteLength, 'ml-dsa-44'), undefined);
  });
});

describe('ML-DSA input checks', () => {
  test('secret keys, public keys and signatures of the wrong length name their field', async () => {
    for (const length of [0, 31, 33, 2559, 4033]) {
      await assert.rejects(
        mlDsaSign(new Uint8Array(length), text('m')),
        invalid('/privateKey'),
        `secret key ${length}`,
      );
    }
    const keys = await mlDsaKeygen('ml-dsa-44', { seed: seedOf(8) });
    const { signature } = await mlDsaSign(keys.secretKey, text('m'), { algorithm: 'ml-dsa-44' });
    for (const length of [0, 1311, 1313, 1951]) {
      await assert.rejects(
        mlDsaVerify(new Uint8Array(length), text('m'), signature),
        invalid('/publicKey'),
        `public key ${length}`,
      );
    }
    for (const length of [0, 2419, 2421, 3309]) {
      await assert.rejects(
        mlDsaVerify(keys.publicKey, text('m'), new Uint8Array(length)),
        invalid('/signature'),
        `signature ${length}`,
      );
    }
  });

  test('an unknown identifier, or one that contradicts the public key, is refused', async () => {
    await assert.rejects(mlDsaKeygen('ml-dsa-50'), unsupported('/algorithm'));
    // The numeric levels of earlier versions are not identifiers.
    await assert.rejects(mlDsaKeygen('65'), unsupported('/algorithm'));
    await assert.rejects(mlDsaSign(seedOf(1), text('m'), { algorithm: 'ml-dsa-128' }), unsupported('/algorithm'));
    const keys = await mlDsaKeygen('ml-dsa-44', { seed: seedOf(9) });
    const { signature } = await mlDsaSign(keys.secretKey, text('m'), { algorithm: 'ml-dsa-44' });
    await assert.rejects(
      mlDsaVerify(keys.publicKey, text('m'), signature, { algorithm: 'ml-dsa-65' }),
      invalid('/algorithm'),
    );
    await assert.rejects(
      mlDsaVerify(new Uint8Array(1000), text('m'), signature, { algorithm: 'ml-dsa-65' }),
      invalid('/publicKey'),
    );
    await assert.rejects(
      mlDsaVerify(keys.publicKey, text('m'), signature, { algorithm: 'x' }),
      unsupported('/algorithm'),
    );
    assert.equal(mlDsaAlgorithmForPublicKey(1312, 'ml-dsa-65'), undefined);
    assert.equal((await mlDsaVerify(keys.publicKey, text('m'), signature, { algorithm: 'ml-dsa-44' })).valid, true);
  });

  test('a context over 255 bytes is refused when signing and when verifying', async () => {
    const keys = await mlDsaKeygen('ml-dsa-44', { seed: seedOf(10) });
    const { signature } = await mlDsaSign(keys.secretKey, text('m'), { algorithm: 'ml-dsa-44' });
    const context = new Uint8Array(256);
    await assert.rejects(
      mlDsaSign(keys.secretKey, text('m'), { algorithm: 'ml-dsa-44', context }),
      invalid('/context'),
    );
    await assert.rejects(mlDsaVerify(keys.publicKey, text('m'), signature, { context }), invalid('/context'));
  });

  test('errors can name the fields of another request', async () => {
    const fields = { secretKey: 'key', algorithm: 'parameterSet' };
    await assert.rejects(mlDsaSign(new Uint8Array(31), text('m'), { fields }), invalid('/key'));
    await assert.rejects(
      mlDsaSign(ml_dsa44.keygen(seedOf(11)).secretKey, text('m'), { algorithm: 'ml-dsa-65', fields }),
      invalid('/parameterSet'),
    );
    await assert.rejects(
      mlDsaVerify(new Uint8Array(5), text('m'), new Uint8Array(2420), { fields: { publicKey: 'key' } }),
      invalid('/key'),
    );
    await assert.rejects(
      mlDsaSign(seedOf(1), text('m'), { context: new Uint8Array(300), fields: { context: 'ctx' } }),
      invalid('/ctx'),
    );
  });

  test('a seed for keygen must be 32 bytes', async () => {
    await assert.rejects(mlDsaKeygen('ml-dsa-65', { seed: new Uint8Array(31) }), invalid('/seed'));
  });
});
