/**
 * Counts the calls that the code under test makes to one node:crypto function: the tests that
 * check which backend a size-dependent choice used (mac.ts, kdf.ts) or that a key import was
 * cached. ES imports of a built-in module see a replaced export once syncBuiltinESMExports() has
 * run; the original comes back when the test ends.
 */
import nodeCrypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import type { TestContext } from 'node:test';

export function countNodeCryptoCalls(
  t: TestContext,
  name: 'createHmac' | 'createPrivateKey' | 'createPublicKey' | 'hkdfSync',
): () => number {
  const spy = t.mock.method(nodeCrypto, name);
  syncBuiltinESMExports();
  t.after(() => {
    spy.mock.restore();
    syncBuiltinESMExports();
  });
  return () => spy.mock.callCount();
}
