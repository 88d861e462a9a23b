/** The client's /v1 (deprecated OpenPGP) methods against the real service: each by its inverse. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CryptoClient } from '@crypto-service/client';
import type { V1GenerateResponse } from '@crypto-service/client';
import { startService, type Service } from './helpers.ts';

describe('/v1 OpenPGP, against the real service', () => {
  let service: Service;
  let client: CryptoClient;
  let key: V1GenerateResponse['data'];
  const passphrase = 'correct horse battery staple';
  before(async () => {
    service = await startService();
    client = new CryptoClient({ baseUrl: service.baseUrl });
    key = (await client.v1Generate({ name: 'Client Test', email: 'client@example.org', passphrase })).data;
  });
  after(() => service.close());

  test('v1Generate returns an armored key pair, a revocation certificate and the fingerprint', () => {
    assert.match(key.publicKey, /^-----BEGIN PGP PUBLIC KEY BLOCK-----/);
    assert.match(key.privateKey, /^-----BEGIN PGP PRIVATE KEY BLOCK-----/);
    assert.match(key.revocationCertificate, /BEGIN PGP PUBLIC KEY BLOCK|BEGIN PGP SIGNATURE/);
    assert.match(key.fingerprint, /^[0-9a-f]{40}$/);
  });

  test('v1Encrypt then v1Decrypt', async () => {
    const { data: armored } = await client.v1Encrypt({ message: 'legacy secret', publicKeys: key.publicKey });
    assert.match(armored, /^-----BEGIN PGP MESSAGE-----/);
    const { data: plaintext } = await client.v1Decrypt({ message: armored, privateKey: key.privateKey, passphrase });
    assert.equal(plaintext, 'legacy secret');
  });

  test('v1Sign (detached) then v1Verify', async () => {
    const { data: signature } = await client.v1Sign({
      message: 'signed text',
      privateKey: key.privateKey,
      passphrase,
      detached: true,
    });
    assert.match(signature, /^-----BEGIN PGP SIGNATURE-----/);
    const good = await client.v1Verify({ message: 'signed text', signature, publicKeys: [key.publicKey] });
    assert.equal(good.data.valid, true);
    assert.equal(good.data.signatures.length, 1);
    assert.equal(good.data.signatures[0]?.keyId, key.fingerprint.slice(-16));
    const bad = await client.v1Verify({ message: 'signed texT', signature, publicKeys: key.publicKey });
    assert.equal(bad.data.valid, false);
  });

  test('v1Revoke returns the revoked public key', async () => {
    const { data } = await client.v1Revoke({ privateKey: key.privateKey, passphrase, reason: 'superseded' });
    assert.match(data.publicKey, /^-----BEGIN PGP PUBLIC KEY BLOCK-----/);
    assert.notEqual(data.publicKey, key.publicKey, 'the revoked key carries a revocation signature');
  });
});
