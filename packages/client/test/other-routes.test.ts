/**
 * The client's methods for the routes beyond the main operations: ML-KEM, SLH-DSA
 * under its own path, the post-quantum sealed box, multi-recipient encryption and the probes.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CryptoClient } from '@crypto-service/client';
import { startService, type Service } from './helpers.ts';

describe('the other routes, against the real service', () => {
  let service: Service;
  let client: CryptoClient;
  before(async () => {
    service = await startService();
    client = new CryptoClient({ baseUrl: service.baseUrl });
  });
  after(() => service.close());

  test('mlKemKeygen then mlKemEncapsulate then mlKemDecapsulate', async () => {
    const { data: pair } = await client.mlKemKeygen({ level: 512 });
    assert.equal(pair.algorithm, 'ml-kem-512');
    const { data: sent } = await client.mlKemEncapsulate({ publicKey: pair.publicKey });
    const { data: received } = await client.mlKemDecapsulate({
      secretKey: pair.secretKey,
      ciphertext: sent.ciphertext,
      level: 512,
    });
    assert.equal(received.sharedSecret, sent.sharedSecret);
  });

  test('slhDsaKeygen then slhDsaSign then slhDsaVerify, interchangeable with the hash-sign methods', async () => {
    const { data: pair } = await client.slhDsaKeygen({ variant: 'shake-128f' });
    assert.equal(pair.algorithm, 'slh-dsa-shake-128f');
    const { data: signed } = await client.slhDsaSign({
      secretKey: pair.secretKey,
      message: 'm',
      variant: 'shake-128f',
    });
    assert.equal(
      (
        await client.slhDsaVerify({
          publicKey: pair.publicKey,
          message: 'm',
          signature: signed.signature,
          variant: 'shake-128f',
        })
      ).data.valid,
      true,
    );
    const viaAlias = await client.pqHashVerify({
      publicKey: pair.publicKey,
      message: 'm',
      signature: signed.signature,
      variant: 'shake-128f',
    });
    assert.equal(viaAlias.data.valid, true);
  });

  test('sealedboxSealPq then sealedboxOpenPq, with an X-Wing key pair', async () => {
    const { data: pair } = await client.pqGenerateKeyPair();
    const { data } = await client.sealedboxSealPq({
      x25519PublicKey: pair.x25519PublicKey,
      mlKemPublicKey: pair.mlKemPublicKey,
      plaintext: 'post-quantum',
    });
    assert.equal(
      (await client.sealedboxOpenPq({ secretKey: pair.secretKey, sealed: data.sealed })).data,
      'post-quantum',
    );
  });

  test('multiRecipientEncrypt then multiRecipientDecrypt by each recipient', async () => {
    const { data: classical } = await client.generateKeyPair({ algorithm: 'x25519' });
    assert.ok(
      'privateKey' in classical && typeof classical.publicKey === 'string' && typeof classical.privateKey === 'string',
    );
    const { data: hybrid } = await client.pqGenerateKeyPair();
    const { data: envelope } = await client.multiRecipientEncrypt({
      plaintext: 'for both',
      recipients: [
        { type: 'x25519', publicKey: classical.publicKey },
        { type: 'x25519-ml-kem-768', publicKey: hybrid.publicKey },
      ],
    });
    assert.equal(envelope.recipients.length, 2);
    assert.equal(
      (await client.multiRecipientDecrypt({ ...envelope, recipientSecretKey: classical.privateKey })).data,
      'for both',
    );
    assert.equal((await client.multiRecipientDecrypt({ ...envelope, secretKey: hybrid.secretKey })).data, 'for both');
  });

  test('live, ready and metrics', async () => {
    assert.equal((await client.live()).data.status, 'alive');
    const ready = await client.ready();
    assert.equal(ready.data.status, 'ready');
    assert.ok(Object.values(ready.data.checks).every((check) => check === 'pass'));
    const { data: text } = await client.metrics();
    assert.match(text, /^# HELP /m);
    assert.match(text, /http_requests_total\{/);
  });
});
