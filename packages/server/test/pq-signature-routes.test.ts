/**
 * ML-DSA and SLH-DSA on the generic routes, `/v2/sign` and `/v2/verify`, and every post-quantum key
 * type on `/v2/keys/generate`: success shapes, keys from one route working on the others (raw, PEM,
 * and PEM that Node 24's OpenSSL wrote), @noble/post-quantum verifying the signatures, the work
 * going through the post-quantum offload, the rate-limit units (the same totals as `/v2/pq/*`), and
 * a table of wrong inputs that are all 4xx problems naming the field. SLH-DSA signing keeps to
 * SHA2 'f' sets, the fast ones in pure JavaScript; registry-routes.test.ts reaches every set.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { SignJWT } from 'jose';
import { ml_dsa44, ml_dsa65, ml_dsa87 } from '@noble/post-quantum/ml-dsa.js';
import { slh_dsa_sha2_128f, slh_dsa_sha2_256f } from '@noble/post-quantum/slh-dsa.js';
import { ml_kem512, ml_kem768, ml_kem1024 } from '@noble/post-quantum/ml-kem.js';
import { ml_kem768_x25519 } from '@noble/post-quantum/hybrid.js';
import { withXWingParts } from './xwing-parts.ts';
import { postJson, testApp, TEST_JWT_SECRET } from './helpers.ts';
import { keyGenerationCost, PQ_RATE_LIMIT_COSTS, signingCost } from '../src/rate-limit/costs.ts';
import type { PqOffload } from '../src/pq-offload.ts';
import { onNode24 } from '../../core/test/node24.ts';

type Response = Awaited<ReturnType<typeof postJson>>;

const fromHex = (text: string) => new Uint8Array(Buffer.from(text, 'hex'));
const utf8 = (text: string) => new TextEncoder().encode(text);
const HEX = /^(?:[0-9a-f]{2})*$/;

/** The signature schemes exercised end to end, with an independent verifier and their lengths. */
const SIGNING = {
  'ml-dsa-44': { verify: ml_dsa44.verify, privateKey: 32, publicKey: 1312, signature: 2420 },
  'ml-dsa-65': { verify: ml_dsa65.verify, privateKey: 32, publicKey: 1952, signature: 3309 },
  'ml-dsa-87': { verify: ml_dsa87.verify, privateKey: 32, publicKey: 2592, signature: 4627 },
  'slh-dsa-sha2-128f': { verify: slh_dsa_sha2_128f.verify, privateKey: 64, publicKey: 32, signature: 17088 },
  'slh-dsa-sha2-256f': { verify: slh_dsa_sha2_256f.verify, privateKey: 128, publicKey: 64, signature: 49856 },
} as const;
type Signing = keyof typeof SIGNING;
const SIGNING_IDS = Object.keys(SIGNING) as Signing[];

function ok(response: Response): Record<string, any> {
  assert.equal(response.statusCode, 200, response.body);
  return response.json().data;
}

function flipHexBit(hex: string, byte: number): string {
  const bytes = fromHex(hex);
  bytes[byte]! ^= 0x01;
  return Buffer.from(bytes).toString('hex');
}

const remaining = (response: Response) => Number(/;r=(\d+);/.exec(String(response.headers.ratelimit))?.[1]);

