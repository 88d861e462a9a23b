/**
 * SLH-DSA. Routine tests use the fast 'f' parameter sets (sha2-128f signs in milliseconds natively,
 * several times that in pure JavaScript); the 's' sets and the SHAKE sets are exercised across
 * backends in pq-differential.test.ts.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CryptoError } from '../src/errors.ts';
import {
  SLH_DSA_ALGORITHM_IDS,
  SLH_DSA_PARAMETERS,
  slhDsaAlgorithm,
  slhDsaKeygen,
  slhDsaSign,
  slhDsaVerify,
} from '../src/slh-dsa.ts';

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

const text = (value: string) => new TextEncoder().encode(value);

describe('SLH-DSA parameter sets (FIPS 205 Table 2)', () => {
  test('twelve sets, their identifiers, n and signature sizes', () => {
    assert.deepEqual(SLH_DSA_ALGORITHM_IDS, [
      'slh-dsa-sha2-128s',
      'slh-dsa-sha2-128f',
      'slh-dsa-sha2-192s',
      'slh-dsa-sha2-192f',
      'slh-dsa-sha2-256s',
      'slh-dsa-sha2-256f',
      'slh-dsa-shake-128s',
      'slh-dsa-shake-128f',
      'slh-dsa-shake-192s',
      'slh-dsa-shake-192f',
      'slh-dsa-shake-256s',
      'slh-dsa-shake-256f',
    ]);
    const sizes = Object.fromEntries(
      SLH_DSA_ALGORITHM_IDS.map((id) => [id, [SLH_DSA_PARAMETERS[id].n, SLH_DSA_PARAMETERS[id].signatureLength]]),
    );
    assert.deepEqual(sizes, {
      'slh-dsa-sha2-128s': [16, 7856],
      'slh-dsa-sha2-128f': [16, 17088],
      'slh-dsa-sha2-192s': [24, 16224],
      'slh-dsa-sha2-192f': [24, 35664],
      'slh-dsa-sha2-256s': [32, 29792],
      'slh-dsa-sha2-256f': [32, 49856],
      'slh-dsa-shake-128s': [16, 7856],
      'slh-dsa-shake-128f': [16, 17088],
      'slh-dsa-shake-192s': [24, 16224],
      'slh-dsa-shake-192f': [24, 35664],
      'slh-dsa-shake-256s': [32, 29792],
      'slh-dsa-shake-256f': [32, 49856],
    });
    assert.equal(slhDsaAlgorithm(undefined), 'slh-dsa-sha2-128f');
  });
});

describe('SLH-DSA key generation', () => {
  for (const id of SLH_DSA_ALGORITHM_IDS.filter((name) => name.endsWith('f'))) {
    test(`${id}: a public key of 2n and a secret key of 4n bytes that ends with it`, async () => {
      const keys = await slhDsaKeygen(id);
      const { n } = SLH_DSA_PARAMETERS[id];
      assert.equal(keys.algorithm, id);
      assert.equal(keys.publicKey.byteLength, 2 * n);
      assert.equal(keys.secretKey.byteLength, 4 * n);
      // FIPS 205 §9.1: SK = SK.seed ‖ SK.prf ‖ PK.seed ‖ PK.root, and PK = PK.seed ‖ PK.root.
      assert.deepEqual(keys.secretKey.subarray(2 * n), keys.publicKey);
    });
  }

  test('keygen from a 3n-byte seed is deterministic and keeps the seed as SK.seed ‖ SK.prf ‖ PK.seed', async () => {
    const seed = new Uint8Array(48).map((_, index) => index);
    const a = await slhDsaKeygen('slh-dsa-sha2-128f', { seed });
    const b = await slhDsaKeygen('slh-dsa-sha2-128f', { seed });
    assert.deepEqual(a, b);
    assert.deepEqual(a.secretKey.subarray(0, 48), seed);
    await assert.rejects(slhDsaKeygen('slh-dsa-sha2-128f', { seed: new Uint8Array(47) }), invalid('/seed'));
    await assert.rejects(slhDsaKeygen('slh-dsa-sha2-128f', { seed, backend: 'native' }), /noble backend/);
  });
});

describe('SLH-DSA signatures (sha2-128f, the default)', () => {
  test('sign and verify with and without a context; wrong message, context, key or set fail', async () => {
    const keys = await slhDsaKeygen();
    const message = text('post-quantum');
    const context = text('ctx');
    const plain = await slhDsaSign(keys.secretKey, message);
    const bound = await slhDsaSign(keys.secretKey, message, { context });
    assert.equal(plain.algorithm, 'slh-dsa-sha2-128f');
    assert.equal(plain.signature.byteLength, 17088);
    assert.deepEqual(await slhDsaVerify(keys.publicKey, message, plain.signature), {
      algorithm: 'slh-dsa-sha2-128f',
      valid: true,
    });
    assert.equal((await slhDsaVerify(keys.publicKey, message, bound.signature, { context })).valid, true);
    assert.equal((await slhDsaVerify(keys.publicKey, message, bound.signature)).valid, false);
    assert.equal((await slhDsaVerify(keys.publicKey, message, plain.signature, { context })).valid, false);
    assert.equal((await slhDsaVerify(keys.publicKey, text('post-classical'), plain.signature)).valid, false);
    const other = await slhDsaKeygen();
    assert.equal((await slhDsaVerify(other.publicKey, message, plain.signature)).valid, false);
    // The SHAKE set of the same size takes the same lengths: `algorithm` must name the right one.
    assert.equal(
      (await slhDsaVerify(keys.publicKey, message, plain.signature, { algorithm: 'slh-dsa-shake-128f' })).valid,
      false,
    );
  });

  test('signing is hedged; the deterministic variant (tests only) repeats itself and verifies', async () => {
    const keys = await slhDsaKeygen('slh-dsa-sha2-128f', { seed: new Uint8Array(48).fill(1) });
    const message = text('m');
    const a = await slhDsaSign(keys.secretKey, message);
    const b = await slhDsaSign(keys.secretKey, message);
    assert.notDeepEqual(a.signature, b.signature);
    const c = await slhDsaSign(keys.secretKey, message, { deterministic: true });
    const d = await slhDsaSign(keys.secretKey, message, { deterministic: true });
    assert.deepEqual(c, d);
    assert.equal((await slhDsaVerify(keys.publicKey, message, c.signature)).valid, true);
    await assert.rejects(
      slhDsaSign(keys.secretKey, message, { deterministic: true, backend: 'native' }),
      /noble backend/,
    );
  });

  test('a single-bit change anywhere in the signature makes it fail', async () => {
    const keys = await slhDsaKeygen();
    const message = text('flip');
    const { signature } = await slhDsaSign(keys.secretKey, message);
    // The randomizer R, a FORS secret, and a position deep in the hypertree signature.
    for (const offset of [0, 20, 5000, 17087]) {
      const tampered = signature.slice();
      tampered[offset] = (tampered[offset] ?? 0) ^ 0x80;
      assert.equal((await slhDsaVerify(keys.publicKey, message, tampered)).valid, false, `offset ${offset}`);
    }
  });
});

describe('SLH-DSA input checks', () => {
  test('keys and signatures of the wrong length for the set name their field', async () => {
    const keys = await slhDsaKeygen();
    const { signature } = await slhDsaSign(keys.secretKey, text('m'));
    for (const length of [0, 63, 65, 96]) {
      await assert.rejects(
        slhDsaSign(new Uint8Array(length), text('m')),
        invalid('/privateKey'),
        `secret key ${length}`,
      );
    }
    // A 128f key is not a 192f key.
    await assert.rejects(
      slhDsaSign(keys.secretKey, text('m'), { algorithm: 'slh-dsa-sha2-192f' }),
      invalid('/privateKey'),
    );
    for (const length of [0, 31, 33, 48]) {
      await assert.rejects(
        slhDsaVerify(new Uint8Array(length), text('m'), signature),
        invalid('/publicKey'),
        `public key ${length}`,
      );
    }
    for (const length of [0, 7856, 17087, 17089]) {
      await assert.rejects(
        slhDsaVerify(keys.publicKey, text('m'), new Uint8Array(length)),
        invalid('/signature'),
        `signature ${length}`,
      );
    }
  });

  test('errors can name the fields of another route (/v2/sign: privateKey)', async () => {
    await assert.rejects(
      slhDsaSign(new Uint8Array(5), text('m'), { fields: { secretKey: 'privateKey' } }),
      invalid('/privateKey'),
    );
    await assert.rejects(
      slhDsaVerify(new Uint8Array(32), text('m'), new Uint8Array(5), { fields: { signature: 'sig' } }),
      invalid('/sig'),
    );
    await assert.rejects(
      slhDsaSign(new Uint8Array(64), text('m'), { algorithm: 'x', fields: { algorithm: 'parameterSet' } }),
      unsupported('/parameterSet'),
    );
  });

  test('an unknown identifier is refused, the short names of earlier versions included', async () => {
    await assert.rejects(slhDsaKeygen('slh-dsa-sha2-128x'), unsupported('/algorithm'));
    await assert.rejects(slhDsaKeygen('sha2-128f'), unsupported('/algorithm'));
    await assert.rejects(
      slhDsaSign(new Uint8Array(64), text('m'), { algorithm: 'slh-dsa-sha3-128f' }),
      unsupported('/algorithm'),
    );
    await assert.rejects(
      slhDsaVerify(new Uint8Array(32), text('m'), new Uint8Array(17088), { algorithm: '' }),
      unsupported('/algorithm'),
    );
  });

  test('a context over 255 bytes is refused when signing and when verifying', async () => {
    const keys = await slhDsaKeygen();
    const context = new Uint8Array(256);
    await assert.rejects(slhDsaSign(keys.secretKey, text('m'), { context }), invalid('/context'));
    await assert.rejects(
      slhDsaVerify(keys.publicKey, text('m'), new Uint8Array(17088), { context }),
      invalid('/context'),
    );
  });
});
