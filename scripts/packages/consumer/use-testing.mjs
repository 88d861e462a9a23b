// Runs in a project that installed the packed tarballs: @crypto-service/testing starts the
// installed server itself, with a generated API key, and its client and fixtures work.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import process from 'node:process';
import { generateFixtures, startCryptoService } from '@crypto-service/testing';

const service = await startCryptoService();
try {
  const { data: hash } = await service.client.hash({ algorithm: 'sha256', data: 'abc' });
  assert.equal(hash.digest, createHash('sha256').update('abc').digest('hex'));
  const anonymous = await globalThis.fetch(`${service.url}/v2/hash`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ algorithm: 'sha256', data: 'abc' }),
  });
  assert.equal(anonymous.status, 401);
  const fixtures = await generateFixtures(service.client);
  const { data: signed } = await service.client.sign({ privateKey: fixtures.ed25519.privateKey, message: 'm' });
  const { data: verified } = await service.client.verify({
    ...signed,
    publicKey: fixtures.ed25519.publicKey,
    message: 'm',
  });
  process.stdout.write(
    `${JSON.stringify({ digest: hash.digest, anonymous: anonymous.status, verified: verified.valid })}\n`,
  );
} finally {
  await service.close();
}