/** Records the name of every job handed to the offload (every path goes through runWhile). */
function recordJobs(offload: PqOffload): { jobs: string[]; restore: () => void } {
  const jobs: string[] = [];
  const original = offload.runWhile.bind(offload);
  offload.runWhile = ((stillWanted: () => boolean, name: string, ...args: unknown[]) => {
    jobs.push(name);
    return (original as (wanted: () => boolean, name: string, ...rest: unknown[]) => Promise<unknown>)(
      stillWanted,
      name,
      ...args,
    );
  }) as typeof offload.runWhile;
  return {
    jobs,
    restore: () => {
      offload.runWhile = original;
    },
  };
}
describe('ML-DSA and SLH-DSA through /v2/sign and /v2/verify', () => {
  let app: FastifyInstance;
  const post = (url: string, body: unknown) => postJson(app, url, body);
  const keys: Partial<Record<Signing, { privateKey: string; publicKey: string }>> = {};
  before(async () => {
    app = await testApp({ RATE_LIMIT_MAX: '10000000' });
    for (const algorithm of SIGNING_IDS)
      keys[algorithm] = ok(await post('/v2/keys/generate', { algorithm })) as { privateKey: string; publicKey: string };
  });
  after(() => app.close());

  for (const algorithm of SIGNING_IDS) {
    test(`${algorithm}: a key from /v2/keys/generate signs; the signature verifies here and in @noble/post-quantum, with its context only`, async () => {
      const spec = SIGNING[algorithm];
      const { privateKey, publicKey } = keys[algorithm]!;
      assert.equal(privateKey.length, 2 * spec.privateKey);
      assert.equal(publicKey.length, 2 * spec.publicKey);
      const message = 'a message ✓';
      const signed = ok(await post('/v2/sign', { algorithm, privateKey, message, context: 'ctx ✓' }));
      assert.deepEqual(Object.keys(signed).sort(), ['algorithm', 'signature']);
      assert.equal(signed.algorithm, algorithm);
      assert.match(signed.signature, HEX);
      assert.equal(signed.signature.length, 2 * spec.signature);
      assert.equal(
        spec.verify(fromHex(signed.signature), utf8(message), fromHex(publicKey), { context: utf8('ctx ✓') }),
        true,
      );
      const verify = (extra: Record<string, unknown>) =>
        post('/v2/verify', { algorithm, publicKey, message, signature: signed.signature, context: 'ctx ✓', ...extra });
      assert.deepEqual((await verify({})).json(), { data: { valid: true, algorithm } });
      assert.deepEqual((await verify({ signature: signed.signature.toUpperCase() })).json(), {
        data: { valid: true, algorithm },
      });
      for (const extra of [
        { context: undefined },
        { context: 'ctx' },
        { message: 'another message' },
        { signature: flipHexBit(signed.signature, 0) },
        { signature: flipHexBit(signed.signature, spec.signature - 1) },
      ]) {
        assert.deepEqual(
          (await verify(extra)).json(),
          { data: { valid: false, algorithm } },
          JSON.stringify(extra).slice(0, 80),
        );
      }
    });
  }

  test('message encodings: base64 and hex messages are the same bytes', async () => {
    const { privateKey, publicKey } = keys['ml-dsa-44']!;
    const bytes = Buffer.from([0xff, 0x00, 0x80, 0x41]);
    const signed = ok(
      await post('/v2/sign', {
        algorithm: 'ml-dsa-44',
        privateKey,
        message: bytes.toString('base64'),
        encoding: 'base64',
      }),
    );
    assert.equal(ml_dsa44.verify(fromHex(signed.signature), new Uint8Array(bytes), fromHex(publicKey)), true);
    assert.equal(
      ok(
        await post('/v2/verify', {
          algorithm: 'ml-dsa-44',
          publicKey,
          message: bytes.toString('hex'),
          encoding: 'hex',
          signature: signed.signature,
        }),
      ).valid,
      true,
    );
  });

  test('PEM keys from /v2/keys/generate (PKCS#8 seed form / SPKI) sign and verify, beside their raw form', async () => {
    for (const algorithm of ['ml-dsa-44', 'ml-dsa-65', 'ml-dsa-87', 'slh-dsa-sha2-128f'] as const) {
      const pem = ok(await post('/v2/keys/generate', { algorithm, format: 'pem' }));
      assert.match(pem.privateKey, /^-----BEGIN PRIVATE KEY-----\n/);
      const signed = ok(await post('/v2/sign', { algorithm, privateKey: pem.privateKey, message: 'pem' }));
      assert.equal(
        ok(
          await post('/v2/verify', {
            algorithm,
            publicKey: pem.publicKey,
            message: 'pem',
            signature: signed.signature,
          }),
        ).valid,
        true,
        algorithm,
      );
    }
  });

  test("keys that Node 24's OpenSSL wrote (its default PKCS#8 `both` form, SPKI) sign here, and OpenSSL verifies the signature", async () => {
    const made = onNode24<{ id: string; pkcs8: string; spki: string }[]>(
      `
      return input.map((id) => {
        const { publicKey, privateKey } = crypto.generateKeyPairSync(id);
        return { id, pkcs8: privateKey.export({ type: 'pkcs8', format: 'pem' }), spki: publicKey.export({ type: 'spki', format: 'pem' }) };
      });
    `,
      ['ml-dsa-44', 'ml-dsa-87', 'slh-dsa-sha2-128f'],
    );
    const signatures = [];
    for (const key of made) {
      const signed = ok(
        await post('/v2/sign', { algorithm: key.id, privateKey: key.pkcs8, message: 'from OpenSSL', context: 'c' }),
      );
      assert.equal(
        ok(
          await post('/v2/verify', {
            algorithm: key.id,
            publicKey: key.spki,
            message: 'from OpenSSL',
            signature: signed.signature,
            context: 'c',
          }),
        ).valid,
        true,
        key.id,
      );
      signatures.push({ spki: key.spki, signature: signed.signature });
    }
    const verified = onNode24<boolean[]>(
      `
      return input.map(({ spki, signature }) => crypto.verify(null, Buffer.from('from OpenSSL'), { key: crypto.createPublicKey(spki), context: Buffer.from('c') }, Buffer.from(signature, 'hex')));
    `,
      signatures,
    );
    assert.deepEqual(verified, [true, true, true]);
  });

  test('the expanded ML-DSA key of the parameter set signs; the sets are not mixed', async () => {
    const { secretKey, publicKey } = ml_dsa87.keygen(new Uint8Array(32).fill(3));
    const signed = ok(
      await post('/v2/sign', {
        algorithm: 'ml-dsa-87',
        privateKey: Buffer.from(secretKey).toString('hex'),
        message: 'm',
      }),
    );
    assert.equal(ml_dsa87.verify(fromHex(signed.signature), utf8('m'), publicKey), true);
    const refused = await post('/v2/sign', {
      algorithm: 'ml-dsa-65',
      privateKey: Buffer.from(secretKey).toString('hex'),
      message: 'm',
    });
    assert.equal(refused.statusCode, 400);
    assert.equal(refused.json().errors[0].field, '/privateKey');
  });

  test('the work runs through the post-quantum offload: signing, verifying, PEM reading and key generation', async () => {
    const { jobs, restore } = recordJobs(app.pqOffload);
    try {
      const { privateKey, publicKey } = keys['ml-dsa-65']!;
      const signature = ok(await post('/v2/sign', { algorithm: 'ml-dsa-65', privateKey, message: 'm' })).signature;
      ok(await post('/v2/verify', { algorithm: 'ml-dsa-65', publicKey, message: 'm', signature }));
      const slh = keys['slh-dsa-sha2-128f']!;
      const slhSignature = ok(
        await post('/v2/sign', { algorithm: 'slh-dsa-sha2-128f', privateKey: slh.privateKey, message: 'm' }),
      ).signature;
      ok(
        await post('/v2/verify', {
          algorithm: 'slh-dsa-sha2-128f',
          publicKey: slh.publicKey,
          message: 'm',
          signature: slhSignature,
        }),
      );
      const pem = ok(await post('/v2/keys/generate', { algorithm: 'ml-dsa-44', format: 'pem' }));
      ok(await post('/v2/sign', { algorithm: 'ml-dsa-44', privateKey: pem.privateKey, message: 'm' }));
      for (const algorithm of ['ml-kem-512', 'x25519-ml-kem-768', 'slh-dsa-sha2-128f'])
        ok(await post('/v2/keys/generate', { algorithm }));
      // Classical work does not touch it.
      ok(await post('/v2/sign', { privateKey: ok(await post('/v2/keys/generate', {})).privateKey, message: 'm' }));
      assert.deepEqual(jobs, [
        'ml-dsa.sign',
        'ml-dsa.verify',
        'slh-dsa.sign',
        'slh-dsa.verify',
        'ml-dsa.keygen',
        'pq.private-key-from-pem',
        'ml-dsa.sign',
        'ml-kem.keygen',
        'x-wing.keygen',
        'slh-dsa.keygen',
      ]);
    } finally {
      restore();
    }
  });
});

