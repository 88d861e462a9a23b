/**
 * crypto-service-mcp over stdio, spawned as an MCP host spawns it, driven by the SDK's own client
 * against the real service; results checked with node:crypto and @noble/*.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { ed25519 } from '@noble/curves/ed25519.js';
import { DecryptRequest, HashRequest, KeyGenerateRequest, SignRequest } from '@crypto-service/protocol';
import { startCryptoService, type CryptoService } from '@crypto-service/testing';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { callError, callOk, connectStdio, type Connected } from './helpers.ts';

let service: CryptoService;
let mcp: Connected;

before(async () => {
  service = await startCryptoService();
  mcp = await connectStdio(['--url', service.url], { CRYPTO_API_KEY: service.apiKey ?? '' });
});
after(async () => {
  await mcp?.close();
  await service?.close();
});

/** A loopback URL where nothing listens: a port taken from the system, then released. */
async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

describe('tools/list', () => {
  test('lists the operations with the protocol schemas as input schemas', async () => {
    const { tools } = await mcp.client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const name of ['hash', 'encrypt', 'decrypt', 'sign', 'verify', 'keys_generate', 'pq_dsa_sign', 'kdf'])
      assert.ok(byName.has(name), `${name} is listed`);
    assert.deepEqual(byName.get('hash')?.inputSchema, JSON.parse(JSON.stringify(HashRequest)));
    assert.deepEqual(byName.get('decrypt')?.inputSchema, JSON.parse(JSON.stringify(DecryptRequest)));
    assert.deepEqual(byName.get('sign')?.inputSchema, JSON.parse(JSON.stringify(SignRequest)));
    assert.deepEqual(byName.get('keys_generate')?.inputSchema, JSON.parse(JSON.stringify(KeyGenerateRequest)));
    for (const tool of tools) {
      assert.match(tool.name, /^[a-z0-9_]{1,64}$/);
      assert.equal(tool.inputSchema.type, 'object');
      assert.equal(tool.annotations?.readOnlyHint, true);
    }
  });

  test('the descriptions of the tools that can return key material say that it is withheld', async () => {
    const { tools } = await mcp.client.listTools();
    const description = (name: string) => tools.find((tool) => tool.name === name)?.description ?? '';
    for (const name of [
      'keys_generate',
      'pq_kem_keygen',
      'pq_hybrid_keygen',
      'pq_dsa_keygen',
      'pq_slh_dsa_keygen',
      'kdf',
    ])
      assert.match(description(name), /withheld.*--allow-secret-output/, name);
    for (const name of ['keys_unwrap', 'pq_kem_decapsulate', 'pq_hybrid_decapsulate'])
      assert.match(description(name), /refused unless the server is started with --allow-secret-output/, name);
    assert.doesNotMatch(description('hash'), /secret|withheld/);
    assert.match(mcp.client.getInstructions() ?? '', /never include private or symmetric key material/);
  });
});

