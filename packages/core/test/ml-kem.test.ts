import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ml_kem512, ml_kem768, ml_kem1024 } from '@noble/post-quantum/ml-kem.js';
import { CryptoError } from '../src/errors.ts';
import {
  ML_KEM_ALGORITHM_IDS,
  ML_KEM_PARAMETERS,
  mlKemAlgorithmForSecretKey,
  mlKemDecapsulate,
  mlKemEncapsulate,
  mlKemKeygen,
  mlKemKeyPairFromSeed,
} from '../src/ml-kem.ts';

/** Asserts a CryptoError INVALID_INPUT that names `field` (a JSON pointer). */
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

const seedOf = (byte: number) => new Uint8Array(64).fill(byte);
const NOBLE = { 'ml-kem-512': ml_kem512, 'ml-kem-768': ml_kem768, 'ml-kem-1024': ml_kem1024 } as const;

describe('ML-KEM parameters (FIPS 203 Table 3)', () => {
  test('the identifiers, levels and sizes', () => {
    assert.deepEqual(ML_KEM_ALGORITHM_IDS, ['ml-kem-512', 'ml-kem-768', 'ml-kem-1024']);
    const sizes = ML_KEM_ALGORITHM_IDS.map((id) => {
      const { level, publicKeyLength, expandedSecretKeyLength, ciphertextLength } = ML_KEM_PARAMETERS[id];
      return [level, publicKeyLength, expandedSecretKeyLength, ciphertextLength];
    });
    assert.deepEqual(sizes, [
      [512, 800, 1632, 768],
      [768, 1184, 2400, 1088],
      [1024, 1568, 3168, 1568],
    ]);
  });
});

describe('ML-KEM round trips', () => {
  for (const id of ML_KEM_ALGORITHM_IDS) {
    const { level, publicKeyLength, ciphertextLength } = ML_KEM_PARAMETERS[id];
    test(`${id}: keygen, encapsulate, decapsulate with the seed`, async () => {
      const keys = await mlKemKeygen(id);
      assert.equal(keys.algorithm, id);
      assert.equal(keys.publicKey.byteLength, publicKeyLength);
      assert.equal(keys.secretKey.byteLength, 64);
      const sent = await mlKemEncapsulate(keys.publicKey);
      assert.equal(sent.algorithm, id);
      assert.equal(sent.ciphertext.byteLength, ciphertextLength);
      assert.equal(sent.sharedSecret.byteLength, 32);
      const received = await mlKemDecapsulate(keys.secretKey, sent.ciphertext, id);
      assert.deepEqual(received, { algorithm: id, sharedSecret: sent.sharedSecret });
    });

    test(`${id}: the expanded decapsulation key works too, and its length gives the parameter set`, async () => {
      const seed = seedOf(level % 251);
      const keys = mlKemKeyPairFromSeed(seed, id);
      // The expanded key of the same seed, from the independent implementation.
      const expanded = NOBLE[id].keygen(seed).secretKey;
      const sent = await mlKemEncapsulate(keys.publicKey);
      const received = await mlKemDecapsulate(expanded, sent.ciphertext);
      assert.deepEqual(received, { algorithm: id, sharedSecret: sent.sharedSecret });
      assert.equal(mlKemAlgorithmForSecretKey(expanded.byteLength), id);
    });
  }

  test('the default parameter set is ml-kem-768, for keygen and for a 64-byte seed', async () => {
    const keys = await mlKemKeygen();
    assert.equal(keys.algorithm, 'ml-kem-768');
    const sent = await mlKemEncapsulate(keys.publicKey);
    assert.equal((await mlKemDecapsulate(keys.secretKey, sent.ciphertext)).algorithm, 'ml-kem-768');
  });

  test('a seed gives the same key pair every time; another seed another one', () => {
    const first = mlKemKeyPairFromSeed(seedOf(1), 'ml-kem-768');
    const again = mlKemKeyPairFromSeed(seedOf(1), 'ml-kem-768');
    const other = mlKemKeyPairFromSeed(seedOf(2), 'ml-kem-768');
    assert.deepEqual(first, again);
    assert.notDeepEqual(first.publicKey, other.publicKey);
    assert.deepEqual(mlKemKeyPairFromSeed(seedOf(1), 'ml-kem-768').secretKey, seedOf(1));
  });

  test('two encapsulations to one key differ (fresh randomness each time)', async () => {
    const keys = await mlKemKeygen('ml-kem-512');
    const a = await mlKemEncapsulate(keys.publicKey);
    const b = await mlKemEncapsulate(keys.publicKey);
    assert.notDeepEqual(a.ciphertext, b.ciphertext);
    assert.notDeepEqual(a.sharedSecret, b.sharedSecret);
  });
});

