/**
 * The client and the server's OpenAPI document (GET /docs/json) describe the same routes: every
 * client method calls an operation that the document lists, with its HTTP method, and every
 * operation of the document has a client method. A route added to the server without a client
 * method, or a client method on a path the server does not serve, fails here.
 *
 * What each method calls is observed, not declared: every method is invoked with a fetch that
 * records the request, so the test follows the code rather than a table that could drift from it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CryptoClient } from '@crypto-service/client';
import { jsonResponse, scriptedFetch, startService } from './helpers.ts';

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** "POST /v2/hash" for every public method of CryptoClient. */
async function clientOperations(): Promise<Map<string, string>> {
  const { fetch, requests } = scriptedFetch([jsonResponse(200, { data: '00' })]);
  const client = new CryptoClient({ baseUrl: 'http://service.test', fetch });
  const names = Object.getOwnPropertyNames(CryptoClient.prototype).filter((name) => name !== 'constructor');
  const operations = new Map<string, string>();
  for (const name of names) {
    const method = Reflect.get(client, name) as (argument: object) => Promise<unknown>;
    const before = requests.length;
    // An empty object is a body for the methods that take one and call options for the others.
    await method.call(client, {});
    assert.equal(requests.length, before + 1, `${name} makes exactly one request`);
    const request = requests.at(-1);
    assert.ok(request !== undefined);
    operations.set(name, `${request.method} ${new URL(request.url).pathname}`);
  }
  return operations;
}

test('every client method is an operation of the OpenAPI document, and every operation has a client method', async (t) => {
  const service = await startService();
  t.after(() => service.close());
  const response = await fetch(`${service.baseUrl}/docs/json`);
  assert.equal(response.status, 200);
  const document = (await response.json()) as { paths: Record<string, Record<string, unknown>> };
  const documented = new Set<string>();
  for (const [path, item] of Object.entries(document.paths)) {
    if (path === '/docs' || path.startsWith('/docs/')) continue;
    for (const method of Object.keys(item).filter((key) => HTTP_METHODS.includes(key))) {
      documented.add(`${method.toUpperCase()} ${path}`);
    }
  }

  const operations = await clientOperations();
  const called = new Set(operations.values());
  assert.equal(called.size, operations.size, 'no two client methods call the same operation');

  const unknownToServer = [...operations]
    .filter(([, operation]) => !documented.has(operation))
    .map(([name, operation]) => `${name}: ${operation}`);
  assert.deepEqual(unknownToServer, [], 'client methods whose operation the OpenAPI document does not list');
  const withoutMethod = [...documented].filter((operation) => !called.has(operation));
  assert.deepEqual(withoutMethod, [], 'operations of the OpenAPI document without a client method');
});

test('the main operations: each named method calls exactly the method and path it names', async () => {
  const operations = await clientOperations();
  const expected: Record<string, string> = {
    hash: 'POST /v2/hash',
    encrypt: 'POST /v2/encrypt',
    decrypt: 'POST /v2/decrypt',
    sign: 'POST /v2/sign',
    verify: 'POST /v2/verify',
    kdf: 'POST /v2/kdf',
    mac: 'POST /v2/hmac',
    macVerify: 'POST /v2/hmac/verify',
    passwordHash: 'POST /v2/password/hash',
    passwordVerify: 'POST /v2/password/verify',
    passwordEncrypt: 'POST /v2/password/encrypt',
    passwordDecrypt: 'POST /v2/password/decrypt',
    generateKeyPair: 'POST /v2/keys/generate',
    keyWrap: 'POST /v2/keys/wrap',
    keyUnwrap: 'POST /v2/keys/unwrap',
    secretboxSeal: 'POST /v2/secretbox/seal',
    secretboxOpen: 'POST /v2/secretbox/open',
    sealedboxSeal: 'POST /v2/sealedbox/seal',
    sealedboxOpen: 'POST /v2/sealedbox/open',
    pqGenerateKeyPair: 'POST /v2/pq/hybrid/keygen',
    pqEncapsulate: 'POST /v2/pq/hybrid/encapsulate',
    pqDecapsulate: 'POST /v2/pq/hybrid/decapsulate',
    pqSignKeygen: 'POST /v2/pq/dsa/keygen',
    pqSign: 'POST /v2/pq/dsa/sign',
    pqVerify: 'POST /v2/pq/dsa/verify',
    pqHashSignKeygen: 'POST /v2/pq/hash-sign/keygen',
    pqHashSign: 'POST /v2/pq/hash-sign/sign',
    pqHashVerify: 'POST /v2/pq/hash-sign/verify',
    algorithms: 'GET /v2/algorithms',
    health: 'GET /health',
  };
  for (const [name, operation] of Object.entries(expected)) {
    assert.equal(operations.get(name), operation, name);
  }
});
