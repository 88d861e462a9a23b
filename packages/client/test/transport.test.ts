/**
 * What goes on the wire, and how each kind of failure is told apart: an error status
 * (CryptoApiError), no response (CryptoNetworkError), no response in time (CryptoTimeoutError), a
 * response that is not the service's (CryptoResponseError), and the caller's own abort.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  CryptoApiError,
  CryptoClient,
  CryptoClientError,
  CryptoNetworkError,
  CryptoResponseError,
  CryptoTimeoutError,
} from '@crypto-service/client';
import { deadUrl, jsonResponse, scriptedFetch, startService } from './helpers.ts';

test('requests: the path under baseUrl (trailing slashes ignored), JSON body, credentials in headers', async () => {
  const { fetch, requests } = scriptedFetch([
    jsonResponse(200, { data: { ciphertext: 'AA==', algorithm: 'xchacha20-poly1305' } }),
    jsonResponse(200, { data: {} }),
  ]);
  const client = new CryptoClient({ baseUrl: 'https://crypto.test/prefix//', apiKey: 'k', token: 't', fetch });
  await client.encrypt({ key: '00', plaintext: 'p' });
  await client.algorithms();
  const [post, get] = requests;
  assert.ok(post !== undefined && get !== undefined);
  assert.equal(post.url, 'https://crypto.test/prefix/v2/encrypt');
  assert.equal(post.method, 'POST');
  assert.deepEqual(JSON.parse(post.body ?? ''), { key: '00', plaintext: 'p' });
  assert.equal(post.headers.get('content-type'), 'application/json');
  assert.equal(post.headers.get('accept'), 'application/json');
  assert.equal(post.headers.get('x-api-key'), 'k');
  assert.equal(post.headers.get('authorization'), 'Bearer t');
  assert.equal(get.url, 'https://crypto.test/prefix/v2/algorithms');
  assert.equal(get.method, 'GET');
  assert.equal(get.body, undefined);
  assert.equal(get.headers.get('content-type'), null);
});

test('the methods without a body still POST a JSON object', async () => {
  const { fetch, requests } = scriptedFetch([jsonResponse(200, { data: {} })]);
  const client = new CryptoClient({ baseUrl: 'http://service.test', fetch });
  await client.pqGenerateKeyPair();
  await client.generateKeyPair();
  assert.deepEqual(
    requests.map((request) => [request.url, request.body]),
    [
      ['http://service.test/v2/pq/hybrid/keygen', '{}'],
      ['http://service.test/v2/keys/generate', '{}'],
    ],
  );
});

test('without a fetch option, globalThis.fetch is used, looked up at call time', async (t) => {
  const original = globalThis.fetch;
  t.after(() => {
    globalThis.fetch = original;
  });
  const client = new CryptoClient({ baseUrl: 'http://service.test' });
  const { fetch, requests } = scriptedFetch([jsonResponse(200, { status: 'ok', uptime: 1 })]);
  globalThis.fetch = fetch as typeof globalThis.fetch;
  assert.deepEqual(await client.health(), { data: { status: 'ok', uptime: 1 } });
  assert.equal(requests[0]?.url, 'http://service.test/health');
});

test('a timeout is a CryptoTimeoutError, not a network error (real service, slow Argon2id)', async (t) => {
  const service = await startService();
  t.after(() => service.close());
  const client = new CryptoClient({ baseUrl: service.baseUrl, timeout: 60_000 });
  // Default Argon2id parameters (64 MiB, t = 3, p = 4) take far longer than 5 ms.
  const error = await client.passwordHash({ password: 'slow' }, { timeout: 5 }).catch((caught: unknown) => caught);
  assert.ok(error instanceof CryptoTimeoutError, `got ${String(error)}`);
  assert.ok(!(error instanceof CryptoNetworkError));
  assert.ok(error instanceof CryptoClientError);
  assert.equal(error.timeout, 5);
  // The client's own limit applies when the call gives none.
  const hasty = new CryptoClient({ baseUrl: service.baseUrl, timeout: 5 });
  await assert.rejects(hasty.passwordHash({ password: 'slow' }), CryptoTimeoutError);
});

test('the time limit covers the body: a response that stalls half-way is a timeout', async (t) => {
  const stalling = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.write('{"data":');
  });
  stalling.listen(0, '127.0.0.1');
  await once(stalling, 'listening');
  t.after(() => {
    stalling.closeAllConnections();
    stalling.close();
  });
  const { port } = stalling.address() as AddressInfo;
  const client = new CryptoClient({ baseUrl: `http://127.0.0.1:${port}`, timeout: 300 });
  await assert.rejects(client.algorithms(), CryptoTimeoutError);
});

test('nothing listening is a CryptoNetworkError, not a timeout', async () => {
  const url = await deadUrl();
  const client = new CryptoClient({ baseUrl: url, timeout: 5000 });
  const error = await client.hash({ algorithm: 'sha256', data: '' }).catch((caught: unknown) => caught);
  assert.ok(error instanceof CryptoNetworkError, `got ${String(error)}`);
  assert.ok(!(error instanceof CryptoTimeoutError));
  assert.match(error.message, /ECONNREFUSED/);
  assert.ok(error.cause instanceof Error);
});

test("the caller's abort is rethrown as it is, not as a CryptoClientError", async (t) => {
  const service = await startService();
  t.after(() => service.close());
  const client = new CryptoClient({ baseUrl: service.baseUrl, timeout: 60_000 });
  const error = await client
    .hash({ algorithm: 'sha256', data: '' }, { signal: AbortSignal.abort() })
    .catch((caught: unknown) => caught);
  assert.ok(error instanceof Error);
  assert.equal(error.name, 'AbortError');
  assert.ok(!(error instanceof CryptoClientError));
});

test('an error response that is not a problem object still gives status and body.error', async () => {
  const html = () =>
    new Response('<html><body>502 Bad Gateway</body></html>', {
      status: 502,
      headers: { 'content-type': 'text/html' },
    });
  const empty = () => new Response(null, { status: 504 });
  const { fetch } = scriptedFetch([html, empty]);
  const client = new CryptoClient({ baseUrl: 'http://service.test', fetch });
  const first = await client.health().catch((caught: unknown) => caught);
  assert.ok(first instanceof CryptoApiError);
  assert.equal(first.status, 502);
  assert.equal(first.body.status, 502);
  assert.match(first.body.error, /502 Bad Gateway/);
  const second = await client.health().catch((caught: unknown) => caught);
  assert.ok(second instanceof CryptoApiError);
  assert.equal(second.body.error, 'HTTP 504');
});

test("a success that is not the service's answer is a CryptoResponseError", async () => {
  const page = () => new Response('<html>captive portal</html>', { status: 200 });
  const { fetch } = scriptedFetch([page, jsonResponse(200, { result: 'no data member' })]);
  const client = new CryptoClient({ baseUrl: 'http://service.test', fetch });
  await assert.rejects(client.hash({ algorithm: 'sha256', data: '' }), CryptoResponseError);
  await assert.rejects(client.hash({ algorithm: 'sha256', data: '' }), /no data member/);
});

test('options are checked when the client is made', () => {
  assert.throws(() => new CryptoClient({ baseUrl: 'http://service.test', timeout: 0 }), RangeError);
  assert.throws(() => new CryptoClient({ baseUrl: 'http://service.test', timeout: Number.NaN }), RangeError);
  assert.throws(() => new CryptoClient({ baseUrl: undefined as unknown as string }), TypeError);
});
