/**
 * ML-DSA and SLH-DSA behind the signature entry points (signMessage / verifySignature, the core of
 * `/v2/sign` and `/v2/verify`): raw and PEM keys, the expanded ML-DSA key, contexts, the errors that
 * name the request fields of those routes (`privateKey`, `publicKey`, `signature`, `context`), and
 * the runner through which the server offloads the work. @noble/post-quantum verifies every
 * signature made here, independently. SLH-DSA keeps to SHA2 'f' sets, the fast ones in pure
 * JavaScript (an 's' signature, or a SHAKE one, takes seconds on Node 22); the other sets share
 * every code path here, with other parameters.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ml_dsa44, ml_dsa65, ml_dsa87 } from '@noble/post-quantum/ml-dsa.js';
import { slh_dsa_sha2_128f, slh_dsa_sha2_256f } from '@noble/post-quantum/slh-dsa.js';
import { SIGNATURE_ALGORITHM_IDS, isSignatureAlgorithm, signMessage, verifySignature } from '../src/signature.ts';
import {
  DIRECT_POST_QUANTUM_RUNNER,
  exportPostQuantumKeyPair,
  generatePostQuantumKeyPair,
  type PostQuantumRunner,
} from '../src/pq-keys.ts';
import { CryptoError } from '../src/errors.ts';

const text = (value: string) => new TextEncoder().encode(value);

function isInvalid(field: string, message?: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof CryptoError, String(error));
    assert.equal(error.code, 'INVALID_INPUT', error.message);
    assert.equal(error.field, field, error.message);
    if (message !== undefined) assert.match(error.message, message);
    return true;
  };
}

function flipBit(value: Uint8Array, bit: number): Uint8Array {
  const copy = value.slice();
  copy[bit >> 3]! ^= 1 << (bit & 7);
  return copy;
}

/** The schemes exercised here, with @noble/post-quantum's verifier and the lengths of FIPS 204 / 205. */
const SCHEMES = {
  'ml-dsa-44': { noble: ml_dsa44, privateKeys: [32, 2560], publicKey: 1312, signature: 2420 },
  'ml-dsa-65': { noble: ml_dsa65, privateKeys: [32, 4032], publicKey: 1952, signature: 3309 },
  'ml-dsa-87': { noble: ml_dsa87, privateKeys: [32, 4896], publicKey: 2592, signature: 4627 },
  'slh-dsa-sha2-128f': { noble: slh_dsa_sha2_128f, privateKeys: [64], publicKey: 32, signature: 17088 },
  'slh-dsa-sha2-256f': { noble: slh_dsa_sha2_256f, privateKeys: [128], publicKey: 64, signature: 49856 },
} as const;
type Scheme = keyof typeof SCHEMES;

test('ML-DSA and SLH-DSA identifiers are signature algorithms; unknown parameter sets are not', () => {
  for (const id of ['ml-dsa-44', 'ml-dsa-87', 'slh-dsa-sha2-128s', 'slh-dsa-shake-256f']) {
    assert.ok(isSignatureAlgorithm(id), id);
    assert.ok(SIGNATURE_ALGORITHM_IDS.includes(id as never), id);
  }
  for (const id of ['ml-dsa-66', 'ml-dsa', 'slh-dsa-sha2-128', 'slh-dsa-sha3-128f', 'ML-DSA-65', 'hash_ml-dsa-65'])
    assert.ok(!isSignatureAlgorithm(id), id);
});

