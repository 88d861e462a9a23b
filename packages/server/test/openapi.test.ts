import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, TEST_API_KEY } from './helpers.ts';

test('/docs/json is an OpenAPI 3.1 document describing every route, with security schemes', async (t) => {
  const app = await testApp({ CRYPTO_API_KEY: TEST_API_KEY });
  t.after(() => app.close());
  const response = await app.inject({ method: 'GET', url: '/docs/json' });
  assert.equal(response.statusCode, 200);
  const document = response.json();
  assert.equal(document.openapi, '3.1.0');
  assert.ok(document.components.securitySchemes.apiKey);
  assert.ok(document.components.securitySchemes.bearer);
  const expected: [string, string][] = [
    ['post', '/v2/hash'],
    ['get', '/v2/algorithms'],
    ['get', '/live'],
    ['get', '/ready'],
    ['get', '/health'],
    ['get', '/metrics'],
  ];
  for (const [method, path] of expected) {
    assert.ok(document.paths[path]?.[method], `${method.toUpperCase()} ${path}`);
  }
  // Probes declare that they need no credential.
  assert.deepEqual(document.paths['/live'].get.security, []);
  // Every documented operation has a 200 and the problem responses.
  const hash = document.paths['/v2/hash'].post;
  assert.ok(hash.responses['200']);
  assert.ok(hash.responses['4XX'] ?? hash.responses['4xx']);
});

test('/docs serves the Swagger UI page, publicly', async (t) => {
  const app = await testApp({ CRYPTO_API_KEY: TEST_API_KEY });
  t.after(() => app.close());
  const page = await app.inject({ method: 'GET', url: '/docs' });
  assert.equal(page.statusCode, 200);
  assert.match(String(page.headers['content-type']), /text\/html/);
  assert.match(page.body, /swagger-ui/i);
});