describe('ML-KEM implicit rejection (FIPS 203 §6.3)', () => {
  test('any single-bit change of the ciphertext gives another secret, never an error, and the same one each time', async () => {
    const keys = await mlKemKeygen('ml-kem-512');
    const sent = await mlKemEncapsulate(keys.publicKey);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: sent.ciphertext.byteLength * 8 - 1 }), async (bit) => {
        const tampered = sent.ciphertext.slice();
        tampered[bit >> 3] = (tampered[bit >> 3] ?? 0) ^ (1 << (bit & 7));
        const first = await mlKemDecapsulate(keys.secretKey, tampered, 'ml-kem-512');
        const second = await mlKemDecapsulate(keys.secretKey, tampered, 'ml-kem-512');
        assert.equal(first.sharedSecret.byteLength, 32);
        assert.notDeepEqual(first.sharedSecret, sent.sharedSecret);
        // K̄ = J(z ‖ c) is a function of the ciphertext: no randomness leaks whether it was rejected.
        assert.deepEqual(first.sharedSecret, second.sharedSecret);
      }),
      { numRuns: 25 },
    );
  });

  test('the rejection secret is J(z ‖ c) of the independent implementation', async () => {
    const seed = seedOf(7);
    const keys = mlKemKeyPairFromSeed(seed, 'ml-kem-768');
    const sent = await mlKemEncapsulate(keys.publicKey);
    const tampered = sent.ciphertext.slice();
    tampered[0] = (tampered[0] ?? 0) ^ 1;
    const ours = await mlKemDecapsulate(seed, tampered, 'ml-kem-768');
    assert.deepEqual(ours.sharedSecret, ml_kem768.decapsulate(tampered, ml_kem768.keygen(seed).secretKey));
  });
});

