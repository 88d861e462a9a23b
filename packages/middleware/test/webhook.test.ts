import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, test } from 'node:test';
import { ed25519 } from '@noble/curves/ed25519.js';
import { CryptoClient, CryptoNetworkError } from '@crypto-service/client';
import { useCryptoService } from '@crypto-service/testing/node-test';
import {
  createWebhookVerifier,
  memoryReplayCache,
  parseSignatureHeader,
  signWebhook,
} from '@crypto-service/middleware';

const service = useCryptoService();
const body = '{"event":"payment.succeeded","amount":4200}';
const now = (): number => Math.floor(Date.now() / 1000);

function nodeHmac(secretHex: string, timestamp: number, payload: string): string {
  return createHmac('sha256', Buffer.from(secretHex, 'hex')).update(`${timestamp}.${payload}`).digest('hex');
}

function nobleSign(privateKeyHex: string, timestamp: number, payload: string): string {
  return Buffer.from(ed25519.sign(Buffer.from(`${timestamp}.${payload}`), Buffer.from(privateKeyHex, 'hex'))).toString(
    'hex',
  );
}

describe('signWebhook', () => {
  test('HMAC-SHA-256 signatures are node:crypto HMAC over "t." and the body', async () => {
    const secret = service.fixtures.hmac.key;
    const header = await signWebhook(body, { algorithm: 'hmac-sha256', secret, timestamp: 1_700_000_000 });
    assert.equal(header, `t=1700000000,v1=${nodeHmac(secret, 1_700_000_000, body)}`);
  });

  test('Ed25519 signatures verify with @noble/curves and match its deterministic signature', async () => {
    const { privateKey, publicKey } = service.fixtures.ed25519;
    const header = await signWebhook(Buffer.from(body), { algorithm: 'ed25519', privateKey, timestamp: 1_700_000_000 });
    const signature = parseSignatureHeader(header)!.signatures[0]!;
    assert.equal(signature, nobleSign(privateKey, 1_700_000_000, body));
    assert.ok(
      ed25519.verify(Buffer.from(signature, 'hex'), Buffer.from(`1700000000.${body}`), Buffer.from(publicKey, 'hex')),
    );
  });

  test('several keys give several v1 values, one per key, in order', async () => {
    const old = 'aa'.repeat(32);
    const header = await signWebhook(body, {
      algorithm: 'hmac-sha256',
      secret: [old, service.fixtures.hmac.key],
      timestamp: 5,
    });
    assert.deepEqual(parseSignatureHeader(header)!.signatures, [
      nodeHmac(old, 5, body),
      nodeHmac(service.fixtures.hmac.key, 5, body),
    ]);
  });
});

