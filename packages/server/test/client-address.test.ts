import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { addressKey, clientKeyOfHops, ForwardedAddress } from '../src/rate-limit/client-address.ts';

describe('addressKey: one key per client however its address is written', () => {
  test('every spelling of one IPv4 address is the same key', () => {
    for (const spelling of [
      '10.6.6.6',
      '::ffff:10.6.6.6',
      '::ffff:a06:606',
      '::FFFF:0A06:0606',
      '10.6.6.6:1234',
      '[::ffff:10.6.6.6]:80',
    ]) {
      assert.equal(addressKey(spelling, 64), '10.6.6.6', spelling);
    }
  });

  test('what is not an address has no key (ambiguous octets included)', () => {
    for (const value of [
      'garbage',
      '',
      '010.006.006.006',
      '10.6.6',
      '10.6.6.256',
      '10.6.6.6:',
      '1.2.3.4:99999999',
      'unknown',
      '::ffff:10.6.6',
    ]) {
      assert.equal(addressKey(value, 64), undefined, value);
    }
  });

  test('IPv6 is keyed by its prefix: one /64 is one key, its neighbour another', () => {
    const keys = new Set(Array.from({ length: 25 }, (_, i) => addressKey(`2001:db8::${(i + 1).toString(16)}`, 64)));
    assert.deepEqual([...keys], ['2001:db8:0:0:0:0:0:0/64']);
    assert.equal(addressKey('2001:db8:0:0:ffff:ffff:ffff:ffff', 64), '2001:db8:0:0:0:0:0:0/64');
    assert.equal(addressKey('2001:db8:0:1::1', 64), '2001:db8:0:1:0:0:0:0/64');
    assert.equal(addressKey('[2001:DB8::1]:443', 64), '2001:db8:0:0:0:0:0:0/64');
    assert.equal(addressKey('fe80::1%eth0', 64), 'fe80:0:0:0:0:0:0:0/64');
  });

  test('the prefix length is honoured, also inside a group', () => {
    assert.equal(addressKey('2001:db8:abcd:12ff::1', 56), '2001:db8:abcd:1200:0:0:0:0/56');
    assert.equal(addressKey('2001:db8:abcd:12ff::1', 48), '2001:db8:abcd:0:0:0:0:0/48');
    assert.equal(addressKey('2001:db8::1', 128), '2001:db8:0:0:0:0:0:1/128');
    assert.notEqual(addressKey('2001:db8::1', 128), addressKey('2001:db8::2', 128));
  });

  test('an IPv4 tail in IPv6 notation is read as two groups', () => {
    assert.equal(addressKey('64:ff9b::192.0.2.1', 128), '64:ff9b:0:0:0:0:c000:201/128');
  });
});

describe('the client at the end of the hops', () => {
  test('the last hop that is an address: a forwarded value that is none falls back to its reporter', () => {
    assert.equal(clientKeyOfHops(['127.0.0.1', '2001:db8::7'], 64), '2001:db8:0:0:0:0:0:0/64');
    assert.equal(clientKeyOfHops(['127.0.0.1', 'garbage'], 64), '127.0.0.1');
    assert.equal(clientKeyOfHops(['127.0.0.1', '10.0.0.2', '010.006.006.006'], 64), '10.0.0.2');
    assert.equal(clientKeyOfHops([], 64), 'unknown');
  });

  test('forwarded hops are believed only from trusted proxies, read from the right', () => {
    const forwarded = new ForwardedAddress(['127.0.0.1', '10.0.0.0/8']);
    assert.deepEqual(forwarded.hops('127.0.0.1', '203.0.113.9, 10.1.1.1'), ['127.0.0.1', '10.1.1.1', '203.0.113.9']);
    assert.deepEqual(forwarded.hops('::ffff:127.0.0.1', '203.0.113.9'), ['::ffff:127.0.0.1', '203.0.113.9']);
    // A client's own X-Forwarded-For is not believed: its peer is not a proxy.
    assert.deepEqual(forwarded.hops('198.51.100.1', '203.0.113.9'), ['198.51.100.1']);
    // The left-most hop a client wrote is not reached when an untrusted hop stands before it.
    assert.deepEqual(forwarded.hops('127.0.0.1', '1.1.1.1, 198.51.100.1'), ['127.0.0.1', '198.51.100.1']);
    assert.deepEqual(new ForwardedAddress([]).hops('127.0.0.1', '203.0.113.9'), ['127.0.0.1']);
  });
});
