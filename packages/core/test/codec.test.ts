import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  base64ToBytes,
  bytesToBase64,
  bytesToBase64Url,
  bytesToHex,
  bytesToUtf8,
  decodeText,
  encodeText,
  hexToBytes,
  TEXT_ENCODINGS,
  utf8ToBytes,
} from '../src/codec.ts';
import { CryptoError } from '../src/errors.ts';

/** Every byte value once, so that round trips cover the whole alphabet of each encoding. */
const ALL_BYTES = Uint8Array.from({ length: 256 }, (_, i) => i);

function assertInvalidInput(fn: () => unknown, field: string, message?: RegExp): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof CryptoError, `expected a CryptoError, got ${String(error)}`);
    assert.equal(error.code, 'INVALID_INPUT');
    assert.equal(error.field, field);
    assert.ok(error.message.includes(field), `message "${error.message}" does not name the field ${field}`);
    if (message !== undefined) {
      assert.match(error.message, message);
    }
    return true;
  });
}

describe('hex', () => {
  test('round trip of every byte value, lower-case out', () => {
    const text = bytesToHex(ALL_BYTES);
    assert.equal(text, Buffer.from(ALL_BYTES).toString('hex'));
    assert.match(text, /^[0-9a-f]{512}$/);
    assert.deepEqual(hexToBytes(text), ALL_BYTES);
  });

  test('the empty string is zero bytes', () => {
    assert.deepEqual(hexToBytes(''), new Uint8Array(0));
    assert.equal(bytesToHex(new Uint8Array(0)), '');
  });

  test('upper-case and mixed-case hex are accepted', () => {
    assert.deepEqual(hexToBytes('DEADBEEF'), Uint8Array.of(0xde, 0xad, 0xbe, 0xef));
    assert.deepEqual(hexToBytes('dEaDbEeF'), Uint8Array.of(0xde, 0xad, 0xbe, 0xef));
    assert.deepEqual(hexToBytes(bytesToHex(ALL_BYTES).toUpperCase()), ALL_BYTES);
  });

  test('odd length is rejected with INVALID_INPUT naming the field', () => {
    for (const text of ['a', 'abc', '0', '00f']) {
      assertInvalidInput(() => hexToBytes(text, '/key'), '/key', /hex/);
    }
  });

  test('non-hex characters are rejected, even where Node would decode a prefix', () => {
    for (const text of ['zz', '0g', 'gg00', '00zz', '0x00', '00 11', ' 00', '00\n', '+0', 'é0']) {
      assertInvalidInput(() => hexToBytes(text, '/data'), '/data', /hex/);
    }
  });

  test('the field defaults to "value"', () => {
    assertInvalidInput(() => hexToBytes('xyz'), 'value');
  });

  test('bytesToHex respects the view of a subarray', () => {
    assert.equal(bytesToHex(ALL_BYTES.subarray(16, 20)), '10111213');
  });
});

describe('encoding small arrays (copied) and large ones (viewed)', () => {
  // Independent encoders: a hex digit table and the web platform's btoa.
  const hexByHand = (bytes: Uint8Array) => Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  const base64ByBtoa = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
  const base64UrlByBtoa = (bytes: Uint8Array) =>
    base64ByBtoa(bytes).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');

  test('every length either side of the threshold encodes as independent encoders do, and leaves its input as it was', () => {
    for (let length = 0; length <= 130; length++) {
      const fresh = Uint8Array.from({ length }, (_, i) => (i * 73 + length) & 0xff);
      const before = Uint8Array.from(fresh);
      assert.equal(bytesToHex(fresh), hexByHand(before), `hex, ${length} bytes`);
      assert.equal(bytesToBase64(fresh), base64ByBtoa(before), `base64, ${length} bytes`);
      assert.equal(bytesToBase64Url(fresh), base64UrlByBtoa(before), `base64url, ${length} bytes`);
      assert.deepEqual(fresh, before, `input unchanged, ${length} bytes`);
      // The same bytes as a view into a larger buffer.
      const view = new Uint8Array(length + 8).subarray(5, 5 + length);
      view.set(before);
      assert.equal(bytesToHex(view), hexByHand(before), `hex of a view, ${length} bytes`);
      assert.equal(bytesToBase64(view), base64ByBtoa(before), `base64 of a view, ${length} bytes`);
      assert.equal(bytesToBase64Url(view), base64UrlByBtoa(before), `base64url of a view, ${length} bytes`);
    }
  });
});

