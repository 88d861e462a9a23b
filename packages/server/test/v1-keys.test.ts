/**
 * The key directories of /v1: CRYPTO_KEY_OUT_DIR (where /v1/generate writes each new key: names,
 * contents, modes, never an overwrite) and CRYPTO_KEY_DIR (the server's own key pair, used by
 * /v1/decrypt and /v1/sign when the request carries no key; every way it can be unusable stops the
 * app build with a ConfigError naming the variable to fix).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as openpgp from 'openpgp';
import { postJson, testApp, testConfig } from './helpers.ts';
import { buildApp } from '../src/app.ts';
import { ConfigError } from '../src/config.ts';
import { keyFileNames, SERVER_KEY_FILE, writeKeyFiles } from '../src/v1/key-files.ts';
import { assertDeprecated, assertProblem, makeKey } from './v1-helpers.ts';

const tempDir = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));

/** A CRYPTO_KEY_DIR holding this private key. */
function keyDir(armored: string): string {
  const dir = tempDir('v1-keydir-');
  writeFileSync(join(dir, SERVER_KEY_FILE), armored, { mode: 0o600 });
  return dir;
}

/** Builds the app and expects it to refuse to start, with a ConfigError naming `variable`. */
async function refusesToStart(
  env: Record<string, string>,
  variable: string,
  pattern: RegExp,
  secrets: string[] = [],
): Promise<void> {
  await assert.rejects(buildApp(testConfig(env), { quiet: true }), (error: unknown) => {
    assert.ok(error instanceof ConfigError, `a ConfigError, got ${String(error)}`);
    assert.equal(error.variable, variable);
    assert.ok(error.message.startsWith(`${variable}: `), error.message);
    assert.match(error.message, pattern);
    for (const secret of secrets) assert.ok(!error.message.includes(secret), 'the message repeats a secret');
    return true;
  });
}