for (const [algorithm, spec] of Object.entries(SCHEMES) as [Scheme, (typeof SCHEMES)[Scheme]][]) {
  describe(algorithm, () => {
    let pair: { publicKey: Uint8Array; privateKey: Uint8Array };
    const message = text(`a message for ${algorithm} ✓`);
    test.before(async () => {
      pair = await generatePostQuantumKeyPair(algorithm);
    });

    test('raw keys: the signature has the standard length, verifies here and in @noble/post-quantum, and not for another message or a changed bit', async () => {
      assert.equal(pair.privateKey.byteLength, spec.privateKeys[0]);
      assert.equal(pair.publicKey.byteLength, spec.publicKey);
      const signature = await signMessage(algorithm, pair.privateKey, message);
      assert.equal(signature.byteLength, spec.signature);
      assert.equal(await verifySignature(algorithm, pair.publicKey, message, signature), true);
      assert.equal(spec.noble.verify(signature, message, pair.publicKey), true);
      assert.equal(await verifySignature(algorithm, pair.publicKey, text('another message'), signature), false);
      for (const bit of [0, 8 * spec.signature - 1]) {
        assert.equal(
          await verifySignature(algorithm, pair.publicKey, message, flipBit(signature, bit)),
          false,
          `bit ${bit}`,
        );
      }
    });

    test('a context binds the signature: it verifies with the same context only, here and in @noble/post-quantum', async () => {
      const context = text('crypto-service/test ✓');
      const signature = await signMessage(algorithm, pair.privateKey, message, { context });
      assert.equal(await verifySignature(algorithm, pair.publicKey, message, signature, { context }), true);
      assert.equal(spec.noble.verify(signature, message, pair.publicKey, { context }), true);
      assert.equal(await verifySignature(algorithm, pair.publicKey, message, signature), false);
      assert.equal(
        await verifySignature(algorithm, pair.publicKey, message, signature, { context: text('another') }),
        false,
      );
      // An empty context is the default context (FIPS 204 / 205: ctx of length 0).
      const plain = await signMessage(algorithm, pair.privateKey, message, { context: new Uint8Array(0) });
      assert.equal(await verifySignature(algorithm, pair.publicKey, message, plain), true);
      const longest = new Uint8Array(255).fill(0x61);
      assert.equal(
        await verifySignature(
          algorithm,
          pair.publicKey,
          message,
          await signMessage(algorithm, pair.privateKey, message, { context: longest }),
          { context: longest },
        ),
        true,
      );
      await assert.rejects(
        signMessage(algorithm, pair.privateKey, message, { context: new Uint8Array(256) }),
        isInvalid('/context', /255 bytes/),
      );
      await assert.rejects(
        verifySignature(algorithm, pair.publicKey, message, signature, { context: new Uint8Array(256) }),
        isInvalid('/context'),
      );
    });

    test('PEM keys (PKCS#8 / SPKI) sign and verify like the raw ones', async () => {
      const pem = exportPostQuantumKeyPair(algorithm, pair, 'pem') as { publicKey: string; privateKey: string };
      const signature = await signMessage(algorithm, pem.privateKey, message);
      assert.equal(await verifySignature(algorithm, pem.publicKey, message, signature), true);
      assert.equal(await verifySignature(algorithm, pair.publicKey, message, signature), true);
    });

    test('keys and signatures of any other length are INVALID_INPUT naming privateKey, publicKey or signature', async () => {
      const lengths = [0, 1, 31, 32, 33, 48, 63, 64, 65, 96, 128, 1312, 1952, 2560, 2592, 4032, 4896];
      const signature = await signMessage(algorithm, pair.privateKey, message);
      for (const length of lengths) {
        if (!(spec.privateKeys as readonly number[]).includes(length)) {
          await assert.rejects(
            signMessage(algorithm, new Uint8Array(length).fill(1), message),
            isInvalid('/privateKey', /privateKey must be/),
            `private ${length}`,
          );
        }
        if (length !== spec.publicKey) {
          await assert.rejects(
            verifySignature(algorithm, new Uint8Array(length).fill(1), message, signature),
            isInvalid('/publicKey', /publicKey must be/),
            `public ${length}`,
          );
        }
      }
      for (const length of [0, spec.signature - 1, spec.signature + 1]) {
        await assert.rejects(
          verifySignature(algorithm, pair.publicKey, message, new Uint8Array(length)),
          isInvalid('/signature', /signature must be/),
          `signature ${length}`,
        );
      }
    });
  });
}

describe('ML-DSA private keys', () => {
  test("the expanded key of the parameter set signs as its seed does (@noble/post-quantum verifies); another set's is refused", async () => {
    const seed = new Uint8Array(32).fill(5);
    const { secretKey: expanded, publicKey } = ml_dsa65.keygen(seed);
    const signature = await signMessage('ml-dsa-65', expanded, text('m'));
    assert.equal(ml_dsa65.verify(signature, text('m'), publicKey), true);
    await assert.rejects(signMessage('ml-dsa-44', expanded, text('m')), isInvalid('/privateKey', /32 or 2560 bytes/));
  });

  test('an expanded key whose tr and t0 do not follow from ρ, s1, s2 is refused naming privateKey', async () => {
    const expanded = ml_dsa44.keygen(new Uint8Array(32).fill(6)).secretKey;
    expanded[100]! ^= 1;
    await assert.rejects(signMessage('ml-dsa-44', expanded, text('m')), isInvalid('/privateKey'));
  });

  test('a PEM key of another algorithm is refused naming the field', async () => {
    const other = exportPostQuantumKeyPair('ml-dsa-44', await generatePostQuantumKeyPair('ml-dsa-44'), 'pem') as {
      publicKey: string;
      privateKey: string;
    };
    await assert.rejects(
      signMessage('ml-dsa-65', other.privateKey, text('m')),
      isInvalid('/privateKey', /another algorithm/),
    );
    await assert.rejects(
      verifySignature('ml-dsa-87', other.publicKey, text('m'), new Uint8Array(4627)),
      isInvalid('/publicKey', /another algorithm/),
    );
    await assert.rejects(
      signMessage('slh-dsa-sha2-128f', other.privateKey, text('m')),
      isInvalid('/privateKey', /another algorithm/),
    );
  });
});

