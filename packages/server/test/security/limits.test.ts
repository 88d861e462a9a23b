/**
 * Bounded resources: every string and array a route accepts is bounded by its schema,
 * JSON nesting is bounded before JSON.parse builds anything, every cost parameter is capped, and a
 * route that takes too long is answered with a 503 problem. Slow clients (socket timeouts) are in
 * slow-clients.test.ts. The detailed per-field tables of wrong inputs live beside each route
 * family (derivation-routes.test.ts and the others); here is one case per cap, read from the
 * constants that define it, and the documented values pinned.
 */
import { keyGenerationCost, PQ_RATE_LIMIT_COSTS, signingCost } from '../../src/rate-limit/costs.ts';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  ARGON2_MAX,
  KDF_MAX_KEY_LENGTH,
  MAX_RECIPIENTS,
  MAX_XOF_LENGTH,
  PBKDF2_MAX_ITERATIONS,
  SCRYPT_MAX_MEMORY_BYTES,
  SCRYPT_MAX_N,
  SCRYPT_MAX_P,
  SCRYPT_MAX_R,
  SCRYPT_MAX_WORK,
  SLH_DSA_CONTEXT_MAX_BYTES,
} from '@crypto-service/core';
import {
  MAX_KEY_CHARS,
  MAX_PASSWORD_CHARS,
  MAX_PAYLOAD_CHARS,
  MAX_SIGNATURE_CHARS,
  STREAM_PARAMS_MAX_BYTES,
  V1_MAX_KEYS,
  V1_RSA_BITS,
} from '@crypto-service/protocol';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config.ts';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../src/plugins/json-body.ts';
import { postJson, TEST_API_KEY, testApp } from '../helpers.ts';

type Json = Record<string, any>;

function assertProblem(
  response: { statusCode: number; headers: Record<string, unknown>; body: string },
  status: number,
  code: string,
  label = '',
): Json {
  assert.equal(response.statusCode, status, `${label}: ${response.body.slice(0, 300)}`);
  assert.match(String(response.headers['content-type']), /^application\/problem\+json/, label);
  const body = JSON.parse(response.body) as Json;
  assert.equal(body.code, code, label);
  assert.equal(body.error, body.detail, label);
  return body;
}

/** Every place in a schema where a string or an array is accepted, with its bound (or none). */
function unboundedIn(
  schema: Json | undefined,
  path: string,
  components: Json,
  found: string[],
  seen = new Set<string>(),
): void {
  if (schema === undefined || typeof schema !== 'object') return;
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.replace('#/components/schemas/', '');
    if (seen.has(name)) return;
    unboundedIn(components[name], path, components, found, new Set([...seen, name]));
    return;
  }
  for (const keyword of ['anyOf', 'oneOf', 'allOf']) {
    (schema[keyword] as Json[] | undefined)?.forEach((branch, index) =>
      unboundedIn(branch, `${path}<${keyword} ${index}>`, components, found, seen),
    );
  }
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const closed = schema.enum !== undefined || schema.const !== undefined;
  if (types.includes('string') && !closed && typeof schema.maxLength !== 'number')
    found.push(`${path || '/'}: string without maxLength`);
  if (types.includes('array')) {
    if (typeof schema.maxItems !== 'number') found.push(`${path || '/'}: array without maxItems`);
    unboundedIn(schema.items, `${path}/[]`, components, found, seen);
  }
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Json)) {
    unboundedIn(property, `${path}/${name}`, components, found, seen);
  }
  // An object that takes arbitrary further keys would take unbounded ones too.
  if (schema.additionalProperties !== undefined && schema.additionalProperties !== false)
    found.push(`${path || '/'}: open additionalProperties`);
  if (schema.patternProperties !== undefined) found.push(`${path || '/'}: patternProperties`);
}

/**
 * The paths of Fastify's printRoutes tree: a child line ("│   └── /verify (POST)") continues the
 * path of the line above it at one level less of indentation.
 */
function routesIn(tree: string): string[] {
  const stack: string[] = [];
  const paths: string[] = [];
  for (const line of tree.split('\n')) {
    const match = /^((?:│ {3}| {4})*)[├└]── (\S+)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (match === null) continue;
    const level = (match[1] ?? '').length / 4;
    stack.length = level;
    stack.push(match[2] as string);
    if (match[3] !== undefined) paths.push(stack.join(''));
  }
  return paths;
}

