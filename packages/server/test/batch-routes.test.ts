/**
 * Batches: for every route that takes them, each entry of a batch answer is what the single request
 * with that item as its body answers (its data, or its problem), item by item, in order; the
 * envelope's limits; the rate-limit charge (the sum of the items' costs, before any work); scopes.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import nodeCrypto, { createHmac } from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import type { RouteOptions } from 'fastify';
import { SignJWT } from 'jose';
import { ed25519 } from '@noble/curves/ed25519.js';
import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { hexToBytes } from '@noble/curves/utils.js';
import { postJson, testApp, testConfig, TEST_API_KEY, TEST_JWT_SECRET } from './helpers.ts';
import { OPERATION_EXAMPLES } from '../src/openapi-examples.ts';
import { BATCH_FORM, singleForm, type DocumentedForm } from '../src/openapi-batch.ts';
import { DEFAULT_BATCH_MAX_ITEMS } from '@crypto-service/protocol';

const HEADERS = { 'x-api-key': TEST_API_KEY };

/** The routes the batch form must cover at least. */
const LISTED = [
  '/v2/hash',
  '/v2/encrypt',
  '/v2/decrypt',
  '/v2/sign',
  '/v2/verify',
  '/v2/hmac',
  '/v2/hmac/verify',
  '/v2/keys/wrap',
  '/v2/keys/unwrap',
  '/v2/pq/encapsulate',
  '/v2/pq/decapsulate',
  '/v2/pq/dsa/sign',
  '/v2/pq/dsa/verify',
];

const batchRoutes: string[] = [];
const app = await testApp(
  { CRYPTO_API_KEY: TEST_API_KEY, RATE_LIMIT_MAX: '1000000' },
  {
    onRoute: (route: RouteOptions) => {
      if (route.config?.batch !== undefined) batchRoutes.push(route.url);
    },
  },
);
test.after(() => app.close());

type Body = Record<string, unknown>;

/** The route's documented example: a body that succeeds. */
function validItem(url: string): Body {
  const request = OPERATION_EXAMPLES[`POST ${url}`]?.request;
  assert.ok(request !== undefined, `an example request for ${url}`);
  return structuredClone(request) as Body;
}

/** A body that passes the schema but fails in the handler: a key (or other hex field) of one byte. */
function failingItem(url: string): Body {
  const item = validItem(url);
  // Any HMAC key of at least one byte is valid: /v2/hmac fails on its data instead.
  const fields = url === '/v2/hmac' ? [] : ['privateKey', 'publicKey', 'mac', 'kek', 'signature', 'key'];
  const field = fields.find((name) => name in item);
  if (field !== undefined) return { ...item, [field]: '00' };
  return { ...item, data: 'zz', encoding: 'hex' };
}

/** A body its schema refuses: a misspelt field. */
function refusedItem(url: string): Body {
  return { ...validItem(url), colour: 'blue' };
}

interface Entry {
  data?: unknown;
  error?: { status: number; code: string };
}

async function batchOf(url: string, items: unknown[], headers: Record<string, string> = HEADERS) {
  const response = await postJson(app, url, { batch: items }, headers);
  assert.equal(response.statusCode, 200, response.body);
  assert.match(String(response.headers['content-type']), /^application\/json/);
  return (response.json() as { data: Entry[] }).data;
}

/** What the single request answers, in the form of a batch entry. */
async function singleEntry(url: string, item: unknown, headers: Record<string, string> = HEADERS): Promise<Entry> {
  const response = await postJson(app, url, item, headers);
  const body = response.json() as { data?: unknown };
  return response.statusCode === 200 ? { data: body.data } : { error: body as Entry['error'] };
}

test('every listed route takes the batch form', () => {
  assert.deepEqual(
    LISTED.filter((url) => !batchRoutes.includes(url)),
    [],
  );
});

