import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify, { type FastifyInstance } from 'fastify';
import { SignJWT } from 'jose';
import { ml_kem768 } from '@noble/post-quantum/ml-kem.js';
import { ml_dsa44 } from '@noble/post-quantum/ml-dsa.js';
import { slh_dsa_sha2_128f } from '@noble/post-quantum/slh-dsa.js';
import { ml_kem768_x25519 } from '@noble/post-quantum/hybrid.js';
import { CryptoError } from '@crypto-service/core';
import { withXWingParts } from './xwing-parts.ts';
import { postJson, testApp, TEST_JWT_SECRET } from './helpers.ts';
import { ApiError, handleError } from '../src/errors.ts';
import metrics from '../src/plugins/metrics.ts';
import jsonBody from '../src/plugins/json-body.ts';
import { pqRoutes } from '../src/routes/pq.ts';
import { keyGenerationCost, signingCost } from '../src/rate-limit/costs.ts';
import { PqOffload } from '../src/pq-offload.ts';
import pqOffloadPlugin from '../src/plugins/pq-offload.ts';
import handlerTimeout from '../src/plugins/handler-timeout.ts';
import { runPqJob } from '../src/workers/pq-jobs.ts';
import { PQ_NATIVE_SUPPORT } from '../../core/src/pq-common.ts';

const hexOf = (length: number, byte = 0) => Buffer.alloc(length, byte).toString('hex');
const toHex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const fromHex = (text: string) => new Uint8Array(Buffer.from(text, 'hex'));
const HEX = /^(?:[0-9a-f]{2})*$/;

/** A successful response: 200, and `data` with exactly these fields. */
function ok(response: { statusCode: number; body: string; json: () => unknown }, fields: string[]) {
  assert.equal(response.statusCode, 200, response.body);
  const { data } = response.json() as { data: Record<string, unknown> };
  assert.deepEqual(Object.keys(data).sort(), [...fields].sort());
  return data as Record<string, string> & { valid?: boolean };
}

/** Waits (without a clock) until `condition` holds: the event loop turns until it does. */
async function until(condition: () => boolean): Promise<void> {
  for (let turn = 0; turn < 100_000 && !condition(); turn++) await new Promise((resolve) => setImmediate(resolve));
  assert.ok(condition(), 'condition never held');
}

