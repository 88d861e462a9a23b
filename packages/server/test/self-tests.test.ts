/**
 * The start-up self-tests in the server (src/plugins/self-tests.ts, src/self-test-dependencies.ts):
 * /ready around the suite, 503s for algorithms that failed or are not yet tested, /metrics, the
 * log, and the route table. Individual tests are replaced through AppOptions.selfTests.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { selfTestIds } from '@crypto-service/core';
import { buildApp } from '../src/app.ts';
import { ROUTES_WITHOUT_SELF_TESTS, SELF_TESTS_BY_ROUTE, selfTestsOfRequest } from '../src/self-test-dependencies.ts';
import { postJson, testApp, testConfig } from './helpers.ts';

// RFC 8032 §7.1 TEST 2: the Ed25519 signature of the one-octet message 0x72.
const RFC8032_TEST2 = {
  privateKey: '4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb',
  signature:
    '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00',
};

const fail = () => {
  throw new Error('forced failure');
};

/** An override that stops the suite where it stands until the test opens the gate. */
function gate() {
  let open: () => void = () => {};
  let signalReached: () => void = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  const reached = new Promise<void>((resolve) => (signalReached = resolve));
  return {
    reached,
    open,
    override: async () => {
      signalReached();
      await opened;
    },
  };
}

/** An app that is ready (listening, for a server) but whose suite may still run. */
async function readyApp(options: Parameters<typeof buildApp>[1] = {}): Promise<FastifyInstance> {
  const app = await buildApp(testConfig(), { quiet: true, ...options });
  await app.ready();
  return app;
}

async function metricLines(app: FastifyInstance): Promise<string[]> {
  const response = await app.inject({ method: 'GET', url: '/metrics' });
  assert.equal(response.statusCode, 200);
  return response.body.split('\n');
}