describe('base64', () => {
  test('round trip of every byte value, standard alphabet with padding out', () => {
    const text = bytesToBase64(ALL_BYTES);
    assert.equal(text, Buffer.from(ALL_BYTES).toString('base64'));
    assert.deepEqual(base64ToBytes(text), ALL_BYTES);
  });

  test('RFC 4648 section 10 test vectors decode and encode', () => {
    const vectors: ReadonlyArray<readonly [string, string]> = [
      ['', ''],
      ['f', 'Zg=='],
      ['fo', 'Zm8='],
      ['foo', 'Zm9v'],
      ['foob', 'Zm9vYg=='],
      ['fooba', 'Zm9vYmE='],
      ['foobar', 'Zm9vYmFy'],
    ];
    for (const [plain, encoded] of vectors) {
      assert.deepEqual(base64ToBytes(encoded), new TextEncoder().encode(plain), encoded);
      assert.equal(bytesToBase64(new TextEncoder().encode(plain)), encoded, plain);
    }
  });

  test('round trips at every length 0..64 (all three padding cases)', () => {
    for (let length = 0; length <= 64; length += 1) {
      const bytes = ALL_BYTES.subarray(200 - length, 200);
      assert.deepEqual(base64ToBytes(bytesToBase64(bytes)), bytes, `length ${length}`);
    }
  });

  test('base64 without its padding is rejected with INVALID_INPUT naming the field', () => {
    for (const text of ['Zg', 'Zm8', 'Zm9vYg', 'Zm9vYmE', 'Zg=']) {
      assertInvalidInput(() => base64ToBytes(text, '/ciphertext'), '/ciphertext', /base64/);
    }
  });

  test('whitespace anywhere is rejected', () => {
    for (const text of ['Zm9v Ymfy', ' Zm9v', 'Zm9v\n', 'Zm9v\r\nYmFy', 'Zm9v\tYmFy']) {
      assertInvalidInput(() => base64ToBytes(text, '/data'), '/data', /base64/);
    }
  });

  test('the url-safe alphabet is rejected', () => {
    // 0xfb 0xff encodes as "+/8=" in standard base64 and "-_8=" in base64url.
    assert.deepEqual(base64ToBytes('+/8='), Uint8Array.of(0xfb, 0xff));
    for (const text of ['-_8=', '-_8', 'ab-_', 'ab_-']) {
      assertInvalidInput(() => base64ToBytes(text, '/nonce'), '/nonce', /base64/);
    }
  });

  test('misplaced or excess padding and foreign characters are rejected', () => {
    for (const text of ['=', '====', 'Zg===', 'Z===', 'Zm=v', '=Zm9', 'Zm9v=', 'Zm9v====', 'Zm9v!', 'Zm9vé']) {
      assertInvalidInput(() => base64ToBytes(text, '/data'), '/data', /base64/);
    }
  });

  test('the field defaults to "value"', () => {
    assertInvalidInput(() => base64ToBytes('Zg'), 'value');
  });
});