describe('createWebhookVerifier', () => {
  const modes = [
    { name: 'locally', client: () => undefined },
    { name: 'through the service', client: () => service.client },
  ];
  for (const mode of modes) {
    describe(mode.name, () => {
      test('accepts an HMAC signed by node:crypto and an Ed25519 signature signed by @noble/curves', async () => {
        const t = now();
        const hmac = createWebhookVerifier({
          algorithm: 'hmac-sha256',
          secret: service.fixtures.hmac.key,
          client: mode.client(),
        });
        assert.deepEqual(await hmac.verify(body, `t=${t},v1=${nodeHmac(service.fixtures.hmac.key, t, body)}`), {
          ok: true,
          timestamp: t,
        });
        const { privateKey, publicKey } = service.fixtures.ed25519;
        const signed = createWebhookVerifier({ algorithm: 'ed25519', publicKey, client: mode.client() });
        assert.deepEqual(await signed.verify(body, `t=${t},v1=${nobleSign(privateKey, t, body)}`), {
          ok: true,
          timestamp: t,
        });
      });

      test('refuses a tampered body, a wrong key, an expired or future timestamp, a replay', async () => {
        const secret = service.fixtures.hmac.key;
        const verifier = createWebhookVerifier({ algorithm: 'hmac-sha256', secret, client: mode.client() });
        const t = now();
        const header = `t=${t},v1=${nodeHmac(secret, t, body)}`;
        assert.deepEqual(await verifier.verify(body.replace('4200', '4201'), header), {
          ok: false,
          reason: 'invalid-signature',
        });
        assert.deepEqual(await verifier.verify(body, `t=${t},v1=${nodeHmac('bb'.repeat(32), t, body)}`), {
          ok: false,
          reason: 'invalid-signature',
        });
        assert.deepEqual(await verifier.verify(body, `t=${t + 1},v1=${nodeHmac(secret, t, body)}`), {
          ok: false,
          reason: 'invalid-signature',
        });
        const old = t - 301;
        assert.deepEqual(await verifier.verify(body, `t=${old},v1=${nodeHmac(secret, old, body)}`), {
          ok: false,
          reason: 'expired',
        });
        // A margin, so that the clock ticking during the test cannot bring it into the window.
        const future = t + 360;
        assert.deepEqual(await verifier.verify(body, `t=${future},v1=${nodeHmac(secret, future, body)}`), {
          ok: false,
          reason: 'expired',
        });
        assert.equal((await verifier.verify(body, header)).ok, true);
        assert.deepEqual(await verifier.verify(body, header), { ok: false, reason: 'replayed' });
      });

      test('an Ed25519 signature by another key or over another body is refused', async () => {
        const { privateKey, publicKey } = service.fixtures.ed25519;
        const verifier = createWebhookVerifier({ algorithm: 'ed25519', publicKey, client: mode.client() });
        const t = now();
        const other = Buffer.from(ed25519.utils.randomSecretKey()).toString('hex');
        assert.deepEqual(await verifier.verify(body, `t=${t},v1=${nobleSign(other, t, body)}`), {
          ok: false,
          reason: 'invalid-signature',
        });
        assert.deepEqual(await verifier.verify(`${body} `, `t=${t},v1=${nobleSign(privateKey, t, body)}`), {
          ok: false,
          reason: 'invalid-signature',
        });
      });

      test('rotation: any v1 value may match any configured key', async () => {
        const retired = 'cc'.repeat(32);
        const current = service.fixtures.hmac.key;
        const t = now();
        const verifier = createWebhookVerifier({
          algorithm: 'hmac-sha256',
          secret: [retired, current],
          client: mode.client(),
        });
        const header = `t=${t},v1=${nodeHmac('dd'.repeat(32), t, body)},v1=${nodeHmac(current, t, body)}`;
        assert.deepEqual(await verifier.verify(body, header), { ok: true, timestamp: t });
        const withRetired = `t=${t},v1=${nodeHmac(retired, t, body)}`;
        assert.deepEqual(await verifier.verify(body, withRetired), { ok: true, timestamp: t });
      });
    });
  }

  test('missing and malformed headers', async () => {
    const verifier = createWebhookVerifier({ algorithm: 'hmac-sha256', secret: service.fixtures.hmac.key });
    const t = now();
    const v1 = nodeHmac(service.fixtures.hmac.key, t, body);
    assert.deepEqual(await verifier.verify(body, undefined), { ok: false, reason: 'missing-header' });
    assert.deepEqual(await verifier.verify(body, ''), { ok: false, reason: 'missing-header' });
    for (const header of [
      `v1=${v1}`,
      `t=${t}`,
      `t=abc,v1=${v1}`,
      `t=${t},v1=xyz`,
      `t=${t},t=${t},v1=${v1}`,
      'garbage',
    ]) {
      assert.deepEqual(await verifier.verify(body, header), { ok: false, reason: 'malformed-header' }, header);
    }
    const many = `t=${t},` + Array.from({ length: 9 }, () => `v1=${v1}`).join(',');
    assert.deepEqual(await verifier.verify(body, many), { ok: false, reason: 'malformed-header' });
    assert.deepEqual(await verifier.verify(body, `t=${t}, v0=ignored , v1=${v1.toUpperCase()}`), {
      ok: true,
      timestamp: t,
    });
  });

  test('the replay cache can be shared or turned off', async () => {
    const secret = service.fixtures.hmac.key;
    const t = now();
    const header = `t=${t},v1=${nodeHmac(secret, t, body)}`;
    const shared = memoryReplayCache();
    const first = createWebhookVerifier({ algorithm: 'hmac-sha256', secret, replayCache: shared });
    const second = createWebhookVerifier({ algorithm: 'hmac-sha256', secret, replayCache: shared });
    assert.equal((await first.verify(body, header)).ok, true);
    assert.deepEqual(await second.verify(body, header), { ok: false, reason: 'replayed' });
    const forgetful = createWebhookVerifier({ algorithm: 'hmac-sha256', secret, replayCache: false });
    assert.equal((await forgetful.verify(body, header)).ok, true);
    assert.equal((await forgetful.verify(body, header)).ok, true);
  });

  test('a narrower window and the exact bytes of a binary body', async () => {
    const secret = service.fixtures.hmac.key;
    const verifier = createWebhookVerifier({ algorithm: 'hmac-sha256', secret, toleranceSeconds: 10 });
    const t = now() - 11;
    const binary = new Uint8Array([0, 255, 128, 10, 13]);
    const v1 = createHmac('sha256', Buffer.from(secret, 'hex'))
      .update(Buffer.concat([Buffer.from(`${t}.`), binary]))
      .digest('hex');
    assert.deepEqual(await verifier.verify(binary, `t=${t},v1=${v1}`), { ok: false, reason: 'expired' });
    const fresh = await signWebhook(binary, { algorithm: 'hmac-sha256', secret });
    assert.equal((await verifier.verify(binary.buffer, fresh)).ok, true);
  });

  test('a verification the service cannot answer rejects: it is never an acceptance', async () => {
    const unreachable = new CryptoClient({ baseUrl: 'http://127.0.0.1:9', retry: false });
    const secret = service.fixtures.hmac.key;
    const verifier = createWebhookVerifier({ algorithm: 'hmac-sha256', secret, client: unreachable });
    const t = now();
    await assert.rejects(verifier.verify(body, `t=${t},v1=${nodeHmac(secret, t, body)}`), CryptoNetworkError);
  });

  test('a key that is not hex is refused when the verifier is made', () => {
    assert.throws(
      () => createWebhookVerifier({ algorithm: 'hmac-sha256', secret: 'not hex' }),
      /secret must be non-empty hex/,
    );
    assert.throws(() => createWebhookVerifier({ algorithm: 'ed25519', publicKey: [] }), /at least one key/);
    assert.throws(() => createWebhookVerifier({ algorithm: 'ed25519', publicKey: 'aa' }), /32 bytes/);
    assert.throws(
      () => createWebhookVerifier({ algorithm: 'ed25519', publicKey: 'aa'.repeat(32), toleranceSeconds: 0 }),
      /toleranceSeconds/,
    );
  });
});
