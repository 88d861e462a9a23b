import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { ed25519 } from '@noble/curves/ed25519.js';
import { CryptoApiError } from '@crypto-service/client';
import { useCryptoService } from '../src/node-test.ts';
import globalSetup, { connectToCryptoService, globalTeardown } from '../src/global-setup.ts';
import { startCryptoService } from '../src/index.ts';

describe('useCryptoService (node:test)', () => {
  const service = useCryptoService();

  test('serves on a loopback port with a generated API key', async () => {
    assert.match(service.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.match(service.apiKey ?? '', /^[0-9a-f]{64}$/);
    const { data } = await service.client.hash({ algorithm: 'sha256', data: 'hello' });
    assert.equal(data.digest, createHash('sha256').update('hello').digest('hex'));
  });

  test('refuses a request without the key', async () => {
    const anonymous = service.createClient();
    await assert.rejects(anonymous.hash({ algorithm: 'sha256', data: 'aGk=' }), (error: unknown) => {
      assert.ok(error instanceof CryptoApiError);
      assert.equal(error.status, 401);
      return true;
    });
  });

  test('fixtures are real keys of their family', async () => {
    const { ed25519: pair } = service.fixtures;
    const message = Buffer.from('fixture');
    const { data } = await service.client.sign({
      algorithm: 'ed25519',
      privateKey: pair.privateKey,
      message: message.toString('base64'),
      encoding: 'base64',
    });
    assert.ok(ed25519.verify(Buffer.from(data.signature, 'hex'), message, Buffer.from(pair.publicKey, 'hex')));
    assert.equal(service.fixtures.aead.key.length, 64);
    assert.equal(service.fixtures.hmac.key.length, 64);
    assert.equal(service.fixtures.keyWrap.key.length, 64);
    assert.equal(service.fixtures.xWing.publicKey.length, 1216 * 2);
    assert.equal(service.fixtures.mlDsa65.publicKey.length, 1952 * 2);
  });

  test('logs are kept and hold no key', () => {
    const logs = service.logs().join('\n');
    assert.match(logs, /Server listening at/);
    assert.ok(!logs.includes(service.fixtures.ed25519.privateKey));
    assert.ok(!logs.includes(service.apiKey ?? '<none>'));
  });
});

describe('startCryptoService', () => {
  test('takes configuration, and close() stops the process', async () => {
    const service = await startCryptoService({
      env: { CRYPTO_API_KEY: undefined, CORS_ORIGIN: 'https://app.example' },
    });
    assert.equal(service.apiKey, undefined);
    const response = await fetch(`${service.url}/v2/algorithms`, { headers: { origin: 'https://app.example' } });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('access-control-allow-origin'), 'https://app.example');
    await service.close();
    await assert.rejects(fetch(`${service.url}/live`));
  });

  test('a configuration the service refuses fails the start with its message', async () => {
    await assert.rejects(startCryptoService({ env: { PORT: 'not-a-port' } }), /PORT/);
  });
});

describe('global setup (Vitest, Jest)', () => {
  test('publishes the service through the environment and tears it down', async () => {
    const teardown = await globalSetup();
    try {
      const { url, apiKey, client } = connectToCryptoService();
      assert.equal(url, process.env.CRYPTO_SERVICE_URL);
      assert.equal(apiKey, process.env.CRYPTO_SERVICE_API_KEY);
      const { data } = await client.hash({ algorithm: 'sha256', data: '' });
      assert.equal(data.digest, createHash('sha256').digest('hex'));
    } finally {
      await teardown();
    }
    await assert.rejects(fetch(`${process.env.CRYPTO_SERVICE_URL}/live`));
    await globalTeardown();
  });
});
