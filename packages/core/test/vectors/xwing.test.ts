/**
 * X-Wing (draft-connolly-cfrg-xwing-kem) against its published vectors (data/SOURCES.md):
 *
 *   xwing/xwing.json            the draft's vectors as published by RustCrypto/KEMs: seed, pk,
 *                               eseed, ct, ss (3)
 *   xwing/mlkem768-x25519.json  more vectors of the same KEM from noble-post-quantum: seed (= sk),
 *                               randomness (= eseed), pk, ct, ss (10)
 *
 * Every vector: the key pair from the seed (public key, and its parts), EncapsulateDerand with the
 * vector's eseed (ct and ss; the ML-KEM half runs on noble, the only backend that takes given
 * randomness), and decapsulation of the vector's ct, from the seed and from the parts, on every
 * ML-KEM backend this runtime has; and the same through X-Wing as an HPKE KEM (XWING_HPKE_KEM:
 * Encap with the eseed, Decap from the seed and from the parts). Both files hold only valid
 * vectors; each is counted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PQ_NATIVE_SUPPORT, type PqBackend } from '../../src/pq-common.ts';
import {
  XWING_HPKE_KEM,
  xwingDecapsulate,
  xwingDecapsulateParts,
  xwingEncapsulate,
  xwingEncapsulateParts,
  xwingHpkePrivateKeyFromParts,
  xwingKeyPairFromSeed,
} from '../../src/xwing.ts';
import { fromHex, readVectorFile, toHex } from './vector-files.ts';

const BACKENDS: PqBackend[] = PQ_NATIVE_SUPPORT.mlKem ? ['native', 'noble'] : ['noble'];

interface Vector {
  seed: string;
  pk: string;
  eseed: string;
  ct: string;
  ss: string;
}

async function check(vector: Vector, label: string): Promise<void> {
  const seed = fromHex(vector.seed);
  const ciphertext = fromHex(vector.ct);
  for (const backend of BACKENDS) {
    const keys = xwingKeyPairFromSeed(seed, { backend });
    assert.equal(toHex(keys.publicKey), vector.pk, `${label} pk (${backend})`);
    assert.equal(
      toHex(keys.mlKemPublicKey) + toHex(keys.x25519PublicKey),
      vector.pk,
      `${label} the parts make the pk (${backend})`,
    );
    const fromSeed = await xwingDecapsulate(seed, ciphertext, { backend });
    assert.equal(toHex(fromSeed.sharedSecret), vector.ss, `${label} decapsulation from the seed (${backend})`);
    const fromParts = await xwingDecapsulateParts(
      { x25519PrivateKey: keys.x25519PrivateKey, mlKemPrivateKey: keys.mlKemSecretKey },
      ciphertext,
      { backend },
    );
    assert.equal(toHex(fromParts.sharedSecret), vector.ss, `${label} decapsulation from the parts (${backend})`);
  }
  const encapsulationSeed = fromHex(vector.eseed);
  const combined = await xwingEncapsulate(fromHex(vector.pk), { encapsulationSeed });
  assert.equal(toHex(combined.ciphertext), vector.ct, `${label} ct`);
  assert.equal(toHex(combined.sharedSecret), vector.ss, `${label} ss`);
  assert.equal(toHex(combined.mlKemCiphertext) + toHex(combined.x25519EphemeralPublic), vector.ct, `${label} ct parts`);
  const pk = fromHex(vector.pk);
  const parts = await xwingEncapsulateParts(pk.subarray(1184), pk.subarray(0, 1184), { encapsulationSeed });
  assert.equal(toHex(parts.ciphertext), vector.ct, `${label} ct from the parts`);
  assert.equal(toHex(parts.sharedSecret), vector.ss, `${label} ss from the parts`);
  // As an HPKE KEM: enc is the X-Wing ciphertext and the shared secret is X-Wing's, unchanged.
  const hpke = await XWING_HPKE_KEM.encap(pk, { seed: encapsulationSeed });
  assert.equal(toHex(hpke.enc), vector.ct, `${label} HPKE enc`);
  assert.equal(toHex(hpke.sharedSecret), vector.ss, `${label} HPKE shared secret`);
  assert.equal(toHex(await XWING_HPKE_KEM.decap(ciphertext, seed)), vector.ss, `${label} HPKE Decap from the seed`);
  const keys = xwingKeyPairFromSeed(seed);
  const fromParts = xwingHpkePrivateKeyFromParts(
    { x25519PrivateKey: keys.x25519PrivateKey, mlKemPrivateKey: keys.mlKemSecretKey },
    { x25519: 'x25519PrivateKey', mlKem: 'mlKemPrivateKey' },
  );
  assert.equal(toHex(fromParts.publicKey), vector.pk, `${label} HPKE key from the parts: its public key`);
  assert.equal(
    toHex(await XWING_HPKE_KEM.decap(ciphertext, fromParts)),
    vector.ss,
    `${label} HPKE Decap from the parts`,
  );
}

test('xwing/xwing.json: the draft vectors (RustCrypto/KEMs)', async (t) => {
  const data = readVectorFile<{ vectors: (Vector & { sk: string })[] }>('xwing/xwing.json');
  let valid = 0;
  for (const [index, vector] of data.vectors.entries()) {
    // The secret key of X-Wing is the seed itself.
    assert.equal(vector.sk, vector.seed);
    await check(vector, `xwing.json #${index}`);
    valid++;
  }
  assert.equal(valid, 3);
  t.diagnostic(`xwing.json: ${valid} valid; ML-KEM backends: ${BACKENDS.join(', ')}`);
});

test('xwing/mlkem768-x25519.json: noble-post-quantum vectors of the same KEM', async (t) => {
  const data =
    readVectorFile<{ seed: string; sk: string; randomness: string; pk: string; ct: string; ss: string }[]>(
      'xwing/mlkem768-x25519.json',
    );
  let valid = 0;
  for (const [index, vector] of data.entries()) {
    assert.equal(vector.sk, vector.seed);
    await check(
      { seed: vector.seed, pk: vector.pk, eseed: vector.randomness, ct: vector.ct, ss: vector.ss },
      `mlkem768-x25519.json #${index}`,
    );
    valid++;
  }
  assert.equal(valid, 10);
  t.diagnostic(`mlkem768-x25519.json: ${valid} valid; ML-KEM backends: ${BACKENDS.join(', ')}`);
});
