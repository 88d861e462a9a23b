/**
 * Heavy work through the app: each request is charged in proportion to the work its parameters ask
 * (rate-limit/costs.ts) before any work starts, a client may have only MAX_HEAVY_JOBS_PER_CLIENT
 * heavy jobs in flight, and the password queue serves clients in turn. No assertion is about time.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { ARGON2_DEFAULTS, ARGON2_MAX } from '@crypto-service/core';
import { argon2Cost, multiRecipientCost, pbkdf2Cost, scryptCost } from '../src/rate-limit/costs.ts';
import type { postJson } from './helpers.ts';
import { testApp } from './helpers.ts';

type Response = Awaited<ReturnType<typeof postJson>>;
const remaining = (response: Response) => Number(/;r=(\d+);/.exec(String(response.headers.ratelimit))?.[1]);

const SALT = 'c29tZXNhbHRzb21lc2FsdA';
const TAG = 'A'.repeat(43);
/** A made-up PHC string: well formed, so verifying it does the whole work of its parameters. */
const phc = (m: number, t: number, p: number) => `$argon2id$v=19$m=${m},t=${t},p=${p}$${SALT}$${TAG}`;
const MAX_PHC = phc(ARGON2_MAX.m, ARGON2_MAX.t, 1);
const DEFAULT_PHC = phc(ARGON2_DEFAULTS.m, ARGON2_DEFAULTS.t, ARGON2_DEFAULTS.p);

function inject(app: FastifyInstance, url: string, body: unknown, remoteAddress = '127.0.0.1') {
  return app.inject({
    method: 'POST',
    url,
    payload: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
    remoteAddress,
  });
}

/** Counts the jobs the password queue is asked to run. */
function countPasswordJobs(app: FastifyInstance): { count: () => number } {
  const queue = app.workQueues.password;
  const original = queue.run.bind(queue);
  let count = 0;
  queue.run = ((...args: Parameters<typeof original>) => {
    count += 1;
    return original(...args);
  }) as typeof queue.run;
  return { count: () => count };
}

describe('prices follow the parameters', () => {
  test('Argon2id ∝ m · t: the default hash stays 10 units, the largest is priced from the PHC string before any work', async (t) => {
    const app = await testApp({ RATE_LIMIT_MAX: '100' });
    t.after(() => app.close());
    assert.equal(argon2Cost(ARGON2_DEFAULTS), 10);
    assert.ok(argon2Cost({ ...ARGON2_MAX, p: 1 }) >= 12 * argon2Cost(ARGON2_DEFAULTS));
    assert.equal(argon2Cost({ m: ARGON2_MAX.m, t: ARGON2_MAX.t, p: 1 }), argon2Cost(ARGON2_MAX), 'lanes add no work');
    const jobs = countPasswordJobs(app);
    const refused = await inject(app, '/v2/password/verify', { password: 'x', hash: MAX_PHC });
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.json().code, 'RATE_LIMITED');
    assert.equal(jobs.count(), 0, 'no Argon2id work for a request the client cannot afford');
  });

  test('the password routes charge what their parameters cost', async (t) => {
    const app = await testApp({ RATE_LIMIT_MAX: '1000' });
    t.after(() => app.close());
    let expected = 1000;
    const verify = await inject(app, '/v2/password/verify', { password: 'x', hash: DEFAULT_PHC });
    assert.equal(verify.statusCode, 200, verify.body);
    assert.equal(remaining(verify), (expected -= 10));
    const cheap = await inject(app, '/v2/password/verify', { password: 'x', hash: phc(1024, 1, 1) });
    assert.equal(cheap.statusCode, 200, cheap.body);
    assert.equal(remaining(cheap), (expected -= 1));
    const hashed = await inject(app, '/v2/password/hash', { password: 'x', timeCost: 6 });
    assert.equal(hashed.statusCode, 200, hashed.body);
    assert.equal(remaining(hashed), (expected -= argon2Cost({ ...ARGON2_DEFAULTS, t: 6 })));
    assert.equal(argon2Cost({ ...ARGON2_DEFAULTS, t: 6 }), 20);
    const encrypted = await inject(app, '/v2/password/encrypt', { password: 'x', plaintext: 'p' });
    assert.equal(remaining(encrypted), (expected -= 10));
    const decrypted = await inject(app, '/v2/password/decrypt', {
      password: 'x',
      ciphertext: encrypted.json().data.ciphertext,
    });
    assert.deepEqual(decrypted.json(), { data: 'p' });
    assert.equal(remaining(decrypted), expected - 10);
  });

  test('scrypt ∝ N · r · p and PBKDF2 ∝ iterations per output block', async (t) => {
    const app = await testApp({ RATE_LIMIT_MAX: '1000' });
    t.after(() => app.close());
    let expected = 1000;
    const scrypt = { N: 2 ** 15, r: 8, p: 3 };
    const small = await inject(app, '/v2/kdf', { algorithm: 'scrypt', password: 'pw', params: scrypt });
    assert.equal(small.statusCode, 200, small.body);
    assert.equal(remaining(small), (expected -= scryptCost(scrypt)));
    assert.equal(scryptCost({ N: 2 ** 17, r: 8, p: 3 }), 4 * scryptCost(scrypt));
    const pbkdf2 = await inject(app, '/v2/kdf', {
      algorithm: 'pbkdf2-sha256',
      password: 'pw',
      keyLength: 64,
      params: { iterations: 600_000 },
    });
    assert.equal(pbkdf2.statusCode, 200, pbkdf2.body);
    assert.equal(remaining(pbkdf2), expected - pbkdf2Cost(600_000, 64));
    assert.equal(pbkdf2Cost(600_000, 64), 2 * pbkdf2Cost(600_000, 32));
    assert.equal(pbkdf2Cost(2_000_000, 64), 20);
  });

  test('multi-recipient ∝ slots, a hybrid slot twice an X25519 one', async (t) => {
    const app = await testApp({ RATE_LIMIT_MAX: '1000' });
    t.after(() => app.close());
    const key = async (algorithm: string) =>
      (await inject(app, '/v2/keys/generate', { algorithm }, '10.0.0.1')).json().data.publicKey as string;
    const recipients = [
      ...(await Promise.all([0, 1, 2].map(() => key('x25519')))).map((publicKey) => ({ type: 'x25519', publicKey })),
      ...(await Promise.all([0, 1].map(() => key('x25519-ml-kem-768')))).map((publicKey) => ({
        type: 'x25519-ml-kem-768',
        publicKey,
      })),
    ];
    const encrypted = await inject(app, '/v2/multi-recipient/encrypt', { plaintext: 'p', recipients });
    assert.equal(encrypted.statusCode, 200, encrypted.body);
    assert.equal(multiRecipientCost(3, 2), 4);
    assert.equal(remaining(encrypted), 1000 - multiRecipientCost(3, 2));
    assert.equal(multiRecipientCost(0, 100), 100);
    assert.equal(multiRecipientCost(100, 0), 50);
  });
});

