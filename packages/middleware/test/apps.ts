/**
 * The same routes on real Express, Fastify and Hono apps listening on loopback: four webhook
 * routes (HMAC and Ed25519, verified locally and through the service) and one route with
 * protected fields. Each handler echoes what it received, so a test sees what the middleware did.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import type { CryptoClient } from '@crypto-service/client';
import type { FieldProtectionOptions, WebhookVerifierOptions } from '@crypto-service/middleware';
import * as forExpress from '@crypto-service/middleware/express';
import * as forFastify from '@crypto-service/middleware/fastify';
import * as forHono from '@crypto-service/middleware/hono';

export interface AppKeys {
  client: CryptoClient;
  hmacSecret: string;
  ed25519PublicKey: string;
  fieldKey: string;
}

export interface RunningApp {
  url: string;
  close(): Promise<void>;
}

export const WEBHOOK_ROUTES = ['hmac', 'ed25519', 'hmac-service', 'ed25519-service'] as const;
export type WebhookRoute = (typeof WEBHOOK_ROUTES)[number];

export const REQUEST_FIELDS = ['card.number', 'card.holder'];
export const RESPONSE_FIELDS = ['account.pin', 'account.balance'];

function webhookOptions(keys: AppKeys, route: WebhookRoute): WebhookVerifierOptions {
  const client = route.endsWith('-service') ? keys.client : undefined;
  return route.startsWith('hmac')
    ? { algorithm: 'hmac-sha256', secret: keys.hmacSecret, client }
    : { algorithm: 'ed25519', publicKey: keys.ed25519PublicKey, client };
}

function fieldOptions(keys: AppKeys): FieldProtectionOptions {
  return { client: keys.client, key: keys.fieldKey, request: REQUEST_FIELDS, response: RESPONSE_FIELDS };
}

/** What the protected-fields route answers: the body it saw, and an account whose pin and balance leave encrypted. */
export function fieldsAnswer(received: unknown): unknown {
  return { received, account: ACCOUNT };
}

// One object answered by every request: the middleware must encrypt a copy, never the object itself.
const ACCOUNT = { pin: '0042', balance: 1234.5, holder: 'Ada Lovelace' };

export async function startExpress(keys: AppKeys): Promise<RunningApp> {
  const app = express();
  for (const route of WEBHOOK_ROUTES) {
    app.post(`/hook/${route}`, forExpress.verifyWebhook(webhookOptions(keys, route)), (request, response) => {
      response.json({ received: request.body, rawLength: forExpress.rawBody(request)?.length });
    });
  }
  // express.raw before the verifier: the verifier takes the Buffer it left.
  app.post(
    '/hook/raw',
    express.raw({ type: '*/*' }),
    forExpress.verifyWebhook(webhookOptions(keys, 'hmac')),
    (request, response) => {
      response.json({ received: request.body, rawLength: forExpress.rawBody(request)?.length });
    },
  );
  app.post('/fields', express.json(), forExpress.protectFields(fieldOptions(keys)), (request, response) => {
    response.json(fieldsAnswer(request.body));
  });
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export async function startFastify(keys: AppKeys): Promise<RunningApp> {
  const app = Fastify();
  for (const route of WEBHOOK_ROUTES) {
    await app.register(async (scope) => {
      await scope.register(forFastify.webhookVerification(webhookOptions(keys, route)));
      scope.post(`/hook/${route}`, async (request) => ({
        received: request.body,
        rawLength: forFastify.rawBody(request)?.length,
      }));
    });
  }
  await app.register(async (scope) => {
    await scope.register(forFastify.fieldProtection(fieldOptions(keys)));
    scope.post('/fields', async (request) => fieldsAnswer(request.body));
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { url, close: () => app.close() };
}

export async function startHono(keys: AppKeys): Promise<RunningApp> {
  const app = new Hono();
  for (const route of WEBHOOK_ROUTES) {
    app.post(`/hook/${route}`, forHono.webhookVerification(webhookOptions(keys, route)), async (c) =>
      c.json({ received: await c.req.json(), rawLength: (await c.req.arrayBuffer()).byteLength }),
    );
  }
  app.post('/fields', forHono.fieldProtection(fieldOptions(keys)), (c) =>
    c.json(fieldsAnswer(c.req.valid('json')) as Record<string, unknown>),
  );
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