describe('CRYPTO_KEY_OUT_DIR', () => {
  test('/v1/generate writes the three armored files, named by fingerprint, the private key 0600', async (t) => {
    const dir = tempDir('v1-out-');
    const app = await testApp({ CRYPTO_KEY_OUT_DIR: dir });
    t.after(() => app.close());
    const response = await postJson(app, '/v1/generate', {
      name: 'Written',
      email: 'written@example.com',
      passphrase: 'on disk',
    });
    assert.equal(response.statusCode, 200, response.body);
    const key = response.json().data;
    const names = keyFileNames(key.fingerprint);
    assert.deepEqual(readdirSync(dir).sort(), [names.privateKey, names.publicKey, names.revocationCertificate].sort());
    assert.deepEqual(names, {
      publicKey: `${key.fingerprint}.public.asc`,
      privateKey: `${key.fingerprint}.private.asc`,
      revocationCertificate: `${key.fingerprint}.revocation.asc`,
    });
    assert.equal(readFileSync(join(dir, names.privateKey), 'utf8'), key.privateKey);
    assert.equal(readFileSync(join(dir, names.publicKey), 'utf8'), key.publicKey);
    assert.equal(readFileSync(join(dir, names.revocationCertificate), 'utf8'), key.revocationCertificate);
    assert.equal(statSync(join(dir, names.privateKey)).mode & 0o777, 0o600);
    // The public files are for sharing: readable by others, writable by nobody else.
    for (const file of [names.publicKey, names.revocationCertificate]) {
      const mode = statSync(join(dir, file)).mode & 0o777;
      assert.equal(mode & 0o600, 0o600, file);
      assert.equal(mode & 0o022, 0, file);
    }
    // A second key adds its own three files and leaves the first ones alone.
    const second = await postJson(app, '/v1/generate', { name: 'Second', email: 'second@example.com' });
    assert.equal(second.statusCode, 200);
    assert.equal(readdirSync(dir).length, 6);
    assert.equal(readFileSync(join(dir, names.privateKey), 'utf8'), key.privateKey);
  });

  test('a failed write is a 500 (cause logged), and the key is not handed out', async (t) => {
    const dir = tempDir('v1-out-');
    const lines: string[] = [];
    const app = await testApp(
      { CRYPTO_KEY_OUT_DIR: dir, LOG_LEVEL: 'error' },
      { logStream: { write: (line: string) => lines.push(line) } },
    );
    t.after(() => app.close());
    // The directory was checked at start; it disappears afterwards (works as root too, unlike chmod).
    rmSync(dir, { recursive: true });
    const response = await postJson(app, '/v1/generate', { name: 'Lost', email: 'lost@example.com' });
    assertProblem(response, 500, 'INTERNAL_ERROR');
    assertDeprecated(response, '500');
    assert.ok(!response.body.includes('PRIVATE KEY'), 'no key in the error');
    assert.match(lines.join(''), /ENOENT/, 'the cause is in the log');
  });

  test('an existing file is never overwritten: the write fails and this call leaves nothing behind', async () => {
    const dir = tempDir('v1-out-');
    const key = { ...(await makeKey()), revocationCertificate: 'revocation', fingerprint: 'ab'.repeat(20) };
    const names = keyFileNames(key.fingerprint);
    await writeKeyFiles(dir, key);
    // The same fingerprint again: the private key file exists, so nothing is replaced.
    await assert.rejects(writeKeyFiles(dir, { ...key, privateKey: 'other', publicKey: 'other' }), { code: 'EEXIST' });
    assert.equal(readFileSync(join(dir, names.privateKey), 'utf8'), key.privateKey);
    assert.equal(readFileSync(join(dir, names.publicKey), 'utf8'), key.publicKey);

    // Only the public file is in the way: the private file that this call had created is removed again.
    const other = { ...key, fingerprint: 'cd'.repeat(20) };
    const otherNames = keyFileNames(other.fingerprint);
    writeFileSync(join(dir, otherNames.publicKey), "someone else's file");
    await assert.rejects(writeKeyFiles(dir, other), { code: 'EEXIST' });
    assert.equal(existsSync(join(dir, otherNames.privateKey)), false);
    assert.equal(existsSync(join(dir, otherNames.revocationCertificate)), false);
    assert.equal(readFileSync(join(dir, otherNames.publicKey), 'utf8'), "someone else's file");
  });

  test('a fingerprint that is not hex never becomes a path', () => {
    for (const bad of ['../../etc/passwd', 'AB'.repeat(20), '', 'ab'.repeat(10)]) {
      assert.throws(() => keyFileNames(bad), /fingerprint/, bad);
    }
  });
});

