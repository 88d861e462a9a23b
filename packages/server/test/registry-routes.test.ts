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
import { RECIPIENT_TYPES, RECIPIENT_TYPE_NAMES, SLH_DSA_PARAMETERS, type SlhDsaAlgorithm } from '@crypto-service/core';
import { postJson, testApp } from './helpers.ts';

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
  const requestSchema = (path: string) => openapi.paths[path].post.requestBody.content['application/json'].schema;
  const responseData = (path: string) =>
    openapi.paths[path].post.responses['200'].content['application/json'].schema.properties.data;

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
      if (name === 'slh-dsa.keygen' && isSlowSlhDsa(`slh-dsa-${args[0]}`)) {
        const algorithm = `slh-dsa-${args[0]}` as SlhDsaAlgorithm;
        stoodIn.push([name, algorithm]);
        const { n } = SLH_DSA_PARAMETERS[algorithm];
        return {
          algorithm,
          publicKey: new Uint8Array(randomBytes(2 * n)),
          secretKey: new Uint8Array(randomBytes(4 * n)),
        };
      }
      const variant = (args[2] as { variant?: string } | undefined)?.variant;
      if (name === 'slh-dsa.sign' && isSlowSlhDsa(`slh-dsa-${variant}`)) {
        const algorithm = `slh-dsa-${variant}` as SlhDsaAlgorithm;
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
      for (const algorithm of registry.password!) {
        const hashed = ok(
          await post('/v2/password/hash', { password: 'x', timeCost: 2, memoryCost: 19456, parallelism: 1 }),
          algorithm,
        );
        assert.equal(hashed.algorithm, algorithm);
        assert.ok(hashed.hash.startsWith(`$${algorithm}$`));
      }
    },
    async keyWrap() {
      for (const path of ['/v2/keys/wrap', '/v2/keys/unwrap'])
        assert.deepEqual(requestSchema(path).properties.algorithm.enum, registry.keyWrap, path);
      for (const algorithm of registry.keyWrap!) {
        const { wrapped } = ok(
          await post('/v2/keys/wrap', { kek: '01'.repeat(32), keyToWrap: '02'.repeat(16), algorithm }),
          algorithm,
        );
        assert.equal(
          ok(await post('/v2/keys/unwrap', { kek: '01'.repeat(32), wrappedKey: wrapped, algorithm }), algorithm),
          '02'.repeat(16),
        );
      }
    },
    async sealedBox() {
      // Each sealing route answers with its own identifier (a one-value enum in the document).
      const answered = [responseData('/v2/sealedbox/seal'), responseData('/v2/sealedbox/seal-pq')].flatMap(
        (data) => data.properties.algorithm.enum,
      );
      assert.deepEqual(answered, registry.sealedBox);
      const classical = ok(await post('/v2/keys/generate', { algorithm: 'x25519' }), 'x25519');
      const hybrid = ok(await post('/v2/keys/generate', { algorithm: 'x25519-ml-kem-768' }), 'x-wing');
      const routes: Record<string, { seal: [string, Record<string, string>]; open: [string, Record<string, string>] }> =
        {
          'x25519-xsalsa20-poly1305': {
            seal: ['/v2/sealedbox/seal', { recipientPublicKey: classical.publicKey }],
            open: ['/v2/sealedbox/open', { recipientSecretKey: classical.privateKey }],
          },
          'hpke-x25519-ml-kem-768-chacha20-poly1305': {
            seal: ['/v2/sealedbox/seal-pq', { publicKey: hybrid.publicKey }],
            open: ['/v2/sealedbox/open-pq', { secretKey: hybrid.privateKey }],
          },
        };
      for (const algorithm of registry.sealedBox!) {
        const route = routes[algorithm];
        assert.ok(route, `no route known for ${algorithm}`);
        const sealed = ok(await post(route.seal[0], { ...route.seal[1], plaintext: algorithm }), algorithm);
        assert.equal(sealed.algorithm, algorithm);
        assert.equal(ok(await post(route.open[0], { ...route.open[1], sealed: sealed.sealed }), algorithm), algorithm);
      }
    },
    async kem() {
      // Multi-recipient slot types (with their aliases) and the ML-KEM levels of /v2/pq are the KEM list.
      const slotTypes = requestSchema('/v2/multi-recipient/encrypt').properties.recipients.items.properties.type.enum;
      assert.deepEqual([...slotTypes].sort(), [...RECIPIENT_TYPE_NAMES].sort());
      const levels = requestSchema('/v2/pq/keygen').properties.level.enum as number[];
      assert.deepEqual(
        [...levels.map((level) => `ml-kem-${level}`), ...RECIPIENT_TYPES].sort(),
        [...registry.kem!].sort(),
      );
      for (const algorithm of registry.kem!) {
        const pair = ok(await post('/v2/keys/generate', { algorithm }), algorithm);
        if (algorithm.startsWith('ml-kem-')) {
          const sent = ok(await post('/v2/pq/encapsulate', { publicKey: pair.publicKey }), algorithm);
          assert.equal(sent.algorithm, algorithm);
          const level = Number(algorithm.slice('ml-kem-'.length));
          assert.equal(
            ok(
              await post('/v2/pq/decapsulate', { secretKey: pair.privateKey, ciphertext: sent.ciphertext, level }),
              algorithm,
            ).sharedSecret,
            sent.sharedSecret,
          );
          continue;
        }
        if (algorithm === 'x25519-ml-kem-768') {
          const sent = ok(await post('/v2/pq/hybrid/encapsulate', { publicKey: pair.publicKey }), algorithm);
          assert.equal(
            ok(
              await post('/v2/pq/hybrid/decapsulate', { secretKey: pair.privateKey, ciphertext: sent.ciphertext }),
              algorithm,
            ).sharedSecret,
            sent.sharedSecret,
          );
        }
        // Both slot types: a one-recipient envelope of the type opens with the generated key.
        assert.ok(
          (RECIPIENT_TYPES as readonly string[]).includes(algorithm),
          `${algorithm} is neither ML-KEM nor a slot type`,
        );
        const envelope = ok(
          await post('/v2/multi-recipient/encrypt', {
            plaintext: algorithm,
            recipients: [{ type: algorithm, publicKey: pair.publicKey }],
          }),
          algorithm,
        );
        assert.equal(envelope.recipients[0].type, algorithm);
        const credential =
          algorithm === 'x25519' ? { recipientSecretKey: pair.privateKey } : { secretKey: pair.privateKey };
        assert.equal(
          ok(await post('/v2/multi-recipient/decrypt', { ...envelope, ...credential }), algorithm),
          algorithm,
        );
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
    'kdf',
    'mac',
    'password',
    'keyWrap',
    'sealedBox',
    'kem',
    'keyGeneration',
  ]) {
    test(`${family}: each listed identifier works on its route, and the route's enum is the list`, async () => {
      const check = checks[family];
      assert.ok(check, family);
      assert.ok((registry[family] ?? []).length > 0, `${family} lists nothing`);
      await check();
    });
  }

  test("the SLH-DSA 's' sets reached their offload jobs with their own parameter set (signature and keyGeneration above)", () => {
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