describe('post-quantum key generation through /v2/keys/generate', () => {
  let app: FastifyInstance;
  const post = (url: string, body: unknown) => postJson(app, url, body);
  before(async () => {
    app = await testApp({ RATE_LIMIT_MAX: '10000000' });
  });
  after(() => app.close());

  const RAW: Record<string, [number, number]> = {
    'ml-kem-512': [64, 800],
    'ml-kem-768': [64, 1184],
    'ml-kem-1024': [64, 1568],
    'x25519-ml-kem-768': [32, 1216],
    'ml-dsa-44': [32, 1312],
    'ml-dsa-65': [32, 1952],
    'ml-dsa-87': [32, 2592],
    'slh-dsa-sha2-128f': [64, 32],
    'slh-dsa-sha2-192f': [96, 48],
    'slh-dsa-sha2-256f': [128, 64],
    'slh-dsa-shake-128f': [64, 32],
    'slh-dsa-shake-192f': [96, 48],
    'slh-dsa-shake-256f': [128, 64],
  };
  const JWK_ALG: Record<string, string> = {
    'ml-kem-512': 'ML-KEM-512',
    'ml-kem-768': 'ML-KEM-768',
    'ml-kem-1024': 'ML-KEM-1024',
    'ml-dsa-44': 'ML-DSA-44',
    'ml-dsa-65': 'ML-DSA-65',
    'ml-dsa-87': 'ML-DSA-87',
    'slh-dsa-sha2-128f': 'SLH-DSA-SHA2-128f',
    'slh-dsa-sha2-192f': 'SLH-DSA-SHA2-192f',
    'slh-dsa-sha2-256f': 'SLH-DSA-SHA2-256f',
    'slh-dsa-shake-128f': 'SLH-DSA-SHAKE-128f',
    'slh-dsa-shake-192f': 'SLH-DSA-SHAKE-192f',
    'slh-dsa-shake-256f': 'SLH-DSA-SHAKE-256f',
  };

  for (const [algorithm, [privateLength, publicLength]] of Object.entries(RAW)) {
    test(`${algorithm}: raw hex of the /v2/pq encodings, PEM blocks, and ${algorithm === 'x25519-ml-kem-768' ? 'no JWK (400 naming /format)' : 'an AKP JWK'}`, async () => {
      const raw = ok(await post('/v2/keys/generate', { algorithm }));
      const xwing = algorithm === 'x25519-ml-kem-768';
      // Exactly the names the consuming routes take: no X-Wing parts beside the pair.
      assert.deepEqual(Object.keys(raw).sort(), ['algorithm', 'format', 'privateKey', 'publicKey']);
      assert.equal(raw.algorithm, algorithm);
      assert.equal(raw.format, 'raw');
      for (const field of ['privateKey', 'publicKey']) assert.match(raw[field], HEX);
      assert.equal(raw.privateKey.length, 2 * privateLength);
      assert.equal(raw.publicKey.length, 2 * publicLength);
      const pem = ok(await post('/v2/keys/generate', { algorithm, format: 'pem' }));
      assert.match(pem.privateKey, /^-----BEGIN PRIVATE KEY-----\n[A-Za-z0-9+/=\n]+-----END PRIVATE KEY-----\n$/);
      assert.match(pem.publicKey, /^-----BEGIN PUBLIC KEY-----\n[A-Za-z0-9+/=\n]+-----END PUBLIC KEY-----\n$/);
      assert.deepEqual(Object.keys(pem).sort(), ['algorithm', 'format', 'privateKey', 'publicKey']);
      const jwk = await post('/v2/keys/generate', { algorithm, format: 'jwk' });
      if (xwing) {
        assert.equal(jwk.statusCode, 400);
        assert.equal(jwk.json().code, 'INVALID_INPUT');
        assert.equal(jwk.json().errors[0].field, '/format');
        assert.match(jwk.json().detail, /no published JWK form/);
        return;
      }
      const data = ok(jwk);
      assert.deepEqual(data.publicKey, { kty: 'AKP', alg: JWK_ALG[algorithm], pub: data.publicKey.pub });
      assert.deepEqual(data.privateKey, {
        kty: 'AKP',
        alg: JWK_ALG[algorithm],
        pub: data.publicKey.pub,
        priv: data.privateKey.priv,
      });
      assert.equal(Buffer.from(data.privateKey.priv, 'base64url').byteLength, privateLength);
      assert.equal(Buffer.from(data.publicKey.pub, 'base64url').byteLength, publicLength);
    });
  }

  test('ML-KEM keys work on /v2/pq/encapsulate and /decapsulate, and @noble/post-quantum derives the same public key from the seed', async () => {
    for (const [algorithm, noble] of [
      ['ml-kem-512', ml_kem512],
      ['ml-kem-768', ml_kem768],
      ['ml-kem-1024', ml_kem1024],
    ] as const) {
      const pair = ok(await post('/v2/keys/generate', { algorithm }));
      assert.equal(Buffer.from(noble.keygen(fromHex(pair.privateKey)).publicKey).toString('hex'), pair.publicKey);
      const sent = ok(await post('/v2/pq/encapsulate', { publicKey: pair.publicKey }));
      assert.equal(sent.algorithm, algorithm);
      assert.equal(
        ok(await post('/v2/pq/decapsulate', { ...sent, privateKey: pair.privateKey })).sharedSecret,
        sent.sharedSecret,
      );
    }
  });

  test('an X-Wing pair: @noble/post-quantum derives the public key from the seed; the parts work on /v2/pq/hybrid/* and /v2/sealedbox/*-pq', async () => {
    const pair = withXWingParts(
      ok(await post('/v2/keys/generate', { algorithm: 'x25519-ml-kem-768' })) as {
        publicKey: string;
        privateKey: string;
      },
    );
    assert.equal(
      Buffer.from(ml_kem768_x25519.keygen(fromHex(pair.privateKey)).publicKey).toString('hex'),
      pair.publicKey,
    );
    assert.equal(pair.publicKey, `${pair.mlKemPublicKey}${pair.x25519PublicKey}`);
    const sent = ok(
      await post('/v2/pq/hybrid/encapsulate', {
        x25519PublicKey: pair.x25519PublicKey,
        mlKemPublicKey: pair.mlKemPublicKey,
      }),
    );
    assert.equal(
      ok(await post('/v2/pq/hybrid/decapsulate', { ...sent, privateKey: pair.privateKey })).sharedSecret,
      sent.sharedSecret,
    );
    const sealed = ok(await post('/v2/sealedbox/seal-pq', { publicKey: pair.publicKey, plaintext: 'hi' }));
    const opened = await post('/v2/sealedbox/open-pq', {
      ...sealed,
      x25519PrivateKey: pair.x25519PrivateKey,
      mlKemPrivateKey: pair.mlKemPrivateKey,
    });
    assert.deepEqual(opened.json(), { data: 'hi' });
  });
});