describe('each entry is the single answer to its item', () => {
  for (const url of LISTED.concat(batchRoutes.filter((url) => !LISTED.includes(url)))) {
    test(url, async () => {
      const items = [validItem(url), failingItem(url), refusedItem(url), validItem(url)];
      const entries = await batchOf(url, items);
      assert.equal(entries.length, items.length);
      const reproducible = OPERATION_EXAMPLES[`POST ${url}`]?.reproducible === true;
      for (const [index, item] of items.entries()) {
        const single = await singleEntry(url, item);
        const entry = entries[index]!;
        if (single.error !== undefined || reproducible) {
          assert.deepEqual(entry, single, `${url} item ${index}`);
        } else {
          // Random output (a nonce, a hedged signature, an encapsulation): the same fields.
          assert.deepEqual(Object.keys(entry), ['data'], `${url} item ${index}`);
          assert.deepEqual(Object.keys(entry.data as Body).sort(), Object.keys(single.data as Body).sort());
        }
      }
      // Mixed success: the valid items succeed, the failing ones are 400 problems of their own.
      assert.ok(entries[0]!.data !== undefined && entries[3]!.data !== undefined);
      assert.equal(entries[1]!.error?.status, 400);
      assert.equal(entries[2]!.error?.code, 'VALIDATION_FAILED');
    });
  }
});

describe('results checked against independent implementations', () => {
  const key = '42'.repeat(32);
  const messages = Array.from({ length: 20 }, (_, index) => `message ${index}`);

  test('Ed25519 signatures verify with @noble/curves', async () => {
    const entries = await batchOf(
      '/v2/sign',
      messages.map((message) => ({ privateKey: key, message })),
    );
    const publicKey = ed25519.getPublicKey(hexToBytes(key));
    for (const [index, message] of messages.entries()) {
      const { signature } = entries[index]!.data as { signature: string };
      assert.ok(ed25519.verify(hexToBytes(signature), new TextEncoder().encode(message), publicKey), message);
    }
  });

  test('a private key shared by items is imported once per batch, and again by the next batch', async (t) => {
    const createPrivateKey = t.mock.method(nodeCrypto, 'createPrivateKey');
    syncBuiltinESMExports();
    t.after(() => {
      createPrivateKey.mock.restore();
      syncBuiltinESMExports();
    });
    const other = '43'.repeat(32);
    const items = messages.map((message, index) => ({ privateKey: index % 4 === 3 ? other : key, message }));
    const entries = await batchOf('/v2/sign', items);
    assert.equal(createPrivateKey.mock.callCount(), 2);
    for (const [index, { privateKey, message }] of items.entries()) {
      const { signature } = entries[index]!.data as { signature: string };
      const publicKey = ed25519.getPublicKey(hexToBytes(privateKey));
      assert.ok(ed25519.verify(hexToBytes(signature), new TextEncoder().encode(message), publicKey), message);
    }
    await batchOf('/v2/sign', items.slice(0, 2));
    assert.equal(createPrivateKey.mock.callCount(), 3);
  });

  test('HMAC-SHA-256 equals node:crypto', async () => {
    const entries = await batchOf(
      '/v2/hmac',
      messages.map((data) => ({ algorithm: 'hmac-sha256', key, data })),
    );
    for (const [index, data] of messages.entries()) {
      const expected = createHmac('sha256', Buffer.from(key, 'hex')).update(data).digest('hex');
      assert.equal((entries[index]!.data as { mac: string }).mac, expected);
    }
  });

  test('XChaCha20-Poly1305 ciphertexts open with @noble/ciphers', async () => {
    const entries = await batchOf(
      '/v2/encrypt',
      messages.map((plaintext) => ({ key, plaintext, aad: 'batch' })),
    );
    for (const [index, plaintext] of messages.entries()) {
      const sealed = Buffer.from((entries[index]!.data as { ciphertext: string }).ciphertext, 'base64');
      const cipher = xchacha20poly1305(hexToBytes(key), sealed.subarray(0, 24), new TextEncoder().encode('batch'));
      assert.equal(new TextDecoder().decode(cipher.decrypt(sealed.subarray(24))), plaintext);
    }
  });
});

