// Runs in a project that installed the packed tarballs: edge, envelope, middleware and mcp, each
// from its installed build, against the running service (URL and API key in argv).
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { once } from 'node:events';
import { join } from 'node:path';
import process from 'node:process';
import { Buffer } from 'node:buffer';
import { Readable, Writable } from 'node:stream';
import { ReadableStream } from 'node:stream/web';
import { pipeline } from 'node:stream/promises';
import express from 'express';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CryptoClient } from '@crypto-service/client';
import { pqSealedBoxSeal, verify } from '@crypto-service/edge';
import { createEncryptStream, decryptTransform } from '@crypto-service/envelope';
import { signWebhook } from '@crypto-service/middleware';
import { verifyWebhook } from '@crypto-service/middleware/express';

const [baseUrl] = process.argv.slice(2);
const client = new CryptoClient({ baseUrl });
const results = {};

// edge: seal to the service's X-Wing key without a round trip; verify the service's signature.
const { data: xWing } = await client.generateKeyPair({ algorithm: 'x25519-ml-kem-768' });
const { ciphertext } = await pqSealedBoxSeal({ publicKey: xWing.publicKey, plaintext: 'from edge' });
const { data: opened } = await client.sealedboxOpenPq({ privateKey: xWing.privateKey, ciphertext });
const { data: ed } = await client.generateKeyPair();
const { data: signed } = await client.sign({ privateKey: ed.privateKey, message: 'release' });
const edgeVerified = await verify({ publicKey: ed.publicKey, message: 'release', signature: signed.signature });
results.edge = { opened, verified: edgeVerified.valid };

// envelope: encrypt with a Node stream, decrypt with a Web stream.
const { data: kekData } = await client.generateKeyPair({ algorithm: 'aes-256' });
const key = { mode: 'aes-kw', keyId: 'consumer', kek: kekData.key };
const content = randomBytes(200_000);
const sealedChunks = [];
const collect = new Writable({
  write(chunk, _encoding, done) {
    sealedChunks.push(chunk);
    done();
  },
});
await pipeline(Readable.from([content]), createEncryptStream({ client, key }), collect);
const sealedStream = new ReadableStream({
  start(controller) {
    controller.enqueue(new Uint8Array(Buffer.concat(sealedChunks)));
    controller.close();
  },
});
const plainChunks = [];
for await (const chunk of sealedStream.pipeThrough(decryptTransform({ client, keys: [key] }))) plainChunks.push(chunk);
results.envelope = { roundTrip: Buffer.concat(plainChunks).equals(content) };

// middleware: an Express app verifying signed webhooks.
const secret = randomBytes(32).toString('hex');
const app = express();
app.post('/webhooks', verifyWebhook({ algorithm: 'hmac-sha256', secret }), (req, res) => {
  res.json({ received: req.body.type });
});
const server = createServer(app).listen(0, '127.0.0.1');
await once(server, 'listening');
const hookUrl = `http://127.0.0.1:${server.address().port}/webhooks`;
const body = JSON.stringify({ type: 'invoice.paid' });
const signature = await signWebhook(body, { algorithm: 'hmac-sha256', secret });
const post = (payload, header) =>
  globalThis.fetch(hookUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'crypto-service-signature': header },
    body: payload,
  });
const accepted = await post(body, signature);
const tampered = await post(
  body.replace('paid', 'void'),
  await signWebhook(body, { algorithm: 'hmac-sha256', secret }),
);
server.close();
results.middleware = { accepted: (await accepted.json()).received, tampered: tampered.status };

// mcp: the installed command, driven by the SDK's own client over stdio.
const agent = new Client({ name: 'consumer', version: '1.0.0' });
await agent.connect(
  new StdioClientTransport({
    command: process.execPath,
    args: [join(process.cwd(), 'node_modules/@crypto-service/mcp/bin/crypto-service-mcp.js')],
    env: { PATH: process.env.PATH ?? '', CRYPTO_SERVICE_URL: baseUrl },
  }),
);
const called = await agent.callTool({ name: 'hash', arguments: { algorithm: 'sha256', data: 'abc' } });
await agent.close();
assert.notEqual(called.isError, true, JSON.stringify(called));
results.mcp = { digest: called.structuredContent.data.digest };

assert.equal(results.mcp.digest, createHash('sha256').update('abc').digest('hex'));
process.stdout.write(`${JSON.stringify(results)}\n`);