describe('rate-limit units: the same totals as the /v2/pq routes', () => {
  test('SLH-DSA by parameter set, ML-DSA signing 2, verification 1; ML-DSA keygen 2, ML-KEM / X-Wing keygen 1', async (t) => {
    const app = await testApp({ RATE_LIMIT_MAX: '1000' });
    t.after(() => app.close());
    const slh = await postJson(app, '/v2/keys/generate', { algorithm: 'slh-dsa-sha2-128f' });
    let expected = 1000 - keyGenerationCost('slh-dsa-sha2-128f');
    assert.equal(remaining(slh), expected);
    const dsa = await postJson(app, '/v2/keys/generate', { algorithm: 'ml-dsa-44' });
    assert.equal(remaining(dsa), (expected -= PQ_RATE_LIMIT_COSTS.mlDsaKeygen));
    for (const algorithm of ['ml-kem-768', 'x25519-ml-kem-768', 'ed25519']) {
      assert.equal(remaining(await postJson(app, '/v2/keys/generate', { algorithm })), (expected -= 1), algorithm);
    }
    const slhSigned = await postJson(app, '/v2/sign', {
      algorithm: 'slh-dsa-sha2-128f',
      privateKey: slh.json().data.privateKey,
      message: 'm',
    });
    assert.equal(remaining(slhSigned), (expected -= signingCost('slh-dsa-sha2-128f')));
    const dsaSigned = await postJson(app, '/v2/sign', {
      algorithm: 'ml-dsa-44',
      privateKey: dsa.json().data.privateKey,
      message: 'm',
    });
    assert.equal(remaining(dsaSigned), (expected -= PQ_RATE_LIMIT_COSTS.mlDsaSign));
    const verified = await postJson(app, '/v2/verify', {
      algorithm: 'slh-dsa-sha2-128f',
      publicKey: slh.json().data.publicKey,
      message: 'm',
      signature: slhSigned.json().data.signature,
    });
    assert.equal(verified.json().data.valid, true);
    assert.equal(remaining(verified), (expected -= 1));
    // As on /v2/pq/slh-dsa/sign, whose cost is charged before the body is read, a refused request costs the same.
    const refused = await postJson(app, '/v2/sign', { algorithm: 'slh-dsa-sha2-128f', privateKey: '00', message: 'm' });
    assert.equal(refused.statusCode, 400);
    assert.equal(remaining(refused), (expected -= signingCost('slh-dsa-sha2-128f')));
    const ed = await postJson(app, '/v2/sign', { privateKey: '11'.repeat(32), message: 'm' });
    assert.equal(remaining(ed), expected - 1);
  });

  test('a signature the client cannot afford is a 429 with Retry-After, and no signing work starts', async (t) => {
    // Room for one signature and not two.
    const app = await testApp({ RATE_LIMIT_MAX: String(2 * signingCost('slh-dsa-sha2-128f') - 1) });
    t.after(() => app.close());
    const { jobs } = recordJobs(app.pqOffload);
    const body = { algorithm: 'slh-dsa-sha2-128f', privateKey: '00'.repeat(64), message: 'm' };
    assert.equal((await postJson(app, '/v2/sign', body)).statusCode, 200);
    const limited = await postJson(app, '/v2/sign', body);
    assert.equal(limited.statusCode, 429);
    assert.equal(limited.json().code, 'RATE_LIMITED');
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    assert.deepEqual(jobs, ['slh-dsa.sign']);
  });
});

