/** Error texts a person can act on: fields and encodings named in words, limits and credentials spelled out. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { closestField, editDistance } from '../src/errors.ts';
import { loadConfig } from '../src/config.ts';
import { postJson, testApp, TEST_API_KEY, TEST_JWT_SECRET } from './helpers.ts';
import type { FastifyInstance } from 'fastify';

const KEY = '00'.repeat(32);
const SECRET = 'do-not-echo-this-secret';

describe('malformed hex and base64 fields', () => {
  let app: FastifyInstance;
  test.before(async () => {
    app = await testApp();
  });
  test.after(() => app.close());

  test('a hex field that is not hex is named, with the encoding in words and no regular expression', async () => {
    for (const key of ['zz', 'abc', `${SECRET}00`]) {
      const response = await postJson(app, '/v2/secretbox/open', { key, ciphertext: 'AAAA' });
      assert.equal(response.statusCode, 400);
      const body = response.json();
      assert.equal(body.code, 'VALIDATION_FAILED');
      assert.equal(body.detail, 'invalid request: /key must be hex: an even number of 0-9 a-f characters');
      assert.deepEqual(body.errors, [{ field: '/key', message: 'must be hex: an even number of 0-9 a-f characters' }]);
      assert.doesNotMatch(response.body, /pattern|\^|\(\?:|do-not-echo/);
    }
  });

  test('a base64 field that is not base64 is named, with the encoding in words', async () => {
    for (const ciphertext of ['ab!c', 'Zg', `${SECRET}`]) {
      const response = await postJson(app, '/v2/secretbox/open', { key: KEY, ciphertext });
      assert.equal(response.statusCode, 400);
      const body = response.json();
      assert.equal(body.code, 'INVALID_INPUT');
      assert.equal(body.detail, '/ciphertext must be base64: the standard alphabet (A-Z a-z 0-9 + /), padded with =');
      assert.equal(body.errors[0].field, '/ciphertext');
      assert.doesNotMatch(response.body, /pattern|do-not-echo/);
    }
  });

  test('base64 with nonzero padding bits says what canonical means', async () => {
    const response = await postJson(app, '/v2/secretbox/open', { key: KEY, ciphertext: 'YR==' });
    assert.equal(response.statusCode, 400);
    assert.equal(
      response.json().detail,
      '/ciphertext must be canonical base64: the bits before the padding must be zero',
    );
  });
});

describe('unknown fields', () => {
  let app: FastifyInstance;
  test.before(async () => {
    app = await testApp();
  });
  test.after(() => app.close());

  test('an unknown field is named with the closest known field, before the required field it replaces', async () => {
    const response = await postJson(app, '/v2/hash', { algorithm: 'sha256', input: SECRET });
    assert.equal(response.statusCode, 400);
    const body = response.json();
    assert.equal(body.code, 'VALIDATION_FAILED');
    assert.equal(body.detail, 'invalid request: unknown field /input; did you mean /data?; /data is required');
    assert.deepEqual(body.errors, [
      { field: '/input', message: 'is not a known field; did you mean /data?' },
      { field: '/data', message: 'is required' },
    ]);
    assert.doesNotMatch(response.body, /do-not-echo/);
  });

  test('the match is case-insensitive', async () => {
    const response = await postJson(app, '/v2/hash', { Algorithm: 'sha256', data: 'x' });
    assert.equal(
      response.json().detail,
      'invalid request: unknown field /Algorithm; did you mean /algorithm?; /algorithm is required',
    );
  });

  test('an unknown field alone is named with a near known field, and with none when nothing is near', async () => {
    const near = await postJson(app, '/v2/hash', { algorithm: 'sha256', data: 'x', encodign: 'hex' });
    assert.equal(near.statusCode, 400);
    assert.equal(near.json().detail, 'invalid request: unknown field /encodign; did you mean /encoding?');
    const far = await postJson(app, '/v2/hash', { algorithm: 'sha256', data: 'x', extra: 1 });
    assert.equal(far.json().detail, 'invalid request: unknown field /extra');
    assert.deepEqual(far.json().errors, [{ field: '/extra', message: 'is not a known field' }]);
  });

  test('a field the body already holds is never suggested', async () => {
    const response = await postJson(app, '/v2/hash', { algorithm: 'sha256', data: 'x', Data: 'y' });
    assert.equal(response.json().detail, 'invalid request: unknown field /Data');
  });

  test('nested objects are named by their full pointer', async () => {
    const response = await postJson(app, '/v2/multi-recipient/encrypt', {
      plaintext: 'x',
      recipients: [{ publicKye: KEY }],
    });
    assert.equal(response.statusCode, 400);
    assert.match(
      response.json().detail,
      /^invalid request: unknown field \/recipients\/0\/publicKye; did you mean \/recipients\/0\/publicKey\?/,
    );
  });

  test('a long unknown name gets no guess, and at most three unknown fields are named beside a missing one', async () => {
    const long = await postJson(app, '/v2/hash', { algorithm: 'sha256', data: 'x', ['d'.repeat(100_000)]: 1 });
    assert.equal(long.statusCode, 400);
    assert.doesNotMatch(long.json().detail, /did you mean/);
    const many = Object.fromEntries(Array.from({ length: 1000 }, (_, index) => [`f${index}`, index]));
    const response = await postJson(app, '/v2/hash', { algorithm: 'sha256', ...many });
    assert.deepEqual(
      response.json().errors.map((error: { field: string }) => error.field),
      ['/f0', '/f1', '/f2', '/data'],
    );
  });

  test('editDistance and closestField', () => {
    assert.equal(editDistance('kitten', 'sitting'), 3);
    assert.equal(editDistance('KEY', 'key'), 0);
    assert.equal(editDistance('', 'abc'), 3);
    assert.equal(closestField('ciphertxt', ['key', 'ciphertext'], new Set()), 'ciphertext');
    assert.equal(closestField('input', ['algorithm', 'data'], new Set(['algorithm'])), undefined);
    assert.equal(closestField('input', ['algorithm', 'data'], new Set(['algorithm']), new Set(['data'])), 'data');
    assert.equal(closestField('Key', ['key'], new Set(['key'])), undefined);
  });
});

describe('a body over the limit', () => {
  test('the 413 names the limit in bytes and BODY_LIMIT_BYTES', async (t) => {
    const app = await testApp({ BODY_LIMIT_BYTES: '2048' });
    t.after(() => app.close());
    const response = await postJson(app, '/v2/hash', { algorithm: 'sha256', data: 'x'.repeat(4096) });
    assert.equal(response.statusCode, 413);
    assert.equal(response.json().code, 'PAYLOAD_TOO_LARGE');
    assert.equal(response.json().detail, 'the request body is larger than the limit of 2048 bytes (BODY_LIMIT_BYTES)');
  });
});

describe('a request without credentials', () => {
  const HASH_BODY = { algorithm: 'sha256', data: 'abc' };
  for (const [name, env, detail] of [
    ['API key only', { CRYPTO_API_KEY: TEST_API_KEY }, 'missing credentials: send an API key in the x-api-key header'],
    ['JWT only', { JWT_SECRET: TEST_JWT_SECRET }, 'missing credentials: send a JWT in an Authorization: Bearer header'],
    [
      'both',
      { CRYPTO_API_KEY: TEST_API_KEY, JWT_SECRET: TEST_JWT_SECRET },
      'missing credentials: send an API key in the x-api-key header or a JWT in an Authorization: Bearer header',
    ],
  ] as const) {
    test(`the 401 names only the configured credentials: ${name}`, async (t) => {
      const app = await testApp(env);
      t.after(() => app.close());
      const response = await postJson(app, '/v2/hash', HASH_BODY);
      assert.equal(response.statusCode, 401);
      assert.equal(response.json().code, 'UNAUTHORIZED');
      assert.equal(response.json().detail, detail);
    });
  }
});

describe('the start-up warning without credentials', () => {
  test('ALLOW_ANONYMOUS=true in production says anonymous access is allowed in production, not development mode', () => {
    const config = loadConfig({ NODE_ENV: 'production', ALLOW_ANONYMOUS: 'true' });
    const warnings = config.warnings.join('\n');
    assert.match(warnings, /anonymous access is allowed in production/);
    assert.match(warnings, /ALLOW_ANONYMOUS=true/);
    assert.doesNotMatch(warnings, /development mode/);
  });

  test('outside production the development-mode warning stays, with or without ALLOW_ANONYMOUS', () => {
    for (const env of [{}, { NODE_ENV: 'development', ALLOW_ANONYMOUS: 'true' }, { NODE_ENV: 'test' }]) {
      const warnings = loadConfig(env).warnings.join('\n');
      assert.match(warnings, /every request is allowed \(development mode\)/);
      assert.doesNotMatch(warnings, /in production/);
    }
  });
});
