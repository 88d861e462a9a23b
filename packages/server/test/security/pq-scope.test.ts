/**
 * `crypto:pq` follows the algorithm, not the path: every route that reaches a post-quantum
 * algorithm refuses a credential without it (403 naming the scope), and the same request with it
 * goes through. Classical requests on the same routes need no `crypto:pq`.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SignJWT } from 'jose';
import { postJson, testApp, TEST_API_KEY, TEST_JWT_SECRET } from '../helpers.ts';

const ROUTE_SCOPES = 'crypto:sign crypto:verify crypto:keys crypto:encrypt crypto:decrypt';

async function bearer(scope: string): Promise<Record<string, string>> {
  const secret = new TextEncoder().encode(TEST_JWT_SECRET);
  const token = await new SignJWT({ scope })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(secret);
  return { authorization: `Bearer ${token}` };
}

describe('crypto:pq on every route that reaches a post-quantum algorithm', () => {
  test('refused without it, served with it; classical work on the same routes is not affected', async (t) => {
    const app = await testApp({ JWT_SECRET: TEST_JWT_SECRET, CRYPTO_API_KEY: TEST_API_KEY, RATE_LIMIT_MAX: '100000' });
    t.after(() => app.close());
    const full = { 'x-api-key': TEST_API_KEY };
    const make = async (url: string, body: unknown) => {
      const response = await postJson(app, url, body, full);
      assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
      return response.json().data;
    };
    const dsa = await make('/v2/keys/generate', { algorithm: 'ml-dsa-44' });
    const slh = await make('/v2/keys/generate', { algorithm: 'slh-dsa-sha2-128f' });
    const xwing = await make('/v2/pq/hybrid/keygen', {});
    const x25519 = await make('/v2/keys/generate', { algorithm: 'x25519' });
    const dsaSignature = (await make('/v2/sign', { algorithm: 'ml-dsa-44', privateKey: dsa.privateKey, message: 'm' }))
      .signature;
    const sealed = (await make('/v2/sealedbox/seal-pq', { publicKey: xwing.publicKey, plaintext: 'p' })).ciphertext;
    const hybridEnvelope = await make('/v2/multi-recipient/encrypt', {
      plaintext: 'p',
      recipients: [{ type: 'x25519-ml-kem-768', publicKey: xwing.publicKey }],
    });

    const postQuantum: [string, unknown][] = [
      ['/v2/sign', { algorithm: 'ml-dsa-44', privateKey: dsa.privateKey, message: 'm' }],
      ['/v2/sign', { algorithm: 'slh-dsa-sha2-128f', privateKey: slh.privateKey, message: 'm' }],
      ['/v2/verify', { algorithm: 'ml-dsa-44', publicKey: dsa.publicKey, message: 'm', signature: dsaSignature }],
      ...['ml-kem-768', 'x25519-ml-kem-768', 'ml-dsa-65', 'slh-dsa-sha2-128f'].map((algorithm): [string, unknown] => [
        '/v2/keys/generate',
        { algorithm },
      ]),
      ['/v2/sealedbox/seal-pq', { publicKey: xwing.publicKey, plaintext: 'p' }],
      ['/v2/sealedbox/open-pq', { privateKey: xwing.privateKey, ciphertext: sealed }],
      [
        '/v2/multi-recipient/encrypt',
        {
          plaintext: 'p',
          recipients: [
            { type: 'x25519', publicKey: x25519.publicKey },
            { type: 'x25519-ml-kem-768', publicKey: xwing.publicKey },
          ],
        },
      ],
      ['/v2/multi-recipient/decrypt', { ...hybridEnvelope, privateKey: xwing.privateKey }],
    ];
    const without = await bearer(ROUTE_SCOPES);
    const withPq = await bearer(`${ROUTE_SCOPES} crypto:pq`);
    for (const [url, body] of postQuantum) {
      const label = `${url} ${JSON.stringify(body).slice(0, 60)}`;
      const refused = await postJson(app, url, body, without);
      assert.equal(refused.statusCode, 403, label);
      assert.equal(refused.json().code, 'FORBIDDEN', label);
      assert.match(refused.json().detail, /crypto:pq/, label);
      const served = await postJson(app, url, body, withPq);
      assert.equal(served.statusCode, 200, `${label}: ${served.body}`);
    }

    const classical: [string, unknown][] = [
      ['/v2/keys/generate', { algorithm: 'ed25519' }],
      ['/v2/sign', { privateKey: '11'.repeat(32), message: 'm' }],
      [
        '/v2/multi-recipient/encrypt',
        { plaintext: 'p', recipients: [{ type: 'x25519', publicKey: x25519.publicKey }] },
      ],
    ];
    for (const [url, body] of classical) {
      const served = await postJson(app, url, body, without);
      assert.equal(served.statusCode, 200, `${url}: ${served.body}`);
    }
  });
});