describe('every request field is bounded by its schema', () => {
  let app: FastifyInstance;
  test.before(async () => {
    app = await testApp();
  });
  test.after(() => app.close());

  test("every string of every route's body, query and path has a maxLength, every array a maxItems", async () => {
    const document = (await app.inject({ method: 'GET', url: '/docs/json' })).json() as Json;
    const components = (document.components?.schemas ?? {}) as Json;
    const problems: string[] = [];
    let bodies = 0;
    for (const [path, operations] of Object.entries(document.paths as Json)) {
      for (const [method, operation] of Object.entries(operations as Json)) {
        const label = `${method.toUpperCase()} ${path}`;
        const body = operation.requestBody?.content?.['application/json']?.schema;
        const form = operation.requestBody?.content?.['multipart/form-data']?.schema;
        if (body !== undefined || form !== undefined) bodies += 1;
        const found: string[] = [];
        unboundedIn(body, '', components, found);
        // A form's streamed (binary) part is bounded by STREAM_MAX_BYTES, tested below; the others by their schema.
        for (const [name, part] of Object.entries((form?.properties ?? {}) as Json))
          if (part.format !== 'binary') unboundedIn(part, `/${name}`, components, found);
        for (const parameter of (operation.parameters ?? []) as Json[])
          unboundedIn(parameter.schema, `(${parameter.in} ${parameter.name})`, components, found);
        problems.push(...found.map((problem) => `${label} ${problem}`));
      }
    }
    assert.deepEqual(problems, []);
    assert.ok(bodies >= 40, `only ${bodies} request bodies were found in the OpenAPI document`);
  });

  test('every POST route is in that document with a body schema (none hides from the walk above)', async () => {
    const document = (await app.inject({ method: 'GET', url: '/docs/json' })).json() as Json;
    const posts = routesIn(app.printRoutes({ method: 'POST', commonPrefix: false }));
    assert.ok(posts.length >= 40, `only ${posts.length} POST routes found`);
    assert.ok(posts.includes('/v2/hmac/verify') && posts.includes('/v2/sealedbox/open-pq'), posts.join(' '));
    const content = (path: string) => document.paths[path]?.post?.requestBody?.content ?? {};
    const missing = posts.filter(
      (path) =>
        content(path)['application/json']?.schema === undefined &&
        content(path)['multipart/form-data']?.schema === undefined,
    );
    assert.deepEqual(missing, []);
  });

  test("a stream's params part over its cap is a 400, and its data over STREAM_MAX_BYTES a 413", async () => {
    const app = await testApp({ STREAM_MAX_BYTES: '4096' });
    try {
      const form = (params: string, data: Buffer) =>
        Buffer.concat([
          Buffer.from(`--b\r\ncontent-disposition: form-data; name="params"\r\n\r\n${params}\r\n`),
          Buffer.from('--b\r\ncontent-disposition: form-data; name="data"; filename="d"\r\n\r\n'),
          data,
          Buffer.from('\r\n--b--\r\n'),
        ]);
      const send = (payload: Buffer) =>
        app.inject({
          method: 'POST',
          url: '/v2/stream/decrypt',
          headers: { 'content-type': 'multipart/form-data; boundary=b', 'x-api-key': TEST_API_KEY },
          payload,
        });
      const key = JSON.stringify({ key: '00'.repeat(32) });
      const padded = key.slice(0, -1) + ' '.repeat(STREAM_PARAMS_MAX_BYTES - key.length) + '}';
      // At the cap the key is read and the data (not a stream) is what fails; one byte over, params is refused.
      assertProblem(await send(form(padded, Buffer.alloc(10))), 400, 'DECRYPTION_FAILED', 'at the cap');
      const over = assertProblem(await send(form(` ${padded}`, Buffer.alloc(10))), 400, 'INVALID_INPUT', 'over');
      assert.equal(over.errors?.[0]?.field, '/params');
      assert.match(over.detail, new RegExp(`${STREAM_PARAMS_MAX_BYTES} bytes`));
      // Far over the limit by its Content-Length: refused before the body is read.
      assertProblem(await send(form(key, Buffer.alloc(4096 * 8))), 413, 'PAYLOAD_TOO_LARGE', 'declared');
      // A little over: found as the bytes arrive, before decryption has a whole chunk to answer with.
      assertProblem(await send(form(key, Buffer.alloc(4097))), 413, 'PAYLOAD_TOO_LARGE', 'streamed');
    } finally {
      await app.close();
    }
  });

  test('the payload bound is the largest body limit the configuration accepts', () => {
    assert.equal(loadConfig({ BODY_LIMIT_BYTES: String(MAX_PAYLOAD_CHARS) }).bodyLimitBytes, MAX_PAYLOAD_CHARS);
    assert.throws(() => loadConfig({ BODY_LIMIT_BYTES: String(MAX_PAYLOAD_CHARS + 1) }), /BODY_LIMIT_BYTES/);
    // The others are backstops above every valid value (an expanded ML-DSA-87 key, an SLH-DSA-256f signature).
    assert.ok(MAX_KEY_CHARS >= 4896 * 2 && MAX_SIGNATURE_CHARS >= 49856 * 2);
  });

  test('a field over its bound is a 400 naming the field, on the wire', async () => {
    const cases: [string, string, Json, string][] = [
      ['AEAD key', '/v2/encrypt', { key: '00'.repeat(MAX_KEY_CHARS / 2 + 1), plaintext: 'p' }, '/key'],
      ['password', '/v2/password/hash', { password: 'p'.repeat(MAX_PASSWORD_CHARS + 1) }, '/password'],
      [
        'KDF input keying material',
        '/v2/kdf',
        { algorithm: 'hkdf-sha256', password: 'p'.repeat(MAX_PASSWORD_CHARS + 1) },
        '/password',
      ],
      [
        'signature',
        '/v2/verify',
        { publicKey: '00'.repeat(32), message: 'm', signature: '00'.repeat(MAX_SIGNATURE_CHARS / 2 + 1) },
        '/signature',
      ],
    ];
    const roomy = await testApp({ BODY_LIMIT_BYTES: String(1 << 20) });
    try {
      for (const [label, url, body, field] of cases) {
        const problem = assertProblem(await postJson(roomy, url, body), 400, 'VALIDATION_FAILED', label);
        assert.equal(problem.errors[0].field, field, label);
        assert.match(problem.errors[0].message, /must NOT have more than \d+ characters/, label);
      }
      // At the bound, the password is accepted by the schema (core then hashes it).
      const atBound = await postJson(roomy, '/v2/kdf', {
        algorithm: 'hkdf-sha256',
        password: 'p'.repeat(MAX_PASSWORD_CHARS),
      });
      assert.equal(atBound.statusCode, 200, atBound.body);
    } finally {
      await roomy.close();
    }
  });
});

