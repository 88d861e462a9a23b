/**
 * The /v1 server key on the real process: an unusable CRYPTO_KEY_DIR stops the start with exit
 * code 1 and a message naming the variable (the app build fails, server.ts reports it); a usable
 * one serves /v1/sign and /v1/decrypt with it over real sockets, with the deprecation headers; and
 * the OpenPGP worker threads never hold the process on SIGTERM.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as openpgp from 'openpgp';
import { postJson, runServerToExit, startServer } from './helpers.ts';

const TIMEOUT = { timeout: 30_000 };
const PASSPHRASE = 'e2e server key passphrase';

async function keyDir(): Promise<{ dir: string; publicKey: string }> {
  const { privateKey, publicKey } = await openpgp.generateKey({
    userIDs: [{ name: 'E2E Server', email: 'server@e2e.example' }],
    type: 'ecc',
    curve: 'curve25519Legacy',
    passphrase: PASSPHRASE,
    format: 'armored',
  });
  const dir = mkdtempSync(join(tmpdir(), 'v1-e2e-key-'));
  writeFileSync(join(dir, 'private.asc'), privateKey, { mode: 0o600 });
  return { dir, publicKey };
}

test(
  'a locked server key without CRYPTO_KEY_PASSPHRASE stops the start: exit 1, the variable named',
  TIMEOUT,
  async () => {
    const { dir } = await keyDir();
    const result = await runServerToExit({ CRYPTO_KEY_DIR: dir });
    assert.deepEqual(
      { code: result.code, signal: result.signal },
      { code: 1, signal: null },
      result.stdout + result.stderr,
    );
    assert.match(
      result.stderr,
      /^crypto-service: cannot start: CRYPTO_KEY_PASSPHRASE: is not set, and the key in .*private\.asc is locked$/m,
    );
    assert.doesNotMatch(result.stdout, /Server listening/);
  },
);

test('a CRYPTO_KEY_DIR without a key stops the start: exit 1, CRYPTO_KEY_DIR named', TIMEOUT, async () => {
  const result = await runServerToExit({ CRYPTO_KEY_DIR: mkdtempSync(join(tmpdir(), 'v1-e2e-empty-')) });
  assert.deepEqual(
    { code: result.code, signal: result.signal },
    { code: 1, signal: null },
    result.stdout + result.stderr,
  );
  assert.match(result.stderr, /^crypto-service: cannot start: CRYPTO_KEY_DIR: cannot read .*private\.asc \(ENOENT\)/m);
});

test('with its passphrase the server key signs and decrypts over HTTP; SIGTERM still exits 0', TIMEOUT, async (t) => {
  const { dir, publicKey } = await keyDir();
  const server = await startServer({ CRYPTO_KEY_DIR: dir, CRYPTO_KEY_PASSPHRASE: PASSPHRASE });
  t.after(() => server.kill());
  const signed = await postJson(`${server.baseUrl}/v1/sign`, { message: 'from the server' });
  assert.equal(signed.status, 200, signed.body);
  assert.equal(signed.headers.deprecation, '@1767225600');
  assert.equal(signed.headers.sunset, 'Fri, 01 Jan 2027 00:00:00 GMT');
  assert.equal(signed.headers.link, '</v2>; rel="successor-version"');
  const { data: cleartext } = signed.json() as { data: string };
  const verified = await openpgp.verify({
    message: await openpgp.readCleartextMessage({ cleartextMessage: cleartext }),
    verificationKeys: await openpgp.readKey({ armoredKey: publicKey }),
    expectSigned: true,
  });
  assert.equal(verified.data, 'from the server');

  const encrypted = await openpgp.encrypt({
    message: await openpgp.createMessage({ text: 'to the server' }),
    encryptionKeys: await openpgp.readKey({ armoredKey: publicKey }),
  });
  const decrypted = await postJson(`${server.baseUrl}/v1/decrypt`, { message: encrypted });
  assert.equal(decrypted.status, 200, decrypted.body);
  assert.deepEqual(decrypted.json(), { data: 'to the server' });

  assert.deepEqual(await server.stop(), { code: 0, signal: null });
});
