import { test } from 'node:test';
import assert from 'node:assert/strict';
import { postJson, testApp } from './helpers.ts';

test('POST /v2/hash returns the SHA-256 digest of "abc" as hex in data', async () => {
  const app = await testApp();
  const response = await postJson(app, '/v2/hash', { algorithm: 'sha256', data: 'abc' });
  assert.equal(response.statusCode, 200);
  assert.deepEqual(response.json(), { data: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad' });
  await app.close();
});
