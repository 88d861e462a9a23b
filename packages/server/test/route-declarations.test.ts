/**
 * What docs/adding-an-operation.md says every route declares, checked on every route of the app
 * (listed as the app declares them, not from a hand-kept table): a route missing one fails here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RouteOptions } from 'fastify';
import { buildApp } from '../src/app.ts';
import { SCOPES } from '../src/auth/scopes.ts';
import { testConfig } from './helpers.ts';

/** `family.operation`, lower-case, words joined by `-` inside a part (`multi-recipient.encrypt`). */
const OPERATION_LABEL = /^[a-z0-9]+(-[a-z0-9]+)*\.[a-z0-9]+(-[a-z0-9]+)*$/;

interface DeclaredRoute {
  name: string;
  method: string;
  route: RouteOptions;
}

async function declaredRoutes(): Promise<DeclaredRoute[]> {
  const routes: DeclaredRoute[] = [];
  const app = await buildApp(testConfig(), {
    quiet: true,
    onRoute: (route) => {
      // HEAD routes are Fastify's own copies of the GET routes.
      for (const method of [route.method].flat())
        if (method !== 'HEAD') routes.push({ name: `${method} ${route.url}`, method, route });
    },
  });
  await app.ready();
  await app.close();
  return routes;
}

const routes = await declaredRoutes();
const schemaOf = (route: RouteOptions) =>
  (route.schema ?? {}) as {
    hide?: boolean;
    tags?: string[];
    summary?: string;
    body?: unknown;
    response?: Record<string, unknown>;
    produces?: string[];
  };
/** The documentation's own routes (Swagger UI's files), hidden from the OpenAPI document. */
const documented = routes.filter(({ route }) => schemaOf(route).hide !== true);
const operations = documented.filter(({ method }) => method === 'POST');

test('the app declares the routes this test checks', () => {
  assert.ok(operations.length >= 40, `only ${operations.length} POST routes found`);
  assert.ok(documented.some(({ name }) => name === 'GET /live'));
});

test('every documented route has tags, a summary and a 200 response schema (or, for text, its media type)', () => {
  for (const { name, route } of documented) {
    const schema = schemaOf(route);
    assert.ok((schema.tags ?? []).length > 0, `${name}: schema.tags`);
    assert.ok((schema.summary ?? '') !== '', `${name}: schema.summary`);
    assert.ok(
      schema.response?.['200'] !== undefined || (schema.produces ?? []).length > 0,
      `${name}: schema.response[200]`,
    );
  }
});

test('every route that needs a credential declares problem responses for 4xx and 5xx', () => {
  for (const { name, route } of documented.filter(({ route }) => route.config?.public !== true)) {
    const responses = schemaOf(route).response ?? {};
    assert.ok(responses['4xx'] !== undefined && responses['5xx'] !== undefined, `${name}: ...problemResponses`);
  }
});

test('every operation (POST route) declares a body schema, a scope and an operation label', () => {
  for (const { name, route } of operations) {
    assert.ok(schemaOf(route).body !== undefined, `${name}: schema.body`);
    assert.ok((SCOPES as readonly string[]).includes(route.config?.scope ?? ''), `${name}: config.scope`);
    assert.match(route.config?.operation ?? '', OPERATION_LABEL, `${name}: config.operation`);
  }
});

test('a rate-limit cost is a whole number of units; an expensive operation also runs under HANDLER_TIMEOUT_MS', () => {
  for (const { name, route } of routes) {
    const cost = route.config?.rateLimitCost;
    if (cost === undefined || cost === false) continue;
    assert.ok(Number.isSafeInteger(cost) && cost >= 1, `${name}: config.rateLimitCost ${cost}`);
    // The documentation's cost is serialising a document of known size, not work a request can grow.
    const documentation = route.url.startsWith('/docs');
    if (cost > 1 && !documentation) assert.equal(route.config?.handlerTimeout, true, `${name}: config.handlerTimeout`);
  }
});

test('a route exempt from the rate limit is public (the probes)', () => {
  for (const { name, route } of routes.filter(({ route }) => route.config?.rateLimitCost === false)) {
    assert.equal(route.config?.public, true, `${name}: a route exempt from the rate limit is public`);
  }
});
