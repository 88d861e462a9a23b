/**
 * node-crypto.ts: core's key-taking node:crypto calls hand secret keys over as KeyObjects and run
 * the asymmetric ones without stack traces (an unexpected failure gets its frames back), give
 * node:crypto's own results. (That core reaches those functions only through it is a lint rule:
 * scripts/eslint/wrapped-node-crypto.js.)
 */
import nodeCrypto, { KeyObject } from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { tryOr } from '../src/errors.ts';
import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  createPrivateKey,
  createPublicKey,
  hkdfSync,
  sign,
  verify,
} from '../src/node-crypto.ts';

const key = new Uint8Array(32).fill(7);
const iv = new Uint8Array(12).fill(1);
const message = new TextEncoder().encode('a message');

describe('node-crypto.ts', () => {
  test("secret keys reach node:crypto as KeyObjects, with node:crypto's results", (t) => {
    const hmacSpy = t.mock.method(nodeCrypto, 'createHmac');
    const cipherSpy = t.mock.method(nodeCrypto, 'createCipheriv');
    const hkdfSpy = t.mock.method(nodeCrypto, 'hkdfSync');
    syncBuiltinESMExports();
    t.after(() => {
      t.mock.restoreAll();
      syncBuiltinESMExports();
    });
    const mac = createHmac('sha256', key).update(message).digest();
    const cipher = createCipheriv('chacha20-poly1305', key, iv, { authTagLength: 16 });
    const sealed = Buffer.concat([cipher.update(message), cipher.final(), cipher.getAuthTag()]);
    const derived = Buffer.from(hkdfSync('sha256', key, iv, message, 32));
    for (const spy of [hmacSpy, cipherSpy]) assert.ok(spy.mock.calls[0]?.arguments[1] instanceof KeyObject);
    assert.ok(hkdfSpy.mock.calls[0]?.arguments[1] instanceof KeyObject);
    t.mock.restoreAll();
    syncBuiltinESMExports();

    // The same bytes as node:crypto given the raw key.
    assert.deepEqual(mac, nodeCrypto.createHmac('sha256', key).update(message).digest());
    const reference = nodeCrypto.createCipheriv('chacha20-poly1305', key, iv, { authTagLength: 16 });
    assert.deepEqual(sealed, Buffer.concat([reference.update(message), reference.final(), reference.getAuthTag()]));
    assert.deepEqual(derived, Buffer.from(nodeCrypto.hkdfSync('sha256', key, iv, message, 32)));
    const decipher = createDecipheriv('chacha20-poly1305', key, iv, { authTagLength: 16 });
    decipher.setAuthTag(sealed.subarray(-16));
    assert.deepEqual(Buffer.concat([decipher.update(sealed.subarray(0, -16)), decipher.final()]), Buffer.from(message));
  });

  test("asymmetric calls run without stack traces and restore the limit; their results are node:crypto's", (t) => {
    const before = Error.stackTraceLimit;
    // Each node:crypto function, spied on: the stack-trace limit it ran under.
    const limitsSeen: Record<string, number[]> = {};
    for (const name of ['createPrivateKey', 'createPublicKey', 'sign', 'verify'] as const) {
      const original = nodeCrypto[name] as (...args: unknown[]) => unknown;
      t.mock.method(nodeCrypto, name, (...args: unknown[]) => {
        (limitsSeen[name] ??= []).push(Error.stackTraceLimit);
        return original(...args);
      });
    }
    syncBuiltinESMExports();
    t.after(() => {
      t.mock.restoreAll();
      syncBuiltinESMExports();
    });
    const { privateKey } = nodeCrypto.generateKeyPairSync('ed25519');
    const pkcs8 = privateKey.export({ format: 'der', type: 'pkcs8' });
    const imported = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' });
    const publicKey = createPublicKey(imported);
    const signature = sign(null, message, { key: imported });
    assert.equal(verify(null, message, { key: publicKey }, signature), true);
    assert.deepEqual(limitsSeen, { createPrivateKey: [0], createPublicKey: [0], sign: [0], verify: [0] });
    assert.equal(Error.stackTraceLimit, before);
    t.mock.restoreAll();
    syncBuiltinESMExports();
    assert.equal(nodeCrypto.verify(null, message, publicKey, signature), true);
    assert.deepEqual(Buffer.from(signature), nodeCrypto.sign(null, message, privateKey));
  });

  test('a failure nothing expected gets the frames of the failed call; inside tryOr, none', () => {
    const before = Error.stackTraceLimit;
    const unreadable = { key: Buffer.alloc(3), format: 'der', type: 'spki' } as const;
    const failureOf = (work: () => unknown): Error => {
      try {
        work();
      } catch (caught) {
        assert.ok(caught instanceof Error);
        return caught;
      }
      assert.fail('expected the call to throw');
    };
    // With stack traces on (a 500 that will be logged): Node's error and message kept, its frames
    // starting at the caller: none from inside node:crypto, which ran with stack traces off.
    const unexpected = failureOf(function importUnreadableKey() {
      createPublicKey(unreadable);
    });
    assert.equal(unexpected.message, failureOf(() => nodeCrypto.createPublicKey(unreadable)).message);
    assert.match(String(unexpected.stack), /^[^\n]*\n\s+at importUnreadableKey /);
    assert.equal(Error.stackTraceLimit, before);
    // Inside tryOr (bad input, answered with core's own error): no frames captured at all.
    const expected = failureOf(() =>
      tryOr(
        () => createPublicKey(unreadable),
        (error) => {
          throw error;
        },
      ),
    );
    assert.doesNotMatch(String(expected.stack), /\n\s+at /);
    assert.equal(Error.stackTraceLimit, before);
  });
});