describe('the runner', () => {
  test('signing, verifying and reading PEM go through the runner given, with the parameters and field names of /v2/sign', async () => {
    const calls: unknown[][] = [];
    const recording: PostQuantumRunner = {
      ...DIRECT_POST_QUANTUM_RUNNER,
      mlDsaSign: (...args) => {
        calls.push(['mlDsaSign', args[2]]);
        return DIRECT_POST_QUANTUM_RUNNER.mlDsaSign(...args);
      },
      mlDsaVerify: (...args) => {
        calls.push(['mlDsaVerify', args[3]]);
        return DIRECT_POST_QUANTUM_RUNNER.mlDsaVerify(...args);
      },
      slhDsaSign: (...args) => {
        calls.push(['slhDsaSign', args[2]]);
        return DIRECT_POST_QUANTUM_RUNNER.slhDsaSign(...args);
      },
      slhDsaVerify: (...args) => {
        calls.push(['slhDsaVerify', args[3]]);
        return DIRECT_POST_QUANTUM_RUNNER.slhDsaVerify(...args);
      },
      privateKeyFromPem: (...args) => {
        calls.push(['privateKeyFromPem', args[0], args[2]]);
        return DIRECT_POST_QUANTUM_RUNNER.privateKeyFromPem(...args);
      },
    };
    const dsa = await generatePostQuantumKeyPair('ml-dsa-87');
    const pem = exportPostQuantumKeyPair('ml-dsa-87', dsa, 'pem') as { privateKey: string };
    const context = text('c');
    const signature = await signMessage('ml-dsa-87', pem.privateKey, text('m'), { context, runner: recording });
    assert.equal(
      await verifySignature('ml-dsa-87', dsa.publicKey, text('m'), signature, { context, runner: recording }),
      true,
    );
    const slh = await generatePostQuantumKeyPair('slh-dsa-sha2-128f');
    const slhSignature = await signMessage('slh-dsa-sha2-128f', slh.privateKey, text('m'), { runner: recording });
    assert.equal(
      await verifySignature('slh-dsa-sha2-128f', slh.publicKey, text('m'), slhSignature, { runner: recording }),
      true,
    );
    // No field names are passed: core's defaults are the names of /v2/sign (privateKey, algorithm).
    assert.deepEqual(calls, [
      ['privateKeyFromPem', 'ml-dsa-87', { field: 'privateKey' }],
      ['mlDsaSign', { algorithm: 'ml-dsa-87', context }],
      ['mlDsaVerify', { algorithm: 'ml-dsa-87', context }],
      ['slhDsaSign', { algorithm: 'slh-dsa-sha2-128f', context: undefined }],
      ['slhDsaVerify', { algorithm: 'slh-dsa-sha2-128f', context: undefined }],
    ]);
  });

  test('a length error is found before the runner is called: no work is queued for a request that cannot succeed', async () => {
    let called = 0;
    const counting: PostQuantumRunner = {
      ...DIRECT_POST_QUANTUM_RUNNER,
      slhDsaSign: (...args) => {
        called += 1;
        return DIRECT_POST_QUANTUM_RUNNER.slhDsaSign(...args);
      },
    };
    await assert.rejects(
      signMessage('slh-dsa-sha2-128f', new Uint8Array(63), text('m'), { runner: counting }),
      isInvalid('/privateKey'),
    );
    await assert.rejects(
      signMessage('slh-dsa-sha2-128f', new Uint8Array(64), text('m'), {
        runner: counting,
        context: new Uint8Array(300),
      }),
      isInvalid('/context'),
    );
    assert.equal(called, 0);
  });
});

describe('ML-DSA properties (fast-check, fixed seed)', () => {
  test('every message of 0 to 4096 bytes signs and verifies; a single-bit change of the signature or the message does not verify', async () => {
    const pair = await generatePostQuantumKeyPair('ml-dsa-44');
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 0, maxLength: 4096 }),
        fc.nat(),
        fc.boolean(),
        async (message, position, inMessage) => {
          const signature = await signMessage('ml-dsa-44', pair.privateKey, message);
          assert.equal(await verifySignature('ml-dsa-44', pair.publicKey, message, signature), true);
          if (inMessage && message.byteLength > 0) {
            assert.equal(
              await verifySignature(
                'ml-dsa-44',
                pair.publicKey,
                flipBit(message, position % (message.byteLength * 8)),
                signature,
              ),
              false,
            );
          } else {
            assert.equal(
              await verifySignature(
                'ml-dsa-44',
                pair.publicKey,
                message,
                flipBit(signature, position % (signature.byteLength * 8)),
              ),
              false,
            );
          }
        },
      ),
      { seed: 0x6d6c, numRuns: 30 },
    );
  });
});
