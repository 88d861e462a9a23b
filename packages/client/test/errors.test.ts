/**
 * Failures as the client reports them, from the real service: CryptoApiError with the status and
 * the problem body, credentials sent as the service expects them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CryptoApiError, CryptoClient, CryptoClientError } from '@crypto-service/client';
import { hs256Token, startService, TEST_API_KEY, TEST_JWT_SECRET } from './helpers.ts';

/** The CryptoApiError that `promise` rejects with (the test fails if it resolves or throws anything else). */
async function apiError(promise: Promise<unknown>): Promise<CryptoApiError> {
  const error = await promise.then(
    () => assert.fail('expected the call to fail'),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof CryptoApiError, `expected a CryptoApiError, got ${String(error)}`);
  assert.ok(error instanceof CryptoClientError);
  return error;
}

test("an insecure algorithm is a 400 CryptoApiError whose body.error is the service's message", async (t) => {
  const service = await startService();
  t.after(() => service.close());
  const client = new CryptoClient({ baseUrl: service.baseUrl });
  // md5 is outside the request type on purpose: this is what an untyped caller could send.
  const error = await apiError(client.hash({ algorithm: 'md5' as 'sha256', data: 'abc' }));
  assert.equal(error.status, 400);
  assert.match(error.body.error, /md5/);
  assert.equal(error.body.code, 'UNSUPPORTED_ALGORITHM');
  assert.equal(error.body.instance, '/v2/hash');
  assert.equal(error.message, `400 ${error.body.error}`);
});

test("a decryption failure is a 400 with the service's one fixed message", async (t) => {
  const service = await startService();
  t.after(() => service.close());
  const client = new CryptoClient({ baseUrl: service.baseUrl });
  const key = '11'.repeat(32);
  const { data } = await client.encrypt({ key, plaintext: 'x' });
  const error = await apiError(client.decrypt({ key: '22'.repeat(32), ciphertext: data.ciphertext }));
  assert.equal(error.status, 400);
  assert.equal(error.body.code, 'DECRYPTION_FAILED');
});

test('apiKey is sent as x-api-key: a wrong key is a 401, the right one passes', async (t) => {
  const service = await startService({ CRYPTO_API_KEY: TEST_API_KEY });
  t.after(() => service.close());
  const wrong = new CryptoClient({ baseUrl: service.baseUrl, apiKey: 'not-the-key' });
  const error = await apiError(wrong.hash({ algorithm: 'sha256', data: 'abc' }));
  assert.equal(error.status, 401);
  assert.equal(error.body.code, 'UNAUTHORIZED');
  assert.ok(error.headers.get('www-authenticate'), 'the 401 says how to authenticate');
  await apiError(new CryptoClient({ baseUrl: service.baseUrl }).hash({ algorithm: 'sha256', data: 'abc' }));
  const right = new CryptoClient({ baseUrl: service.baseUrl, apiKey: TEST_API_KEY });
  assert.equal((await right.hash({ algorithm: 'sha256', data: 'abc' })).data.length, 32);
  // Probes need no credential, whatever the client holds.
  assert.equal((await wrong.health()).data.status, 'ok');
});

test('token is sent as Authorization: Bearer', async (t) => {
  const service = await startService({ JWT_SECRET: TEST_JWT_SECRET });
  t.after(() => service.close());
  const valid = new CryptoClient({ baseUrl: service.baseUrl, token: hs256Token(TEST_JWT_SECRET) });
  assert.equal((await valid.hash({ algorithm: 'sha256', data: '' })).data.length, 32);
  const forged = new CryptoClient({
    baseUrl: service.baseUrl,
    token: hs256Token('another-secret-of-at-least-32-bytes!!'),
  });
  assert.equal((await apiError(forged.hash({ algorithm: 'sha256', data: '' }))).status, 401);
  // A token without the route's scope: 403.
  const narrow = new CryptoClient({
    baseUrl: service.baseUrl,
    token: hs256Token(TEST_JWT_SECRET, { scope: 'crypto:hash' }),
  });
  assert.equal((await narrow.hash({ algorithm: 'sha256', data: '' })).data.length, 32);
  const forbidden = await apiError(narrow.encrypt({ key: '00'.repeat(32), plaintext: 'x' }));
  assert.equal(forbidden.status, 403);
  assert.equal(forbidden.body.code, 'FORBIDDEN');
});

test('an unknown route is a 404 CryptoApiError (a base URL with a path the service does not serve)', async (t) => {
  const service = await startService();
  t.after(() => service.close());
  const client = new CryptoClient({ baseUrl: `${service.baseUrl}/no-such-prefix/` });
  const error = await apiError(client.hash({ algorithm: 'sha256', data: 'abc' }));
  assert.equal(error.status, 404);
  assert.equal(error.body.code, 'NOT_FOUND');
  assert.equal(error.body.instance, '/no-such-prefix/v2/hash');
});

test('a service that is not ready: ready() is a 503 CryptoApiError carrying the failing checks', async (t) => {
  const service = await startService();
  t.after(() => service.close());
  service.app.readiness.startDraining();
  const error = await apiError(new CryptoClient({ baseUrl: service.baseUrl }).ready());
  assert.equal(error.status, 503);
  assert.equal(error.body.code, 'SERVICE_UNAVAILABLE');
  assert.equal(typeof error.body.checks, 'object');
});