/** The nesting depth of a parsed JSON value: the reference the scanner is checked against. */
function depthOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return 1 + children.reduce<number>((deepest, child) => Math.max(deepest, depthOf(child)), 0);
}

function nested(depth: number, innermost = '{}'): string {
  // {"a":{"a":…}}: `depth` objects.
  return '{"a":'.repeat(depth - 1) + innermost + '}'.repeat(depth - 1);
}

describe('JSON nesting depth', () => {
  test('the scanner agrees with the depth of the parsed value, for any JSON (strings full of brackets, quotes and escapes included)', () => {
    const tricky = fc.stringMatching(/^[[\]{}"\\a]{0,12}$/);
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.oneof(fc.string(), tricky, fc.integer(), fc.boolean(), fc.constant(null)),
        fc.array(tie('value'), { maxLength: 4 }),
        fc.dictionary(fc.oneof(fc.string(), tricky), tie('value'), { maxKeys: 4 }),
      ),
    })).value;
    fc.assert(
      fc.property(json, fc.integer({ min: 0, max: 8 }), (value, limit) => {
        const text = JSON.stringify(value);
        return nestsDeeperThan(text, limit) === depthOf(value) > limit;
      }),
      { numRuns: 2000 },
    );
  });

  test('brackets inside strings, after escaped quotes and escaped backslashes, are not nesting', () => {
    const deepInString = JSON.stringify({ data: '\\"' + '['.repeat(100) + '\\\\' });
    assert.equal(nestsDeeperThan(deepInString, 2), false);
    // After an even run of backslashes the quote closes the string: what follows is structure.
    const evenRun = '{"a":"x\\\\","b":' + '{"b":'.repeat(5) + '1' + '}'.repeat(5) + '}';
    assert.equal(depthOf(JSON.parse(evenRun)), 6);
    assert.equal(nestsDeeperThan(evenRun, 3), true);
    // After an odd run the quote is escaped: the brackets are still inside the string.
    const oddRun = JSON.stringify({ a: 'x\\"' + '{"b":['.repeat(5) });
    assert.ok(oddRun.includes('\\\\\\"'), oddRun);
    assert.equal(nestsDeeperThan(oddRun, 3), false);
  });

  test(`a body ${MAX_JSON_DEPTH} levels deep is parsed; one level deeper is a 400 MALFORMED_JSON before parsing`, async (t) => {
    const app = await testApp();
    t.after(() => app.close());
    const json = { 'content-type': 'application/json' };
    const atLimit = await app.inject({
      method: 'POST',
      url: '/v2/hash',
      payload: nested(MAX_JSON_DEPTH),
      headers: json,
    });
    // Parsed: the schema then refuses the unknown field.
    assertProblem(atLimit, 400, 'VALIDATION_FAILED', 'at the limit');
    const over = assertProblem(
      await app.inject({ method: 'POST', url: '/v2/hash', payload: nested(MAX_JSON_DEPTH + 1), headers: json }),
      400,
      'MALFORMED_JSON',
      'over',
    );
    assert.match(over.detail, new RegExp(`deeper than ${MAX_JSON_DEPTH}`));
    // Deep arrays count the same; brackets inside a string do not.
    assertProblem(
      await app.inject({
        method: 'POST',
        url: '/v2/hash',
        payload: `{"data":${'['.repeat(40)}${']'.repeat(40)}}`,
        headers: json,
      }),
      400,
      'MALFORMED_JSON',
      'arrays',
    );
    const inString = await postJson(app, '/v2/hash', { algorithm: 'sha256', data: '[{'.repeat(5000) });
    assert.equal(inString.statusCode, 200, inString.body);
  });

  test('a body that is a million opening brackets is refused as too deep, not parsed into a million arrays', async (t) => {
    const app = await testApp({ BODY_LIMIT_BYTES: String(2 << 20) });
    t.after(() => app.close());
    const payload = '['.repeat(1 << 20);
    const response = await app.inject({
      method: 'POST',
      url: '/v2/hash',
      payload,
      headers: { 'content-type': 'application/json' },
    });
    const problem = assertProblem(response, 400, 'MALFORMED_JSON');
    assert.match(problem.detail, /deeper than/);
  });
});

