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
    if (operation.requestBody !== undefined && requestContent(operation)?.example === undefined)
      missing.push(`${key}: request`);
    const [, ok] = okContent(operation);
    if (ok.example === undefined) missing.push(`${key}: response`);
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

test('every documented example fits the documented request and response schemas', () => {
  for (const { key, operation } of operations) {
    const body = requestContent(operation);
    if (body !== undefined) assert.deepEqual(schemaErrors(body.schema, body.example), [], `${key} request`);
    const [, ok] = okContent(operation);
    assert.deepEqual(schemaErrors(ok.schema, ok.example), [], `${key} response`);
  }
});

for (const { key, method, path, operation } of operations) {
  test(`${key}: the request example gets an answer of the documented shape`, async () => {
    const request = requestContent(operation)?.example;
    const multipart = operation.requestBody?.content['multipart/form-data'] !== undefined;
    const boundary = 'example-boundary';
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
    assert.equal(response.statusCode, 200, response.body);
    const [mediaType, ok] = okContent(operation);
    assert.ok(String(response.headers['content-type']).startsWith(mediaType), String(response.headers['content-type']));
    if (OPERATION_EXAMPLES[key]?.binaryAsBase64 === true) {
      // Bytes shown in base64: the same length, and the same bytes where the answer is reproducible.
      const expected = Buffer.from(String(ok.example), 'base64');
      assert.equal(response.rawPayload.byteLength, expected.byteLength);
      if (OPERATION_EXAMPLES[key]?.reproducible === true) assert.ok(response.rawPayload.equals(expected));
      return;
    }
    if (mediaType !== 'application/json') {
      // A text exposition: every metric family the example shows is in the answer.
      const families = String(ok.example).match(/^# TYPE \S+/gm) ?? [];
      assert.ok(families.length > 0);
      for (const family of families) assert.ok(response.body.includes(family), family);
      return;
    }
    const body: unknown = response.json();
    assert.deepEqual(schemaErrors(ok.schema, body), []);
    if (OPERATION_EXAMPLES[key]?.reproducible === true) assert.deepEqual(body, ok.example);
  });
}
