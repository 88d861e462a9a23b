/**
 * Outputs feed inputs: for every producer -> consumer pair of the API, the producer's `data` object
 * is sent whole to its consumer, with only the key (and the message, data or password) added, and
 * the consumer reverses the operation. Every algorithm of each family is walked, taken from
 * `GET /v2/algorithms` so that a new identifier is walked too. The keys come from the service's
 * own key generation, under the names it answers with, so that keygen -> use is checked as well.
 *
 * SLH-DSA's 's' sets sign for seconds even natively and for minutes in pure JavaScript: they are
 * walked where the runtime has native SLH-DSA (Node 24), the 'f' sets everywhere.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { PQ_NATIVE_SUPPORT } from '@crypto-service/core';
import { postJson, testApp } from './helpers.ts';

type Data = Record<string, any>;

describe('every output feeds the next call unchanged', () => {
  let app: FastifyInstance;
  let families: Record<string, string[]>;

  /** POSTs and returns `data`, failing with the route and the problem text on any other status. */
  async function call(url: string, body: Data): Promise<any> {
    const response = await postJson(app, url, body);
    assert.equal(response.statusCode, 200, `${url}: ${response.body.slice(0, 300)}`);
    return response.json().data;
  }

  const keyPair = (algorithm: string): Promise<Data> => call('/v2/keys/generate', { algorithm });
  const secretKey = async (algorithm: string): Promise<string> => (await call('/v2/keys/generate', { algorithm })).key;
  const family = (name: string): string[] => {
    const ids = families[name];
    assert.ok(ids !== undefined && ids.length > 0, `GET /v2/algorithms has no family ${name}`);
    return ids;
  };
  const walkable = (id: string) => PQ_NATIVE_SUPPORT.slhDsa || !/^slh-dsa-.*s$/.test(id);

  before(async () => {
    app = await testApp({ RATE_LIMIT_MAX: '10000000' });
    const response = await app.inject({ method: 'GET', url: '/v2/algorithms' });
    families = response.json().data;
  });
  after(() => app.close());

  test('encrypt -> decrypt and secretbox/seal -> open, for every aead id', async () => {
    for (const algorithm of family('aead')) {
      const key = await secretKey(algorithm);
      for (const [produce, consume] of [
        ['/v2/encrypt', '/v2/decrypt'],
        ['/v2/secretbox/seal', '/v2/secretbox/open'],
      ] as const) {
        const sealed = await call(produce, { key, plaintext: 'chained', aad: 'row 7', algorithm });
        assert.equal(sealed.algorithm, algorithm);
        assert.equal(await call(consume, { ...sealed, key, aad: 'row 7' }), 'chained', `${produce} -> ${consume}`);
      }
    }
  });

  test('sealedbox/seal -> open with a generated x25519 pair', async () => {
    const [algorithm] = family('sealedBox');
    const pair = await keyPair('x25519');
    const sealed = await call('/v2/sealedbox/seal', { publicKey: pair.publicKey, plaintext: 'to you' });
    assert.equal(sealed.algorithm, algorithm);
    assert.equal(await call('/v2/sealedbox/open', { ...sealed, privateKey: pair.privateKey }), 'to you');
  });

  test('sealedbox/seal-pq -> open-pq with pairs from /v2/pq/hybrid/keygen and /v2/keys/generate', async () => {
    const [algorithm] = family('pqSealedBox');
    for (const pair of [await call('/v2/pq/hybrid/keygen', {}), await keyPair('x25519-ml-kem-768')]) {
      const sealed = await call('/v2/sealedbox/seal-pq', { publicKey: pair.publicKey, plaintext: 'quantum' });
      assert.equal(sealed.algorithm, algorithm);
      assert.equal(await call('/v2/sealedbox/open-pq', { ...sealed, privateKey: pair.privateKey }), 'quantum');
    }
  });

  test('password/encrypt -> decrypt and password/hash -> verify', async () => {
    const [encryption] = family('passwordEncryption');
    const encrypted = await call('/v2/password/encrypt', { password: 'hunter2', plaintext: 'vault' });
    assert.equal(encrypted.algorithm, encryption);
    assert.equal(await call('/v2/password/decrypt', { ...encrypted, password: 'hunter2' }), 'vault');

    for (const algorithm of family('password')) {
      const hashed = await call('/v2/password/hash', { password: 'hunter2', timeCost: 2, memoryCost: 19456 });
      assert.equal(hashed.algorithm, algorithm);
      assert.deepEqual(await call('/v2/password/verify', { ...hashed, password: 'hunter2' }), {
        valid: true,
        needsRehash: true,
      });
      const wrong = await call('/v2/password/verify', { ...hashed, password: 'hunter3' });
      assert.equal(wrong.valid, false);
    }
  });

  test('keys/wrap -> unwrap, for every keyWrap id', async () => {
    const kek = await secretKey('aes-256');
    const keyToWrap = await secretKey('aes-128');
    for (const algorithm of family('keyWrap')) {
      const wrapped = await call('/v2/keys/wrap', { kek, keyToWrap, algorithm });
      assert.equal(wrapped.algorithm, algorithm);
      assert.equal(await call('/v2/keys/unwrap', { ...wrapped, kek }), keyToWrap, algorithm);
    }
  });

  test('multi-recipient/encrypt -> decrypt, by each recipient of every recipient type', async () => {
    const [algorithm] = family('multiRecipient');
    const pairs: { type: string; publicKey: string; privateKey: string }[] = [];
    for (const type of family('recipientType')) {
      const { publicKey, privateKey } = await keyPair(type);
      pairs.push({ type, publicKey, privateKey });
    }
    const envelope = await call('/v2/multi-recipient/encrypt', {
      plaintext: 'for both',
      recipients: pairs.map(({ publicKey }) => ({ publicKey })),
    });
    assert.equal(envelope.algorithm, algorithm);
    assert.deepEqual(
      envelope.recipients.map((slot: Data) => slot.type),
      pairs.map(({ type }) => type),
      'each slot has the type its key implies',
    );
    for (const { type, privateKey } of pairs) {
      assert.equal(await call('/v2/multi-recipient/decrypt', { ...envelope, privateKey }), 'for both', type);
    }
  });

  test('pq/encapsulate -> decapsulate for every mlKem id, and the same for hybridKem', async () => {
    const routes = [
      ['mlKem', '/v2/pq'],
      ['hybridKem', '/v2/pq/hybrid'],
    ] as const;
    for (const [name, prefix] of routes) {
      for (const algorithm of family(name)) {
        const pair = await call(`${prefix}/keygen`, { algorithm });
        assert.equal(pair.algorithm, algorithm);
        const encapsulated = await call(`${prefix}/encapsulate`, { publicKey: pair.publicKey });
        assert.equal(encapsulated.algorithm, algorithm);
        const decapsulated = await call(`${prefix}/decapsulate`, { ...encapsulated, privateKey: pair.privateKey });
        assert.deepEqual(decapsulated, { sharedSecret: encapsulated.sharedSecret, algorithm }, algorithm);
      }
    }
  });

  test('hmac -> hmac/verify for every mac id, with keys generated under the same id', async () => {
    for (const algorithm of family('mac')) {
      const key = await secretKey(algorithm);
      const mac = await call('/v2/hmac', { algorithm, key, data: 'payload' });
      assert.equal(mac.algorithm, algorithm);
      assert.deepEqual(await call('/v2/hmac/verify', { ...mac, key, data: 'payload' }), { valid: true, algorithm });
      const other = await call('/v2/hmac/verify', { ...mac, key, data: 'payloaD' });
      assert.equal(other.valid, false, `${algorithm}: another message`);
    }
  });

  test('sign -> verify for every signature id, with pairs from /v2/keys/generate', async () => {
    for (const algorithm of family('signature').filter(walkable)) {
      const pair = await keyPair(algorithm);
      const signed = await call('/v2/sign', { algorithm, privateKey: pair.privateKey, message: 'release' });
      assert.equal(signed.algorithm, algorithm);
      const verified = await call('/v2/verify', { ...signed, publicKey: pair.publicKey, message: 'release' });
      assert.deepEqual(verified, { valid: true, algorithm }, algorithm);
      const forged = await call('/v2/verify', { ...signed, publicKey: pair.publicKey, message: 'releasE' });
      assert.equal(forged.valid, false, `${algorithm}: another message`);
    }
  });

  test('pq/dsa and pq/slh-dsa (and pq/hash-sign): keygen -> sign -> verify for every id', async () => {
    const routes = [
      ['mlDsa', '/v2/pq/dsa'],
      ['slhDsa', '/v2/pq/slh-dsa'],
      ['slhDsa', '/v2/pq/hash-sign'],
    ] as const;
    for (const [name, prefix] of routes) {
      const ids = family(name).filter(walkable);
      // The second name of the SLH-DSA routes is walked with the fast sets only.
      for (const algorithm of prefix === '/v2/pq/hash-sign' ? ids.filter((id) => id.endsWith('f')) : ids) {
        const pair = await call(`${prefix}/keygen`, { algorithm });
        assert.equal(pair.algorithm, algorithm);
        const signed = await call(`${prefix}/sign`, { algorithm, privateKey: pair.privateKey, message: 'pq' });
        const verified = await call(`${prefix}/verify`, { ...signed, publicKey: pair.publicKey, message: 'pq' });
        assert.deepEqual(verified, { valid: true, algorithm }, `${prefix} ${algorithm}`);
        const forged = await call(`${prefix}/verify`, { ...signed, publicKey: pair.publicKey, message: 'pQ' });
        assert.equal(forged.valid, false, `${prefix} ${algorithm}: another message`);
      }
    }
  });
});