describe('while the suite runs', () => {
  test('/ready is 503 with the self-tests check failing, /live answers, then /ready turns 200', async (t) => {
    const stop = gate();
    const app = await readyApp({ selfTests: { 'signature/ed25519': stop.override } });
    t.after(async () => {
      stop.open();
      await app.close();
    });
    await stop.reached;
    assert.equal(app.selfTests.completed, false);
    assert.equal((await app.inject({ method: 'GET', url: '/live' })).statusCode, 200);
    const during = await app.inject({ method: 'GET', url: '/ready' });
    assert.equal(during.statusCode, 503);
    assert.equal(during.json().code, 'SERVICE_UNAVAILABLE');
    assert.equal(during.json().checks['self-tests'], 'fail');
    assert.equal(during.json().checks.shutdown, 'pass');
    assert.match(during.json().detail, /self-tests/);

    stop.open();
    await app.selfTests.done;
    const after = await app.inject({ method: 'GET', url: '/ready' });
    assert.equal(after.statusCode, 200);
    assert.deepEqual(after.json(), {
      status: 'ready',
      checks: { shutdown: 'pass', 'self-tests': 'pass' },
      disabled: [],
    });
  });

  test('a request for an algorithm not yet tested is a 503 with Retry-After; one already tested is served', async (t) => {
    const stop = gate();
    // ML-DSA-65's test (a passing override: built-in outcomes this process already has are taken
    // at once) comes after the gate, so it has not run while the gate is closed.
    const app = await readyApp({ selfTests: { 'signature/ed25519': stop.override, 'mlDsa/ml-dsa-65': () => {} } });
    t.after(async () => {
      stop.open();
      await app.close();
    });
    await stop.reached;
    const body = { privateKey: RFC8032_TEST2.privateKey, message: '72', encoding: 'hex' };
    for (const request of [{ algorithm: 'ed25519', ...body }, body]) {
      const response = await postJson(app, '/v2/sign', request);
      assert.equal(response.statusCode, 503, JSON.stringify(request));
      assert.equal(response.headers['retry-after'], '1');
      assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
      assert.equal(response.json().code, 'SERVICE_UNAVAILABLE');
      assert.match(response.json().detail, /'ed25519' \(signature\/ed25519\) is not available yet/);
    }
    // Nor has a test after the gate.
    const mlDsa = await postJson(app, '/v2/pq/dsa/keygen', { algorithm: 'ml-dsa-65' });
    assert.equal(mlDsa.statusCode, 503);
    assert.match(mlDsa.json().detail, /mlDsa\/ml-dsa-65/);
    // The hashes ran before the gate (the suite runs them first): they are served already.
    const hash = await postJson(app, '/v2/hash', { algorithm: 'sha256', data: 'abc' });
    assert.equal(hash.statusCode, 200);
    assert.equal(hash.json().data, 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');

    stop.open();
    await app.selfTests.done;
    const signed = await postJson(app, '/v2/sign', { algorithm: 'ed25519', ...body });
    assert.equal(signed.statusCode, 200);
    assert.equal(signed.json().data.signature, RFC8032_TEST2.signature);
    assert.equal((await postJson(app, '/v2/pq/dsa/keygen', { algorithm: 'ml-dsa-65' })).statusCode, 200);
  });
});

describe('a failed self-test disables its algorithm', () => {
  test('signature/ed448 failing: /v2/sign and /v2/verify with ed448 are 503, ed25519 still works, /ready lists it', async (t) => {
    const app = await testApp({}, { selfTests: { 'signature/ed448': fail } });
    t.after(() => app.close());
    assert.equal(app.selfTests.status('signature/ed448'), 'failed');

    const sign = await postJson(app, '/v2/sign', { algorithm: 'ed448', privateKey: '00'.repeat(57), message: 'm' });
    assert.equal(sign.statusCode, 503);
    assert.equal(sign.json().code, 'SERVICE_UNAVAILABLE');
    assert.match(sign.json().detail, /'ed448' \(signature\/ed448\) is disabled/);
    // Retrying will not help until a restart: no Retry-After.
    assert.equal(sign.headers['retry-after'], undefined);
    const verify = await postJson(app, '/v2/verify', {
      algorithm: 'ed448',
      publicKey: '00'.repeat(57),
      message: 'm',
      signature: '00'.repeat(114),
    });
    assert.equal(verify.statusCode, 503);

    const ed25519 = await postJson(app, '/v2/sign', {
      algorithm: 'ed25519',
      privateKey: RFC8032_TEST2.privateKey,
      message: '72',
      encoding: 'hex',
    });
    assert.equal(ed25519.statusCode, 200);
    assert.equal(ed25519.json().data.signature, RFC8032_TEST2.signature);

    const ready = await app.inject({ method: 'GET', url: '/ready' });
    assert.equal(ready.statusCode, 200, 'one broken algorithm does not take the replica out of service');
    assert.deepEqual(ready.json(), {
      status: 'ready',
      checks: { shutdown: 'pass', 'self-tests': 'pass' },
      disabled: ['signature/ed448'],
    });
  });

  test('/metrics: crypto_self_test_passed is 0 for the failed algorithm and 1 for every other; the suite duration is there', async (t) => {
    const app = await testApp({}, { selfTests: { 'signature/ed448': fail } });
    t.after(() => app.close());
    const lines = await metricLines(app);
    const values = new Map<string, string>();
    for (const line of lines) {
      const match = /^crypto_self_test_passed\{algorithm="([^"]+)"\} (\S+)$/.exec(line);
      if (match !== null) values.set(match[1] ?? '', match[2] ?? '');
    }
    assert.deepEqual([...values.keys()].sort(), [...selfTestIds()].sort());
    for (const [id, value] of values) assert.equal(value, id === 'signature/ed448' ? '0' : '1', id);
    const duration = lines.find((line) => line.startsWith('crypto_self_test_duration_seconds '));
    assert.ok(duration !== undefined, 'the duration gauge');
    assert.ok(Number(duration.split(' ')[1]) > 0);
  });

  test('/v2/hash with a failed hash is 503; the other hashes still answer', async (t) => {
    const app = await testApp({}, { selfTests: { 'hash/sha3-256': fail } });
    t.after(() => app.close());
    const failed = await postJson(app, '/v2/hash', { algorithm: 'sha3-256', data: 'abc' });
    assert.equal(failed.statusCode, 503);
    assert.match(failed.json().detail, /'sha3-256' \(hash\/sha3-256\) is disabled/);
    const sha256 = await postJson(app, '/v2/hash', { algorithm: 'sha256', data: 'abc' });
    assert.equal(sha256.statusCode, 200);
  });

  test('composite routes are disabled with any algorithm they use; a bad body is still a 400', async (t) => {
    const app = await testApp({}, { selfTests: { 'aead/xchacha20-poly1305': fail } });
    t.after(() => app.close());
    const key = '00'.repeat(32);
    assert.equal((await postJson(app, '/v2/encrypt', { key, plaintext: 'x' })).statusCode, 503);
    assert.equal(
      (await postJson(app, '/v2/password/encrypt', { password: 'correct horse', plaintext: 'x' })).statusCode,
      503,
    );
    // The schema is checked first: a request that could never run is refused as such.
    const invalid = await postJson(app, '/v2/encrypt', { key, plaintext: 'x', extra: true });
    assert.equal(invalid.statusCode, 400);
    // What does not use the failed algorithm is untouched.
    assert.equal((await postJson(app, '/v2/password/hash', { password: 'correct horse' })).statusCode, 200);
  });

  test('the log has one error per failed algorithm and a summary line', async (t) => {
    const lines: string[] = [];
    const app = await testApp(
      { LOG_LEVEL: 'info' },
      {
        logStream: { write: (line: string) => lines.push(line) },
        selfTests: { 'signature/ed448': fail, 'kdf/scrypt': fail },
      },
    );
    t.after(() => app.close());
    const records = lines.map(
      (line) =>
        JSON.parse(line) as {
          level: number;
          msg: string;
          algorithm?: string;
          selfTests?: { passed: number; failed: number; disabled: string[] };
        },
    );
    const errors = records.filter((record) => record.msg.startsWith('start-up self-test failed'));
    assert.deepEqual(errors.map((record) => record.algorithm).sort(), ['kdf/scrypt', 'signature/ed448']);
    assert.ok(
      errors.every((record) => record.level === 50),
      'logged as errors',
    );
    const summaries = records.filter((record) => record.selfTests !== undefined);
    assert.equal(summaries.length, 1);
    assert.deepEqual(summaries[0]?.selfTests?.disabled, ['kdf/scrypt', 'signature/ed448']);
    assert.equal(summaries[0]?.selfTests?.passed, selfTestIds().length - 2);
    assert.match(summaries[0]?.msg ?? '', /disabled: kdf\/scrypt, signature\/ed448/);
  });
});

