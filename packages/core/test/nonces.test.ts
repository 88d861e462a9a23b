import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fillNonce, randomNonce } from '../src/nonces.ts';
import { xchachaSeal } from '../src/aead.ts';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

describe('randomNonce', () => {
  test('returns exactly the length asked for, small (pooled) and large (drawn directly)', () => {
    for (const length of [0, 1, 12, 24, 255, 256, 257, 4096, 10_000]) {
      assert.equal(randomNonce(length).byteLength, length, `length ${length}`);
    }
  });

  test('a length that is not a whole number of bytes is refused, and the pool is not disturbed', () => {
    for (const length of [-1, -24, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.throws(() => randomNonce(length), RangeError, String(length));
    }
    assert.ok(randomNonce(24).some((byte) => byte !== 0));
  });

  test('no nonce repeats, across many refills of the pool', () => {
    // 50 000 nonces of 24 bytes are about 300 refills of the 4 KiB pool.
    const seen = new Set<string>();
    for (let i = 0; i < 50_000; i++) seen.add(hex(randomNonce(24)));
    assert.equal(seen.size, 50_000);
  });

  test('the bytes are uniform: a chi-square test over every byte value, and no nonce of zeros', () => {
    // The pool zeroes what it hands out: a nonce taken from the wrong place would be all zeros.
    const counts = new Array<number>(256).fill(0);
    const nonces = 40_000;
    for (let i = 0; i < nonces; i++) {
      const nonce = randomNonce(24);
      assert.ok(
        nonce.some((byte) => byte !== 0),
        `nonce ${i} is all zeros`,
      );
      for (const byte of nonce) counts[byte] = (counts[byte] ?? 0) + 1;
    }
    const expected = (nonces * 24) / 256;
    const chiSquare = counts.reduce((sum, count) => sum + (count - expected) ** 2 / expected, 0);
    // 255 degrees of freedom: the mean is 255 and the standard deviation about 22.6; 400 is over
    // six standard deviations (p < 10⁻⁹), while a byte value missing or doubled adds thousands.
    assert.ok(chiSquare < 400, `chi-square ${chiSquare.toFixed(1)}`);
  });

  test('every nonce is a copy of its own: later draws and refills do not change it', () => {
    const nonce = randomNonce(24);
    assert.equal(nonce.buffer.byteLength, 24);
    const before = hex(nonce);
    for (let i = 0; i < 1000; i++) randomNonce(24);
    assert.equal(hex(nonce), before);
  });

  test('fillNonce writes in place, into exactly the view it is given', () => {
    const backing = new Uint8Array(40).fill(0xee);
    const target = backing.subarray(8, 32);
    assert.equal(fillNonce(target), target);
    assert.ok(backing.subarray(0, 8).every((byte) => byte === 0xee));
    assert.ok(backing.subarray(32).every((byte) => byte === 0xee));
    assert.ok(target.some((byte) => byte !== 0xee && byte !== 0));
    const large = new Uint8Array(1000);
    assert.ok(fillNonce(large).some((byte) => byte !== 0));
  });

  test('xchachaSeal puts a fresh nonce in front of every ciphertext', () => {
    const key = new Uint8Array(32).fill(7);
    const plaintext = new TextEncoder().encode('the same message');
    const nonces = new Set<string>();
    for (let i = 0; i < 1000; i++) nonces.add(hex(xchachaSeal(key, plaintext).subarray(0, 24)));
    assert.equal(nonces.size, 1000);
  });
});
