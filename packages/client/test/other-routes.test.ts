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
    const { data: pair } = await client.mlKemKeygen({ algorithm: 'ml-kem-512' });
    assert.equal(pair.algorithm, 'ml-kem-512');
    const { data: sent } = await client.mlKemEncapsulate({ publicKey: pair.publicKey });
    assert.equal(sent.algorithm, 'ml-kem-512');
    const { data: received } = await client.mlKemDecapsulate({
      privateKey: pair.privateKey,
      ciphertext: sent.ciphertext,
      algorithm: 'ml-kem-512',
    });
    assert.equal(received.sharedSecret, sent.sharedSecret);
  });

  test('slhDsaKeygen then slhDsaSign then slhDsaVerify, interchangeable with the hash-sign methods', async () => {
    const { data: pair } = await client.slhDsaKeygen({ algorithm: 'slh-dsa-shake-128f' });
    assert.equal(pair.algorithm, 'slh-dsa-shake-128f');
    const { data: signed } = await client.slhDsaSign({
      privateKey: pair.privateKey,
      message: 'm',
      algorithm: 'slh-dsa-shake-128f',
    });
    assert.equal(
      (
        await client.slhDsaVerify({
          publicKey: pair.publicKey,
          message: 'm',
          signature: signed.signature,
          algorithm: 'slh-dsa-shake-128f',
        })
      ).data.valid,
      true,
    );
    const viaAlias = await client.pqHashVerify({
      publicKey: pair.publicKey,
      message: 'm',
      signature: signed.signature,
      algorithm: 'slh-dsa-shake-128f',
    });
    assert.equal(viaAlias.data.valid, true);
  });

  test('sealedboxSealPq then sealedboxOpenPq, with an X-Wing key pair', async () => {
    const { data: pair } = await client.pqGenerateKeyPair();
    // The parts of the X-Wing public key: the ML-KEM-768 key (1184 bytes), then the X25519 key.
    const { data } = await client.sealedboxSealPq({
      x25519PublicKey: pair.publicKey.slice(2 * 1184),
      mlKemPublicKey: pair.publicKey.slice(0, 2 * 1184),
      plaintext: 'post-quantum',
    });
    assert.equal((await client.sealedboxOpenPq({ ...data, privateKey: pair.privateKey })).data, 'post-quantum');
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
      (await client.multiRecipientDecrypt({ ...envelope, privateKey: classical.privateKey })).data,
      'for both',
    );
    assert.equal((await client.multiRecipientDecrypt({ ...envelope, privateKey: hybrid.privateKey })).data, 'for both');
    // Without `type`, the recipient's type is inferred from the length of its key.
    const { data: inferred } = await client.multiRecipientEncrypt({
      plaintext: 'typed by length',
      recipients: [{ publicKey: classical.publicKey }, { publicKey: hybrid.publicKey }],
    });
    assert.deepEqual(
      inferred.recipients.map((recipient) => recipient.type),
      ['x25519', 'x25519-ml-kem-768'],
    );
    assert.equal(
      (await client.multiRecipientDecrypt({ ...inferred, privateKey: hybrid.privateKey })).data,
      'typed by length',
    );
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
