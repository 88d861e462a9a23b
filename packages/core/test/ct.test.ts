import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { constantTimeEqual, matchesSecret, secretFingerprint, wipe } from '../src/ct.ts';

function bytes(...values: number[]): Uint8Array {
  return Uint8Array.from(values);
}

function hex(value: Uint8Array): string {
  return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex');
}

describe('constantTimeEqual', () => {
  test('equal contents in distinct buffers are equal', () => {
    const a = Uint8Array.from({ length: 32 }, (_, i) => i);
    const b = Uint8Array.from({ length: 32 }, (_, i) => i);
    assert.notEqual(a, b);
    assert.equal(constantTimeEqual(a, b), true);
  });

  test('two empty arrays are equal', () => {
    assert.equal(constantTimeEqual(new Uint8Array(0), new Uint8Array(0)), true);
  });

  test('a difference in the first byte is unequal', () => {
    assert.equal(constantTimeEqual(bytes(1, 2, 3, 4), bytes(0, 2, 3, 4)), false);
  });

  test('a difference in the last byte is unequal', () => {
    assert.equal(constantTimeEqual(bytes(1, 2, 3, 4), bytes(1, 2, 3, 5)), false);
  });

  test('a single flipped bit anywhere is unequal', () => {
    const a = Uint8Array.from({ length: 16 }, (_, i) => i * 7);
    for (let bit = 0; bit < a.length * 8; bit += 1) {
      const b = Uint8Array.from(a);
      b[bit >> 3] = (b[bit >> 3] ?? 0) ^ (1 << (bit & 7));
      assert.equal(constantTimeEqual(a, b), false, `bit ${bit}`);
    }
  });

  test('different lengths are unequal, including a prefix and the empty array, without throwing', () => {
    assert.equal(constantTimeEqual(bytes(1, 2, 3), bytes(1, 2, 3, 4)), false);
    assert.equal(constantTimeEqual(bytes(1, 2, 3, 4), bytes(1, 2, 3)), false);
    assert.equal(constantTimeEqual(new Uint8Array(0), bytes(0)), false);
  });

  test('compares the viewed bytes of subarrays, not the whole underlying buffer', () => {
    const backing = bytes(9, 1, 2, 3, 8);
    assert.equal(constantTimeEqual(backing.subarray(1, 4), bytes(1, 2, 3)), true);
    assert.equal(constantTimeEqual(backing.subarray(0, 3), bytes(1, 2, 3)), false);
  });
});

describe('secretFingerprint and matchesSecret', () => {
  const secret = new TextEncoder().encode('correct horse battery staple');

  test('the fingerprint is the SHA-256 of the secret (FIPS 180-4 example: SHA-256("abc"))', () => {
    const fingerprint = secretFingerprint(new TextEncoder().encode('abc'));
    assert.equal(hex(fingerprint), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  test('the fingerprint is 32 bytes whatever the length of the secret', () => {
    for (const length of [0, 1, 31, 32, 33, 1000]) {
      assert.equal(secretFingerprint(new Uint8Array(length)).byteLength, 32, `length ${length}`);
    }
  });

  test('the right candidate matches', () => {
    const fingerprint = secretFingerprint(secret);
    assert.equal(matchesSecret(Uint8Array.from(secret), fingerprint), true);
  });

  test('a wrong candidate of the same length does not match', () => {
    const fingerprint = secretFingerprint(secret);
    const wrong = Uint8Array.from(secret);
    wrong[wrong.length - 1] = (wrong[wrong.length - 1] ?? 0) ^ 1;
    assert.equal(matchesSecret(wrong, fingerprint), false);
    const first = Uint8Array.from(secret);
    first[0] = (first[0] ?? 0) ^ 0x80;
    assert.equal(matchesSecret(first, fingerprint), false);
  });

  test('candidates of other lengths, a prefix, an extension or empty, do not match and do not throw', () => {
    const fingerprint = secretFingerprint(secret);
    assert.equal(matchesSecret(secret.subarray(0, secret.length - 1), fingerprint), false);
    assert.equal(matchesSecret(Uint8Array.of(...secret, 0), fingerprint), false);
    assert.equal(matchesSecret(new Uint8Array(0), fingerprint), false);
    assert.equal(matchesSecret(new TextEncoder().encode('x'.repeat(1000)), fingerprint), false);
  });

  test('the empty secret matches only the empty candidate', () => {
    const fingerprint = secretFingerprint(new Uint8Array(0));
    assert.equal(matchesSecret(new Uint8Array(0), fingerprint), true);
    assert.equal(matchesSecret(bytes(0), fingerprint), false);
  });
});

describe('wipe', () => {
  test('zeroes every buffer it is given', () => {
    const a = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
    const b = new Uint8Array(64).fill(0xff);
    const c = bytes(7);
    wipe(a, b, c);
    for (const [name, buffer] of [['a', a], ['b', b], ['c', c]] as const) {
      assert.ok(buffer.every((value) => value === 0), `${name} not zeroed`);
    }
    assert.equal(a.byteLength, 32);
    assert.equal(b.byteLength, 64);
  });

  test('tolerates undefined among the buffers and still wipes the others', () => {
    const a = new Uint8Array(8).fill(1);
    const b = new Uint8Array(8).fill(2);
    assert.doesNotThrow(() => wipe(undefined, a, undefined, b));
    assert.deepEqual(a, new Uint8Array(8));
    assert.deepEqual(b, new Uint8Array(8));
    assert.doesNotThrow(() => wipe());
    assert.doesNotThrow(() => wipe(undefined));
  });

  test('wipes a Buffer, and only the viewed part of a subarray', () => {
    const buffer = Buffer.from('secret key material');
    wipe(buffer);
    assert.ok(buffer.every((value) => value === 0));
    const backing = new Uint8Array(6).fill(9);
    wipe(backing.subarray(2, 4));
    assert.deepEqual(backing, bytes(9, 9, 0, 0, 9, 9));
  });
});
