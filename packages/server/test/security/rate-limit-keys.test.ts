/**
 * Who shares a rate-limit bucket: one IPv6 /64, every spelling of one IPv4 address, a forwarded
 * value that is no address (the proxy's bucket), malformed URLs, and with RATE_LIMIT_KEY=credential
 * one credential whatever its address.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SignJWT } from 'jose';
import type { FastifyInstance } from 'fastify';
import { testApp, TEST_API_KEY, TEST_JWT_SECRET } from '../helpers.ts';

const HASH_BODY = JSON.stringify({ algorithm: 'sha256', data: 'abc' });
const PROXY = { TRUSTED_PROXY_CIDRS: '127.0.0.1' };

function hash(app: FastifyInstance, headers: Record<string, string> = {}, remoteAddress = '127.0.0.1') {
  return app.inject({
    method: 'POST',
    url: '/v2/hash',
    payload: HASH_BODY,
    remoteAddress,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

async function statuses(app: FastifyInstance, headerSets: Record<string, string>[], remoteAddress?: string) {
  const codes: number[] = [];
  for (const headers of headerSets) codes.push((await hash(app, headers, remoteAddress)).statusCode);
  return codes;
}

const forwardedFor = (address: string) => ({ 'x-forwarded-for': address });

describe('the rate-limit key is the normalised client address', () => {
  test('25 addresses of one forwarded IPv6 /64 share one bucket of 20', async (t) => {
    const app = await testApp({ ...PROXY, RATE_LIMIT_MAX: '20' });
    t.after(() => app.close());
    const codes = await statuses(
      app,
      Array.from({ length: 25 }, (_, i) => forwardedFor(`2001:db8::${(i + 1).toString(16)}`)),
    );
    assert.deepEqual(codes, [...Array<number>(20).fill(200), ...Array<number>(5).fill(429)]);
    // The next /64 is another subscriber, with a bucket of its own.
    assert.equal((await hash(app, forwardedFor('2001:db8:0:1::1'))).statusCode, 200);
  });

  test('a directly connected IPv6 client is keyed by its /64 too', async (t) => {
    const app = await testApp({ RATE_LIMIT_MAX: '3' });
    t.after(() => app.close());
    const codes: number[] = [];
    for (let i = 1; i <= 4; i += 1) codes.push((await hash(app, {}, `2001:db8::${i}`)).statusCode);
    assert.deepEqual(codes, [200, 200, 200, 429]);
    assert.equal((await hash(app, {}, '2001:db8:0:1::1')).statusCode, 200);
  });

  test('RATE_LIMIT_IPV6_PREFIX=128 gives each address its own bucket', async (t) => {
    const app = await testApp({ ...PROXY, RATE_LIMIT_MAX: '1', RATE_LIMIT_IPV6_PREFIX: '128' });
    t.after(() => app.close());
    const codes = await statuses(app, [forwardedFor('2001:db8::1'), forwardedFor('2001:db8::2')]);
    assert.deepEqual(codes, [200, 200]);
    assert.equal((await hash(app, forwardedFor('2001:db8::1'))).statusCode, 429);
  });

  test('every spelling of one IPv4 address shares its bucket', async (t) => {
    const app = await testApp({ ...PROXY, RATE_LIMIT_MAX: '4' });
    t.after(() => app.close());
    const spellings = ['10.6.6.6', '::ffff:10.6.6.6', '::ffff:a06:606', '10.6.6.6:1234', '[::ffff:10.6.6.6]:80'];
    const codes = await statuses(app, spellings.map(forwardedFor));
    assert.deepEqual(codes, [200, 200, 200, 200, 429]);
    // A directly connected client written as IPv4-mapped IPv6 is the same client too.
    assert.equal((await hash(app, {}, '::ffff:10.6.6.6')).statusCode, 429);
  });

  test('a forwarded value that is not an address counts against the proxy that sent it', async (t) => {
    const app = await testApp({ ...PROXY, RATE_LIMIT_MAX: '3' });
    t.after(() => app.close());
    const codes = await statuses(app, ['garbage', '010.006.006.006', 'x'].map(forwardedFor));
    assert.deepEqual(codes, [200, 200, 200]);
    // The proxy's own bucket (127.0.0.1) is the one they used up.
    assert.equal((await hash(app)).statusCode, 429);
    assert.equal((await hash(app, forwardedFor('192.0.2.1'))).statusCode, 200);
  });

  test('malformed URLs are counted, and refused with a 429 once over the limit', async (t) => {
    const app = await testApp({ ...PROXY, RATE_LIMIT_MAX: '2' });
    t.after(() => app.close());
    const codes: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      const response = await app.inject({ method: 'GET', url: '/v2/%zz', headers: forwardedFor('192.0.2.7') });
      codes.push(response.statusCode);
      if (response.statusCode === 429) assert.equal(response.json().code, 'RATE_LIMITED');
    }
    assert.deepEqual(codes, [400, 400, 429]);
    // Counted against the forwarded client, whose other requests are refused too; the proxy is not.
    assert.equal((await hash(app, forwardedFor('192.0.2.7'))).statusCode, 429);
    assert.equal((await hash(app)).statusCode, 200);
  });
});

describe('RATE_LIMIT_KEY=credential', () => {
  const secret = new TextEncoder().encode(TEST_JWT_SECRET);
  const bearer = async (sub: string | undefined) => {
    const jwt = new SignJWT(sub === undefined ? {} : { sub }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt();
    return { authorization: `Bearer ${await jwt.setExpirationTime('5m').sign(secret)}` };
  };
  const env = {
    ...PROXY,
    RATE_LIMIT_KEY: 'credential',
    RATE_LIMIT_MAX: '3',
    CRYPTO_API_KEY: TEST_API_KEY,
    JWT_SECRET: TEST_JWT_SECRET,
  };

  test('two subjects behind one address keep separate budgets; one subject keeps its budget across addresses', async (t) => {
    const app = await testApp(env);
    t.after(() => app.close());
    const alice = await bearer('alice');
    const bob = await bearer('bob');
    const aliceCodes = await statuses(app, [alice, alice, alice, alice]);
    assert.deepEqual(aliceCodes, [200, 200, 200, 429]);
    assert.deepEqual(await statuses(app, [bob, bob, bob]), [200, 200, 200]);
    // Alice from another address is still Alice.
    assert.equal((await hash(app, { ...alice, ...forwardedFor('192.0.2.50') })).statusCode, 429);
  });

  test('an API key has its own bucket, apart from the address', async (t) => {
    const app = await testApp(env);
    t.after(() => app.close());
    const key = { 'x-api-key': TEST_API_KEY };
    assert.deepEqual(await statuses(app, [key, key, key, key]), [200, 200, 200, 429]);
    // The address itself has spent nothing: a token without `sub` is counted by address.
    assert.deepEqual(await statuses(app, [await bearer(undefined)]), [200]);
  });

  test('failed credentials are charged to the address, which is then refused before authentication', async (t) => {
    const app = await testApp(env);
    t.after(() => app.close());
    const wrong = { 'x-api-key': 'wrong-key-0123456789abcdef0123456789' };
    assert.deepEqual(await statuses(app, [wrong, wrong, wrong]), [401, 401, 401]);
    assert.deepEqual(await statuses(app, [wrong, await bearer(undefined)]), [429, 429]);
    // The guessing address is cut off before authentication, good credentials included, until
    // its window ends; the same credential from elsewhere is counted in its own bucket.
    const carol = await bearer('carol');
    assert.deepEqual(await statuses(app, [carol]), [429]);
    assert.deepEqual(await statuses(app, [{ ...carol, ...forwardedFor('192.0.2.60') }]), [200]);
  });

  test('with the default RATE_LIMIT_KEY=address, subjects behind one address share its bucket', async (t) => {
    const app = await testApp({ ...env, RATE_LIMIT_KEY: 'address' });
    t.after(() => app.close());
    const codes = await statuses(app, [
      await bearer('alice'),
      await bearer('bob'),
      await bearer('carol'),
      await bearer('dave'),
    ]);
    assert.deepEqual(codes, [200, 200, 200, 429]);
  });
});
