import { createHash } from 'node:crypto';
import { expect, test } from '@jest/globals';
import { connectToCryptoService } from '@crypto-service/testing';

test('the service of the global setup hashes', async () => {
  const { client, url } = connectToCryptoService();
  const { data } = await client.hash({ algorithm: 'sha256', data: 'jest' });
  expect(data.digest).toBe(createHash('sha256').update('jest').digest('hex'));
  globalThis.console.log(`served by ${url}`);
});
