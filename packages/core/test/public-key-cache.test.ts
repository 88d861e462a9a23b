/**
 * Tests of public-key-cache.ts, and that the X25519 senders (sealed box, HPKE, X-Wing) import a
 * recipient's public key once: node:crypto's createPublicKey is counted (ES imports of a built-in
 * module see a replaced export once syncBuiltinESMExports() has run).
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { PublicKeyCache } from '../src/public-key-cache.ts';
import { openBox, sealBox } from '../src/sealedbox.ts';
import { DHKEM_X25519_HKDF_SHA256 } from '../src/hpke.ts';
import { xwingDecapsulate, xwingEncapsulate, xwingKeygen } from '../src/xwing.ts';
import { PQ_NATIVE_SUPPORT } from '../src/pq-common.ts';
import { countNodeCryptoCalls } from './node-crypto-spy.ts';

const someKey = (): KeyObject => generateKeyPairSync('x25519').publicKey;

describe('PublicKeyCache', () => {
  test('a hit returns the key loaded for those exact bytes and algorithm, without loading again', () => {
    const cache = new PublicKeyCache(4);
    let loads = 0;
    const first = someKey();
    const load = () => (loads++, first);
    assert.equal(cache.get('x25519', Uint8Array.of(1, 2, 3), load), first);
    assert.equal(cache.get('x25519', Uint8Array.of(1, 2, 3), load), first);
    assert.equal(loads, 1);
    // Other bytes, or the same bytes under another algorithm, are other entries.
    const other = someKey();
    assert.equal(
      cache.get('x25519', Uint8Array.of(1, 2, 4), () => other),
      other,
    );
    assert.equal(
      cache.get('ed25519', Uint8Array.of(1, 2, 3), () => other),
      other,
    );
    assert.equal(cache.size, 3);
  });

  test('bounded: the least recently used entry goes first', () => {
    const cache = new PublicKeyCache(2);
    const keys = [someKey(), someKey(), someKey()];
    cache.get('a', Uint8Array.of(0), () => keys[0]!);
    cache.get('a', Uint8Array.of(1), () => keys[1]!);
    cache.get('a', Uint8Array.of(0), () => assert.fail('0 is cached'));
    cache.get('a', Uint8Array.of(2), () => keys[2]!); // evicts 1, the least recently used
    assert.equal(cache.size, 2);
    assert.equal(
      cache.get('a', Uint8Array.of(0), () => assert.fail('0 is still cached')),
      keys[0],
    );
    let reloaded = false;
    cache.get('a', Uint8Array.of(1), () => ((reloaded = true), keys[1]!));
    assert.ok(reloaded, '1 was evicted and is loaded again');
  });

  test('a load that throws caches nothing and the error reaches the caller', () => {
    const cache = new PublicKeyCache(2);
    assert.throws(
      () =>
        cache.get('a', Uint8Array.of(9), () => {
          throw new RangeError('bad key');
        }),
      RangeError,
    );
    assert.equal(cache.size, 0);
  });
});

const countCreatePublicKey = (t: TestContext) => countNodeCryptoCalls(t, 'createPublicKey');

describe("recipients' X25519 public keys are imported once", () => {
  test('sealed box: the second seal to a recipient imports one key fewer, and both boxes open', (t) => {
    const recipient = generateKeyPairSync('x25519');
    const secret = new Uint8Array(recipient.privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(-32));
    const publicKey = new Uint8Array(recipient.publicKey.export({ format: 'der', type: 'spki' }).subarray(-32));
    const calls = countCreatePublicKey(t);
    const before = calls();
    const first = sealBox(publicKey, new TextEncoder().encode('one'));
    const firstCalls = calls() - before;
    const second = sealBox(publicKey, new TextEncoder().encode('two'));
    const secondCalls = calls() - before - firstCalls;
    assert.equal(secondCalls, firstCalls - 1, `first seal ${firstCalls} imports, second ${secondCalls}`);
    assert.equal(new TextDecoder().decode(openBox(secret, first)), 'one');
    assert.equal(new TextDecoder().decode(openBox(secret, second)), 'two');
  });

  test('HPKE (DHKEM-X25519): the second encapsulation to a recipient imports one key fewer, and both decapsulate', async (t) => {
    const kem = DHKEM_X25519_HKDF_SHA256;
    const recipient = await kem.generateKeyPair();
    const calls = countCreatePublicKey(t);
    const before = calls();
    const first = await kem.encap(recipient.publicKey);
    const firstCalls = calls() - before;
    const second = await kem.encap(recipient.publicKey);
    const secondCalls = calls() - before - firstCalls;
    assert.equal(secondCalls, firstCalls - 1, `first encapsulation ${firstCalls} imports, second ${secondCalls}`);
    const privateKey = await kem.importPrivateKey(recipient.secretKey);
    assert.deepEqual(await privateKey.decap(first.enc), first.sharedSecret);
    assert.deepEqual(await privateKey.decap(second.enc), second.sharedSecret);
  });

  test('X-Wing: the second encapsulation to a recipient imports one key fewer, and both decapsulate', async (t) => {
    const recipient = await xwingKeygen();
    const calls = countCreatePublicKey(t);
    const before = calls();
    const first = await xwingEncapsulate(recipient.publicKey);
    const firstCalls = calls() - before;
    const second = await xwingEncapsulate(recipient.publicKey);
    const secondCalls = calls() - before - firstCalls;
    // The X25519 half's key, and on Node 24 the ML-KEM half's too (pq-common.ts's cache; Node 22's
    // ML-KEM is @noble/post-quantum, which imports nothing).
    const cachedHalves = PQ_NATIVE_SUPPORT.mlKem ? 2 : 1;
    assert.equal(
      secondCalls,
      firstCalls - cachedHalves,
      `first encapsulation ${firstCalls} imports, second ${secondCalls}`,
    );
    assert.deepEqual((await xwingDecapsulate(recipient.secretKey, first.ciphertext)).sharedSecret, first.sharedSecret);
    assert.deepEqual(
      (await xwingDecapsulate(recipient.secretKey, second.ciphertext)).sharedSecret,
      second.sharedSecret,
    );
  });
});