describe('the built-in tests', () => {
  test('all pass on this runtime: nothing is disabled', async (t) => {
    const app = await testApp();
    t.after(() => app.close());
    assert.deepEqual(app.selfTests.disabled(), []);
    for (const id of selfTestIds()) assert.equal(app.selfTests.status(id), 'passed', id);
  });
});

describe('the route table', () => {
  test('every POST route of the app is either in the table or listed as using no self-tested algorithm, and nothing else is', async (t) => {
    const app = await testApp();
    t.after(() => app.close());
    const document = (await app.inject({ method: 'GET', url: '/docs/json' })).json() as {
      paths: Record<string, Record<string, unknown>>;
    };
    const posts = Object.entries(document.paths)
      .filter(([, methods]) => methods.post !== undefined)
      .map(([path]) => path);
    assert.ok(posts.length > 40);
    const covered = new Set([...Object.keys(SELF_TESTS_BY_ROUTE), ...Object.keys(ROUTES_WITHOUT_SELF_TESTS)]);
    assert.deepEqual(
      posts.filter((path) => !covered.has(path)),
      [],
      'POST routes missing from the table',
    );
    assert.deepEqual(
      [...covered].filter((path) => !posts.includes(path)).sort(),
      [],
      'table entries that are not routes',
    );
  });

  test('requests map to the registry pairs they use, defaults included', () => {
    const cases: [string, unknown, string[]][] = [
      ['/v2/hash', { algorithm: 'blake3', data: 'x' }, ['hash/blake3']],
      ['/v2/sign', { privateKey: '00', message: 'm' }, ['signature/ed25519']],
      ['/v2/verify', { algorithm: 'slh-dsa-shake-256s' }, ['signature/slh-dsa-shake-256s']],
      ['/v2/keys/generate', {}, ['keyGeneration/ed25519', 'signature/ed25519']],
      ['/v2/keys/generate', { algorithm: 'x25519' }, ['keyGeneration/x25519', 'recipientType/x25519']],
      [
        '/v2/keys/generate',
        { algorithm: 'x25519-ml-kem-768' },
        ['keyGeneration/x25519-ml-kem-768', 'hybridKem/x25519-ml-kem-768', 'recipientType/x25519-ml-kem-768'],
      ],
      [
        '/v2/keys/generate',
        { algorithm: 'ml-dsa-44' },
        ['keyGeneration/ml-dsa-44', 'signature/ml-dsa-44', 'mlDsa/ml-dsa-44'],
      ],
      ['/v2/keys/generate', { algorithm: 'hmac-sha256' }, ['keyGeneration/hmac-sha256', 'mac/hmac-sha256']],
      ['/v2/keys/generate', { algorithm: 'aes-256' }, ['keyGeneration/aes-256']],
      ['/v2/keys/wrap', {}, ['keyWrap/aes-kw']],
      ['/v2/keys/unwrap', { algorithm: 'aes-kwp' }, ['keyWrap/aes-kwp']],
      ['/v2/kdf', { algorithm: 'hkdf-sha384' }, ['kdf/hkdf-sha384']],
      ['/v2/hmac/verify', { algorithm: 'hmac-sha3-512' }, ['mac/hmac-sha3-512']],
      ['/v2/decrypt', {}, ['aead/xchacha20-poly1305']],
      ['/v2/password/verify', {}, ['password/argon2id']],
      [
        '/v2/password/decrypt',
        {},
        ['passwordEncryption/argon2id-xchacha20-poly1305', 'password/argon2id', 'aead/xchacha20-poly1305'],
      ],
      ['/v2/sealedbox/open', {}, ['sealedBox/x25519-xsalsa20-poly1305']],
      [
        '/v2/sealedbox/seal-pq',
        {},
        ['pqSealedBox/hpke-x25519-ml-kem-768-chacha20-poly1305', 'hybridKem/x25519-ml-kem-768'],
      ],
      [
        '/v2/multi-recipient/encrypt',
        // Types given, or inferred from the key: 32 bytes X25519, 1216 bytes X-Wing, or the parts.
        {
          recipients: [
            { type: 'x25519' },
            { publicKey: 'ab'.repeat(32) },
            { publicKey: 'ab'.repeat(1216) },
            { x25519PublicKey: 'ab'.repeat(32) },
          ],
        },
        [
          'multiRecipient/hpke-xchacha20-poly1305',
          'aead/xchacha20-poly1305',
          'recipientType/x25519',
          'recipientType/x25519-ml-kem-768',
        ],
      ],
      [
        '/v2/multi-recipient/encrypt',
        { recipients: [{ publicKey: 'ab'.repeat(32) }] },
        ['multiRecipient/hpke-xchacha20-poly1305', 'aead/xchacha20-poly1305', 'recipientType/x25519'],
      ],
      // privateKey opens the slots of either type: the envelope's slot types are what runs.
      [
        '/v2/multi-recipient/decrypt',
        { privateKey: '00', recipients: [{ type: 'x25519' }] },
        ['multiRecipient/hpke-xchacha20-poly1305', 'aead/xchacha20-poly1305', 'recipientType/x25519'],
      ],
      [
        '/v2/multi-recipient/decrypt',
        { privateKey: '00', recipients: [{ type: 'x25519-ml-kem-768' }, { type: 'x25519' }] },
        [
          'multiRecipient/hpke-xchacha20-poly1305',
          'aead/xchacha20-poly1305',
          'recipientType/x25519-ml-kem-768',
          'recipientType/x25519',
        ],
      ],
      [
        '/v2/multi-recipient/decrypt',
        { x25519PrivateKey: '00', recipients: [{ type: 'x25519' }] },
        ['multiRecipient/hpke-xchacha20-poly1305', 'aead/xchacha20-poly1305', 'recipientType/x25519-ml-kem-768'],
      ],
      ['/v2/pq/keygen', {}, ['mlKem/ml-kem-768', 'keyGeneration/ml-kem-768']],
      ['/v2/pq/keygen', { algorithm: 'ml-kem-512' }, ['mlKem/ml-kem-512', 'keyGeneration/ml-kem-512']],
      ['/v2/pq/encapsulate', { publicKey: 'ab'.repeat(1568) }, ['mlKem/ml-kem-1024']],
      ['/v2/pq/decapsulate', { privateKey: 'ab'.repeat(64), ciphertext: '' }, ['mlKem/ml-kem-768']],
      [
        '/v2/pq/decapsulate',
        { privateKey: 'ab'.repeat(64), ciphertext: '', algorithm: 'ml-kem-1024' },
        ['mlKem/ml-kem-1024'],
      ],
      ['/v2/pq/decapsulate', { privateKey: 'ab'.repeat(1632), ciphertext: '' }, ['mlKem/ml-kem-512']],
      ['/v2/pq/hybrid/keygen', undefined, ['hybridKem/x25519-ml-kem-768', 'keyGeneration/x25519-ml-kem-768']],
      ['/v2/pq/hybrid/decapsulate', {}, ['hybridKem/x25519-ml-kem-768']],
      ['/v2/pq/dsa/keygen', { algorithm: 'ml-dsa-44' }, ['mlDsa/ml-dsa-44', 'keyGeneration/ml-dsa-44']],
      ['/v2/pq/dsa/sign', { privateKey: 'ab'.repeat(32), algorithm: 'ml-dsa-87' }, ['mlDsa/ml-dsa-87']],
      ['/v2/pq/dsa/sign', { privateKey: 'ab'.repeat(4032) }, ['mlDsa/ml-dsa-65']],
      ['/v2/pq/dsa/verify', { publicKey: 'ab'.repeat(1312) }, ['mlDsa/ml-dsa-44']],
      ['/v2/pq/slh-dsa/keygen', {}, ['slhDsa/slh-dsa-sha2-128f', 'keyGeneration/slh-dsa-sha2-128f']],
      ['/v2/pq/hash-sign/sign', { algorithm: 'slh-dsa-shake-192s' }, ['slhDsa/slh-dsa-shake-192s']],
      // Nothing the handler would not refuse anyway: an unknown identifier, a key that disagrees, a
      // key of no known length.
      ['/v2/pq/keygen', { algorithm: 'ml-kem-999' }, []],
      ['/v2/pq/decapsulate', { privateKey: 'ab'.repeat(1632), ciphertext: '', algorithm: 'ml-kem-768' }, []],
      ['/v2/pq/encapsulate', { publicKey: 'ab'.repeat(10) }, []],
      ['/v1/sign', { message: 'm' }, []],
      ['/v2/algorithms', undefined, []],
      ['/live', undefined, []],
    ];
    const known = new Set(selfTestIds());
    for (const [url, body, expected] of cases) {
      const ids = selfTestsOfRequest(url, body);
      assert.deepEqual(ids, expected, `${url} ${JSON.stringify(body)?.slice(0, 80)}`);
      for (const id of ids) assert.ok(known.has(id), `${url} maps to ${id}, which is not a registry pair`);
    }
  });

  test('every registry pair is what some request depends on', () => {
    // A pair no request depends on would be tested but never enforced: list what each route can reach.
    const reached = new Set<string>();
    const bodies: unknown[] = [{}];
    for (const family of ['hash', 'signature', 'kdf', 'mac', 'keyWrap', 'mlKem', 'mlDsa', 'slhDsa']) {
      for (const id of selfTestIds().filter((pair) => pair.startsWith(`${family}/`)))
        bodies.push({ algorithm: id.slice(family.length + 1) });
    }
    for (const id of selfTestIds().filter((pair) => pair.startsWith('keyGeneration/')))
      bodies.push({ algorithm: id.slice('keyGeneration/'.length) });
    bodies.push({ recipients: [{ type: 'x25519' }, { type: 'x25519-ml-kem-768' }] }, { x25519PrivateKey: '00' });
    for (const url of Object.keys(SELF_TESTS_BY_ROUTE)) {
      for (const body of bodies) for (const id of selfTestsOfRequest(url, body)) reached.add(id);
    }
    assert.deepEqual(
      selfTestIds().filter((id) => !reached.has(id)),
      [],
    );
  });
});