describe('limits of the envelope', () => {
  test('more than BATCH_MAX_ITEMS items, none, or not an array: 400, nothing runs', async (t) => {
    const small = await testApp({ CRYPTO_API_KEY: TEST_API_KEY, BATCH_MAX_ITEMS: '3' });
    t.after(() => small.close());
    const item = { algorithm: 'sha256', data: 'x' };
    const three = await postJson(small, '/v2/hash', { batch: [item, item, item] }, HEADERS);
    assert.equal(three.statusCode, 200);
    for (const body of [{ batch: [item, item, item, item] }, { batch: [] }, { batch: item }, { batch: [item], x: 1 }]) {
      const response = await postJson(small, '/v2/hash', body, HEADERS);
      assert.equal(response.statusCode, 400, JSON.stringify(body));
      assert.equal(response.json().code, 'VALIDATION_FAILED');
    }
    const tooMany = await postJson(small, '/v2/hash', { batch: [item, item, item, item] }, HEADERS);
    assert.match(tooMany.json().detail, /\/batch must NOT have more than 3 items/);
  });

  test('a batch over BODY_LIMIT_BYTES is a 413', async (t) => {
    const small = await testApp({ CRYPTO_API_KEY: TEST_API_KEY, BODY_LIMIT_BYTES: '4096' });
    t.after(() => small.close());
    const items = Array.from({ length: 100 }, () => ({ algorithm: 'sha256', data: 'x'.repeat(64) }));
    const response = await postJson(small, '/v2/hash', { batch: items }, HEADERS);
    assert.equal(response.statusCode, 413);
    assert.equal(response.json().code, 'PAYLOAD_TOO_LARGE');
  });

  test('a route without the batch form refuses one as an unknown field', async () => {
    const response = await postJson(app, '/v2/kdf', { batch: [{}] }, HEADERS);
    assert.equal(response.statusCode, 400);
    assert.match(response.json().detail, /unknown field \/batch/);
  });

  test('BATCH_MAX_ITEMS is validated at start', async () => {
    for (const value of ['0', '-1', 'many', '100001']) {
      await assert.rejects(testApp({ CRYPTO_API_KEY: TEST_API_KEY, BATCH_MAX_ITEMS: value }), /BATCH_MAX_ITEMS/);
    }
  });
});

/** The units left in this window, from the RateLimit header. */
function remaining(response: { headers: Record<string, unknown> }): number {
  const match = /;r=(\d+);/.exec(String(response.headers['ratelimit']));
  assert.ok(match, String(response.headers['ratelimit']));
  return Number(match[1]);
}

describe('rate-limit cost', () => {
  const mlDsa = validItem('/v2/pq/dsa/sign');
  const mlDsaThroughSign = { algorithm: 'ml-dsa-44', privateKey: mlDsa.privateKey as string, message: 'm' };
  const ed = { privateKey: '42'.repeat(32), message: 'm' };

  test('a batch costs the sum of what its items cost one by one, refused items included', async (t) => {
    const limited = await testApp({ CRYPTO_API_KEY: TEST_API_KEY, RATE_LIMIT_MAX: '1000' });
    t.after(() => limited.close());
    const items = [ed, mlDsaThroughSign, { ...ed, privateKey: '00' }, { ...ed, colour: 'red' }, mlDsaThroughSign];
    let before = remaining(await postJson(limited, '/v2/hash', { algorithm: 'sha256', data: '' }, HEADERS));
    let singles = 0;
    for (const item of items) {
      const after = remaining(await postJson(limited, '/v2/sign', item, HEADERS));
      singles += before - after;
      before = after;
    }
    assert.equal(singles, 1 + 2 + 1 + 1 + 2);
    const batch = await postJson(limited, '/v2/sign', { batch: items }, HEADERS);
    assert.equal(batch.statusCode, 200);
    assert.equal(before - remaining(batch), singles);
  });

  test('a batch over the limit is refused whole with a 429, before any item runs', async (t) => {
    const limited = await testApp({ CRYPTO_API_KEY: TEST_API_KEY, RATE_LIMIT_MAX: '10' });
    t.after(() => limited.close());
    const items = Array.from({ length: 11 }, (_, index) => ({ algorithm: 'sha256', data: String(index) }));
    const response = await postJson(limited, '/v2/hash', { batch: items }, HEADERS);
    assert.equal(response.statusCode, 429);
    assert.equal(response.json().code, 'RATE_LIMITED');
    const metrics = await limited.inject({ method: 'GET', url: '/metrics' });
    assert.doesNotMatch(metrics.body, /crypto_operations_total\{[^}]*operation="hash\.digest"[^}]*\} [1-9]/);
  });

  test('each item is counted as one operation in /metrics', async (t) => {
    const fresh = await testApp({ CRYPTO_API_KEY: TEST_API_KEY });
    t.after(() => fresh.close());
    const items = Array.from({ length: 7 }, (_, index) => ({ algorithm: 'sha256', data: String(index) }));
    assert.equal((await postJson(fresh, '/v2/hash', { batch: items }, HEADERS)).statusCode, 200);
    const metrics = await fresh.inject({ method: 'GET', url: '/metrics' });
    assert.match(
      metrics.body,
      /crypto_operations_total\{[^}]*operation="hash\.digest"[^}]*outcome="success"[^}]*\} 7\b/,
    );
  });
});