describe('utf8', () => {
  test('round trip of text with 1-, 2-, 3- and 4-byte characters', () => {
    const text = 'a\u00e9\u20ac\u{1f600}\u0000z';
    const bytes = utf8ToBytes(text);
    assert.deepEqual(bytes, Uint8Array.of(0x61, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80, 0x00, 0x7a));
    assert.equal(bytesToUtf8(bytes), text);
  });

  test('the empty string round trips', () => {
    assert.deepEqual(utf8ToBytes(''), new Uint8Array(0));
    assert.equal(bytesToUtf8(new Uint8Array(0)), '');
  });

  test('a byte-order mark is kept as data, not stripped', () => {
    const bytes = Uint8Array.of(0xef, 0xbb, 0xbf, 0x61);
    assert.equal(bytesToUtf8(bytes), '\ufeffa');
    assert.deepEqual(utf8ToBytes('\ufeffa'), bytes);
  });

  test('lone surrogates are rejected by utf8ToBytes rather than replaced with U+FFFD', () => {
    for (const text of ['\ud800', '\udfff', 'a\ud800b', 'a\udc00', '\ud83d', '\ude00\ud83d']) {
      assertInvalidInput(() => utf8ToBytes(text, '/data'), '/data', /surrogate/);
    }
  });

  test('a correctly paired surrogate is accepted', () => {
    assert.deepEqual(utf8ToBytes('\ud83d\ude00'), Uint8Array.of(0xf0, 0x9f, 0x98, 0x80));
  });

  test('invalid UTF-8 is rejected by bytesToUtf8 with a message that says to ask for base64', () => {
    const invalid: ReadonlyArray<readonly [string, Uint8Array]> = [
      ['0xff', Uint8Array.of(0xff)],
      ['0xfe', Uint8Array.of(0x61, 0xfe)],
      ['overlong NUL 0xc0 0x80', Uint8Array.of(0xc0, 0x80)],
      ['overlong "/" 0xe0 0x80 0xaf', Uint8Array.of(0xe0, 0x80, 0xaf)],
      ['truncated 2-byte sequence', Uint8Array.of(0xc3)],
      ['truncated 3-byte sequence', Uint8Array.of(0x61, 0xe2, 0x82)],
      ['truncated 4-byte sequence', Uint8Array.of(0xf0, 0x9f, 0x98)],
      ['lone continuation byte', Uint8Array.of(0x80)],
      ['encoded surrogate 0xed 0xa0 0x80', Uint8Array.of(0xed, 0xa0, 0x80)],
      ['code point above U+10FFFF', Uint8Array.of(0xf4, 0x90, 0x80, 0x80)],
    ];
    for (const [name, bytes] of invalid) {
      assert.throws(
        () => bytesToUtf8(bytes, 'plaintext'),
        (error: unknown) => {
          assert.ok(error instanceof CryptoError, name);
          assert.equal(error.code, 'INVALID_INPUT', name);
          assert.equal(error.field, 'plaintext', name);
          assert.match(error.message, /plaintext/, name);
          assert.match(error.message, /base64/, name);
          return true;
        },
        name,
      );
    }
  });

  test('bytesToUtf8 names "plaintext" by default', () => {
    assertInvalidInput(() => bytesToUtf8(Uint8Array.of(0xff)), 'plaintext', /base64/);
  });
});

describe('decodeText and encodeText', () => {
  test('the three encodings of the same bytes decode to those bytes', () => {
    const expected = new TextEncoder().encode('abc');
    assert.deepEqual(decodeText('abc', 'utf8', '/data'), expected);
    assert.deepEqual(decodeText('YWJj', 'base64', '/data'), expected);
    assert.deepEqual(decodeText('616263', 'hex', '/data'), expected);
    assert.deepEqual(decodeText('616263'.toUpperCase(), 'hex', '/data'), expected);
  });

  test('encodeText gives utf8, standard base64 and lower-case hex', () => {
    const bytes = new TextEncoder().encode('abc');
    assert.equal(encodeText(bytes, 'utf8', '/plaintext'), 'abc');
    assert.equal(encodeText(bytes, 'base64', '/plaintext'), 'YWJj');
    assert.equal(encodeText(Uint8Array.of(0xab, 0xcd), 'hex', '/plaintext'), 'abcd');
  });

  test('every encoding round trips through encodeText then decodeText', () => {
    const text = 'plain \u00e9\u{1f600}';
    const bytes = new TextEncoder().encode(text);
    assert.deepEqual([...TEXT_ENCODINGS].sort(), ['base64', 'hex', 'utf8']);
    for (const encoding of TEXT_ENCODINGS) {
      assert.deepEqual(decodeText(encodeText(bytes, encoding, '/x'), encoding, '/x'), bytes, encoding);
    }
  });

  test('decoding errors carry the field that was given', () => {
    assertInvalidInput(() => decodeText('abc', 'hex', '/key'), '/key', /hex/);
    assertInvalidInput(() => decodeText('YWJj=', 'base64', '/iv'), '/iv', /base64/);
    assertInvalidInput(() => decodeText('\ud800', 'utf8', '/data'), '/data', /surrogate/);
  });

  test('encodeText to utf8 of bytes that are not UTF-8 fails, naming the field and suggesting base64', () => {
    assertInvalidInput(() => encodeText(Uint8Array.of(0xc0, 0x80), 'utf8', '/plaintext'), '/plaintext', /base64/);
  });
});

test('base64 with nonzero padding bits is refused: one spelling per value', () => {
  assert.deepEqual([...base64ToBytes('YQ==', 'data')], [0x61]);
  assert.throws(
    () => base64ToBytes('YR==', 'data'),
    (error: unknown) =>
      error instanceof CryptoError && error.code === 'INVALID_INPUT' && /canonical/.test(error.message),
  );
});

test('decoded bytes own their memory, so wiping them cannot touch anything else', () => {
  const key = hexToBytes('00112233', 'key');
  assert.equal(key.byteOffset, 0);
  assert.equal(key.buffer.byteLength, 4);
});
