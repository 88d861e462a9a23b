/**
 * The client's batch form against a real service: typed entries in order, each the single
 * method's answer (or its problem); a refused batch rejects as a single call does.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CryptoApiError, CryptoClient, isBatchSuccess } from '@crypto-service/client';
import { startService, TEST_API_KEY } from './helpers.ts';

const KEY = '42'.repeat(32);

test('client.batch.sign: one entry per item, each the single answer or its problem', async (t) => {
  const service = await startService({ CRYPTO_API_KEY: TEST_API_KEY });
  t.after(() => service.close());
  const client = new CryptoClient({ baseUrl: service.baseUrl, apiKey: TEST_API_KEY });
  const items = [
    { privateKey: KEY, message: 'one' },
    { privateKey: '00', message: 'two' },
    { privateKey: KEY, message: 'three' },
  ];
  const { data: entries } = await client.batch.sign(items);
  assert.equal(entries.length, 3);
  for (const [index, item] of items.entries()) {
    const entry = entries[index]!;
    const single = await client.sign(item).then(
      (answer) => ({ data: answer.data }),
      (error: unknown) => ({ error: (error as CryptoApiError).body }),
    );
    assert.deepEqual(entry, single);
  }
  const first = entries[0]!;
  assert.ok(isBatchSuccess(first));
  // Typed as the single answer's data: a compile error here if it were not.
  assert.match(first.data.signature, /^[0-9a-f]{128}$/);
  const second = entries[1]!;
  assert.ok(!isBatchSuccess(second));
  assert.equal(second.error.code, 'INVALID_INPUT');
});

test('a batch the service refuses whole rejects with its problem', async (t) => {
  const service = await startService({ CRYPTO_API_KEY: TEST_API_KEY, BATCH_MAX_ITEMS: '2' });
  t.after(() => service.close());
  const client = new CryptoClient({ baseUrl: service.baseUrl, apiKey: TEST_API_KEY });
  const item = { algorithm: 'hmac-sha256' as const, key: KEY, data: 'x' };
  const { data } = await client.batch.mac([item, item]);
  assert.equal(data.length, 2);
  await assert.rejects(client.batch.mac([item, item, item]), (error: unknown) => {
    assert.ok(error instanceof CryptoApiError);
    assert.equal(error.status, 400);
    return true;
  });
});