describe('cost parameters are capped', () => {
  test('the caps are the documented values (SECURITY.md, docs/api.md)', () => {
    assert.deepEqual({ ...ARGON2_MAX }, { t: 10, m: 262144, p: 16 });
    assert.deepEqual(
      [SCRYPT_MAX_N, SCRYPT_MAX_R, SCRYPT_MAX_P, SCRYPT_MAX_MEMORY_BYTES, SCRYPT_MAX_WORK],
      [2 ** 20, 32, 16, 256 * 1024 * 1024, 2 ** 22],
    );
    assert.equal(PBKDF2_MAX_ITERATIONS, 2_000_000);
    assert.equal(MAX_XOF_LENGTH, 1024);
    assert.equal(KDF_MAX_KEY_LENGTH, 255 * 64);
    assert.deepEqual([...V1_RSA_BITS], [2048, 3072, 4096]);
    assert.equal(MAX_RECIPIENTS, 100);
    assert.equal(V1_MAX_KEYS, 100);
  });

  test('one over each cap is a 400 problem, refused before any work', async (t) => {
    const app = await testApp({ RATE_LIMIT_MAX: '1000000' });
    t.after(() => app.close());
    const recipient = { type: 'x25519', publicKey: '11'.repeat(32) };
    const gen = { name: 'N', email: 'n@example.com' };
    const cases: [string, string, Json][] = [
      ['Argon2id timeCost', '/v2/password/hash', { password: 'x', timeCost: ARGON2_MAX.t + 1 }],
      ['Argon2id memoryCost', '/v2/password/hash', { password: 'x', memoryCost: ARGON2_MAX.m + 1 }],
      ['Argon2id parallelism', '/v2/password/hash', { password: 'x', parallelism: ARGON2_MAX.p + 1 }],
      [
        'Argon2id m in a PHC string to verify',
        '/v2/password/verify',
        {
          password: 'x',
          hash: `$argon2id$v=19$m=${ARGON2_MAX.m + 1},t=2,p=1$c29tZXNhbHRzb21lc2FsdA$${'A'.repeat(43)}`,
        },
      ],
      ['scrypt N', '/v2/kdf', { algorithm: 'scrypt', password: 'x', params: { N: SCRYPT_MAX_N * 2 } }],
      ['scrypt r', '/v2/kdf', { algorithm: 'scrypt', password: 'x', params: { r: SCRYPT_MAX_R + 1 } }],
      ['scrypt p', '/v2/kdf', { algorithm: 'scrypt', password: 'x', params: { p: SCRYPT_MAX_P + 1 } }],
      ['scrypt memory 128 · N · r', '/v2/kdf', { algorithm: 'scrypt', password: 'x', params: { N: 2 ** 18, r: 16 } }],
      ['scrypt work N · r · p', '/v2/kdf', { algorithm: 'scrypt', password: 'x', params: { N: 2 ** 17, r: 8, p: 8 } }],
      [
        'PBKDF2 iterations',
        '/v2/kdf',
        { algorithm: 'pbkdf2-sha256', password: 'x', params: { iterations: PBKDF2_MAX_ITERATIONS + 1 } },
      ],
      ['HKDF length (255 · HashLen)', '/v2/kdf', { algorithm: 'hkdf-sha256', password: 'x', keyLength: 255 * 32 + 1 }],
      ['XOF output length', '/v2/hash', { algorithm: 'shake256', data: 'x', length: MAX_XOF_LENGTH + 1 }],
      [
        'SLH-DSA context',
        '/v2/pq/slh-dsa/sign',
        { privateKey: '00'.repeat(64), message: 'm', context: 'c'.repeat(SLH_DSA_CONTEXT_MAX_BYTES + 1) },
      ],
      ['RSA bits (/v1/generate)', '/v1/generate', { ...gen, type: 'rsa', rsaBits: 8192 }],
      ['RSA bits below the floor', '/v1/generate', { ...gen, type: 'rsa', rsaBits: 1024 }],
      [
        'multi-recipient recipients',
        '/v2/multi-recipient/encrypt',
        { plaintext: 'x', recipients: Array.from({ length: MAX_RECIPIENTS + 1 }, () => recipient) },
      ],
      [
        '/v1 keys to verify against',
        '/v1/verify',
        { message: 'x', publicKeys: Array.from({ length: V1_MAX_KEYS + 1 }, () => 'k') },
      ],
    ];
    for (const [label, url, body] of cases) {
      const response = await postJson(app, url, body);
      assert.equal(response.statusCode, 400, `${label}: ${response.body.slice(0, 300)}`);
      assert.ok(
        ['VALIDATION_FAILED', 'INVALID_INPUT'].includes(response.json().code),
        `${label}: ${response.json().code}`,
      );
    }
  });

  test('SLH-DSA: a message is bounded by the body limit (413), and signing by the rate limit (priced by parameter set)', async (t) => {
    const app = await testApp({ BODY_LIMIT_BYTES: '4096', RATE_LIMIT_MAX: '40' });
    t.after(() => app.close());
    const algorithm = 'slh-dsa-shake-192s';
    const keys = (await postJson(app, '/v2/pq/slh-dsa/keygen', { algorithm })).json().data;
    assertProblem(
      await postJson(app, '/v2/pq/slh-dsa/sign', { privateKey: keys.privateKey, message: 'm'.repeat(4096), algorithm }),
      413,
      'PAYLOAD_TOO_LARGE',
    );
    // The keygen and the refused body cost a few units; one signature of this set is over the 40 of the window.
    assert.ok(keyGenerationCost(algorithm) + PQ_RATE_LIMIT_COSTS.slhDsaSign + signingCost(algorithm) > 40);
    assertProblem(
      await postJson(app, '/v2/pq/slh-dsa/sign', { privateKey: keys.privateKey, message: 'm', algorithm }),
      429,
      'RATE_LIMITED',
    );
  });
});