describe('post-quantum routes', () => {
  let app: FastifyInstance;
  before(async () => {
    app = await testApp({ RATE_LIMIT_MAX: '10000000' });
  });
  after(() => app.close());

  test('ML-KEM: keygen, encapsulate and decapsulate with every identifier; each output feeds the next call whole', async () => {
    for (const [algorithm, publicKeyBytes, ciphertextBytes] of [
      ['ml-kem-512', 800, 768],
      ['ml-kem-768', 1184, 1088],
      ['ml-kem-1024', 1568, 1568],
    ] as const) {
      const keys = ok(await postJson(app, '/v2/pq/keygen', { algorithm }), ['publicKey', 'privateKey', 'algorithm']);
      assert.equal(keys.algorithm, algorithm);
      assert.match(keys.publicKey ?? '', HEX);
      assert.equal(keys.publicKey?.length, publicKeyBytes * 2);
      assert.equal(keys.privateKey?.length, 128);
      const sent = ok(await postJson(app, '/v2/pq/encapsulate', { publicKey: keys.publicKey, algorithm }), [
        'ciphertext',
        'sharedSecret',
        'algorithm',
      ]);
      assert.equal(sent.algorithm, algorithm);
      assert.equal(sent.ciphertext?.length, ciphertextBytes * 2);
      assert.equal(sent.sharedSecret?.length, 64);
      // The encapsulation's data whole (its sharedSecret is ignored) with the private key.
      const received = ok(await postJson(app, '/v2/pq/decapsulate', { ...sent, privateKey: keys.privateKey }), [
        'sharedSecret',
        'algorithm',
      ]);
      assert.deepEqual(received, { sharedSecret: sent.sharedSecret, algorithm });
      const ignored = await postJson(app, '/v2/pq/decapsulate', {
        ...sent,
        privateKey: keys.privateKey,
        sharedSecret: '00'.repeat(32),
      });
      assert.deepEqual(ok(ignored, ['sharedSecret', 'algorithm']), received);
    }
  });

  test('ML-KEM: an algorithm that disagrees with the key is a 400 naming /algorithm; the numeric level is gone', async () => {
    const keys = ok(await postJson(app, '/v2/pq/keygen', { algorithm: 'ml-kem-512' }), [
      'publicKey',
      'privateKey',
      'algorithm',
    ]);
    const encapsulate = await postJson(app, '/v2/pq/encapsulate', {
      publicKey: keys.publicKey,
      algorithm: 'ml-kem-1024',
    });
    assert.equal(encapsulate.statusCode, 400);
    assert.equal(encapsulate.json().code, 'INVALID_INPUT');
    assert.equal(encapsulate.json().errors[0].field, '/algorithm');
    const expanded = toHex(ml_kem768.keygen(new Uint8Array(64).fill(3)).secretKey);
    const decapsulate = await postJson(app, '/v2/pq/decapsulate', {
      privateKey: expanded,
      ciphertext: hexOf(1088),
      algorithm: 'ml-kem-512',
    });
    assert.equal(decapsulate.statusCode, 400);
    assert.equal(decapsulate.json().errors[0].field, '/algorithm');
    const level = await postJson(app, '/v2/pq/keygen', { level: 768 });
    assert.equal(level.statusCode, 400);
    assert.equal(level.json().errors[0].field, '/level');
  });

  test('ML-KEM: ml-kem-768 by default; hex in upper case is accepted; the expanded key decapsulates', async () => {
    const keys = ok(await postJson(app, '/v2/pq/keygen', {}), ['publicKey', 'privateKey', 'algorithm']);
    assert.equal(keys.algorithm, 'ml-kem-768');
    const sent = ok(await postJson(app, '/v2/pq/encapsulate', { publicKey: keys.publicKey?.toUpperCase() }), [
      'ciphertext',
      'sharedSecret',
      'algorithm',
    ]);
    const bySeed = ok(
      await postJson(app, '/v2/pq/decapsulate', { privateKey: keys.privateKey, ciphertext: sent.ciphertext }),
      ['sharedSecret', 'algorithm'],
    );
    assert.equal(bySeed.sharedSecret, sent.sharedSecret);
    const expanded = toHex(ml_kem768.keygen(fromHex(keys.privateKey ?? '')).secretKey);
    const byExpanded = ok(
      await postJson(app, '/v2/pq/decapsulate', { privateKey: expanded, ciphertext: sent.ciphertext }),
      ['sharedSecret', 'algorithm'],
    );
    assert.equal(byExpanded.sharedSecret, sent.sharedSecret);
  });

  test('ML-KEM: a tampered ciphertext of the right length is a 200 with another secret (implicit rejection)', async () => {
    const keys = ok(await postJson(app, '/v2/pq/keygen', {}), ['publicKey', 'privateKey', 'algorithm']);
    const sent = ok(await postJson(app, '/v2/pq/encapsulate', { publicKey: keys.publicKey }), [
      'ciphertext',
      'sharedSecret',
      'algorithm',
    ]);
    const tampered = `${sent.ciphertext?.slice(0, -2)}${sent.ciphertext?.endsWith('00') ? '01' : '00'}`;
    const received = ok(
      await postJson(app, '/v2/pq/decapsulate', { privateKey: keys.privateKey, ciphertext: tampered }),
      ['sharedSecret', 'algorithm'],
    );
    assert.notEqual(received.sharedSecret, sent.sharedSecret);
    assert.equal(received.sharedSecret?.length, 64);
  });

  test('X-Wing: keygen with no body at all, {} or the algorithm; the key pair alone, as the independent implementation derives it', async () => {
    const bare = await app.inject({ method: 'POST', url: '/v2/pq/hybrid/keygen' });
    for (const response of [
      bare,
      await postJson(app, '/v2/pq/hybrid/keygen', {}),
      await postJson(app, '/v2/pq/hybrid/keygen', { algorithm: 'x25519-ml-kem-768' }),
    ]) {
      const keys = ok(response, ['publicKey', 'privateKey', 'algorithm']);
      assert.equal(keys.algorithm, 'x25519-ml-kem-768');
      assert.equal(keys.privateKey?.length, 64);
      assert.equal(keys.publicKey?.length, 2432);
      assert.equal(toHex(ml_kem768_x25519.keygen(fromHex(keys.privateKey ?? '')).publicKey), keys.publicKey);
    }
  });

  test('X-Wing: both key forms encapsulate and decapsulate the whole ciphertext, in every combination', async () => {
    const keys = withXWingParts(
      ok(await app.inject({ method: 'POST', url: '/v2/pq/hybrid/keygen' }), [
        'publicKey',
        'privateKey',
        'algorithm',
      ]) as {
        publicKey: string;
        privateKey: string;
      },
    );
    assert.equal(keys.publicKey, `${keys.mlKemPublicKey}${keys.x25519PublicKey}`);
    const encapsulations = [
      await postJson(app, '/v2/pq/hybrid/encapsulate', { publicKey: keys.publicKey }),
      await postJson(app, '/v2/pq/hybrid/encapsulate', {
        x25519PublicKey: keys.x25519PublicKey,
        mlKemPublicKey: keys.mlKemPublicKey,
      }),
    ];
    for (const response of encapsulations) {
      const sent = ok(response, ['ciphertext', 'sharedSecret', 'algorithm']);
      assert.equal(sent.ciphertext?.length, 2240);
      // The encapsulation's data whole, with the private key in either form.
      const bySeed = ok(await postJson(app, '/v2/pq/hybrid/decapsulate', { ...sent, privateKey: keys.privateKey }), [
        'sharedSecret',
        'algorithm',
      ]);
      const byParts = ok(
        await postJson(app, '/v2/pq/hybrid/decapsulate', {
          ...sent,
          x25519PrivateKey: keys.x25519PrivateKey,
          mlKemPrivateKey: keys.mlKemPrivateKey,
        }),
        ['sharedSecret', 'algorithm'],
      );
      assert.deepEqual(bySeed, { sharedSecret: sent.sharedSecret, algorithm: 'x25519-ml-kem-768' });
      assert.deepEqual(byParts, bySeed);
      // And the independent implementation agrees.
      assert.equal(
        toHex(ml_kem768_x25519.decapsulate(fromHex(sent.ciphertext ?? ''), fromHex(keys.privateKey ?? ''))),
        sent.sharedSecret,
      );
    }
  });

  test('X-Wing: mixing the two forms, giving part of one, or half a ciphertext is a 400 that says which fields are expected', async () => {
    const keys = withXWingParts(
      ok(await app.inject({ method: 'POST', url: '/v2/pq/hybrid/keygen' }), [
        'publicKey',
        'privateKey',
        'algorithm',
      ]) as {
        publicKey: string;
        privateKey: string;
      },
    );
    const cases: [string, Record<string, unknown>, RegExp, string][] = [
      ['/v2/pq/hybrid/encapsulate', {}, /no key given: give publicKey, or x25519PublicKey and mlKemPublicKey/, '/'],
      [
        '/v2/pq/hybrid/encapsulate',
        { x25519PublicKey: keys.x25519PublicKey },
        /mlKemPublicKey is missing: give publicKey, or x25519PublicKey and mlKemPublicKey/,
        '/mlKemPublicKey',
      ],
      [
        '/v2/pq/hybrid/encapsulate',
        { publicKey: keys.publicKey, mlKemPublicKey: keys.mlKemPublicKey },
        /cannot be mixed: give publicKey, or x25519PublicKey and mlKemPublicKey/,
        '/mlKemPublicKey',
      ],
      [
        '/v2/pq/hybrid/decapsulate',
        { x25519PrivateKey: keys.x25519PrivateKey, ciphertext: hexOf(1120) },
        /mlKemPrivateKey is missing: give privateKey, or x25519PrivateKey and mlKemPrivateKey/,
        '/mlKemPrivateKey',
      ],
      [
        '/v2/pq/hybrid/decapsulate',
        { privateKey: keys.privateKey, ciphertext: hexOf(1120), x25519PrivateKey: keys.x25519PrivateKey },
        /cannot be mixed/,
        '/x25519PrivateKey',
      ],
      [
        '/v2/pq/hybrid/decapsulate',
        { x25519PrivateKey: keys.x25519PrivateKey, mlKemPrivateKey: keys.mlKemPrivateKey, ciphertext: hexOf(1088) },
        /ciphertext must be 1120 bytes/,
        '/ciphertext',
      ],
      ['/v2/pq/hybrid/decapsulate', { ciphertext: hexOf(1120) }, /no key given/, '/'],
    ];
    for (const [url, body, detail, field] of cases) {
      const response = await postJson(app, url, body);
      assert.equal(response.statusCode, 400, `${url} ${JSON.stringify(Object.keys(body))}`);
      assert.equal(response.json().code, 'INVALID_INPUT');
      assert.match(response.json().detail, detail);
      assert.equal(response.json().errors[0].field, field);
    }
    // The four-part form of earlier versions is refused: its fields are unknown.
    const fourParts = await postJson(app, '/v2/pq/hybrid/decapsulate', {
      x25519PrivateKey: keys.x25519PrivateKey,
      mlKemPrivateKey: keys.mlKemPrivateKey,
      x25519EphemeralPublic: hexOf(32),
      mlKemCiphertext: hexOf(1088),
    });
    assert.equal(fourParts.statusCode, 400);
    assert.equal(fourParts.json().code, 'VALIDATION_FAILED');
  });

  test('ML-DSA: keygen, sign and verify with every identifier, with a context and every message encoding', async () => {
    for (const [algorithm, publicKeyBytes, signatureBytes] of [
      ['ml-dsa-44', 1312, 2420],
      ['ml-dsa-65', 1952, 3309],
      ['ml-dsa-87', 2592, 4627],
    ] as const) {
      const keys = ok(await postJson(app, '/v2/pq/dsa/keygen', { algorithm }), [
        'publicKey',
        'privateKey',
        'algorithm',
      ]);
      assert.equal(keys.algorithm, algorithm);
      assert.equal(keys.publicKey?.length, publicKeyBytes * 2);
      assert.equal(keys.privateKey?.length, 64);
      const signed = ok(
        await postJson(app, '/v2/pq/dsa/sign', {
          privateKey: keys.privateKey,
          message: 'héllo',
          algorithm,
          context: 'ctx ✓',
        }),
        ['signature', 'algorithm'],
      );
      assert.equal(signed.algorithm, algorithm);
      assert.equal(signed.signature?.length, signatureBytes * 2);
      const message = Buffer.from('héllo');
      for (const [text, encoding] of [
        ['héllo', undefined],
        ['héllo', 'utf8'],
        [message.toString('base64'), 'base64'],
        [message.toString('hex'), 'hex'],
      ]) {
        // The signature's data whole (its algorithm included), with the public key and the message.
        const verified = ok(
          await postJson(app, '/v2/pq/dsa/verify', {
            ...signed,
            publicKey: keys.publicKey,
            message: text,
            context: 'ctx ✓',
            ...(encoding ? { encoding } : {}),
          }),
          ['valid', 'algorithm'],
        );
        assert.deepEqual(verified, { valid: true, algorithm });
      }
      const noContext = ok(
        await postJson(app, '/v2/pq/dsa/verify', {
          publicKey: keys.publicKey,
          message: 'héllo',
          signature: signed.signature,
        }),
        ['valid', 'algorithm'],
      );
      assert.equal(noContext.valid, false);
      const otherMessage = ok(
        await postJson(app, '/v2/pq/dsa/verify', {
          publicKey: keys.publicKey,
          message: 'hello',
          signature: signed.signature,
          context: 'ctx ✓',
        }),
        ['valid', 'algorithm'],
      );
      assert.equal(otherMessage.valid, false);
    }
  });

  test('ML-DSA: a seed is ml-dsa-65 by default; an expanded key gives its own set; the independent implementation verifies', async () => {
    const seed = hexOf(32, 7);
    const signed = ok(await postJson(app, '/v2/pq/dsa/sign', { privateKey: seed, message: 'm' }), [
      'signature',
      'algorithm',
    ]);
    assert.equal(signed.algorithm, 'ml-dsa-65');
    const { publicKey, secretKey } = ml_dsa44.keygen(fromHex(hexOf(32, 8)));
    const byExpanded = ok(await postJson(app, '/v2/pq/dsa/sign', { privateKey: toHex(secretKey), message: 'm' }), [
      'signature',
      'algorithm',
    ]);
    assert.equal(byExpanded.algorithm, 'ml-dsa-44');
    assert.equal(ml_dsa44.verify(fromHex(byExpanded.signature ?? ''), new TextEncoder().encode('m'), publicKey), true);
    for (const [url, body] of [
      ['/v2/pq/dsa/sign', { privateKey: toHex(secretKey), message: 'm', algorithm: 'ml-dsa-87' }],
      [
        '/v2/pq/dsa/verify',
        { publicKey: toHex(publicKey), message: 'm', signature: byExpanded.signature, algorithm: 'ml-dsa-65' },
      ],
    ] as const) {
      const mismatch = await postJson(app, url, body);
      assert.equal(mismatch.statusCode, 400, url);
      assert.equal(mismatch.json().code, 'INVALID_INPUT', url);
      assert.equal(mismatch.json().errors[0].field, '/algorithm', url);
    }
  });

  for (const prefix of ['/v2/pq/slh-dsa', '/v2/pq/hash-sign']) {
    test(`SLH-DSA under ${prefix}: keygen, sign and verify (slh-dsa-sha2-128f by default), verified independently`, async () => {
      const keys = ok(await postJson(app, `${prefix}/keygen`, {}), ['publicKey', 'privateKey', 'algorithm']);
      assert.equal(keys.algorithm, 'slh-dsa-sha2-128f');
      assert.equal(keys.publicKey?.length, 64);
      assert.equal(keys.privateKey?.length, 128);
      const signed = ok(
        await postJson(app, `${prefix}/sign`, {
          privateKey: keys.privateKey,
          message: 'aGk=',
          encoding: 'base64',
          context: 'c',
        }),
        ['signature', 'algorithm'],
      );
      assert.equal(signed.signature?.length, 17088 * 2);
      assert.equal(
        slh_dsa_sha2_128f.verify(
          fromHex(signed.signature ?? ''),
          new TextEncoder().encode('hi'),
          fromHex(keys.publicKey ?? ''),
          { context: new TextEncoder().encode('c') },
        ),
        true,
      );
      const verified = ok(
        await postJson(app, `${prefix}/verify`, {
          ...signed,
          publicKey: keys.publicKey,
          message: 'hi',
          context: 'c',
        }),
        ['valid', 'algorithm'],
      );
      assert.deepEqual(verified, { valid: true, algorithm: 'slh-dsa-sha2-128f' });
      const wrong = ok(
        await postJson(app, `${prefix}/verify`, {
          publicKey: keys.publicKey,
          message: 'hi',
          signature: signed.signature,
          context: 'd',
        }),
        ['valid', 'algorithm'],
      );
      assert.equal(wrong.valid, false);
    });
  }

  test('SLH-DSA: algorithm picks the parameter set (keygen of every f set); the short names are refused', async () => {
    for (const [algorithm, n] of [
      ['slh-dsa-sha2-192f', 24],
      ['slh-dsa-sha2-256f', 32],
      ['slh-dsa-shake-128f', 16],
      ['slh-dsa-shake-192f', 24],
      ['slh-dsa-shake-256f', 32],
    ] as const) {
      const keys = ok(await postJson(app, '/v2/pq/slh-dsa/keygen', { algorithm }), [
        'publicKey',
        'privateKey',
        'algorithm',
      ]);
      assert.equal(keys.algorithm, algorithm);
      assert.equal(keys.publicKey?.length, 4 * n);
      assert.equal(keys.privateKey?.length, 8 * n);
    }
    for (const body of [{ algorithm: 'shake-128f' }, { variant: 'shake-128f' }]) {
      const refused = await postJson(app, '/v2/pq/slh-dsa/keygen', body);
      assert.equal(refused.statusCode, 400, JSON.stringify(body));
    }
  });

  test('wrong inputs of every kind are 4xx problems that name the field, never a 5xx', async () => {
    const kem = ok(await postJson(app, '/v2/pq/keygen', {}), ['publicKey', 'privateKey', 'algorithm']);
    const xw = withXWingParts(
      ok(await app.inject({ method: 'POST', url: '/v2/pq/hybrid/keygen' }), [
        'publicKey',
        'privateKey',
        'algorithm',
      ]) as {
        publicKey: string;
        privateKey: string;
      },
    );
    const dsa = ok(await postJson(app, '/v2/pq/dsa/keygen', { algorithm: 'ml-dsa-44' }), [
      'publicKey',
      'privateKey',
      'algorithm',
    ]);
    const dsaSig = ok(
      await postJson(app, '/v2/pq/dsa/sign', { privateKey: dsa.privateKey, message: 'm', algorithm: 'ml-dsa-44' }),
      ['signature', 'algorithm'],
    ).signature;
    const slh = ok(await postJson(app, '/v2/pq/slh-dsa/keygen', {}), ['publicKey', 'privateKey', 'algorithm']);
    const unreduced = `ffff${kem.publicKey?.slice(4)}`;
    const longContext = 'x'.repeat(256);
    const wideContext = 'é'.repeat(200); // 200 characters, 400 bytes of UTF-8
    // [url, body, the field the problem names (undefined: any)]
    const cases: [string, unknown, string | undefined][] = [
      ['/v2/pq/keygen', { algorithm: 'ml-kem-100' }, '/algorithm'],
      ['/v2/pq/keygen', { algorithm: '768' }, '/algorithm'],
      ['/v2/pq/keygen', { algorithm: 768 }, '/algorithm'],
      ['/v2/pq/keygen', { algorithm: 'ml-dsa-65' }, '/algorithm'],
      ['/v2/pq/keygen', { level: 768 }, '/level'],
      ['/v2/pq/keygen', { algorithm: 'ml-kem-768', extra: true }, '/extra'],
      ['/v2/pq/keygen', [], undefined],
      ['/v2/pq/keygen', null, undefined],
      ['/v2/pq/encapsulate', {}, '/publicKey'],
      ['/v2/pq/encapsulate', { publicKey: 5 }, '/publicKey'],
      ['/v2/pq/encapsulate', { publicKey: 'zz' }, '/publicKey'],
      ['/v2/pq/encapsulate', { publicKey: 'abc' }, '/publicKey'],
      ['/v2/pq/encapsulate', { publicKey: '' }, '/publicKey'],
      ['/v2/pq/encapsulate', { publicKey: hexOf(799) }, '/publicKey'],
      ['/v2/pq/encapsulate', { publicKey: hexOf(1185) }, '/publicKey'],
      ['/v2/pq/encapsulate', { publicKey: unreduced }, '/publicKey'],
      ['/v2/pq/decapsulate', { privateKey: kem.privateKey }, '/ciphertext'],
      ['/v2/pq/decapsulate', { privateKey: hexOf(63), ciphertext: hexOf(1088) }, '/privateKey'],
      ['/v2/pq/decapsulate', { privateKey: hexOf(2399), ciphertext: hexOf(1088) }, '/privateKey'],
      ['/v2/pq/decapsulate', { privateKey: kem.privateKey, ciphertext: hexOf(1087) }, '/ciphertext'],
      ['/v2/pq/decapsulate', { privateKey: kem.privateKey, ciphertext: hexOf(768) }, '/ciphertext'],
      [
        '/v2/pq/decapsulate',
        { privateKey: kem.privateKey, ciphertext: hexOf(1088), algorithm: 'ml-kem-999' },
        '/algorithm',
      ],
      [
        '/v2/pq/decapsulate',
        { privateKey: hexOf(1632), ciphertext: hexOf(768), algorithm: 'ml-kem-768' },
        '/algorithm',
      ],
      ['/v2/pq/decapsulate', { privateKey: kem.privateKey, ciphertext: hexOf(1088), level: 768 }, '/level'],
      ['/v2/pq/decapsulate', { secretKey: kem.privateKey, ciphertext: hexOf(1088) }, '/secretKey'],
      ['/v2/pq/decapsulate', { privateKey: hexOf(2400), ciphertext: hexOf(1088) }, '/privateKey'],
      ['/v2/pq/decapsulate', { privateKey: kem.privateKey, ciphertext: 'g0' }, '/ciphertext'],
      ['/v2/pq/hybrid/keygen', { seed: hexOf(32) }, '/seed'],
      ['/v2/pq/hybrid/encapsulate', { publicKey: hexOf(1215) }, '/publicKey'],
      ['/v2/pq/hybrid/encapsulate', { publicKey: `${xw.mlKemPublicKey}${hexOf(32)}` }, '/publicKey'],
      [
        '/v2/pq/hybrid/encapsulate',
        { x25519PublicKey: hexOf(31), mlKemPublicKey: xw.mlKemPublicKey },
        '/x25519PublicKey',
      ],
      [
        '/v2/pq/hybrid/encapsulate',
        { x25519PublicKey: hexOf(32), mlKemPublicKey: xw.mlKemPublicKey },
        '/x25519PublicKey',
      ],
      [
        '/v2/pq/hybrid/encapsulate',
        { x25519PublicKey: xw.x25519PublicKey, mlKemPublicKey: unreduced },
        '/mlKemPublicKey',
      ],
      [
        '/v2/pq/hybrid/encapsulate',
        { x25519PublicKey: xw.x25519PublicKey, mlKemPublicKey: kem.publicKey?.slice(2) },
        '/mlKemPublicKey',
      ],
      ['/v2/pq/hybrid/encapsulate', { publicKey: xw.publicKey, extra: 1 }, '/extra'],
      ['/v2/pq/hybrid/decapsulate', { privateKey: hexOf(31), ciphertext: hexOf(1120) }, '/privateKey'],
      ['/v2/pq/hybrid/decapsulate', { privateKey: xw.privateKey }, '/ciphertext'],
      ['/v2/pq/hybrid/decapsulate', { privateKey: xw.privateKey, ciphertext: hexOf(1119) }, '/ciphertext'],
      ['/v2/pq/hybrid/decapsulate', { privateKey: xw.privateKey, ciphertext: hexOf(1120) }, '/ciphertext'],
      [
        '/v2/pq/hybrid/decapsulate',
        { x25519PrivateKey: xw.x25519PrivateKey, mlKemPrivateKey: hexOf(63), ciphertext: hexOf(1120) },
        '/mlKemPrivateKey',
      ],
      [
        '/v2/pq/hybrid/decapsulate',
        { x25519PrivateKey: hexOf(33), mlKemPrivateKey: xw.mlKemPrivateKey, ciphertext: hexOf(1120) },
        '/x25519PrivateKey',
      ],
      [
        '/v2/pq/hybrid/decapsulate',
        { x25519PrivateKey: xw.x25519PrivateKey, mlKemPrivateKey: xw.mlKemPrivateKey, ciphertext: hexOf(1120) },
        '/ciphertext',
      ],
      [
        '/v2/pq/hybrid/decapsulate',
        { x25519PrivateKey: xw.x25519PrivateKey, mlKemPrivateKey: xw.mlKemPrivateKey, ciphertext: hexOf(1088) },
        '/ciphertext',
      ],
      [
        '/v2/pq/hybrid/decapsulate',
        { x25519PrivateKey: 'xyz', mlKemPrivateKey: xw.mlKemPrivateKey, ciphertext: hexOf(1120) },
        '/x25519PrivateKey',
      ],
      [
        '/v2/pq/hybrid/decapsulate',
        { x25519PrivateKey: xw.x25519PrivateKey, mlKemSecretKey: xw.mlKemPrivateKey, ciphertext: hexOf(1120) },
        '/mlKemSecretKey',
      ],
      ['/v2/pq/dsa/keygen', { algorithm: 'ml-dsa-50' }, '/algorithm'],
      ['/v2/pq/dsa/keygen', { algorithm: '65' }, '/algorithm'],
      ['/v2/pq/dsa/keygen', { level: 65 }, '/level'],
      ['/v2/pq/dsa/sign', { privateKey: dsa.privateKey }, '/message'],
      ['/v2/pq/dsa/sign', { privateKey: hexOf(31), message: 'm' }, '/privateKey'],
      ['/v2/pq/dsa/sign', { privateKey: hexOf(4033), message: 'm' }, '/privateKey'],
      ['/v2/pq/dsa/sign', { privateKey: dsa.privateKey, message: 42 }, '/message'],
      ['/v2/pq/dsa/sign', { privateKey: dsa.privateKey, message: 'm', encoding: 'latin1' }, '/encoding'],
      ['/v2/pq/dsa/sign', { privateKey: dsa.privateKey, message: 'not base64!', encoding: 'base64' }, '/message'],
      ['/v2/pq/dsa/sign', { privateKey: dsa.privateKey, message: 'm', context: longContext }, '/context'],
      ['/v2/pq/dsa/sign', { privateKey: dsa.privateKey, message: 'm', context: wideContext }, '/context'],
      ['/v2/pq/dsa/sign', { privateKey: dsa.privateKey, message: 'm', context: 7 }, '/context'],
      ['/v2/pq/dsa/sign', { privateKey: hexOf(2560), message: 'm', algorithm: 'ml-dsa-65' }, '/algorithm'],
      ['/v2/pq/dsa/sign', { privateKey: hexOf(2560), message: 'm' }, '/privateKey'],
      ['/v2/pq/dsa/verify', { publicKey: dsa.publicKey, message: 'm', signature: dsaSig?.slice(2) }, '/signature'],
      ['/v2/pq/dsa/verify', { publicKey: dsa.publicKey?.slice(2), message: 'm', signature: dsaSig }, '/publicKey'],
      [
        '/v2/pq/dsa/verify',
        { publicKey: dsa.publicKey, message: 'm', signature: dsaSig, algorithm: 'ml-dsa-87' },
        '/algorithm',
      ],
      [
        '/v2/pq/dsa/verify',
        { publicKey: dsa.publicKey, message: 'm', signature: dsaSig, context: wideContext },
        '/context',
      ],
      ['/v2/pq/dsa/verify', { publicKey: dsa.publicKey, message: 'm' }, '/signature'],
      ['/v2/pq/slh-dsa/keygen', { algorithm: 'slh-dsa-sha2-128x' }, '/algorithm'],
      ['/v2/pq/slh-dsa/keygen', { algorithm: 5 }, '/algorithm'],
      ['/v2/pq/slh-dsa/keygen', { algorithm: 'sha2-128f' }, '/algorithm'],
      ['/v2/pq/slh-dsa/keygen', { variant: 'sha2-128f' }, '/variant'],
      ['/v2/pq/slh-dsa/sign', { privateKey: hexOf(63), message: 'm' }, '/privateKey'],
      [
        '/v2/pq/slh-dsa/sign',
        { privateKey: slh.privateKey, message: 'm', algorithm: 'slh-dsa-sha2-192f' },
        '/privateKey',
      ],
      ['/v2/pq/slh-dsa/sign', { privateKey: slh.privateKey, message: 'm', context: wideContext }, '/context'],
      ['/v2/pq/slh-dsa/sign', { privateKey: slh.privateKey, message: 'm', level: 65 }, '/level'],
      ['/v2/pq/slh-dsa/verify', { publicKey: slh.publicKey, message: 'm', signature: hexOf(17087) }, '/signature'],
      ['/v2/pq/slh-dsa/verify', { publicKey: hexOf(31), message: 'm', signature: hexOf(17088) }, '/publicKey'],
      [
        '/v2/pq/slh-dsa/verify',
        { publicKey: slh.publicKey, message: 'm', signature: hexOf(17088), context: longContext },
        '/context',
      ],
      ['/v2/pq/hash-sign/keygen', { level: 44 }, '/level'],
      ['/v2/pq/hash-sign/sign', { privateKey: slh.privateKey }, '/message'],
      ['/v2/pq/hash-sign/verify', { publicKey: slh.publicKey, message: 'm', signature: hexOf(7856) }, '/signature'],
    ];
    for (const [url, body, field] of cases) {
      const label = `${url} ${JSON.stringify(body)?.slice(0, 120)}`;
      const response = await postJson(app, url, body);
      assert.ok(
        response.statusCode >= 400 && response.statusCode < 500,
        `${label}: ${response.statusCode} ${response.body.slice(0, 200)}`,
      );
      assert.equal(response.statusCode, 400, label);
      assert.match(String(response.headers['content-type']), /^application\/problem\+json/, label);
      const problem = response.json();
      assert.equal(problem.status, 400, label);
      assert.ok(
        ['VALIDATION_FAILED', 'INVALID_INPUT', 'UNSUPPORTED_ALGORITHM', 'MALFORMED_JSON'].includes(problem.code),
        `${label}: ${problem.code}`,
      );
      if (field !== undefined) assert.equal(problem.errors?.[0]?.field, field, `${label}: ${problem.detail}`);
    }
    // Not JSON at all.
    const text = await app.inject({
      method: 'POST',
      url: '/v2/pq/dsa/sign',
      payload: 'privateKey=00',
      headers: { 'content-type': 'text/plain' },
    });
    assert.equal(text.statusCode, 415);
  });

  test('every route needs the crypto:pq scope', async (t) => {
    const secured = await testApp({ JWT_SECRET: TEST_JWT_SECRET });
    t.after(() => secured.close());
    const secret = new TextEncoder().encode(TEST_JWT_SECRET);
    const token = (scope: string) =>
      new SignJWT({ scope }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('5m').sign(secret);
    const hashOnly = await token('crypto:hash');
    const pq = await token('crypto:pq');
    for (const url of [
      '/v2/pq/keygen',
      '/v2/pq/hybrid/keygen',
      '/v2/pq/dsa/keygen',
      '/v2/pq/slh-dsa/keygen',
      '/v2/pq/hash-sign/keygen',
    ]) {
      const refused = await postJson(secured, url, {}, { authorization: `Bearer ${hashOnly}` });
      assert.equal(refused.statusCode, 403, url);
      const allowed = await postJson(secured, url, {}, { authorization: `Bearer ${pq}` });
      assert.equal(allowed.statusCode, 200, url);
    }
  });

  test('SLH-DSA signing and key generation cost the units of their parameter set; verification 1', async (t) => {
    const limited = await testApp({ RATE_LIMIT_MAX: '1000' });
    t.after(() => limited.close());
    const remaining = (response: { headers: Record<string, unknown> }) =>
      Number(/;r=(\d+);/.exec(String(response.headers.ratelimit))?.[1]);
    const keygen = await postJson(limited, '/v2/pq/slh-dsa/keygen', { algorithm: 'slh-dsa-sha2-128s' });
    let expected = 1000 - keyGenerationCost('slh-dsa-sha2-128s');
    assert.equal(remaining(keygen), expected);
    const sign = await postJson(limited, '/v2/pq/hash-sign/sign', {
      privateKey: keygen.json().data.privateKey,
      message: 'm',
      algorithm: 'slh-dsa-sha2-128s',
    });
    assert.equal(remaining(sign), (expected -= signingCost('slh-dsa-sha2-128s')));
    const verify = await postJson(limited, '/v2/pq/slh-dsa/verify', {
      publicKey: keygen.json().data.publicKey,
      message: 'm',
      signature: sign.json().data.signature,
      algorithm: 'slh-dsa-sha2-128s',
    });
    assert.equal(remaining(verify), expected - 1);
    // The small ('s') sets hash far more than the fast ('f') ones, and are priced so.
    assert.ok(signingCost('slh-dsa-sha2-128s') >= 5 * signingCost('slh-dsa-sha2-128f'));
    assert.ok(keyGenerationCost('slh-dsa-sha2-128s') > keyGenerationCost('slh-dsa-sha2-128f'));
  });

  test('the app carries its offload: inline where node:crypto has ML-DSA and SLH-DSA, worker threads otherwise', () => {
    assert.ok(app.pqOffload instanceof PqOffload);
    assert.equal(app.pqOffload.mode, PQ_NATIVE_SUPPORT.mlDsa && PQ_NATIVE_SUPPORT.slhDsa ? 'inline' : 'worker');
    assert.equal(app.pqOffload.queueOptions.refusalDelayMs, 25, 'BUSY_REFUSAL_DELAY_MS, by default');
    // The code detects the API by trying it; this pins what that must find on the two runtimes the
    // project supports, so that a broken probe cannot silently send Node 24 to the slow backend.
    const major = Number(process.versions.node.split('.')[0]);
    assert.deepEqual(
      PQ_NATIVE_SUPPORT,
      major >= 24 ? { mlKem: true, mlDsa: true, slhDsa: true } : { mlKem: false, mlDsa: false, slhDsa: false },
    );
  });

  test('the OpenAPI document lists every post-quantum route under the post-quantum tag', async () => {
    const document = (await app.inject({ method: 'GET', url: '/docs/json' })).json();
    const routes = [
      '/v2/pq/keygen',
      '/v2/pq/encapsulate',
      '/v2/pq/decapsulate',
      '/v2/pq/hybrid/keygen',
      '/v2/pq/hybrid/encapsulate',
      '/v2/pq/hybrid/decapsulate',
      '/v2/pq/dsa/keygen',
      '/v2/pq/dsa/sign',
      '/v2/pq/dsa/verify',
      '/v2/pq/slh-dsa/keygen',
      '/v2/pq/slh-dsa/sign',
      '/v2/pq/slh-dsa/verify',
      '/v2/pq/hash-sign/keygen',
      '/v2/pq/hash-sign/sign',
      '/v2/pq/hash-sign/verify',
    ];
    for (const route of routes) {
      const operation = document.paths[route]?.post;
      assert.ok(operation, route);
      assert.deepEqual(operation.tags, ['post-quantum'], route);
      assert.ok(operation.responses['200'], route);
    }
    const algorithms =
      document.paths['/v2/pq/slh-dsa/sign'].post.requestBody.content['application/json'].schema.properties.algorithm
        .enum;
    assert.equal(algorithms.length, 12);
    assert.ok(algorithms.every((id: string) => id.startsWith('slh-dsa-')));
  });
});

/** A minimal app around the routes with a given offload, with the service's error handling. */
async function appWith(offload: PqOffload): Promise<FastifyInstance> {
  const app = Fastify({
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: true, allErrors: false } },
  });
  app.setErrorHandler(handleError);
  await app.register(metrics);
  await app.register(jsonBody);
  await app.register(pqOffloadPlugin, { offload });
  await app.register(handlerTimeout, { timeoutMs: 60_000 });
  await app.register(pqRoutes);
  await app.ready();
  return app;
}

