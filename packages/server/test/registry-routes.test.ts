/**
 * Every identifier that `GET /v2/algorithms` lists is accepted by its route(s), and
 * the request schemas' enums are the registry's lists. Each family has a check below that uses
 * every listed identifier on the route that takes it; a family without a check fails the test, so
 * a new family cannot be listed untested.
 *
 * One exception in depth, not in coverage: the six SLH-DSA 's' sets. Their verification runs for
 * real here, but one 's' signature takes seconds even natively (minutes in pure JavaScript on
 * Node 22), and key generation up to a second, so for signing and key generation this test checks
 * the route as far as the offload job it queues (name and parameter set), with the job's result
 * stood in. The job itself is FIPS 205 with those parameters, the same code as the 'f' sets, which
 * sign for real below.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { RECIPIENT_TYPES, SLH_DSA_PARAMETERS, type SlhDsaAlgorithm } from '@crypto-service/core';
import { postJson, testApp } from './helpers.ts';
import { singleForm } from '../src/openapi-batch.ts';

type Response = Awaited<ReturnType<typeof postJson>>;
type Registry = Record<string, string[]>;

function ok(response: Response, label: string): any {
  assert.equal(response.statusCode, 200, `${label}: ${response.body.slice(0, 300)}`);
  return response.json().data;
}

const isSlowSlhDsa = (id: string) => /^slh-dsa-.*s$/.test(id);

describe('GET /v2/algorithms: every listed identifier works on its route', () => {
  let app: FastifyInstance;
  let registry: Registry;
  let openapi: any;
  /** Offload jobs stood in for the SLH-DSA 's' sets, as [job, parameter set]. */
  const stoodIn: [string, string][] = [];
  const post = (url: string, body: unknown) => postJson(app, url, body);
  const requestSchema = (path: string) =>
    singleForm(openapi.paths[path].post.requestBody.content['application/json'].schema);
  const responseData = (path: string) =>
    singleForm(openapi.paths[path].post.responses['200'].content['application/json'].schema).properties.data;

  before(async () => {
    app = await testApp({ RATE_LIMIT_MAX: '10000000' });
    registry = ok(await app.inject({ method: 'GET', url: '/v2/algorithms' }), 'algorithms');
    openapi = (await app.inject({ method: 'GET', url: '/docs/json' })).json();
    const offload = app.pqOffload;
    // runWhile: the path of every job (run, the routes and core's runner all go through it).
    const runWhile = offload.runWhile.bind(offload) as (
      stillWanted: () => boolean,
      name: string,
      ...args: unknown[]
    ) => Promise<unknown>;
    offload.runWhile = (async (stillWanted: () => boolean, name: string, ...args: unknown[]) => {
      if (name === 'slh-dsa.keygen' && isSlowSlhDsa(String(args[0]))) {
        const algorithm = args[0] as SlhDsaAlgorithm;
        stoodIn.push([name, algorithm]);
        const { n } = SLH_DSA_PARAMETERS[algorithm];
        return {
          algorithm,
          publicKey: new Uint8Array(randomBytes(2 * n)),
          secretKey: new Uint8Array(randomBytes(4 * n)),
        };
      }
      const chosen = (args[2] as { algorithm?: string } | undefined)?.algorithm;
      if (name === 'slh-dsa.sign' && isSlowSlhDsa(String(chosen))) {
        const algorithm = chosen as SlhDsaAlgorithm;
        stoodIn.push([name, algorithm]);
        return { algorithm, signature: new Uint8Array(SLH_DSA_PARAMETERS[algorithm].signatureLength) };
      }
      return runWhile(stillWanted, name, ...args);
    }) as typeof offload.runWhile;
  });
  after(() => app.close());

  const checks: Record<string, () => Promise<void>> = {
    async hash() {
      assert.deepEqual(requestSchema('/v2/hash').properties.algorithm.enum, registry.hash);
      for (const algorithm of registry.hash!)
        assert.match(ok(await post('/v2/hash', { algorithm, data: 'abc' }), algorithm), /^[0-9a-f]+$/);
    },
    async aead() {
      assert.deepEqual(responseData('/v2/encrypt').properties.algorithm.enum, registry.aead);
      const key = '42'.repeat(32);
      for (const algorithm of registry.aead!) {
        const sealed = ok(await post('/v2/encrypt', { key, plaintext: 'x' }), algorithm);
        assert.equal(sealed.algorithm, algorithm);
        assert.equal(ok(await post('/v2/decrypt', { key, ciphertext: sealed.ciphertext }), algorithm), 'x');
      }
    },
    async signature() {
      for (const path of ['/v2/sign', '/v2/verify'])
        assert.deepEqual(requestSchema(path).properties.algorithm.enum, registry.signature, path);
      for (const algorithm of registry.signature!) {
        const pair = ok(await post('/v2/keys/generate', { algorithm }), `${algorithm} keygen`);
        const signed = ok(
          await post('/v2/sign', { algorithm, privateKey: pair.privateKey, message: 'every id' }),
          `${algorithm} sign`,
        );
        assert.equal(signed.algorithm, algorithm);
        const verified = ok(
          await post('/v2/verify', {
            algorithm,
            publicKey: pair.publicKey,
            message: 'every id',
            signature: signed.signature,
          }),
          `${algorithm} verify`,
        );
        // A stood-in 's' signature is zeros: its real verification answers false, every other one true.
        assert.deepEqual(verified, { valid: !isSlowSlhDsa(algorithm), algorithm }, algorithm);
      }
    },
    async kdf() {
      assert.deepEqual(requestSchema('/v2/kdf').properties.algorithm.enum, registry.kdf);
      for (const algorithm of registry.kdf!) {
        const params =
          algorithm === 'scrypt'
            ? { N: 16384, r: 8, p: 5 }
            : algorithm === 'pbkdf2-sha256'
              ? { iterations: 600_000 }
              : {};
        assert.equal(ok(await post('/v2/kdf', { algorithm, password: 'x', params }), algorithm).algorithm, algorithm);
      }
    },
    async mac() {
      for (const path of ['/v2/hmac', '/v2/hmac/verify'])
        assert.deepEqual(requestSchema(path).properties.algorithm.enum, registry.mac, path);
      for (const algorithm of registry.mac!) {
        const { mac } = ok(await post('/v2/hmac', { algorithm, key: '00', data: 'x' }), algorithm);
        assert.deepEqual(ok(await post('/v2/hmac/verify', { algorithm, key: '00', data: 'x', mac }), algorithm), {
          valid: true,
          algorithm,
        });
      }
    },
    async password() {
      assert.deepEqual(responseData('/v2/password/hash').properties.algorithm.enum, registry.password);
      for (const path of ['/v2/password/hash', '/v2/password/verify'])
        assert.deepEqual(requestSchema(path).properties.algorithm.enum, registry.password, path);
      for (const algorithm of registry.password!) {
        const hashed = ok(
          await post('/v2/password/hash', { password: 'x', timeCost: 2, memoryCost: 19456, parallelism: 1, algorithm }),
          algorithm,
        );
        assert.equal(hashed.algorithm, algorithm);
        assert.ok(hashed.hash.startsWith(`$${algorithm}$`));
        assert.deepEqual(ok(await post('/v2/password/verify', { ...hashed, password: 'x' }), algorithm), {
          valid: true,
          needsRehash: true,
        });
      }
    },
    async keyWrap() {
      for (const path of ['/v2/keys/wrap', '/v2/keys/unwrap'])
        assert.deepEqual(requestSchema(path).properties.algorithm.enum, registry.keyWrap, path);
      for (const algorithm of registry.keyWrap!) {
        const { wrappedKey } = ok(
          await post('/v2/keys/wrap', { kek: '01'.repeat(32), keyToWrap: '02'.repeat(16), algorithm }),
          algorithm,
        );
        assert.equal(
          ok(await post('/v2/keys/unwrap', { kek: '01'.repeat(32), wrappedKey, algorithm }), algorithm),
          '02'.repeat(16),
        );
      }
    },
    async mlDsa() {
      for (const path of ['/v2/pq/dsa/keygen', '/v2/pq/dsa/sign', '/v2/pq/dsa/verify'])
        assert.deepEqual(requestSchema(path).properties.algorithm.enum, registry.mlDsa, path);
      for (const algorithm of registry.mlDsa!) {
        const pair = ok(await post('/v2/pq/dsa/keygen', { algorithm }), algorithm);
        assert.equal(pair.algorithm, algorithm);
        const signed = ok(
          await post('/v2/pq/dsa/sign', { privateKey: pair.privateKey, algorithm, message: 'm' }),
          algorithm,
        );
        assert.deepEqual(
          ok(await post('/v2/pq/dsa/verify', { ...signed, publicKey: pair.publicKey, message: 'm' }), algorithm),
          {
            valid: true,
            algorithm,
          },
        );
      }
    },
    async slhDsa() {
      for (const prefix of ['/v2/pq/slh-dsa', '/v2/pq/hash-sign'])
        for (const step of ['keygen', 'sign', 'verify'])
          assert.deepEqual(requestSchema(`${prefix}/${step}`).properties.algorithm.enum, registry.slhDsa, prefix);
      for (const algorithm of registry.slhDsa!) {
        const pair = ok(await post('/v2/pq/slh-dsa/keygen', { algorithm }), algorithm);
        assert.equal(pair.algorithm, algorithm);
        const signed = ok(
          await post('/v2/pq/hash-sign/sign', { privateKey: pair.privateKey, algorithm, message: 'm' }),
          algorithm,
        );
        assert.equal(signed.algorithm, algorithm);
        // A stood-in 's' signature is zeros: its real verification answers false, every other one true.
        assert.deepEqual(
          ok(await post('/v2/pq/slh-dsa/verify', { ...signed, publicKey: pair.publicKey, message: 'm' }), algorithm),
          {
            valid: !isSlowSlhDsa(algorithm),
            algorithm,
          },
        );
      }
    },
    async mlKem() {
      for (const path of ['/v2/pq/keygen', '/v2/pq/encapsulate', '/v2/pq/decapsulate'])
        assert.deepEqual(requestSchema(path).properties.algorithm.enum, registry.mlKem, path);
      for (const algorithm of registry.mlKem!) {
        const pair = ok(await post('/v2/pq/keygen', { algorithm }), algorithm);
        const sent = ok(await post('/v2/pq/encapsulate', { publicKey: pair.publicKey, algorithm }), algorithm);
        assert.equal(sent.algorithm, algorithm);
        const received = ok(await post('/v2/pq/decapsulate', { ...sent, privateKey: pair.privateKey }), algorithm);
        assert.deepEqual(received, { sharedSecret: sent.sharedSecret, algorithm });
      }
    },
    async hybridKem() {
      for (const path of ['/v2/pq/hybrid/keygen', '/v2/pq/hybrid/encapsulate', '/v2/pq/hybrid/decapsulate'])
        assert.deepEqual(requestSchema(path).properties.algorithm.enum, registry.hybridKem, path);
      for (const algorithm of registry.hybridKem!) {
        const pair = ok(await post('/v2/pq/hybrid/keygen', { algorithm }), algorithm);
        const sent = ok(await post('/v2/pq/hybrid/encapsulate', { publicKey: pair.publicKey, algorithm }), algorithm);
        const received = ok(
          await post('/v2/pq/hybrid/decapsulate', { ...sent, privateKey: pair.privateKey }),
          algorithm,
        );
        assert.deepEqual(received, { sharedSecret: sent.sharedSecret, algorithm });
      }
    },
    async passwordEncryption() {
      for (const path of ['/v2/password/encrypt', '/v2/password/decrypt'])
        assert.deepEqual(requestSchema(path).properties.algorithm.enum, registry.passwordEncryption, path);
      for (const algorithm of registry.passwordEncryption!) {
        const sealed = ok(
          await post('/v2/password/encrypt', { password: 'pw', plaintext: algorithm, algorithm }),
          algorithm,
        );
        assert.equal(sealed.algorithm, algorithm);
        assert.equal(ok(await post('/v2/password/decrypt', { ...sealed, password: 'pw' }), algorithm), algorithm);
      }
    },
    async sealedBox() {
      for (const path of ['/v2/sealedbox/seal', '/v2/sealedbox/open'])
        assert.deepEqual(requestSchema(path).properties.algorithm.enum, registry.sealedBox, path);
      const pair = ok(await post('/v2/keys/generate', { algorithm: 'x25519' }), 'x25519');
      for (const algorithm of registry.sealedBox!) {
        const sealed = ok(
          await post('/v2/sealedbox/seal', { publicKey: pair.publicKey, plaintext: algorithm, algorithm }),
          algorithm,
        );
        assert.equal(sealed.algorithm, algorithm);
        assert.equal(
          ok(await post('/v2/sealedbox/open', { ...sealed, privateKey: pair.privateKey }), algorithm),
          algorithm,
        );
      }
    },
    async pqSealedBox() {
      for (const path of ['/v2/sealedbox/seal-pq', '/v2/sealedbox/open-pq'])
        assert.deepEqual(requestSchema(path).properties.algorithm.enum, registry.pqSealedBox, path);
      const pair = ok(await post('/v2/keys/generate', { algorithm: 'x25519-ml-kem-768' }), 'x-wing');
      for (const algorithm of registry.pqSealedBox!) {
        const sealed = ok(
          await post('/v2/sealedbox/seal-pq', { publicKey: pair.publicKey, plaintext: algorithm, algorithm }),
          algorithm,
        );
        assert.equal(sealed.algorithm, algorithm);
        assert.equal(
          ok(await post('/v2/sealedbox/open-pq', { ...sealed, privateKey: pair.privateKey }), algorithm),
          algorithm,
        );
      }
    },
    async multiRecipient() {
      for (const path of ['/v2/multi-recipient/encrypt', '/v2/multi-recipient/decrypt'])
        assert.deepEqual(requestSchema(path).properties.algorithm.enum, registry.multiRecipient, path);
      const pair = ok(await post('/v2/keys/generate', { algorithm: 'x25519' }), 'x25519');
      for (const algorithm of registry.multiRecipient!) {
        const envelope = ok(
          await post('/v2/multi-recipient/encrypt', {
            plaintext: algorithm,
            recipients: [{ publicKey: pair.publicKey }],
            algorithm,
          }),
          algorithm,
        );
        assert.equal(envelope.algorithm, algorithm);
        assert.equal(
          ok(await post('/v2/multi-recipient/decrypt', { ...envelope, privateKey: pair.privateKey }), algorithm),
          algorithm,
        );
      }
    },
    async recipientType() {
      const slotTypes = requestSchema('/v2/multi-recipient/encrypt').properties.recipients.items.properties.type.enum;
      assert.deepEqual(slotTypes, registry.recipientType);
      assert.deepEqual([...RECIPIENT_TYPES], registry.recipientType);
      for (const algorithm of registry.recipientType!) {
        // The slot type's keys come from /v2/keys/generate under the same identifier.
        const pair = ok(await post('/v2/keys/generate', { algorithm }), algorithm);
        for (const recipient of [{ type: algorithm, publicKey: pair.publicKey }, { publicKey: pair.publicKey }]) {
          const envelope = ok(
            await post('/v2/multi-recipient/encrypt', { plaintext: algorithm, recipients: [recipient] }),
            algorithm,
          );
          assert.equal(envelope.recipients[0].type, algorithm);
          assert.equal(
            ok(await post('/v2/multi-recipient/decrypt', { ...envelope, privateKey: pair.privateKey }), algorithm),
            algorithm,
          );
        }
      }
    },
    async keyGeneration() {
      assert.deepEqual(requestSchema('/v2/keys/generate').properties.algorithm.enum, registry.keyGeneration);
      for (const algorithm of registry.keyGeneration!) {
        const data = ok(await post('/v2/keys/generate', { algorithm }), algorithm);
        assert.equal(data.algorithm, algorithm);
        assert.ok(
          typeof data.key === 'string' || (typeof data.publicKey === 'string' && typeof data.privateKey === 'string'),
          algorithm,
        );
      }
    },
  };

  test('there is a check for every family the registry lists, and for no other', () => {
    assert.deepEqual(Object.keys(checks).sort(), Object.keys(registry).sort());
  });

  for (const family of [
    'hash',
    'aead',
    'signature',
    'mlDsa',
    'slhDsa',
    'mlKem',
    'hybridKem',
    'kdf',
    'mac',
    'password',
    'passwordEncryption',
    'keyWrap',
    'sealedBox',
    'pqSealedBox',
    'multiRecipient',
    'recipientType',
    'keyGeneration',
  ]) {
    test(`${family}: each listed identifier works on its route, and the route's enum is the list`, async () => {
      const check = checks[family];
      assert.ok(check, family);
      assert.ok((registry[family] ?? []).length > 0, `${family} lists nothing`);
      await check();
    });
  }

  test("the SLH-DSA 's' sets reached their offload jobs with their own parameter set (signature, slhDsa and keyGeneration above)", () => {
    const slow = Object.keys(SLH_DSA_PARAMETERS).filter(isSlowSlhDsa);
    assert.equal(slow.length, 6);
    for (const algorithm of slow) {
      assert.ok(
        stoodIn.some(([job, set]) => job === 'slh-dsa.keygen' && set === algorithm),
        `${algorithm} keygen`,
      );
      assert.ok(
        stoodIn.some(([job, set]) => job === 'slh-dsa.sign' && set === algorithm),
        `${algorithm} sign`,
      );
    }
  });
});
