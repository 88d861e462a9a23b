import assert from 'node:assert/strict';
import { createHmac, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { ed25519 } from '@noble/curves/ed25519.js';
import { useCryptoService } from '@crypto-service/testing/node-test';
import { encryptField } from '@crypto-service/middleware';
import { startExpress, startFastify, startHono, type AppKeys, type RunningApp } from './apps.ts';

/** What the test apps' /fields route answers: the decrypted request, and account fields encrypted. */
interface FieldsAnswer {
  received: unknown;
  account: { holder: string; pin: string; balance: string };
}

const service = useCryptoService();
const FRAMEWORKS = { express: startExpress, fastify: startFastify, hono: startHono };
// Multi-byte characters, so that a body re-encoded anywhere on the way would not verify.
const event = { event: 'payment.succeeded', amount: 4200, note: 'café ☕ 𝄞' };
const body = JSON.stringify(event);
const now = (): number => Math.floor(Date.now() / 1000);

function hmacHeader(secret: string, timestamp: number, payload: string): string {
  return `t=${timestamp},v1=${createHmac('sha256', Buffer.from(secret, 'hex')).update(`${timestamp}.${payload}`).digest('hex')}`;
}

function ed25519Header(privateKey: string, timestamp: number, payload: string): string {
  const signature = ed25519.sign(Buffer.from(`${timestamp}.${payload}`), Buffer.from(privateKey, 'hex'));
  return `t=${timestamp},v1=${Buffer.from(signature).toString('hex')}`;
}

async function post(url: string, payload: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', body: payload, headers: { 'content-type': 'application/json', ...headers } });
}

async function assertProblem(response: Response, status: number, type: string): Promise<Record<string, unknown>> {
  assert.equal(response.status, status);
  assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/);
  const problem = (await response.json()) as Record<string, unknown>;
  assert.equal(problem.type, `urn:crypto-service:problem:${type}`);
  assert.equal(problem.status, status);
  assert.equal(typeof problem.title, 'string');
  assert.equal(typeof problem.detail, 'string');
  return problem;
}

/** Opens a response field's ciphertext with @noble/ciphers: nonce ‖ ciphertext ‖ tag, AAD the field's pointer. */
function nobleOpen(key: string, ciphertext: string, pointer: string): unknown {
  const bytes = Buffer.from(ciphertext, 'base64');
  const cipher = xchacha20poly1305(Buffer.from(key, 'hex'), bytes.subarray(0, 24), Buffer.from(pointer));
  return JSON.parse(Buffer.from(cipher.decrypt(bytes.subarray(24))).toString('utf8'));
}

