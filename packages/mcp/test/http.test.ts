/**
 * crypto-service-mcp over Streamable HTTP, with the SDK's own client against the real service:
 * the bin started with --http and --allow-secret-output, and the endpoint's own protections.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { createCipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { ed25519 } from '@noble/curves/ed25519.js';
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { startCryptoService, type CryptoService } from '@crypto-service/testing';
import { createCryptoServiceMcpServer, startMcpHttpServer } from '../src/index.ts';
import { callError, callOk, connectHttp, spawnHttp, stopChild, type Connected } from './helpers.ts';

let service: CryptoService;

before(async () => {
  service = await startCryptoService();
});
after(() => service?.close());

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

describe('the bin with --http --allow-secret-output', () => {
  let child: ChildProcess;
  let mcp: Connected;

  before(async () => {
    const started = await spawnHttp(['--url', service.url, '--allow-secret-output'], {
      CRYPTO_API_KEY: service.apiKey ?? '',
    });
    child = started.child;
    assert.match(started.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    mcp = await connectHttp(started.url);
  });
  after(async () => {
    await mcp?.close();
    if (child !== undefined) await stopChild(child);
  });

  test('lists the tools, and the descriptions say that key material is returned', async () => {
    const { tools } = await mcp.client.listTools();
    const keygen = tools.find((tool) => tool.name === 'keys_generate');
    assert.match(keygen?.description ?? '', /started with --allow-secret-output: the result includes key material/);
    assert.match(mcp.client.getInstructions() ?? '', /results include private and symmetric key material/);
  });

  test('keys_generate returns the private key, and it is the one of the public key', async () => {
    const result = await callOk(mcp.client, 'keys_generate', { algorithm: 'ed25519' });
    assert.equal(result.withheld, undefined);
    const privateKey = Buffer.from(result.data.privateKey as string, 'hex');
    assert.equal(hex(ed25519.getPublicKey(privateKey)), result.data.publicKey);
    const symmetric = await callOk(mcp.client, 'keys_generate', { algorithm: 'aes-256' });
    assert.match(symmetric.data.key as string, /^[0-9a-f]{64}$/);
  });

  test('keys_wrap and keys_unwrap: AES-KW as node:crypto computes it', async () => {
    const kek = randomBytes(32);
    const key = randomBytes(32);
    const { data } = await callOk(mcp.client, 'keys_wrap', { kek: hex(kek), keyToWrap: hex(key) });
    const wrapper = createCipheriv('id-aes256-wrap', kek, Buffer.from('a6a6a6a6a6a6a6a6', 'hex'));
    const expected = Buffer.concat([wrapper.update(key), wrapper.final()]);
    assert.equal(data.wrappedKey, expected.toString('base64'));
    const unwrapped = await callOk(mcp.client, 'keys_unwrap', { kek: hex(kek), wrappedKey: data.wrappedKey });
    assert.equal(unwrapped.data, hex(key));
  });

  test('kdf returns the derived key that node:crypto derives', async () => {
    const ikm = randomBytes(32);
    const salt = randomBytes(16);
    const { data } = await callOk(mcp.client, 'kdf', {
      algorithm: 'hkdf-sha256',
      password: hex(ikm),
      encoding: 'hex',
      salt: hex(salt),
      keyLength: 32,
      params: { info: hex(Buffer.from('mcp test')) },
    });
    assert.equal(data.derivedKey, hex(new Uint8Array(hkdfSync('sha256', ikm, salt, 'mcp test', 32))));
  });

  test('an X-Wing encapsulation and its decapsulation give the same shared secret', async () => {
    const { data: pair } = await callOk(mcp.client, 'pq_hybrid_keygen');
    const { data: sent } = await callOk(mcp.client, 'pq_hybrid_encapsulate', { publicKey: pair.publicKey });
    const { data: received } = await callOk(mcp.client, 'pq_hybrid_decapsulate', {
      privateKey: pair.privateKey,
      ciphertext: sent.ciphertext,
    });
    assert.match(sent.sharedSecret as string, /^[0-9a-f]{64}$/);
    assert.equal(received.sharedSecret, sent.sharedSecret);
  });

  test('a failing call is a tool error with the problem text', async () => {
    const { text, error } = await callError(mcp.client, 'verify', {
      publicKey: 'abcd',
      message: 'x',
      signature: '00',
    });
    assert.match(text, /^The service answered 400 INVALID_INPUT: /);
    assert.equal(error.status, 400);
  });
});

describe('the library', () => {
  test('a server on a client of your own, over any transport: ML-DSA as @noble/post-quantum checks it', async () => {
    const server = createCryptoServiceMcpServer({ service: service.client });
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'in-memory', version: '0.0.0' });
    await client.connect(clientSide);
    try {
      const seed = randomBytes(32);
      const { publicKey } = ml_dsa65.keygen(seed);
      const { data } = await callOk(client, 'pq_dsa_sign', { privateKey: hex(seed), message: 'post-quantum' });
      assert.equal(data.algorithm, 'ml-dsa-65');
      assert.ok(ml_dsa65.verify(Buffer.from(data.signature as string, 'hex'), Buffer.from('post-quantum'), publicKey));
      const keygen = await callOk(client, 'pq_dsa_keygen');
      assert.deepEqual(keygen.withheld, ['privateKey'], 'the secret-output rule is the default here too');
    } finally {
      await client.close();
      await server.close();
    }
  });
});

describe('the endpoint', () => {
  test('with an auth token: refuses a client without it, serves one with it', async () => {
    const authToken = hex(randomBytes(16));
    const server = await startMcpHttpServer({
      service: { url: service.url, apiKey: service.apiKey },
      port: 0,
      authToken,
    });
    try {
      await assert.rejects(connectHttp(server.url), /401|Unauthorized/);
      await assert.rejects(connectHttp(server.url, { authorization: 'Bearer wrong' }), /401|Unauthorized/);
      const mcp = await connectHttp(server.url, { authorization: `Bearer ${authToken}` });
      try {
        const { data } = await callOk(mcp.client, 'hash', { algorithm: 'sha256', data: '' });
        assert.equal(data.digest, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
      } finally {
        await mcp.close();
      }
    } finally {
      await server.close();
    }
  });

  test('on loopback: refuses another Host or Origin (DNS rebinding), GET, and other paths', async () => {
    const server = await startMcpHttpServer({ service: { url: service.url }, port: 0 });
    try {
      const { port } = new URL(server.url);
      assert.equal(await status(server.url, 'POST', { host: `evil.example:${port}` }), 403);
      assert.equal(await status(server.url, 'POST', { origin: 'https://evil.example' }), 403);
      assert.equal(await status(server.url, 'GET', {}), 405);
      assert.equal(await status(server.url.replace('/mcp', '/other'), 'POST', {}), 404);
    } finally {
      await server.close();
    }
  });

  test('refuses to listen off loopback without an auth token', async () => {
    await assert.rejects(
      startMcpHttpServer({ service: { url: service.url }, host: '0.0.0.0', port: 0 }),
      /needs an auth token/,
    );
  });
});

/** The status of a bare request, with headers (Host included) as given. */
function status(url: string, method: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const options = { method, agent: false, headers: { 'content-type': 'application/json', ...headers } };
    const req = request(url, options, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(method === 'POST' ? '{}' : undefined);
  });
}