describe('wrong inputs for the post-quantum ids are 4xx problems naming the field, never 5xx', () => {
  let app: FastifyInstance;
  before(async () => {
    app = await testApp({ RATE_LIMIT_MAX: '10000000' });
  });
  after(() => app.close());

  test('the table', async () => {
    const post = (url: string, body: unknown) => postJson(app, url, body);
    const dsa = ok(await post('/v2/keys/generate', { algorithm: 'ml-dsa-65' }));
    const dsaPem = ok(await post('/v2/keys/generate', { algorithm: 'ml-dsa-65', format: 'pem' }));
    const dsa44Pem = ok(await post('/v2/keys/generate', { algorithm: 'ml-dsa-44', format: 'pem' }));
    const slh = ok(await post('/v2/keys/generate', { algorithm: 'slh-dsa-sha2-128f' }));
    const signature = ok(
      await post('/v2/sign', { algorithm: 'ml-dsa-65', privateKey: dsa.privateKey, message: 'm' }),
    ).signature;
    const edPem = String(generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }));
    type Case = { name: string; url: string; body: unknown; code?: string; field?: string };
    const sign = (name: string, extra: Record<string, unknown>, field: string, code = 'INVALID_INPUT'): Case => ({
      name,
      url: '/v2/sign',
      body: { algorithm: 'ml-dsa-65', privateKey: dsa.privateKey, message: 'm', ...extra },
      code,
      field,
    });
    const verify = (name: string, extra: Record<string, unknown>, field: string, code = 'INVALID_INPUT'): Case => ({
      name,
      url: '/v2/verify',
      body: { algorithm: 'ml-dsa-65', publicKey: dsa.publicKey, message: 'm', signature, ...extra },
      code,
      field,
    });
    const cases: Case[] = [
      sign('a 256-byte context', { context: 'x'.repeat(256) }, '/context', 'VALIDATION_FAILED'),
      sign('a context of 200 two-byte characters', { context: 'é'.repeat(200) }, '/context'),
      verify('a context of 200 two-byte characters', { context: 'é'.repeat(200) }, '/context'),
      sign('an ML-DSA-44 PEM for ml-dsa-65', { privateKey: dsa44Pem.privateKey }, '/privateKey'),
      sign('an Ed25519 PEM for ml-dsa-65', { privateKey: edPem }, '/privateKey'),
      sign('an ML-DSA PEM for ed25519', { algorithm: 'ed25519', privateKey: dsaPem.privateKey }, '/privateKey'),
      sign('a PUBLIC KEY PEM as privateKey', { privateKey: dsaPem.publicKey }, '/privateKey'),
      sign(
        'a broken PEM',
        { privateKey: '-----BEGIN PRIVATE KEY-----\nMDQCAQA=\n-----END PRIVATE KEY-----\n' },
        '/privateKey',
      ),
      verify('an ML-DSA-44 SPKI for ml-dsa-65', { publicKey: dsa44Pem.publicKey }, '/publicKey'),
      verify('a PRIVATE KEY PEM as publicKey', { publicKey: dsaPem.privateKey }, '/publicKey'),
      sign('the SLH-DSA key for ml-dsa-65', { privateKey: slh.privateKey }, '/privateKey'),
      sign('the ML-DSA seed for slh-dsa-sha2-128f', { algorithm: 'slh-dsa-sha2-128f' }, '/privateKey'),
      sign('an unknown parameter set', { algorithm: 'ml-dsa-66' }, '/algorithm', 'UNSUPPORTED_ALGORITHM'),
      sign(
        'an SLH-DSA set without its variant letter',
        { algorithm: 'slh-dsa-sha2-128' },
        '/algorithm',
        'UNSUPPORTED_ALGORITHM',
      ),
      sign('the /v2/pq level field', { level: 65 }, '/level', 'VALIDATION_FAILED'),
      verify('the /v2/pq variant field', { variant: 'sha2-128f' }, '/variant', 'VALIDATION_FAILED'),
      sign('privateKey not hex', { privateKey: 'zz'.repeat(32) }, '/privateKey'),
      verify('signature not hex', { signature: 'x' }, '/signature', 'VALIDATION_FAILED'),
      verify('the SLH-DSA public key for ml-dsa-65', { publicKey: slh.publicKey }, '/publicKey'),
      {
        name: 'keygen ML-KEM at an unknown level',
        url: '/v2/keys/generate',
        body: { algorithm: 'ml-kem-2048' },
        code: 'UNSUPPORTED_ALGORITHM',
        field: '/algorithm',
      },
      {
        name: 'keygen X-Wing as JWK',
        url: '/v2/keys/generate',
        body: { algorithm: 'x25519-ml-kem-768', format: 'jwk' },
        code: 'INVALID_INPUT',
        field: '/format',
      },
      {
        name: 'keygen with a level',
        url: '/v2/keys/generate',
        body: { algorithm: 'ml-dsa-65', level: 65 },
        code: 'VALIDATION_FAILED',
        field: '/level',
      },
    ];
    // Every wrong length of key and signature, for every parameter set (the 's' sets too: a length is refused before any work).
    const sets: Record<string, { privateKeys: number[]; publicKey: number; signature: number }> = {
      'ml-dsa-44': { privateKeys: [32, 2560], publicKey: 1312, signature: 2420 },
      'ml-dsa-65': { privateKeys: [32, 4032], publicKey: 1952, signature: 3309 },
      'ml-dsa-87': { privateKeys: [32, 4896], publicKey: 2592, signature: 4627 },
      'slh-dsa-sha2-128s': { privateKeys: [64], publicKey: 32, signature: 7856 },
      'slh-dsa-shake-192s': { privateKeys: [96], publicKey: 48, signature: 16224 },
      'slh-dsa-sha2-256f': { privateKeys: [128], publicKey: 64, signature: 49856 },
    };
    for (const [algorithm, spec] of Object.entries(sets)) {
      for (const length of [1, 16, 31, 33, 48, 63, 64, 65, 96, 128, 1312, 2560, 4032]) {
        if (!spec.privateKeys.includes(length))
          cases.push({
            name: `${algorithm} privateKey of ${length} bytes`,
            url: '/v2/sign',
            body: { algorithm, privateKey: '11'.repeat(length), message: 'm' },
            code: 'INVALID_INPUT',
            field: '/privateKey',
          });
        if (length !== spec.publicKey)
          cases.push({
            name: `${algorithm} publicKey of ${length} bytes`,
            url: '/v2/verify',
            body: { algorithm, publicKey: '11'.repeat(length), message: 'm', signature: '00'.repeat(spec.signature) },
            code: 'INVALID_INPUT',
            field: '/publicKey',
          });
      }
      for (const length of [0, 64, spec.signature - 1, spec.signature + 1]) {
        cases.push({
          name: `${algorithm} signature of ${length} bytes`,
          url: '/v2/verify',
          body: { algorithm, publicKey: '11'.repeat(spec.publicKey), message: 'm', signature: '00'.repeat(length) },
          code: 'INVALID_INPUT',
          field: '/signature',
        });
      }
    }
    assert.ok(cases.length > 150, `only ${cases.length} cases`);
    for (const testCase of cases) {
      const response = await post(testCase.url, testCase.body);
      const label = `${testCase.name}: ${response.statusCode} ${response.body.slice(0, 200)}`;
      assert.ok(response.statusCode >= 400 && response.statusCode < 500, label);
      assert.match(String(response.headers['content-type']), /^application\/problem\+json/, label);
      const problem = response.json();
      assert.equal(problem.status, response.statusCode, label);
      if (testCase.code !== undefined) assert.equal(problem.code, testCase.code, label);
      if (testCase.field !== undefined) assert.equal(problem.errors?.[0]?.field, testCase.field, label);
      // No key material comes back in an error.
      for (const secret of [dsa.privateKey, slh.privateKey]) assert.ok(!response.body.includes(secret), testCase.name);
    }
  });
});