describe('tools/call', () => {
  test('hash: the digest node:crypto computes', async () => {
    for (const algorithm of ['sha256', 'sha3-256', 'sha512']) {
      const { data } = await callOk(mcp.client, 'hash', { algorithm, data: 'hello, agent' });
      assert.equal(data.digest, createHash(algorithm).update('hello, agent').digest('hex'), algorithm);
    }
  });

  test('encrypt and decrypt: XChaCha20-Poly1305 as @noble/ciphers computes it, both ways', async () => {
    const key = randomBytes(32);
    const aad = 'record 7';
    const { data: sealed } = await callOk(mcp.client, 'encrypt', { key: hex(key), plaintext: 'attack at dawn', aad });
    const blob = Buffer.from(sealed.ciphertext as string, 'base64');
    const opened = xchacha20poly1305(key, blob.subarray(0, 24), Buffer.from(aad)).decrypt(blob.subarray(24));
    assert.equal(Buffer.from(opened).toString('utf8'), 'attack at dawn');

    const nonce = randomBytes(24);
    const local = xchacha20poly1305(key, nonce, Buffer.from(aad)).encrypt(Buffer.from('sealed locally'));
    const ciphertext = Buffer.concat([nonce, local]).toString('base64');
    const { data } = await callOk(mcp.client, 'decrypt', { key: hex(key), ciphertext, aad });
    assert.equal(data, 'sealed locally');
  });

  test('sign and verify: Ed25519 as @noble/curves computes it, both ways', async () => {
    const seed = randomBytes(32);
    const publicKey = ed25519.getPublicKey(seed);
    const message = 'I agree';
    const { data } = await callOk(mcp.client, 'sign', { algorithm: 'ed25519', privateKey: hex(seed), message });
    assert.ok(ed25519.verify(Buffer.from(data.signature as string, 'hex'), Buffer.from(message), publicKey));

    const signature = hex(ed25519.sign(Buffer.from(message), seed));
    const verified = await callOk(mcp.client, 'verify', { publicKey: hex(publicKey), message, signature });
    assert.equal(verified.data.valid, true);
    const forged = await callOk(mcp.client, 'verify', { publicKey: hex(publicKey), message: 'I disagree', signature });
    assert.equal(forged.data.valid, false);
  });

  test('keys_generate returns the public key only, and the private key is never in the result', async () => {
    const result = await callOk(mcp.client, 'keys_generate', { algorithm: 'ed25519' });
    assert.deepEqual(result.withheld, ['privateKey']);
    assert.equal(result.data.privateKey, undefined);
    assert.match(result.data.publicKey as string, /^[0-9a-f]{64}$/);
    assert.equal(result.data.algorithm, 'ed25519');

    const pem = await callOk(mcp.client, 'keys_generate', { algorithm: 'ecdsa-p256', format: 'pem' });
    assert.match(pem.data.publicKey as string, /BEGIN PUBLIC KEY/);
    assert.doesNotMatch(JSON.stringify(pem), /PRIVATE KEY/);
  });

  test('the post-quantum key generations and encapsulations withhold private keys and shared secrets', async () => {
    for (const name of ['pq_kem_keygen', 'pq_hybrid_keygen', 'pq_dsa_keygen', 'pq_slh_dsa_keygen']) {
      const result = await callOk(mcp.client, name);
      assert.deepEqual(result.withheld, ['privateKey'], name);
      assert.deepEqual(Object.keys(result.data).sort(), ['algorithm', 'publicKey'], name);
    }
    const { data: pair } = await callOk(mcp.client, 'pq_hybrid_keygen');
    const encapsulated = await callOk(mcp.client, 'pq_hybrid_encapsulate', { publicKey: pair.publicKey });
    assert.deepEqual(encapsulated.withheld, ['sharedSecret']);
    assert.equal(encapsulated.data.sharedSecret, undefined);
    assert.equal((encapsulated.data.ciphertext as string).length, 1120 * 2);
  });

  test('the tools whose whole result is key material refuse without calling the service', async () => {
    const cases: [string, Record<string, unknown>][] = [
      ['keys_generate', { algorithm: 'aes-256' }],
      ['keys_generate', { algorithm: 'hmac-sha256' }],
      ['keys_unwrap', { kek: hex(randomBytes(32)), wrappedKey: randomBytes(40).toString('base64') }],
      ['pq_kem_decapsulate', { privateKey: hex(randomBytes(64)), ciphertext: hex(randomBytes(1088)) }],
      ['pq_hybrid_decapsulate', { privateKey: hex(randomBytes(32)), ciphertext: hex(randomBytes(1120)) }],
    ];
    for (const [name, args] of cases) {
      const { text, error } = await callError(mcp.client, name, args);
      assert.match(text, /--allow-secret-output/, name);
      assert.equal(error.code, 'SECRET_OUTPUT_REFUSED', name);
    }
  });

  test("a failing call is a tool error with the service's problem, without the key, and the server goes on", async () => {
    const key = hex(randomBytes(32));
    const { data: sealed } = await callOk(mcp.client, 'encrypt', { key, plaintext: 'x' });
    const wrongKey = hex(randomBytes(32));
    const failed = await callError(mcp.client, 'decrypt', { key: wrongKey, ciphertext: sealed.ciphertext });
    assert.match(failed.text, /^The service answered 400 DECRYPTION_FAILED: /);
    assert.equal(failed.error.status, 400);
    assert.equal(failed.error.code, 'DECRYPTION_FAILED');
    assert.ok(!failed.text.includes(wrongKey) && !JSON.stringify(failed.error).includes(wrongKey));

    const unsupported = await callError(mcp.client, 'hash', { algorithm: 'md5', data: 'x' });
    assert.equal(unsupported.error.code, 'UNSUPPORTED_ALGORITHM');
    const invalid = await callError(mcp.client, 'encrypt', { key: 'not hex', plaintext: 'x' });
    assert.equal(invalid.error.code, 'VALIDATION_FAILED');
    assert.match(invalid.text, /^The service answered 400 VALIDATION_FAILED: .*\/key must be hex/);
    assert.deepEqual(invalid.error.errors, [
      { field: '/key', message: 'must be hex: an even number of 0-9 a-f characters' },
    ]);
    const unknown = await callError(mcp.client, 'encrypt', { key, plaintext: 'x', extra: 'value' });
    assert.match(unknown.text, /unknown field \/extra\n\/extra: is not a known field$/);

    const { data } = await callOk(mcp.client, 'hash', { algorithm: 'sha256', data: 'still here' });
    assert.equal(data.digest, createHash('sha256').update('still here').digest('hex'));
  });

  test('every tool reaches its route: empty arguments get an answer of the route, never a 404', async () => {
    const { tools } = await mcp.client.listTools();
    assert.equal(tools.length, 36);
    for (const tool of tools) {
      const result = (await mcp.client.callTool({ name: tool.name, arguments: {} })) as CallToolResult;
      const error = (result.structuredContent as { error?: { code?: string } }).error;
      if (result.isError === true)
        assert.ok(
          ['VALIDATION_FAILED', 'INVALID_INPUT', 'SECRET_OUTPUT_REFUSED'].includes(error?.code ?? ''),
          tool.name,
        );
      else assert.ok(/keygen|keys_generate|algorithms/.test(tool.name), `${tool.name} succeeded without arguments`);
    }
  });

  test('an unknown tool is a protocol error, and the server goes on', async () => {
    await assert.rejects(mcp.client.callTool({ name: 'no_such_tool', arguments: {} }), /Unknown tool: no_such_tool/);
    await callOk(mcp.client, 'algorithms');
  });
});

describe('credentials', () => {
  test('a wrong API key is a 401 tool error that does not show the key', async () => {
    const wrong = 'not-the-key-0123456789';
    const other = await connectStdio([], { CRYPTO_SERVICE_URL: service.url, CRYPTO_API_KEY: wrong });
    try {
      const { text, error } = await callError(other.client, 'hash', { algorithm: 'sha256', data: 'x' });
      assert.equal(error.status, 401);
      assert.ok(!text.includes(wrong));
    } finally {
      await other.close();
    }
  });

  test('an unreachable service is a tool error too', async () => {
    const url = await closedPortUrl();
    const other = await connectStdio(['--url', url, '--timeout', '5000'], {});
    try {
      const { text, error } = await callError(other.client, 'hash', { algorithm: 'sha256', data: 'x' });
      assert.ok(text.startsWith(`request to ${url}/v2/hash failed`), text);
      assert.equal(error.code, 'CryptoNetworkError');
    } finally {
      await other.close();
    }
  });
});
