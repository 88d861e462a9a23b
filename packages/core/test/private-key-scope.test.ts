/**
 * Tests of private-key-scope.ts, and that signing through one scope imports each private key once
 * (node:crypto's createPrivateKey is counted) while every signature still verifies with
 * @noble/curves.
 */
import { generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ed25519 } from '@noble/curves/ed25519.js';
import { ed448 } from '@noble/curves/ed448.js';
import { p256 } from '@noble/curves/nist.js';
import { PrivateKeyScope } from '../src/private-key-scope.ts';
import { signMessage } from '../src/signature.ts';
import { countNodeCryptoCalls } from './node-crypto-spy.ts';

const someKey = (): KeyObject => generateKeyPairSync('ed25519').privateKey;

describe('PrivateKeyScope', () => {
  test('loads each (algorithm, bytes) once and returns that key after', () => {
    const scope = new PrivateKeyScope();
    let loads = 0;
    const first = someKey();
    const load = () => (loads++, first);
    assert.equal(scope.get('ed25519', Uint8Array.of(1, 2, 3), load), first);
    assert.equal(scope.get('ed25519', Uint8Array.of(1, 2, 3), load), first);
    assert.equal(loads, 1);
    const other = someKey();
    assert.equal(
      scope.get('ed25519', Uint8Array.of(1, 2, 4), () => other),
      other,
    );
    assert.equal(
      scope.get('ed448', Uint8Array.of(1, 2, 3), () => other),
      other,
    );
    assert.equal(scope.size, 3);
  });

  test('a load that throws keeps nothing and the error reaches the caller', () => {
    const scope = new PrivateKeyScope();
    for (let attempt = 0; attempt < 2; attempt++) {
      assert.throws(
        () =>
          scope.get('ed25519', Uint8Array.of(9), () => {
            throw new Error('bad key');
          }),
        /bad key/,
      );
    }
    assert.equal(scope.size, 0);
  });
});

interface Case {
  algorithm: 'ed25519' | 'ed448' | 'ecdsa-p256';
  secret: () => Uint8Array;
  verify: (signature: Uint8Array, message: Uint8Array, secret: Uint8Array) => boolean;
}

const CASES: Case[] = [
  {
    algorithm: 'ed25519',
    secret: () => ed25519.utils.randomSecretKey(),
    verify: (signature, message, secret) => ed25519.verify(signature, message, ed25519.getPublicKey(secret)),
  },
  {
    algorithm: 'ed448',
    secret: () => ed448.utils.randomSecretKey(),
    verify: (signature, message, secret) => ed448.verify(signature, message, ed448.getPublicKey(secret)),
  },
  {
    algorithm: 'ecdsa-p256',
    secret: () => p256.utils.randomSecretKey(),
    verify: (signature, message, secret) =>
      p256.verify(signature, message, p256.getPublicKey(secret, false), { lowS: false }),
  },
];

describe('signMessage with a scope', () => {
  for (const { algorithm, secret, verify } of CASES) {
    test(`${algorithm}: two keys over five signatures are imported twice; each signature verifies`, async (t) => {
      const imports = countNodeCryptoCalls(t, 'createPrivateKey');
      const keys = [secret(), secret()];
      const scope = new PrivateKeyScope();
      const before = imports();
      for (let index = 0; index < 5; index++) {
        const key = keys[index % 2]!;
        const message = randomBytes(32);
        // A copy each time, as each batch item decodes its own.
        const signature = await signMessage(algorithm, Uint8Array.from(key), message, { keys: scope });
        assert.ok(verify(signature, message, key), `${algorithm} item ${index}`);
      }
      assert.equal(imports() - before, 2);
      assert.equal(scope.size, 2);
    });

    test(`${algorithm}: without a scope each signature imports its key`, async (t) => {
      const imports = countNodeCryptoCalls(t, 'createPrivateKey');
      const key = secret();
      const before = imports();
      for (let index = 0; index < 3; index++) await signMessage(algorithm, Uint8Array.from(key), randomBytes(8));
      assert.equal(imports() - before, 3);
    });
  }
});