describe('scopes', () => {
  test('post-quantum signing on /v2/sign needs crypto:sign and crypto:pq; /v2/keys/generate needs crypto:keys and crypto:pq', async (t) => {
    const app = await testApp({ JWT_SECRET: TEST_JWT_SECRET });
    t.after(() => app.close());
    const secret = new TextEncoder().encode(TEST_JWT_SECRET);
    const bearer = async (scope: string) => ({
      authorization: `Bearer ${await new SignJWT({ scope }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('5m').sign(secret)}`,
    });
    const keys = await postJson(
      app,
      '/v2/keys/generate',
      { algorithm: 'ml-dsa-44' },
      await bearer('crypto:keys crypto:pq'),
    );
    assert.equal(keys.statusCode, 200);
    for (const scope of ['crypto:pq', 'crypto:keys']) {
      const refused = await postJson(app, '/v2/keys/generate', { algorithm: 'ml-dsa-44' }, await bearer(scope));
      assert.equal(refused.statusCode, 403, scope);
    }
    const body = { algorithm: 'ml-dsa-44', privateKey: keys.json().data.privateKey, message: 'm' };
    assert.equal((await postJson(app, '/v2/sign', body, await bearer('crypto:pq'))).statusCode, 403);
    const withoutPq = await postJson(app, '/v2/sign', body, await bearer('crypto:sign'));
    assert.equal(withoutPq.statusCode, 403);
    assert.match(withoutPq.json().detail, /crypto:pq/);
    assert.equal((await postJson(app, '/v2/sign', body, await bearer('crypto:sign crypto:pq'))).statusCode, 200);
  });
});