describe('scopes', () => {
  const secret = new TextEncoder().encode(TEST_JWT_SECRET);
  const bearer = async (scope: string) => ({
    authorization: `Bearer ${await new SignJWT({ scope }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('5m').sign(secret)}`,
  });

  test("the route's scope is checked once for the batch; an algorithm's scope item by item", async (t) => {
    const scoped = await testApp({ JWT_SECRET: TEST_JWT_SECRET });
    t.after(() => scoped.close());
    const mlDsa = { algorithm: 'ml-dsa-44', privateKey: validItem('/v2/pq/dsa/sign').privateKey, message: 'm' };
    const ed = { privateKey: '42'.repeat(32), message: 'm' };
    const signOnly = await bearer('crypto:sign');
    const whole = await postJson(scoped, '/v2/hash', { batch: [{ algorithm: 'sha256', data: '' }] }, signOnly);
    assert.equal(whole.statusCode, 403);
    const response = await postJson(scoped, '/v2/sign', { batch: [ed, mlDsa] }, signOnly);
    assert.equal(response.statusCode, 200);
    const [first, second] = (response.json() as { data: Entry[] }).data;
    assert.ok(first?.data !== undefined);
    const single = await postJson(scoped, '/v2/sign', mlDsa, signOnly);
    assert.equal(single.statusCode, 403);
    assert.deepEqual(second, { error: single.json() });
    const both = await postJson(scoped, '/v2/sign', { batch: [ed, mlDsa] }, await bearer('crypto:sign crypto:pq'));
    assert.ok((both.json() as { data: Entry[] }).data.every((entry) => entry.data !== undefined));
  });
});

test("BATCH_MAX_ITEMS defaults to protocol's DEFAULT_BATCH_MAX_ITEMS", () => {
  assert.equal(testConfig().batchMaxItems, DEFAULT_BATCH_MAX_ITEMS);
});

describe('the OpenAPI document', () => {
  interface Media {
    schema: {
      anyOf?: (DocumentedForm & { properties?: { batch?: { maxItems?: number }; data?: { type?: string } } })[];
    };
    examples?: Record<string, { value: unknown }>;
  }
  interface Operation {
    requestBody: { content: Record<string, Media> };
    responses: Record<string, { content: Record<string, Media> }>;
  }

  test('documents both forms of every batch route, each with its example, and only of those', async () => {
    const document = (await app.inject({ method: 'GET', url: '/docs/json' })).json() as {
      paths: Record<string, { post?: Operation }>;
    };
    for (const url of batchRoutes) {
      const operation = document.paths[url]!.post!;
      const request = operation.requestBody.content['application/json']!;
      const answer = operation.responses['200']!.content['application/json']!;
      assert.equal(request.schema.anyOf?.length, 2, url);
      assert.equal(answer.schema.anyOf?.length, 2, url);
      assert.equal(request.schema.anyOf[1]![BATCH_FORM], true, url);
      assert.equal(answer.schema.anyOf[1]![BATCH_FORM], true, url);
      assert.equal(singleForm(request.schema), request.schema.anyOf[0], url);
      assert.equal(request.schema.anyOf[1]!.properties?.batch?.maxItems, DEFAULT_BATCH_MAX_ITEMS, url);
      assert.equal(answer.schema.anyOf[1]!.properties?.data?.type, 'array', url);
      const batch = request.examples?.batch?.value as { batch: unknown[] };
      const expected = answer.examples?.batch?.value as { data: Entry[] };
      assert.deepEqual(batch.batch, [request.examples?.single?.value, request.examples?.single?.value], url);
      assert.equal(expected.data.length, 2, url);
    }
    const single = Object.entries(document.paths).filter(
      ([url, item]) => item.post !== undefined && !batchRoutes.includes(url),
    );
    assert.ok(single.length > 0);
    for (const [url, item] of single) {
      assert.equal(item.post!.requestBody?.content['application/json']?.schema.anyOf, undefined, url);
    }
  });
});