describe('post-quantum offload', () => {
  test('worker mode: a full queue refuses at once with a 503 ApiError; accepted jobs complete correctly', async (t) => {
    const offload = new PqOffload({ mode: 'worker', workers: 1, maxQueued: 1 });
    t.after(() => offload.close());
    const keys = ml_dsa44.keygen(new Uint8Array(32).fill(1));
    const message = new TextEncoder().encode('queued');
    const first = offload.run('ml-dsa.sign', new Uint8Array(32).fill(1), message, { algorithm: 'ml-dsa-44' });
    const second = offload.run('ml-dsa.sign', new Uint8Array(32).fill(1), message, { algorithm: 'ml-dsa-44' });
    assert.equal(offload.running, 1);
    assert.equal(offload.queued, 1);
    await assert.rejects(
      offload.run('ml-dsa.sign', new Uint8Array(32).fill(1), message, { algorithm: 'ml-dsa-44' }),
      (error: unknown) => {
        assert.ok(error instanceof ApiError);
        assert.equal(error.code, 'SERVICE_UNAVAILABLE');
        assert.equal(error.headers['retry-after'], '1');
        return true;
      },
    );
    assert.equal(offload.rejected, 1);
    // ML-KEM is never queued: it runs on the event loop whatever the queue holds.
    const kem = await offload.run('ml-kem.keygen', 'ml-kem-512');
    assert.equal(kem.algorithm, 'ml-kem-512');
    for (const result of await Promise.all([first, second])) {
      assert.equal(result.algorithm, 'ml-dsa-44');
      assert.equal(ml_dsa44.verify(result.signature, message, keys.publicKey), true);
    }
    assert.equal(offload.running, 0);
    assert.equal(offload.queued, 0);
  });

  test('worker mode: a CryptoError raised in the worker comes back as one, with its field', async (t) => {
    const offload = new PqOffload({ mode: 'worker', workers: 1 });
    t.after(() => offload.close());
    await assert.rejects(offload.run('slh-dsa.sign', new Uint8Array(10), new Uint8Array(1)), (error: unknown) => {
      assert.ok(error instanceof CryptoError);
      assert.equal(error.code, 'INVALID_INPUT');
      assert.equal(error.field, '/privateKey');
      return true;
    });
    const app = await appWith(offload);
    t.after(() => app.close());
    const refused = await postJson(app, '/v2/pq/dsa/sign', { privateKey: '00', message: 'm' });
    assert.equal(refused.statusCode, 400);
    assert.equal(refused.json().errors[0].field, '/privateKey');
    const signed = await postJson(app, '/v2/pq/dsa/sign', {
      privateKey: '01'.repeat(32),
      message: 'm',
      algorithm: 'ml-dsa-44',
    });
    assert.equal(signed.statusCode, 200);
    const keys = ml_dsa44.keygen(new Uint8Array(32).fill(1));
    assert.equal(
      ml_dsa44.verify(fromHex(signed.json().data.signature), new TextEncoder().encode('m'), keys.publicKey),
      true,
    );
  });

  test('worker mode: closing fails the jobs still running or waiting', async () => {
    const offload = new PqOffload({ mode: 'worker', workers: 1, maxQueued: 1 });
    const running = assert.rejects(offload.run('ml-dsa.keygen', 'ml-dsa-44'), /closed/);
    const waiting = assert.rejects(offload.run('ml-dsa.keygen', 'ml-dsa-44'), /closed/);
    await offload.close();
    await running;
    await waiting;
  });

  test('inline mode: a full queue is a 503 problem with Retry-After, sent after the refusal delay, counted as unavailable', async (t) => {
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const offload = new PqOffload({
      mode: 'inline',
      maxConcurrentHeavy: 1,
      maxQueued: 1,
      refusalDelayMs: 150,
      // Signatures wait for the gate; everything else runs at once.
      execute: async (name, args) => {
        if (name === 'slh-dsa.sign') await gate;
        return runPqJob(name, args as never);
      },
    });
    const app = await appWith(offload);
    t.after(() => app.close());
    const { secretKey, publicKey } = slh_dsa_sha2_128f.keygen(new Uint8Array(48).fill(2));
    const body = { privateKey: toHex(secretKey), message: 'm' };
    const first = postJson(app, '/v2/pq/slh-dsa/sign', body);
    await until(() => offload.running === 1);
    const second = postJson(app, '/v2/pq/hash-sign/sign', body);
    await until(() => offload.queued === 1);
    const refusedAt = performance.now();
    const refused = await postJson(app, '/v2/pq/slh-dsa/sign', body);
    // A lower bound only (a timer never fires early; libuv's cached clock may make it look 1 ms early).
    assert.ok(performance.now() - refusedAt >= 148, 'held back for refusalDelayMs');
    assert.equal(refused.statusCode, 503);
    assert.equal(refused.headers['retry-after'], '1');
    assert.match(String(refused.headers['content-type']), /^application\/problem\+json/);
    assert.equal(refused.json().code, 'SERVICE_UNAVAILABLE');
    // Verification is not in the bounded class: it runs while the queue is full.
    const verify = await postJson(app, '/v2/pq/slh-dsa/verify', {
      publicKey: toHex(publicKey),
      message: 'm',
      signature: hexOf(17088),
    });
    assert.equal(verify.statusCode, 200);
    open();
    for (const response of await Promise.all([first, second])) {
      assert.equal(response.statusCode, 200);
      assert.equal(
        slh_dsa_sha2_128f.verify(fromHex(response.json().data.signature), new TextEncoder().encode('m'), publicKey),
        true,
      );
    }
    const exposition = await app.metricsRegistry.metrics();
    assert.match(
      exposition,
      /crypto_operations_total\{operation="slh-dsa.sign",algorithm="slh-dsa-sha2-128f",outcome="success"\} 2/,
    );
    assert.match(
      exposition,
      /crypto_operations_total\{operation="slh-dsa.sign",algorithm="slh-dsa-sha2-128f",outcome="unavailable"\} 1/,
    );
    assert.doesNotMatch(exposition, /operation="slh-dsa.sign"[^}]*outcome="error"/);
    assert.match(exposition, /crypto_pq_queue_rejected_total 1/);
    assert.match(exposition, /crypto_pq_queue_jobs\{state="waiting"\} 0/);
  });
});
