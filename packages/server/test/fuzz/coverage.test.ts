/**
 * What keeps the fuzz suite complete as the app grows: every POST /v1 and /v2 route is found and
 * has a body schema the generator understands; the generator's "valid" bodies really pass each
 * route's own validator; the profiles name routes and fields that exist. And the checker the
 * oracle uses for 2xx bodies is itself checked.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { testApp } from '../helpers.ts';
import { arbitraryFor } from './arbitraries.ts';
import { jsonCase, raw, serialize } from './cases.ts';
import { buildCorpus, type Corpus } from './corpus.ts';
import { multipartCases } from './multipart.ts';
import { DEFAULT_SEED, FUZZ_APP_ENV, injectTarget, waitUntilReady } from './harness.ts';
import { UNDERSTOOD_KEYWORDS, keywordsOf, schemaViolations, type JsonSchema } from './json-schema.ts';
import { ROUTE_PROFILES, hintsFor, schemaAt } from './profiles.ts';
import { fuzzRoutes, isFuzzedPath, openApiDocument, routeTable, type FuzzRoute } from './routes.ts';

describe('fuzz coverage', () => {
  let app: FastifyInstance;
  let routes: FuzzRoute[];
  let corpus: Corpus;
  before(async () => {
    app = await testApp(FUZZ_APP_ENV);
    routes = fuzzRoutes(app);
    corpus = await buildCorpus();
    await waitUntilReady(injectTarget(app));
  });
  after(() => app.close());

  test('the route table and the OpenAPI document list the same POST /v1 and /v2 routes', () => {
    const fromTable = new Set(
      routeTable(app)
        .filter((entry) => entry.startsWith('POST '))
        .map((entry) => entry.slice(5))
        .filter(isFuzzedPath),
    );
    const fromDocument = new Set(
      Object.entries(openApiDocument(app).paths)
        .filter(([path, item]) => isFuzzedPath(path) && item.post !== undefined)
        .map(([path]) => path),
    );
    assert.deepEqual([...fromTable].sort(), [...fromDocument].sort());
    // The routes the README lists, as a floor: discovery that found none would pass the rest vacuously.
    for (const path of [
      '/v2/hash',
      '/v2/kdf',
      '/v2/pq/hash-sign/sign',
      '/v2/multi-recipient/decrypt',
      '/v1/generate',
      '/v1/revoke',
    ]) {
      assert.ok(fromTable.has(path), `${path} was not discovered`);
    }
    assert.ok(fromTable.size >= 40, `only ${fromTable.size} routes discovered`);
  });

  test('every fuzzed route has a body schema, in keywords the generator understands', () => {
    for (const route of routes) {
      if (route.form !== undefined) continue;
      assert.ok(
        route.body !== undefined,
        `${route.path} has no body schema in the OpenAPI document, so the fuzzer cannot generate for it`,
      );
      assert.ok(
        route.ok !== undefined,
        `${route.path} documents no 200 schema, so the oracle cannot check its successes`,
      );
      const unknown = [...keywordsOf(route.body, route.resolve)].filter((keyword) => !UNDERSTOOD_KEYWORDS.has(keyword));
      assert.deepEqual(unknown, [], `${route.path} uses schema keywords the generator ignores`);
    }
  });

  test('a multipart route documents its form, every part bounded, and a streamed 200; its cases are fuzzed', () => {
    const forms = routes.filter((route) => route.form !== undefined);
    assert.deepEqual(
      forms.map((route) => route.path),
      ['/v2/stream/decrypt', '/v2/stream/encrypt'],
    );
    for (const route of forms) {
      assert.equal(route.body, undefined, `${route.path} documents a JSON body and a form`);
      assert.ok(route.okOctets, `${route.path} documents no application/octet-stream 200`);
      const parts = Object.entries(route.form!.properties ?? {}) as [string, JsonSchema][];
      assert.deepEqual(
        parts.map(([name]) => name),
        ['params', 'data'],
      );
      for (const [name, part] of parts) {
        assert.equal(part.type, 'string', `${route.path} ${name}`);
        // The streamed part is bounded by STREAM_MAX_BYTES (a setting); every other part by its schema.
        if (part.format !== 'binary')
          assert.equal(typeof part.maxLength, 'number', `${route.path}: ${name} has no maxLength`);
      }
      // The generator makes every kind of case for the route, the valid form among them.
      const labels = new Set(
        fc
          .sample(multipartCases(route.path), { seed: DEFAULT_SEED, numRuns: 400 })
          .map((fuzzCase) => fuzzCase.label.split(/[ (]/, 1)[0]),
      );
      for (const kind of ['valid', 'params', 'swapped', 'cut', 'byte', 'garbage', 'content-type', 'data'])
        assert.ok(labels.has(kind), `${route.path}: no ${kind} case in 400 samples`);
    }
  });

  test('every profile names an existing route and fields of its schema', () => {
    const paths = new Set(routes.map((route) => route.path));
    for (const [path, profile] of Object.entries(ROUTE_PROFILES)) {
      assert.ok(paths.has(path), `a fuzz profile for ${path}, which is not a route`);
      const route = routes.find((candidate) => candidate.path === path)!;
      const pointers = [...Object.keys(profile.lengths ?? {}), ...Object.keys(profile.values?.(corpus) ?? {})];
      for (const pointer of pointers)
        assert.ok(
          schemaAt(route.body, pointer, route.resolve) !== undefined,
          `${path}: the profile names ${pointer}, which is not in the schema`,
        );
    }
  });

  test("generated valid bodies satisfy the schema and pass the route's own validator", async () => {
    const target = injectTarget(app);
    for (const route of routes) {
      // A form's valid cases are checked by the inject suite's oracle (a 200 that opens to the payload).
      if (route.form !== undefined) continue;
      const profile = ROUTE_PROFILES[route.path];
      const hints = hintsFor(profile, corpus, route.body, route.resolve);
      const bodies = [
        ...fc.sample(arbitraryFor(route.body!, { resolve: route.resolve }), { seed: DEFAULT_SEED, numRuns: 8 }),
        ...fc.sample(arbitraryFor(route.body!, { resolve: route.resolve, hints }), {
          seed: DEFAULT_SEED + 1,
          numRuns: 8,
        }),
        ...(profile?.recipes?.(corpus) ?? []).flatMap((recipe) =>
          fc.sample(recipe, { seed: DEFAULT_SEED, numRuns: 4 }),
        ),
      ];
      for (const body of bodies) {
        assert.deepEqual(
          schemaViolations(route.body!, body, route.resolve),
          [],
          `${route.path}: a generated body breaks the schema: ${serialize(body).slice(0, 300)}`,
        );
        // Only cheap routes are sent: the heavy ones would run Argon2id or SLH-DSA at full cost here.
        if (profile?.cheapen !== undefined || profile?.runShare !== undefined) continue;
        const answer = await target.send(jsonCase('valid', route.path, body));
        const code = answer.status === 200 ? undefined : (JSON.parse(answer.body) as { code?: string }).code;
        assert.ok(
          code !== 'VALIDATION_FAILED' && code !== 'MALFORMED_JSON',
          `${route.path} refused a generated body as ${code}: ${answer.body.slice(0, 300)}\nbody: ${serialize(body).slice(0, 300)}`,
        );
      }
    }
  });
});

describe('the schema checker of the oracle', () => {
  const schema: JsonSchema = {
    type: 'object',
    required: ['name', 'list'],
    additionalProperties: false,
    properties: {
      name: { type: 'string', minLength: 2, maxLength: 4, pattern: '^[a-z]+$' },
      kind: { enum: ['a', 'b'] },
      count: { type: 'integer', minimum: 1, maximum: 3 },
      list: { type: 'array', minItems: 1, items: { anyOf: [{ type: 'string' }, { type: 'boolean' }] } },
    },
  };

  test('accepts a conforming value', () => {
    assert.deepEqual(schemaViolations(schema, { name: 'abc', kind: 'a', count: 2, list: ['x', true] }), []);
  });

  test('reports each kind of fault at its pointer', () => {
    const faults = (value: unknown) => schemaViolations(schema, value).join(' | ');
    assert.match(faults({ list: [] }), /\/name: is required/);
    assert.match(faults({ list: [] }), /\/list: fewer than 1 items/);
    assert.match(faults({ name: 'abc', list: ['x'], extra: 1 }), /\/extra: is not allowed/);
    assert.match(faults({ name: 'ABC', list: ['x'] }), /\/name: does not match/);
    assert.match(faults({ name: 'abcdef', list: ['x'] }), /\/name: longer than 4/);
    assert.match(faults({ name: 'abc', kind: 'c', list: ['x'] }), /\/kind: not one of the enum/);
    assert.match(faults({ name: 'abc', count: 1.5, list: ['x'] }), /\/count: must be integer, is number/);
    assert.match(faults({ name: 'abc', count: 4, list: ['x'] }), /\/count: above 3/);
    assert.match(faults({ name: 'abc', list: [1] }), /\/list\/0: matches 0 of the 2 alternatives/);
    assert.match(faults('text'), /\/: must be object, is string/);
  });
});

describe('raw text in generated bodies', () => {
  test('raw markers become the exact text, as keys and as values', () => {
    const body = { [raw('"\\u005f\\u005fproto\\u005f\\u005f"')]: { a: 1 }, n: raw('1e400'), deep: raw('[[[]]]') };
    assert.equal(serialize(body), '{"\\u005f\\u005fproto\\u005f\\u005f":{"a":1},"n":1e400,"deep":[[[]]]}');
  });
});
