import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SECRET_SET_MINIMUM_BYTES, SecretSet, constantTimeEqual, wipe } from '../src/ct.ts';

function bytes(...values: number[]): Uint8Array {
  return Uint8Array.from(values);
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

describe('SecretSet', () => {
  const secret = 'correct horse battery staple';
  const setOf = (...secrets: string[]) => new SecretSet(secrets.map((value) => Buffer.from(value, 'utf8')));

  test('the right candidate matches', () => {
    assert.equal(setOf(secret).matches(secret), true);
  });

  test('a wrong candidate of the same length does not match, whichever byte differs', () => {
    const set = setOf(secret);
    assert.equal(set.matches(`${secret.slice(0, -1)}f`), false);
    assert.equal(set.matches(`C${secret.slice(1)}`), false);
  });

  test('candidates of other lengths, a prefix, an extension, a NUL extension or empty, do not match', () => {
    const set = setOf(secret);
    for (const candidate of [
      secret.slice(0, -1),
      `${secret}e`,
      `${secret}\0`,
      '',
      'x'.repeat(1000),
      'x'.repeat(100_000),
    ]) {
      assert.equal(set.matches(candidate), false, `${candidate.length} characters`);
    }
  });

  test('every secret of a rotation matches, and nothing else', () => {
    const set = setOf('first-key-0123456789', 'second-key-0123456789');
    assert.equal(set.count, 2);
    assert.equal(set.matches('first-key-0123456789'), true);
    assert.equal(set.matches('second-key-0123456789'), true);
    assert.equal(set.matches('third-key-0123456789'), false);
  });

  test('candidates are compared as UTF-8, as the secrets are', () => {
    const set = setOf('schlüssel-ключ-🔑');
    assert.equal(set.matches('schlüssel-ключ-🔑'), true);
    // The same characters read as Latin-1 bytes (how Node hands a header of UTF-8 bytes over) differ.
    assert.equal(set.matches(Buffer.from('schlüssel-ключ-🔑', 'utf8').toString('latin1')), false);
  });

  test('a candidate leaves nothing behind: a shorter one after a longer one is padded with zeros again', () => {
    const set = setOf('ab');
    assert.equal(set.matches('abc'), false);
    assert.equal(set.matches('ab'), true);
    assert.equal(set.matches('x'.repeat(SECRET_SET_MINIMUM_BYTES + 3)), false);
    assert.equal(set.matches('ab'), true);
  });

  test('an empty secret is refused: it would let in an empty header', () => {
    assert.throws(() => setOf('ok-key-0123456789', ''), RangeError);
    assert.equal(setOf('ok-key-0123456789').matches(''), false);
  });

  test('every set whose secrets fit the minimum pads them to the same size, so their lengths do not show', () => {
    const sizes = new Set([
      setOf('a').paddedBytes,
      setOf('a'.repeat(64)).paddedBytes,
      setOf('a'.repeat(SECRET_SET_MINIMUM_BYTES)).paddedBytes,
      setOf().paddedBytes,
    ]);
    assert.equal(sizes.size, 1);
  });

  test('a longer secret widens the room to the next power of two, which is all its size says of its length', () => {
    const minimum = setOf('a').paddedBytes;
    const sizes = [SECRET_SET_MINIMUM_BYTES + 1, SECRET_SET_MINIMUM_BYTES + 200, 2 * SECRET_SET_MINIMUM_BYTES].map(
      (length) => setOf('a'.repeat(length)).paddedBytes,
    );
    assert.equal(new Set(sizes).size, 1);
    assert.equal(sizes[0], minimum + SECRET_SET_MINIMUM_BYTES);
    assert.equal(
      setOf('a'.repeat(2 * SECRET_SET_MINIMUM_BYTES + 1)).paddedBytes,
      minimum + 3 * SECRET_SET_MINIMUM_BYTES,
    );
  });

  test('a secret longer than the minimum still matches exactly, at the edges of its room too', () => {
    const long = 'k'.repeat(2 * SECRET_SET_MINIMUM_BYTES);
    const set = setOf(long, 'short-key-0123456789');
    assert.equal(set.matches(long), true);
    assert.equal(set.matches(long.slice(1)), false);
    assert.equal(set.matches(`${long}k`), false);
    assert.equal(set.matches('short-key-0123456789'), true);
  });

  test('a candidate longer than every secret by less than one character of UTF-8 never matches as its cut prefix', () => {
    // Buffer.write stops before a character that does not fit; such a candidate must not be taken
    // for the prefix that was written.
    const room = SECRET_SET_MINIMUM_BYTES;
    for (const tail of ['é', '€', '🔑']) {
      for (let pad = 0; pad < 4; pad++) {
        const prefix = 'p'.repeat(room - pad);
        const set = setOf(prefix);
        assert.equal(set.matches(prefix), true);
        assert.equal(set.matches(`${prefix}${tail}`), false, `${pad} short of the room, then ${tail}`);
        assert.equal(set.matches(`${prefix}${tail}${tail}`), false);
      }
    }
  });
});

describe('wipe', () => {
  test('zeroes every buffer it is given', () => {
    const a = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
    const b = new Uint8Array(64).fill(0xff);
    const c = bytes(7);
    wipe(a, b, c);
    for (const [name, buffer] of [
      ['a', a],
      ['b', b],
      ['c', c],
    ] as const) {
      assert.ok(
        buffer.every((value) => value === 0),
        `${name} not zeroed`,
      );
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