describe('CRYPTO_KEY_DIR', () => {
  test('a locked server key with CRYPTO_KEY_PASSPHRASE: /v1/sign and /v1/decrypt use it when no key is sent', async (t) => {
    const server = await makeKey({
      passphrase: 'server secret',
      userIDs: [{ name: 'Server', email: 'server@example.com' }],
    });
    const app = await testApp({ CRYPTO_KEY_DIR: keyDir(server.privateKey), CRYPTO_KEY_PASSPHRASE: 'server secret' });
    t.after(() => app.close());

    const signed = await postJson(app, '/v1/sign', { message: 'signed by the server' });
    assert.equal(signed.statusCode, 200, signed.body);
    assertDeprecated(signed, 'sign with the server key');
    const verified = await postJson(app, '/v1/verify', { message: signed.json().data, publicKeys: server.publicKey });
    assert.equal(verified.json().data.valid, true);
    const detached = await postJson(app, '/v1/sign', { message: 'detached', detached: true });
    assert.equal(
      (
        await postJson(app, '/v1/verify', {
          message: 'detached',
          signature: detached.json().data,
          publicKeys: server.publicKey,
        })
      ).json().data.valid,
      true,
    );

    const toServer = await postJson(app, '/v1/encrypt', { message: 'for the server', publicKeys: server.publicKey });
    const decrypted = await postJson(app, '/v1/decrypt', { message: toServer.json().data });
    assert.equal(decrypted.statusCode, 200, decrypted.body);
    assert.equal(decrypted.json().data, 'for the server');

    // With no key in the request, a passphrase is the message's (the server key needs none)...
    const symmetric = await postJson(app, '/v1/encrypt', { message: 'by passphrase', passphrase: 'msg pass' });
    assert.equal(
      (await postJson(app, '/v1/decrypt', { message: symmetric.json().data, passphrase: 'msg pass' })).json().data,
      'by passphrase',
    );
    // ... and a key in the request wins over the server's.
    const other = await makeKey();
    const toOther = await postJson(app, '/v1/encrypt', { message: 'for other', publicKeys: other.publicKey });
    assertProblem(await postJson(app, '/v1/decrypt', { message: toOther.json().data }), 400, 'DECRYPTION_FAILED');
    assert.equal(
      (await postJson(app, '/v1/decrypt', { message: toOther.json().data, privateKey: other.privateKey })).json().data,
      'for other',
    );
    const otherSigned = await postJson(app, '/v1/sign', { message: 'by other', privateKey: other.privateKey });
    assert.equal(
      (await postJson(app, '/v1/verify', { message: otherSigned.json().data, publicKeys: server.publicKey })).json()
        .data.valid,
      false,
    );

    // A passphrase for a key that was not sent is refused rather than silently ignored.
    const stray = assertProblem(
      await postJson(app, '/v1/sign', { message: 'x', passphrase: 'server secret' }),
      400,
      'INVALID_INPUT',
    );
    assert.deepEqual(
      stray.errors?.map((error) => error.field),
      ['/passphrase'],
    );
  });

  test('an unlocked server key needs no passphrase', async (t) => {
    const server = await makeKey();
    const app = await testApp({ CRYPTO_KEY_DIR: keyDir(server.privateKey) });
    t.after(() => app.close());
    const signed = await postJson(app, '/v1/sign', { message: 'x' });
    assert.equal(
      (await postJson(app, '/v1/verify', { message: signed.json().data, publicKeys: server.publicKey })).json().data
        .valid,
      true,
    );
  });

  test('warnings: a passphrase that unlocks nothing, a key file readable by others', async (t) => {
    const server = await makeKey();
    const dir = keyDir(server.privateKey);
    chmodSync(join(dir, SERVER_KEY_FILE), 0o644);
    const lines: string[] = [];
    const app = await testApp(
      { CRYPTO_KEY_DIR: dir, CRYPTO_KEY_PASSPHRASE: 'unneeded', LOG_LEVEL: 'info' },
      { logStream: { write: (line: string) => lines.push(line) } },
    );
    t.after(() => app.close());
    const logs = lines.map((line) => JSON.parse(line) as { level: number; msg: string; fingerprint?: string });
    assert.ok(
      logs.some(
        (log) =>
          log.level === 40 && /CRYPTO_KEY_PASSPHRASE is set, but the key in CRYPTO_KEY_DIR is not locked/.test(log.msg),
      ),
      lines.join(''),
    );
    assert.ok(
      logs.some((log) => log.level === 40 && /readable by group or others/.test(log.msg)),
      lines.join(''),
    );
    const fingerprint = (await openpgp.readKey({ armoredKey: server.publicKey })).getFingerprint();
    assert.ok(
      logs.some((log) => log.fingerprint === fingerprint),
      'the loaded key is logged by fingerprint',
    );
    assert.ok(!lines.join('').includes('unneeded'), 'the passphrase is never logged');
  });

  test('unset: /v1/sign and /v1/decrypt without a key are 400s that say so', async (t) => {
    const app = await testApp();
    t.after(() => app.close());
    const sign = assertProblem(await postJson(app, '/v1/sign', { message: 'x' }), 400, 'INVALID_INPUT');
    assert.match(
      sign.detail,
      /privateKey is required: this server has no key of its own \(CRYPTO_KEY_DIR is not set\)/,
    );
    const decrypt = assertProblem(
      await postJson(app, '/v1/decrypt', { message: '-----BEGIN PGP MESSAGE-----\n\nAAAA\n-----END PGP MESSAGE-----' }),
      400,
      'INVALID_INPUT',
    );
    assert.match(decrypt.detail, /CRYPTO_KEY_DIR is not set/);
  });

  describe('an unusable server key stops the start, naming the variable', () => {
    test('no private.asc in the directory', async () => {
      await refusesToStart({ CRYPTO_KEY_DIR: tempDir('v1-empty-') }, 'CRYPTO_KEY_DIR', /private\.asc.*ENOENT/);
    });

    test('private.asc is a directory', async () => {
      const dir = tempDir('v1-dir-');
      mkdirSync(join(dir, SERVER_KEY_FILE));
      await refusesToStart({ CRYPTO_KEY_DIR: dir }, 'CRYPTO_KEY_DIR', /not a file/);
    });

    test('not a key, a public key, two keys, a damaged key', async () => {
      const a = await makeKey();
      const b = await makeKey();
      await refusesToStart(
        { CRYPTO_KEY_DIR: keyDir('hello') },
        'CRYPTO_KEY_DIR',
        /not a readable ASCII-armored OpenPGP private key/,
      );
      await refusesToStart(
        { CRYPTO_KEY_DIR: keyDir(a.publicKey) },
        'CRYPTO_KEY_DIR',
        /not a readable ASCII-armored OpenPGP private key/,
      );
      await refusesToStart(
        { CRYPTO_KEY_DIR: keyDir(a.privateKey + b.privateKey) },
        'CRYPTO_KEY_DIR',
        /more than one key/,
      );
      await refusesToStart(
        {
          CRYPTO_KEY_DIR: keyDir(
            '-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nAAAA\n-----END PGP PRIVATE KEY BLOCK-----\n',
          ),
        },
        'CRYPTO_KEY_DIR',
        /not a readable/,
      );
    });

    test('a locked key without CRYPTO_KEY_PASSPHRASE, or with the wrong one', async () => {
      const locked = await makeKey({ passphrase: 'the right one' });
      const dir = keyDir(locked.privateKey);
      await refusesToStart(
        { CRYPTO_KEY_DIR: dir },
        'CRYPTO_KEY_PASSPHRASE',
        /is not set, and the key in .*private\.asc is locked/,
      );
      await refusesToStart(
        { CRYPTO_KEY_DIR: dir, CRYPTO_KEY_PASSPHRASE: 'the wrong one' },
        'CRYPTO_KEY_PASSPHRASE',
        /does not unlock/,
        ['the wrong one', 'the right one'],
      );
    });

    test('a key that cannot decrypt (no encryption subkey), or cannot sign (expired)', async () => {
      const signOnly = await makeKey({ subkeys: [] });
      await refusesToStart({ CRYPTO_KEY_DIR: keyDir(signOnly.privateKey) }, 'CRYPTO_KEY_DIR', /no encryption subkey/);
      const expired = await makeKey({ date: new Date(Date.now() - 3_600_000), keyExpirationTime: 60 });
      await refusesToStart({ CRYPTO_KEY_DIR: keyDir(expired.privateKey) }, 'CRYPTO_KEY_DIR', /cannot sign/);
    });

    test('a revoked key', async () => {
      const key = await makeKey();
      const { privateKey } = await openpgp.revokeKey({
        key: await openpgp.readPrivateKey({ armoredKey: key.privateKey }),
        format: 'armored',
      });
      await refusesToStart({ CRYPTO_KEY_DIR: keyDir(privateKey) }, 'CRYPTO_KEY_DIR', /cannot sign/);
    });
  });
});
