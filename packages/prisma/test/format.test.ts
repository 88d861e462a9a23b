/**
 * The stored format's pure parts, as the README states them: associated data for single,
 * numeric and composite primary keys, the key id of a stored value, and the checks of the keys.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { associatedData, formatPrimaryKey, storedKeyId, validateKeys } from '../src/field-cipher.ts';

test('primary keys: a string as is, numbers in decimal, a composite key as a JSON array of strings', () => {
  assert.equal(formatPrimaryKey(['a:b.c']), 'a:b.c');
  assert.equal(formatPrimaryKey([42]), '42');
  assert.equal(formatPrimaryKey([9007199254740993n]), '9007199254740993');
  assert.equal(formatPrimaryKey([7, 'fr']), '["7","fr"]');
  assert.throws(() => formatPrimaryKey([new Date(0)]), TypeError);
  assert.equal(associatedData({ model: 'User', field: 'email', primaryKey: formatPrimaryKey([42]) }), 'User.email:42');
});

test('the key id of a stored value, and nothing for other text', () => {
  assert.equal(storedKeyId('v1.2026-01.AAAA'), '2026-01');
  assert.equal(storedKeyId('v2.k.AAAA'), undefined);
  assert.equal(storedKeyId('plain text'), undefined);
  assert.equal(storedKeyId('v1.k.AA.extra'), undefined);
});

test('keys are checked before use, and the errors show no key', () => {
  const client = {} as never;
  const key = 'ab'.repeat(32);
  assert.doesNotThrow(() => validateKeys({ client, keys: { k1: key }, currentKeyId: 'k1', blindIndexKey: key }));
  assert.throws(() => validateKeys({ client, keys: { 'k.1': key }, currentKeyId: 'k.1' }), /key id "k\.1"/);
  assert.throws(
    () => validateKeys({ client, keys: { k1: 'ab' }, currentKeyId: 'k1' }),
    (error: Error) => !error.message.includes('ab'),
  );
  assert.throws(() => validateKeys({ client, keys: { k1: key }, currentKeyId: 'k2' }), /currentKeyId "k2"/);
  assert.throws(
    () => validateKeys({ client, keys: { k1: key }, currentKeyId: 'k1', blindIndexKey: 'abcd' }),
    /16 bytes/,
  );
});
