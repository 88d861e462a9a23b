/**
 * generateKeyPair's result type follows its request: a key pair for the default and for every
 * key-pair algorithm, `{ key }` for a symmetric one, JWK objects for format jwk. The types are
 * checked by compiling snippets (with `@ts-expect-error` where a field must be missing, and with
 * snippets that must not compile, so that the check itself can fail); the list of symmetric
 * algorithms behind them is checked against what the service answers for each identifier.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CryptoClient, SYMMETRIC_KEY_ALGORITHMS, type KeyGenerationAlgorithm } from '@crypto-service/client';
import { startService, type Service } from './helpers.ts';
import { typeErrors } from './typescript.ts';

const PREAMBLE = `import { CryptoClient, type KeyGenerateResponse, type KeyGenerationAlgorithm } from '@crypto-service/client';
const client = new CryptoClient({ baseUrl: 'http://localhost:3000' });
`;

const TYPED_RESULTS = `${PREAMBLE}
// The default: an Ed25519 key pair in hex, read without a cast or a narrowing.
const pair = (await client.generateKeyPair()).data;
const privateKey: string = pair.privateKey;
const publicKey: string = pair.publicKey;
const algorithm: 'ed25519' = pair.algorithm;
const format: 'raw' = pair.format;
// @ts-expect-error a key pair has no key
console.log(pair.key);

const secret = (await client.generateKeyPair({ algorithm: 'hmac-sha512' })).data;
const key: string = secret.key;
// @ts-expect-error a symmetric key has no privateKey
console.log(secret.privateKey);

const jwk = (await client.generateKeyPair({ algorithm: 'ecdsa-p256', format: 'jwk' })).data;
const d: string | undefined = jwk.privateKey.d;
// @ts-expect-error a JWK is an object, not a string
console.log(jwk.publicKey.toUpperCase());
const pem: string = (await client.generateKeyPair({ algorithm: 'ml-dsa-65', format: 'pem' })).data.privateKey;

// An algorithm known only at run time gives both shapes, told apart by 'key' in data.
declare const chosen: KeyGenerationAlgorithm;
const either = (await client.generateKeyPair({ algorithm: chosen })).data;
// @ts-expect-error it may be a symmetric key
console.log(either.privateKey);
const fromEither: string | object = 'key' in either ? either.key : either.privateKey;

// Every result is a value of the service's own response schema.
const asSchema: KeyGenerateResponse['data'][] = [pair, secret, jwk, either];
console.log(privateKey, publicKey, algorithm, format, key, d, pem, fromEither, asSchema);
`;

describe('the types of generateKeyPair', () => {
  test('follow the request, without a cast or a narrowing', () => {
    const errors = typeErrors([{ name: 'typed-results', source: TYPED_RESULTS }]);
    assert.deepEqual(errors.get('typed-results'), []);
  });

  test('refuse the fields that the request rules out', () => {
    const wrong = {
      'symmetric-has-no-private-key': `const k: string = (await client.generateKeyPair({ algorithm: 'xchacha20-poly1305' })).data.privateKey;`,
      'pair-has-no-key': `const k: string = (await client.generateKeyPair({ algorithm: 'x25519' })).data.key;`,
      'jwk-is-not-a-string': `const k: string = (await client.generateKeyPair({ format: 'jwk' })).data.privateKey;`,
      'raw-is-not-a-jwk': `const k: string | undefined = (await client.generateKeyPair()).data.privateKey.kty;`,
      'unknown-algorithm': `await client.generateKeyPair({ algorithm: 'rsa-2048' });`,
    };
    const errors = typeErrors(
      Object.entries(wrong).map(([name, line]) => ({ name, source: `${PREAMBLE}${line}\nconsole.log(k);\n` })),
    );
    for (const name of Object.keys(wrong)) {
      const messages = errors.get(name) ?? [];
      // The one error expected is on the snippet's own line, not in the preamble or the console.log.
      assert.ok(
        messages.some((message) => message.startsWith('line 3:')),
        `${name} should not compile; errors: ${messages.join('; ')}`,
      );
    }
  });
});

describe('SYMMETRIC_KEY_ALGORITHMS, against the real service', () => {
  let service: Service;
  let client: CryptoClient;
  before(async () => {
    service = await startService();
    client = new CryptoClient({ baseUrl: service.baseUrl });
  });
  after(() => service.close());

  test('is exactly the keyGeneration identifiers that the service answers with { key }', async () => {
    const { data: families } = await client.algorithms();
    const symmetric: string[] = [];
    // The family is typed as strings; the service lists exactly what key generation accepts.
    for (const algorithm of families.keyGeneration as KeyGenerationAlgorithm[]) {
      const { data } = await client.generateKeyPair({ algorithm });
      assert.equal(data.algorithm, algorithm);
      if ('key' in data) symmetric.push(algorithm);
      else assert.ok(typeof data.publicKey === 'string' && typeof data.privateKey === 'string', algorithm);
    }
    assert.deepEqual([...symmetric].sort(), [...SYMMETRIC_KEY_ALGORITHMS].sort());
  });

  test('formats: raw and pem are strings, jwk objects, as the types say', async () => {
    const raw = (await client.generateKeyPair()).data;
    assert.match(raw.privateKey, /^[0-9a-f]{64}$/);
    const pem = (await client.generateKeyPair({ algorithm: 'ed448', format: 'pem' })).data;
    assert.match(pem.privateKey, /^-----BEGIN PRIVATE KEY-----\n/);
    assert.match(pem.publicKey, /^-----BEGIN PUBLIC KEY-----\n/);
    const jwk = (await client.generateKeyPair({ algorithm: 'ecdsa-p384', format: 'jwk' })).data;
    assert.deepEqual([jwk.publicKey.kty, jwk.publicKey.crv, typeof jwk.privateKey.d], ['EC', 'P-384', 'string']);
    const octet = (await client.generateKeyPair({ algorithm: 'aes-128', format: 'jwk' })).data;
    assert.equal(octet.key.kty, 'oct');
    assert.equal(Buffer.from(octet.key.k ?? '', 'base64url').length, 16);
  });
});