describe('MAX_HEAVY_JOBS_PER_CLIENT', () => {
  test("a client's heavy job beyond the cap is a 429 naming the setting; another client's is not", async (t) => {
    const app = await testApp({ RATE_LIMIT_MAX: '1000', MAX_HEAVY_JOBS_PER_CLIENT: '1' });
    t.after(() => app.close());
    const body = { password: 'x', hash: DEFAULT_PHC };
    const [first, second, other] = await Promise.all([
      inject(app, '/v2/password/verify', body, '192.0.2.1'),
      inject(app, '/v2/password/verify', body, '192.0.2.1'),
      inject(app, '/v2/password/verify', body, '192.0.2.2'),
    ]);
    assert.equal(first.statusCode, 200);
    assert.equal(second.statusCode, 429);
    assert.equal(second.json().code, 'RATE_LIMITED');
    assert.match(second.json().detail, /MAX_HEAVY_JOBS_PER_CLIENT/);
    assert.equal(second.headers['retry-after'], '1');
    assert.equal(other.statusCode, 200);
    // Once the first has finished, the client may start another.
    assert.equal((await inject(app, '/v2/password/verify', body, '192.0.2.1')).statusCode, 200);
    const metrics = await app.metricsRegistry.metrics();
    assert.match(metrics, /^crypto_work_queue_client_capped_total\{queue="password"\} 1$/m);
  });

  test('the post-quantum queue counts toward the same cap, and its refusals are counted', async (t) => {
    const app = await testApp({ RATE_LIMIT_MAX: '1000', MAX_HEAVY_JOBS_PER_CLIENT: '1' });
    t.after(() => app.close());
    const algorithm = 'slh-dsa-sha2-128s';
    const keys = (await inject(app, '/v2/pq/slh-dsa/keygen', { algorithm }, '192.0.2.9')).json().data;
    const body = { algorithm, privateKey: keys.privateKey, message: 'm' };
    const [first, second] = await Promise.all([
      inject(app, '/v2/pq/slh-dsa/sign', body, '192.0.2.1'),
      inject(app, '/v2/pq/slh-dsa/sign', body, '192.0.2.1'),
    ]);
    assert.deepEqual([first.statusCode, second.statusCode].sort(), [200, 429]);
    const metrics = await app.metricsRegistry.metrics();
    assert.match(metrics, /^crypto_pq_queue_client_capped_total 1$/m);
  });
});

describe('the password queue serves clients in turn', () => {
  test("a default hash runs beside another client's long jobs instead of behind them, and is never refused", async (t) => {
    const app = await testApp({ RATE_LIMIT_MAX: '10000' });
    t.after(() => app.close());
    const finished: string[] = [];
    const send = (name: string, hash: string, address: string) =>
      inject(app, '/v2/password/verify', { password: 'x', hash }, address).then((response) => {
        finished.push(name);
        return response;
      });
    // Twice the default's work, so not a small job: one at a time in the main slot.
    const long = phc(ARGON2_DEFAULTS.m, 2 * ARGON2_DEFAULTS.t, 1);
    const hog = ['a1', 'a2', 'a3'].map((name) => send(name, long, '198.51.100.1'));
    await new Promise((resolve) => setImmediate(resolve));
    const victim = send('b', DEFAULT_PHC, '198.51.100.2');
    const responses = await Promise.all([...hog, victim]);
    for (const response of responses) assert.equal(response.statusCode, 200, response.body);
    assert.ok(finished.indexOf('b') < finished.indexOf('a2'), finished.join(' '));
  });
});
