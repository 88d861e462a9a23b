/**
 * The examples of the OpenAPI document: every operation has them, they fit the documented schemas,
 * and each request example, sent to the app, gets an answer of the documented shape (and, where the
 * operation is reproducible, exactly the documented answer).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Value } from 'typebox/value';
import type { TSchema } from 'typebox';
import { testApp, TEST_API_KEY } from './helpers.ts';
import { OPERATION_EXAMPLES } from '../src/openapi-examples.ts';

interface MediaType {
  schema?: TSchema;
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
}

interface Operation {
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, { content?: Record<string, MediaType> }>;
}

interface Documented {
  key: string;
  method: string;
  path: string;
  operation: Operation;
}

const app = await testApp({ CRYPTO_API_KEY: TEST_API_KEY, RATE_LIMIT_MAX: '1000000' });
const document = (await app.inject({ method: 'GET', url: '/docs/json' })).json() as {
  paths: Record<string, Record<string, Operation>>;
};
const operations: Documented[] = Object.entries(document.paths).flatMap(([path, byMethod]) =>
  Object.entries(byMethod).map(([method, operation]) => ({
    key: `${method.toUpperCase()} ${path}`,
    method: method.toUpperCase(),
    path,
    operation,
  })),
);

test.after(() => app.close());

function okContent(operation: Operation): [string, MediaType] {
  const content = Object.entries(operation.responses['200']?.content ?? {});
  assert.equal(content.length, 1, 'one media type for the 200 response');
  return content[0] as [string, MediaType];
}

/** A media type's examples by name: its one `example` is `single`, as openapi.ts names it beside others. */
function examplesOf(media: MediaType | undefined): Map<string, unknown> {
  if (media?.examples !== undefined)
    return new Map(Object.entries(media.examples).map(([name, { value }]) => [name, value]));
  return new Map(media?.example === undefined ? [] : [['single', media.example]]);
}

/** The request body's media type: JSON, or multipart for the stream routes. */
function requestContent(operation: Operation): MediaType | undefined {
  const content = operation.requestBody?.content;
  return content?.['application/json'] ?? content?.['multipart/form-data'];
}

/** A multipart example (the parts as fields) as the body a client sends: `params`, then `data` as a file. */
function multipartBody(example: { params: string; data: string }, boundary: string): Buffer {
  const part = (name: string, headers: string, body: Buffer) =>
    Buffer.concat([
      Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="${name}"${headers}\r\n\r\n`),
      body,
      Buffer.from('\r\n'),
    ]);
  return Buffer.concat([
    part('params', '\r\ncontent-type: application/json', Buffer.from(example.params)),
    part('data', '; filename="data"\r\ncontent-type: application/octet-stream', Buffer.from(example.data, 'base64')),
    Buffer.from(`--${boundary}--\r\n`),
  ]);
}

function schemaErrors(schema: TSchema | undefined, value: unknown): string[] {
  assert.ok(schema, 'a documented schema');
  return [...Value.Errors(schema, value)].map((error) => `${error.instancePath || '/'} ${error.message}`);
}

test('the document describes the probes, /metrics, /v1 and /v2', () => {
  const keys = new Set(operations.map(({ key }) => key));
  for (const key of ['GET /live', 'GET /ready', 'GET /metrics', 'POST /v1/decrypt', 'POST /v2/encrypt']) {
    assert.ok(keys.has(key), key);
  }
  assert.ok(operations.length >= 45, `${operations.length} operations`);
});

test('every operation has a request example (when it takes a body) and a 200 response example', () => {
  const missing: string[] = [];
  for (const { key, operation } of operations) {
    if (operation.requestBody !== undefined && !examplesOf(requestContent(operation)).has('single'))
      missing.push(`${key}: request`);
    const [, ok] = okContent(operation);
    if (!examplesOf(ok).has('single')) missing.push(`${key}: response`);
  }
  assert.deepEqual(missing, []);
});

test('every example in the table belongs to an operation of the document', () => {
  const keys = new Set(operations.map(({ key }) => key));
  assert.deepEqual(
    Object.keys(OPERATION_EXAMPLES).filter((key) => !keys.has(key)),
    [],
  );
});

test('every request example has a response example of the same name', () => {
  for (const { key, operation } of operations) {
    const requests = [...examplesOf(requestContent(operation)).keys()];
    const responses = [...examplesOf(okContent(operation)[1]).keys()];
    assert.deepEqual(requests, operation.requestBody === undefined ? [] : responses, key);
  }
});

test('every documented example fits the documented request and response schemas', () => {
  for (const { key, operation } of operations) {
    const body = requestContent(operation);
    for (const [name, example] of examplesOf(body)) {
      assert.deepEqual(schemaErrors(body?.schema, example), [], `${key} request ${name}`);
    }
    const [, ok] = okContent(operation);
    for (const [name, example] of examplesOf(ok)) {
      assert.deepEqual(schemaErrors(ok.schema, example), [], `${key} response ${name}`);
    }
  }
});

for (const { key, method, path, operation } of operations) {
  test(`${key}: each request example gets an answer of the documented shape`, async () => {
    const [mediaType, ok] = okContent(operation);
    const answers = examplesOf(ok);
    const requests =
      operation.requestBody === undefined ? new Map([['single', undefined]]) : examplesOf(requestContent(operation));
    const multipart = operation.requestBody?.content['multipart/form-data'] !== undefined;
    const boundary = 'example-boundary';
    for (const [name, request] of requests) {
      const response = await app.inject({
        method,
        url: path,
        headers: {
          'x-api-key': TEST_API_KEY,
          ...(request === undefined
            ? {}
            : { 'content-type': multipart ? `multipart/form-data; boundary=${boundary}` : 'application/json' }),
        },
        ...(request === undefined
          ? {}
          : {
              payload: multipart
                ? multipartBody(request as { params: string; data: string }, boundary)
                : JSON.stringify(request),
            }),
      });
      assert.equal(response.statusCode, 200, `${name}: ${response.body}`);
      assert.ok(
        String(response.headers['content-type']).startsWith(mediaType),
        String(response.headers['content-type']),
      );
      if (OPERATION_EXAMPLES[key]?.binaryAsBase64 === true) {
        // Bytes shown in base64: the same length, and the same bytes where the answer is reproducible.
        const expected = Buffer.from(String(answers.get(name)), 'base64');
        assert.equal(response.rawPayload.byteLength, expected.byteLength);
        if (OPERATION_EXAMPLES[key]?.reproducible === true) assert.ok(response.rawPayload.equals(expected));
        continue;
      }
      if (mediaType !== 'application/json') {
        // A text exposition: every metric family the example shows is in the answer.
        const families = String(answers.get(name)).match(/^# TYPE \S+/gm) ?? [];
        assert.ok(families.length > 0);
        for (const family of families) assert.ok(response.body.includes(family), family);
        continue;
      }
      const body: unknown = response.json();
      assert.deepEqual(schemaErrors(ok.schema, body), [], name);
      if (OPERATION_EXAMPLES[key]?.reproducible === true) assert.deepEqual(body, answers.get(name), name);
    }
  });
}
