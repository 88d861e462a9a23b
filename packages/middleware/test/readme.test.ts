/**
 * The ```ts examples of the README run: each is written to a module beside this file (so that it
 * resolves the package as an app would), imported with its environment variables pointing at the
 * real service, and the apps they export are served on loopback and called as the README says.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { serve } from '@hono/node-server';
import { ed25519 } from '@noble/curves/ed25519.js';
import type { Express } from 'express';
import type { FastifyInstance } from 'fastify';
import type { Hono } from 'hono';
import { useCryptoService } from '@crypto-service/testing/node-test';

const service = useCryptoService();
const README = join(import.meta.dirname, '../README.md');
let directory: string;
let blocks: string[];
const servers: Array<() => Promise<void>> = [];

/** Runs README block `index` as a module and returns what it exports by default. */
async function run<T>(index: number): Promise<T> {
  const file = join(directory, `block-${index}.ts`);
  await writeFile(file, blocks[index]!);
  return ((await import(pathToFileURL(file).href)) as { default: T }).default;
}

async function listen(server: Server): Promise<string> {
  if (!server.listening) await once(server, 'listening');
  servers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function hmacHeader(payload: string): string {
  const t = Math.floor(Date.now() / 1000);
  return `t=${t},v1=${createHmac('sha256', Buffer.from(service.fixtures.hmac.key, 'hex')).update(`${t}.${payload}`).digest('hex')}`;
}

async function post(url: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
}

describe('README examples', () => {
  before(async () => {
    const markdown = await readFile(README, 'utf8');
    blocks = [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
    directory = await mkdtemp(join(import.meta.dirname, '.readme-'));
    Object.assign(process.env, {
      CRYPTO_SERVICE_URL: service.url,
      CRYPTO_SERVICE_API_KEY: service.apiKey,
      WEBHOOK_SECRET: service.fixtures.hmac.key,
      WEBHOOK_PUBLIC_KEY: service.fixtures.ed25519.publicKey,
      FIELD_KEY: service.fixtures.aead.key,
    });
  });
  after(async () => {
    await Promise.all(servers.map((close) => close()));
    await rm(directory, { recursive: true, force: true });
  });

  test('the README has the six examples this test runs', () => {
    assert.equal(blocks.length, 6);
  });

  test('the first example verifies webhooks, and the sending example is accepted by it', async () => {
    const app = await run<Express>(0);
    const url = `${await listen(app.listen(0, '127.0.0.1'))}/webhooks`;
    const ping = JSON.stringify({ type: 'test.ping' });
    const accepted = await post(url, ping, { 'crypto-service-signature': hmacHeader(ping) });
    assert.deepEqual(await accepted.json(), { received: 'test.ping' });
    assert.equal((await post(url, ping)).status, 401);
    process.env.WEBHOOK_URL = url;
    await run(1);
  });

  test('the Fastify example verifies Ed25519 through the service', async () => {
    const app = await run<FastifyInstance>(2);
    const url = `${await app.listen({ port: 0, host: '127.0.0.1' })}/webhooks`;
    servers.push(() => app.close());
    const body = JSON.stringify({ type: 'invoice.paid' });
    const t = Math.floor(Date.now() / 1000);
    const signature = ed25519.sign(
      Buffer.from(`${t}.${body}`),
      Buffer.from(service.fixtures.ed25519.privateKey, 'hex'),
    );
    const header = `t=${t},v1=${Buffer.from(signature).toString('hex')}`;
    assert.deepEqual(await (await post(url, body, { 'crypto-service-signature': header })).json(), {
      received: 'invoice.paid',
    });
    assert.equal((await post(url, body.replace('paid', 'void'), { 'crypto-service-signature': header })).status, 401);
  });

  test('the Hono example verifies HMAC', async () => {
    const app = await run<Hono>(3);
    const url = `${await listen(serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server)}/webhooks`;
    const body = JSON.stringify({ type: 'refund.created' });
    const header = hmacHeader(body);
    assert.deepEqual(await (await post(url, body, { 'crypto-service-signature': header })).json(), {
      received: 'refund.created',
    });
    assert.equal((await post(url, `${body} `, { 'crypto-service-signature': header })).status, 401);
  });

  test('the protected-fields example decrypts the card number the caller example encrypts', async () => {
    const app = await run<Express>(4);
    process.env.APP_URL = await listen(app.listen(0, '127.0.0.1'));
    await run(5);
    const number = await service.client.encrypt({
      key: service.fixtures.aead.key,
      plaintext: '"4000 0000 0000 0002"',
      aad: '/card/number',
    });
    const answer = (await (
      await post(`${process.env.APP_URL}/payments`, JSON.stringify({ card: { number: number.data.ciphertext } }))
    ).json()) as { last4: string; account: { iban: string } };
    assert.equal(answer.last4, '0002');
    const { data: iban } = await service.client.decrypt({
      key: service.fixtures.aead.key,
      ciphertext: answer.account.iban,
      aad: '/account/iban',
    });
    assert.equal(iban, '"DE89370400440532013000"');
  });
});