describe('a route that takes too long', () => {
  test('is answered with a 503 problem after HANDLER_TIMEOUT_MS, and the server keeps serving', async (t) => {
    const lines: string[] = [];
    const app = await testApp(
      { HANDLER_TIMEOUT_MS: '100', LOG_LEVEL: 'warn' },
      { logStream: { write: (line: string) => lines.push(line) } },
    );
    t.after(() => app.close());
    const started = performance.now();
    // Argon2id with ten passes over 64 MiB: far longer than 100 ms.
    const slow = await postJson(app, '/v2/password/hash', {
      password: 'x',
      timeCost: 10,
      memoryCost: 65536,
      parallelism: 1,
    });
    const elapsed = performance.now() - started;
    const problem = assertProblem(slow, 503, 'SERVICE_UNAVAILABLE');
    assert.match(problem.detail, /HANDLER_TIMEOUT_MS/);
    assert.equal(problem.instance, '/v2/password/hash');
    assert.equal(slow.headers['x-content-type-options'], 'nosniff', 'the security headers are on it');
    assert.ok(elapsed < 5000, `answered after ${elapsed.toFixed(0)} ms`);
    const quick = await postJson(app, '/v2/hash', { algorithm: 'sha256', data: 'abc' });
    assert.equal(quick.statusCode, 200);
    // A timeout is not a bug: nothing at level error (50) or above.
    const errors = lines.map((line) => JSON.parse(line) as Json).filter((line) => line.level >= 50);
    assert.deepEqual(errors, []);
  });
});