for (const [name, start] of Object.entries(FRAMEWORKS)) {
  describe(name, () => {
    let app: RunningApp;
    let keys: AppKeys;
    before(async () => {
      keys = {
        client: service.client,
        hmacSecret: service.fixtures.hmac.key,
        ed25519PublicKey: service.fixtures.ed25519.publicKey,
        fieldKey: service.fixtures.aead.key,
      };
      app = await start(keys);
    });
    after(() => app.close());

    describe('webhooks', () => {
      for (const route of ['hmac', 'ed25519', 'hmac-service', 'ed25519-service']) {
        test(`${route}: a signed body reaches the handler parsed, with its exact bytes`, async () => {
          const header = route.startsWith('hmac')
            ? hmacHeader(keys.hmacSecret, now(), body)
            : ed25519Header(service.fixtures.ed25519.privateKey, now(), body);
          const response = await post(`${app.url}/hook/${route}`, body, { 'crypto-service-signature': header });
          assert.equal(response.status, 200);
          assert.deepEqual(await response.json(), { received: event, rawLength: Buffer.byteLength(body) });
        });

        test(`${route}: missing, tampered, expired and replayed deliveries are 401 problems`, async () => {
          const url = `${app.url}/hook/${route}`;
          const sign = (timestamp: number, payload: string) =>
            route.startsWith('hmac')
              ? hmacHeader(keys.hmacSecret, timestamp, payload)
              : ed25519Header(service.fixtures.ed25519.privateKey, timestamp, payload);
          const missing = await assertProblem(await post(url, body), 401, 'webhook-missing-header');
          assert.ok(!JSON.stringify(missing).includes(keys.hmacSecret));
          const tampered = body.replace('4200', '42000');
          await assertProblem(
            await post(url, tampered, { 'crypto-service-signature': sign(now(), body) }),
            401,
            'webhook-invalid-signature',
          );
          const old = now() - 301;
          await assertProblem(
            await post(url, body, { 'crypto-service-signature': sign(old, body) }),
            401,
            'webhook-expired',
          );
          await assertProblem(
            await post(url, body, { 'crypto-service-signature': 't=1,v1' }),
            401,
            'webhook-malformed-header',
          );
          // A delivery of its own, so that no other test's accepted delivery is the one replayed.
          const delivery = JSON.stringify({ ...event, delivery: randomUUID() });
          const header = sign(now(), delivery);
          assert.equal((await post(url, delivery, { 'crypto-service-signature': header })).status, 200);
          await assertProblem(
            await post(url, delivery, { 'crypto-service-signature': header }),
            401,
            'webhook-replayed',
          );
        });
      }

      if (name === 'express') {
        test('behind express.raw, the verifier takes the Buffer it left', async () => {
          const header = hmacHeader(keys.hmacSecret, now(), body);
          const response = await post(`${app.url}/hook/raw`, body, { 'crypto-service-signature': header });
          assert.deepEqual(await response.json(), { received: event, rawLength: Buffer.byteLength(body) });
          await assertProblem(await post(`${app.url}/hook/raw`, body), 401, 'webhook-missing-header');
        });
      }

      if (name !== 'hono') {
        test('a signed body that is not JSON although declared so is a 400 problem', async () => {
          const broken = '{"event":';
          const header = hmacHeader(keys.hmacSecret, now(), broken);
          await assertProblem(
            await post(`${app.url}/hook/hmac`, broken, { 'crypto-service-signature': header }),
            400,
            'malformed-json',
          );
        });
      }
    });

    describe('protected fields', () => {
      test('request fields reach the handler decrypted; response fields leave encrypted under their pointer', async () => {
        const card = {
          number: await encryptField(keys.client, keys.fieldKey, 'card.number', '4242 4242 4242 4242'),
          holder: await encryptField(keys.client, keys.fieldKey, 'card.holder', 'Ada Lovelace'),
          expiry: '12/30',
        };
        const first = (await (await post(`${app.url}/fields`, JSON.stringify({ amount: 1 }))).json()) as FieldsAnswer;
        assert.equal(nobleOpen(keys.fieldKey, first.account.pin, '/account/pin'), '0042');
        const response = await post(`${app.url}/fields`, JSON.stringify({ card, amount: 10 }));
        assert.equal(response.status, 200);
        const answer = (await response.json()) as FieldsAnswer;
        assert.deepEqual(answer.received, {
          card: { number: '4242 4242 4242 4242', holder: 'Ada Lovelace', expiry: '12/30' },
          amount: 10,
        });
        assert.equal(answer.account.holder, 'Ada Lovelace');
        assert.equal(typeof answer.account.pin, 'string');
        assert.equal(nobleOpen(keys.fieldKey, answer.account.pin, '/account/pin'), '0042');
        assert.equal(nobleOpen(keys.fieldKey, answer.account.balance, '/account/balance'), 1234.5);
        assert.throws(() => nobleOpen(keys.fieldKey, answer.account.pin, '/account/balance'));
        const { data } = await keys.client.decrypt({
          key: keys.fieldKey,
          ciphertext: answer.account.balance,
          aad: '/account/balance',
        });
        assert.equal(data, '1234.5');
      });

      test('a ciphertext moved to another field is a 400 problem naming the field, never the value', async () => {
        const number = await encryptField(keys.client, keys.fieldKey, 'card.number', '4242 4242 4242 4242');
        const response = await post(`${app.url}/fields`, JSON.stringify({ card: { number, holder: number } }));
        const problem = await assertProblem(response, 400, 'field-decryption-failed');
        assert.equal(problem.field, '/card/holder');
        assert.match(String(problem.detail), /\/card\/holder/);
        assert.ok(!JSON.stringify(problem).includes(number) && !JSON.stringify(problem).includes('4242'));
      });

      test('a field that is not a ciphertext, or one under another key, is refused the same way', async () => {
        const notCiphertext = await post(`${app.url}/fields`, JSON.stringify({ card: { number: 4242 } }));
        assert.equal((await assertProblem(notCiphertext, 400, 'field-decryption-failed')).field, '/card/number');
        const otherKey = await encryptField(keys.client, 'ab'.repeat(32), 'card.number', '4242');
        const wrongKey = await post(`${app.url}/fields`, JSON.stringify({ card: { number: otherKey } }));
        assert.equal((await assertProblem(wrongKey, 400, 'field-decryption-failed')).field, '/card/number');
      });

      test('absent fields are left alone', async () => {
        const response = await post(`${app.url}/fields`, JSON.stringify({ amount: 10 }));
        assert.equal(response.status, 200);
        assert.deepEqual(((await response.json()) as FieldsAnswer).received, { amount: 10 });
      });
    });
  });
}