describe('ML-KEM input checks', () => {
  test('an encapsulation key of a wrong length is refused, naming the field', async () => {
    for (const length of [0, 799, 801, 1183, 1185, 1567, 1569]) {
      await assert.rejects(mlKemEncapsulate(new Uint8Array(length)), invalid('/publicKey'), `length ${length}`);
    }
    await assert.rejects(mlKemEncapsulate(new Uint8Array(5), { field: 'mlKemPublicKey' }), invalid('/mlKemPublicKey'));
  });

  test('an encapsulation key with a coefficient not reduced modulo q is refused (FIPS 203 §7.2)', async () => {
    const keys = mlKemKeyPairFromSeed(seedOf(3), 'ml-kem-768');
    const unreduced = keys.publicKey.slice();
    // The first 12-bit coefficient set to 4095 ≥ q = 3329.
    unreduced[0] = 0xff;
    unreduced[1] = (unreduced[1] ?? 0) | 0x0f;
    await assert.rejects(mlKemEncapsulate(unreduced), (error: unknown) => {
      assert.ok(invalid('/publicKey')(error));
      assert.match((error as Error).message, /not reduced modulo q/);
      return true;
    });
  });

  test('a secret key that is neither the seed nor an expanded key is refused', async () => {
    for (const length of [0, 32, 63, 65, 1631, 2399, 2401, 3169]) {
      await assert.rejects(
        mlKemDecapsulate(new Uint8Array(length), new Uint8Array(1088)),
        invalid('/privateKey'),
        `length ${length}`,
      );
    }
  });

  test('a ciphertext of the wrong length for the parameter set is refused, with a hint for seeds', async () => {
    const keys = mlKemKeyPairFromSeed(seedOf(4), 'ml-kem-512');
    const sent = await mlKemEncapsulate(keys.publicKey);
    // An ml-kem-512 ciphertext with the seed but no algorithm: the seed is taken as ml-kem-768.
    await assert.rejects(mlKemDecapsulate(keys.secretKey, sent.ciphertext), (error: unknown) => {
      assert.ok(invalid('/ciphertext')(error));
      assert.match((error as Error).message, /must be 1088 bytes for ml-kem-768 \(got 768\).*give algorithm/);
      return true;
    });
    for (const length of [0, 767, 769, 1088]) {
      await assert.rejects(
        mlKemDecapsulate(keys.secretKey, new Uint8Array(length), 'ml-kem-512'),
        invalid('/ciphertext'),
        `length ${length}`,
      );
    }
  });

  test('an unknown identifier, or one that contradicts an expanded key or a public key, is refused', async () => {
    await assert.rejects(mlKemKeygen('ml-kem-256'), unsupported('/algorithm'));
    // The numeric levels of earlier versions are not identifiers.
    await assert.rejects(mlKemKeygen('768'), unsupported('/algorithm'));
    await assert.rejects(mlKemDecapsulate(seedOf(1), new Uint8Array(1088), 'ml-kem-1000'), unsupported('/algorithm'));
    const expanded = ml_kem1024.keygen(seedOf(5)).secretKey;
    await assert.rejects(mlKemDecapsulate(expanded, new Uint8Array(1568), 'ml-kem-768'), (error: unknown) => {
      assert.ok(invalid('/algorithm')(error));
      assert.match((error as Error).message, /ml-kem-768 does not match privateKey, a key of ml-kem-1024/);
      return true;
    });
    assert.equal(mlKemAlgorithmForSecretKey(expanded.byteLength, 'ml-kem-768'), undefined);
    const publicKey = mlKemKeyPairFromSeed(seedOf(5), 'ml-kem-512').publicKey;
    await assert.rejects(mlKemEncapsulate(publicKey, { algorithm: 'ml-kem-1024' }), invalid('/algorithm'));
    assert.equal((await mlKemEncapsulate(publicKey, { algorithm: 'ml-kem-512' })).algorithm, 'ml-kem-512');
  });

  test('an expanded key whose H(ek) does not match is refused (FIPS 203 §7.3 hash check)', async () => {
    const seed = seedOf(6);
    const expanded = ml_kem768.keygen(seed).secretKey;
    const ciphertext = (await mlKemEncapsulate(mlKemKeyPairFromSeed(seed, 'ml-kem-768').publicKey)).ciphertext;
    // dk = dk_PKE (1152) ‖ ek (1184) ‖ H(ek) (32) ‖ z (32): alter ek, then H(ek).
    for (const offset of [1152 + 10, 2336 + 5]) {
      const altered = expanded.slice();
      altered[offset] = (altered[offset] ?? 0) ^ 1;
      await assert.rejects(mlKemDecapsulate(altered, ciphertext), (error: unknown) => {
        assert.ok(invalid('/privateKey')(error));
        assert.match((error as Error).message, /H\(ek\)/);
        return true;
      });
    }
  });

  test('the field names of errors can be those of another request (X-Wing parts)', async () => {
    await assert.rejects(
      mlKemDecapsulate(new Uint8Array(3), new Uint8Array(1088), 'ml-kem-768', {
        fields: { secretKey: 'mlKemPrivateKey' },
      }),
      invalid('/mlKemPrivateKey'),
    );
    await assert.rejects(
      mlKemDecapsulate(seedOf(1), new Uint8Array(3), 'ml-kem-768', { fields: { ciphertext: 'mlKemCiphertext' } }),
      invalid('/mlKemCiphertext'),
    );
  });

  test('test-only randomness: wrong length refused; node:crypto cannot take it', async () => {
    const keys = mlKemKeyPairFromSeed(seedOf(8), 'ml-kem-768');
    await assert.rejects(mlKemEncapsulate(keys.publicKey, { randomness: new Uint8Array(31) }), invalid('/randomness'));
    await assert.rejects(
      mlKemEncapsulate(keys.publicKey, { randomness: new Uint8Array(32), backend: 'native' }),
      /noble backend/,
    );
    const a = await mlKemEncapsulate(keys.publicKey, { randomness: new Uint8Array(32).fill(9) });
    const b = await mlKemEncapsulate(keys.publicKey, { randomness: new Uint8Array(32).fill(9) });
    assert.deepEqual(a, b);
  });
});
