/**
 * The deprecated /v1 OpenPGP routes over HTTP (app.inject): every route's success shape checked
 * with OpenPGP.js itself, round trips, each route's table of wrong inputs (all 4xx problems with a
 * message that names the field and never repeats a key or passphrase, never a 500), the one
 * DECRYPTION_FAILED body, scopes, rate-limit prices, the bounded queue and the job timeout, and
 * that the OpenPGP work stays off the event loop.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import * as openpgp from 'openpgp';
import { SignJWT } from 'jose';
import type { FastifyInstance } from 'fastify';
import { appWithConfig, postJson, testApp, testConfig, TEST_JWT_SECRET } from './helpers.ts';
import { assertDeprecated, assertProblem, makeKey, type Response } from './v1-helpers.ts';

const ALICE_PASS = 'correct horse battery staple';
const RSA_PASS = 'rsa passphrase 2048';
const TEXT = 'Grüße, 世界 — line one\nline two\r\n\ttabbed  \n';

const readPublic = (armored: string) => openpgp.readKey({ armoredKey: armored });
const readPrivate = (armored: string) => openpgp.readPrivateKey({ armoredKey: armored });

/** The remaining units of the RateLimit header (`"default";r=997;t=42`). */
function remaining(response: Response): number {
  const match = /;r=(\d+);/.exec(String(response.headers.ratelimit));
  assert.ok(match, `no RateLimit header: ${String(response.headers.ratelimit)}`);
  return Number(match[1]);
}

interface Generated {
  publicKey: string;
  privateKey: string;
  revocationCertificate: string;
  fingerprint: string;
}

describe('/v1 routes', () => {
  let app: FastifyInstance;
  let alice: Generated; // Curve25519, locked
  let bob: Generated; // Curve25519, unlocked
  let rsa: Generated; // RSA-2048, locked
  let signOnly: { privateKey: string; publicKey: string }; // no encryption subkey
  let expired: { privateKey: string; publicKey: string };
  const post = (url: string, body: unknown) => postJson(app, url, body);
  async function ok(url: string, body: unknown): Promise<any> {
    const response = await post(url, body);
    assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
    assertDeprecated(response, url);
    return response.json().data;
  }

  test.before(async () => {
    // The tables send many requests; the default limit is not the subject here.
    app = await testApp({ RATE_LIMIT_MAX: '1000000' });
    [alice, bob, rsa, signOnly, expired] = await Promise.all([
      ok('/v1/generate', { name: 'Alice', email: 'alice@example.com', passphrase: ALICE_PASS }),
      ok('/v1/generate', { name: 'Bob', email: 'bob@example.com' }),
      ok('/v1/generate', { name: 'Rsa', email: 'rsa@example.com', type: 'rsa', rsaBits: 2048, passphrase: RSA_PASS }),
      makeKey({ subkeys: [] }),
      makeKey({ date: new Date(Date.now() - 3_600_000), keyExpirationTime: 60 }),
    ]);
  });
  test.after(() => app.close());

  describe('POST /v1/generate', () => {
    test('ecc by default: an Ed25519 primary key and a Curve25519 ECDH subkey, locked with the passphrase', async () => {
      assert.match(alice.publicKey, /^-----BEGIN PGP PUBLIC KEY BLOCK-----/);
      assert.match(alice.privateKey, /^-----BEGIN PGP PRIVATE KEY BLOCK-----/);
      assert.match(alice.fingerprint, /^[0-9a-f]{40}$/);
      const key = await readPrivate(alice.privateKey);
      assert.equal(key.getFingerprint(), alice.fingerprint);
      assert.equal(key.keyPacket.version, 4, 'a v4 key, which GnuPG 2.2 reads');
      assert.deepEqual(key.getAlgorithmInfo(), { algorithm: 'eddsaLegacy', curve: 'ed25519Legacy' });
      assert.equal(key.subkeys.length, 1);
      assert.deepEqual(key.subkeys[0]!.getAlgorithmInfo(), { algorithm: 'ecdh', curve: 'curve25519Legacy' });
      assert.deepEqual(key.getUserIDs(), ['Alice <alice@example.com>']);
      assert.equal(key.isDecrypted(), false, 'locked');
      await assert.rejects(openpgp.decryptKey({ privateKey: key, passphrase: 'wrong' }));
      const unlocked = await openpgp.decryptKey({ privateKey: key, passphrase: ALICE_PASS });
      assert.equal(unlocked.isDecrypted(), true);
      assert.equal(await key.getExpirationTime(), Infinity, 'no expiry unless asked for');
    });

    test('without a passphrase the private key is not locked; the public key matches it', async () => {
      const key = await readPrivate(bob.privateKey);
      assert.equal(key.isDecrypted(), true);
      assert.equal((await readPublic(bob.publicKey)).getFingerprint(), bob.fingerprint);
      assert.equal((await readPublic(bob.publicKey)).isPrivate(), false);
    });

    test('the revocation certificate revokes exactly this key', async () => {
      assert.match(bob.revocationCertificate, /-----BEGIN PGP PUBLIC KEY BLOCK-----/);
      const key = await readPublic(bob.publicKey);
      assert.equal(await key.isRevoked(), false);
      const { publicKey } = await openpgp.revokeKey({
        key,
        revocationCertificate: bob.revocationCertificate,
        format: 'object',
      });
      assert.equal(await publicKey.isRevoked(), true);
      // The certificate of another key does not apply.
      await assert.rejects(
        openpgp.revokeKey({ key: await readPublic(alice.publicKey), revocationCertificate: bob.revocationCertificate }),
      );
    });

    test('type rsa: an RSA primary key and subkey of rsaBits', async () => {
      const key = await readPrivate(rsa.privateKey);
      assert.deepEqual(key.getAlgorithmInfo(), { algorithm: 'rsaEncryptSign', bits: 2048 });
      assert.deepEqual(key.subkeys[0]!.getAlgorithmInfo(), { algorithm: 'rsaEncryptSign', bits: 2048 });
      assert.equal(key.isDecrypted(), false);
    });

    test('every curve of the enum makes a key on that curve', async () => {
      const expected: Record<string, [string, string]> = {
        curve25519: ['eddsaLegacy', 'curve25519Legacy'],
        p256: ['ecdsa', 'nistP256'],
        p384: ['ecdsa', 'nistP384'],
        p521: ['ecdsa', 'nistP521'],
      };
      for (const [curve, [algorithm, subkeyCurve]] of Object.entries(expected)) {
        const data = await ok('/v1/generate', { name: 'Curve', email: 'curve@example.com', curve });
        const key = await readPublic(data.publicKey);
        assert.equal(key.getAlgorithmInfo().algorithm, algorithm, curve);
        assert.deepEqual(key.subkeys[0]!.getAlgorithmInfo(), { algorithm: 'ecdh', curve: subkeyCurve }, curve);
      }
    });

    test('keyExpirationTime sets the key lifetime in seconds', async () => {
      const data = await ok('/v1/generate', { name: 'Brief', email: 'brief@example.com', keyExpirationTime: 86_400 });
      const key = await readPublic(data.publicKey);
      const expires = await key.getExpirationTime();
      assert.ok(expires instanceof Date);
      assert.equal(expires.getTime() - key.getCreationTime().getTime(), 86_400_000);
    });
  });

  describe('POST /v1/encrypt and /v1/decrypt', () => {
    test('to one public key (a string) and back, exact text (Unicode, CRLF, trailing spaces)', async () => {
      const armored = await ok('/v1/encrypt', { message: TEXT, publicKeys: alice.publicKey });
      assert.match(armored, /^-----BEGIN PGP MESSAGE-----/);
      assert.equal(
        await ok('/v1/decrypt', { message: armored, privateKey: alice.privateKey, passphrase: ALICE_PASS }),
        TEXT,
      );
      // OpenPGP.js agrees, independently of the service.
      const decrypted = await openpgp.decrypt({
        message: await openpgp.readMessage({ armoredMessage: armored }),
        decryptionKeys: await openpgp.decryptKey({
          privateKey: await readPrivate(alice.privateKey),
          passphrase: ALICE_PASS,
        }),
        format: 'binary',
      });
      assert.equal(new TextDecoder().decode(decrypted.data), TEXT);
    });

    test('to several recipients (an array): each one decrypts', async () => {
      const armored = await ok('/v1/encrypt', {
        message: 'for both',
        publicKeys: [alice.publicKey, bob.publicKey, rsa.publicKey],
      });
      assert.equal(
        await ok('/v1/decrypt', { message: armored, privateKey: alice.privateKey, passphrase: ALICE_PASS }),
        'for both',
      );
      assert.equal(await ok('/v1/decrypt', { message: armored, privateKey: bob.privateKey }), 'for both');
      assert.equal(
        await ok('/v1/decrypt', { message: armored, privateKey: rsa.privateKey, passphrase: RSA_PASS }),
        'for both',
      );
    });

    test('one armored block holding two keys encrypts to both', async () => {
      const [a, b] = await Promise.all([readPublic(alice.publicKey), readPublic(bob.publicKey)]);
      const block = openpgp.armor(openpgp.enums.armor.publicKey, new Uint8Array([...a.write(), ...b.write()]));
      const armored = await ok('/v1/encrypt', { message: 'two in one', publicKeys: block });
      assert.equal(await ok('/v1/decrypt', { message: armored, privateKey: bob.privateKey }), 'two in one');
      assert.equal(
        await ok('/v1/decrypt', { message: armored, privateKey: alice.privateKey, passphrase: ALICE_PASS }),
        'two in one',
      );
    });

    test('symmetric: a passphrase alone, and a passphrase with recipients', async () => {
      const symmetric = await ok('/v1/encrypt', { message: 'by passphrase', passphrase: 'shared secret' });
      assert.equal(await ok('/v1/decrypt', { message: symmetric, passphrase: 'shared secret' }), 'by passphrase');
      const both = await ok('/v1/encrypt', {
        message: 'either way',
        publicKeys: [bob.publicKey],
        passphrase: 'shared secret',
      });
      assert.equal(await ok('/v1/decrypt', { message: both, passphrase: 'shared secret' }), 'either way');
      assert.equal(await ok('/v1/decrypt', { message: both, privateKey: bob.privateKey }), 'either way');
      // With an unlocked key, the passphrase is the message's.
      assert.equal(
        await ok('/v1/decrypt', { message: symmetric, privateKey: bob.privateKey, passphrase: 'shared secret' }),
        'by passphrase',
      );
    });

    test('the empty message round-trips', async () => {
      const armored = await ok('/v1/encrypt', { message: '', publicKeys: bob.publicKey });
      assert.equal(await ok('/v1/decrypt', { message: armored, privateKey: bob.privateKey }), '');
    });

    test('signingKey signs inside the encryption: OpenPGP.js verifies it with the signer key', async () => {
      const armored = await ok('/v1/encrypt', {
        message: 'signed and sealed',
        publicKeys: bob.publicKey,
        signingKey: alice.privateKey,
        signingPassphrase: ALICE_PASS,
      });
      const result = await openpgp.decrypt({
        message: await openpgp.readMessage({ armoredMessage: armored }),
        decryptionKeys: await readPrivate(bob.privateKey),
        verificationKeys: await readPublic(alice.publicKey),
        expectSigned: true,
      });
      assert.equal(result.data, 'signed and sealed');
      assert.equal(result.signatures[0]!.keyID.toHex(), (await readPublic(alice.publicKey)).getKeyID().toHex());
    });
  });

  describe('POST /v1/sign and /v1/verify', () => {
    test('inline: a cleartext-signed message that verifies', async () => {
      const signed = await ok('/v1/sign', {
        message: 'I agree.',
        privateKey: alice.privateKey,
        passphrase: ALICE_PASS,
      });
      assert.match(
        signed,
        /^-----BEGIN PGP SIGNED MESSAGE-----\r?\nHash: SHA\d+\r?\n\r?\nI agree\.\r?\n-----BEGIN PGP SIGNATURE-----/,
      );
      const keyId = (await readPublic(alice.publicKey)).getKeyID().toHex();
      assert.deepEqual(await ok('/v1/verify', { message: signed, publicKeys: alice.publicKey }), {
        valid: true,
        signatures: [{ keyId, valid: true }],
      });
      // A changed text no longer verifies: a 200 with valid false, not an error.
      const forged = signed.replace('I agree.', 'I disagree.');
      assert.deepEqual(await ok('/v1/verify', { message: forged, publicKeys: alice.publicKey }), {
        valid: false,
        signatures: [{ keyId, valid: false }],
      });
    });

    test('detached: a signature of the exact bytes', async () => {
      const signature = await ok('/v1/sign', { message: TEXT, privateKey: bob.privateKey, detached: true });
      assert.match(signature, /^-----BEGIN PGP SIGNATURE-----/);
      const verified = await ok('/v1/verify', { message: TEXT, signature, publicKeys: [bob.publicKey] });
      assert.equal(verified.valid, true);
      // One changed byte (a trailing space) is caught: the signature is of the bytes, not the text.
      assert.equal(
        (
          await ok('/v1/verify', {
            message: TEXT.replace('tabbed  ', 'tabbed '),
            signature,
            publicKeys: [bob.publicKey],
          })
        ).valid,
        false,
      );
      const check = await openpgp.verify({
        message: await openpgp.createMessage({ binary: new TextEncoder().encode(TEXT) }),
        signature: await openpgp.readSignature({ armoredSignature: signature }),
        verificationKeys: await readPublic(bob.publicKey),
        expectSigned: true,
      });
      assert.equal(check.signatures.length, 1);
    });

    test('RSA keys sign too', async () => {
      const signed = await ok('/v1/sign', { message: 'rsa', privateKey: rsa.privateKey, passphrase: RSA_PASS });
      assert.equal((await ok('/v1/verify', { message: signed, publicKeys: rsa.publicKey })).valid, true);
    });

    test('an OpenPGP.js signed (not cleartext) message verifies', async () => {
      const signed = await openpgp.sign({
        message: await openpgp.createMessage({ text: 'inline binary' }),
        signingKeys: await readPrivate(bob.privateKey),
      });
      assert.match(signed, /^-----BEGIN PGP MESSAGE-----/);
      assert.equal((await ok('/v1/verify', { message: signed, publicKeys: bob.publicKey })).valid, true);
    });

    test('a signature by a key that was not sent is listed, invalid, and the message is not valid', async () => {
      const signed = await ok('/v1/sign', {
        message: 'from alice',
        privateKey: alice.privateKey,
        passphrase: ALICE_PASS,
      });
      const keyId = (await readPublic(alice.publicKey)).getKeyID().toHex();
      assert.deepEqual(await ok('/v1/verify', { message: signed, publicKeys: bob.publicKey }), {
        valid: false,
        signatures: [{ keyId, valid: false }],
      });
    });

    test('two signers, one key known: valid (the known one verifies), both listed', async () => {
      const signed = await openpgp.sign({
        message: await openpgp.createCleartextMessage({ text: 'two signers' }),
        signingKeys: [
          await readPrivate(bob.privateKey),
          await openpgp.decryptKey({ privateKey: await readPrivate(alice.privateKey), passphrase: ALICE_PASS }),
        ],
      });
      const result = await ok('/v1/verify', { message: signed, publicKeys: bob.publicKey });
      assert.equal(result.valid, true);
      assert.equal(result.signatures.length, 2);
      assert.deepEqual(result.signatures.map((s: { valid: boolean }) => s.valid).sort(), [false, true]);
    });

    test('a message with no signature at all is not valid', async () => {
      const unsigned = (await openpgp.createMessage({ text: 'nobody signed' })).armor();
      assert.deepEqual(await ok('/v1/verify', { message: unsigned, publicKeys: bob.publicKey }), {
        valid: false,
        signatures: [],
      });
    });
  });

  describe('POST /v1/revoke', () => {
    test('returns the revoked public key; it can no longer be encrypted to', async () => {
      const fresh = await ok('/v1/generate', { name: 'Gone', email: 'gone@example.com', passphrase: 'going away' });
      const { publicKey } = await ok('/v1/revoke', {
        privateKey: fresh.privateKey,
        passphrase: 'going away',
        reason: 'key retired',
      });
      const key = await readPublic(publicKey);
      assert.equal(key.isPrivate(), false);
      assert.equal(key.getFingerprint(), fresh.fingerprint);
      assert.equal(await key.isRevoked(), true);
      assert.equal(key.revocationSignatures[0]!.reasonForRevocationString, 'key retired');
      assert.equal(key.revocationSignatures[0]!.reasonForRevocationFlag, openpgp.enums.reasonForRevocation.noReason);
      const refused = assertProblem(
        await post('/v1/encrypt', { message: 'x', publicKeys: publicKey }),
        400,
        'INVALID_INPUT',
        'encrypt to revoked',
      );
      assert.match(refused.detail, /no valid encryption key/);
    });
  });

  describe('every decryption failure is the same DECRYPTION_FAILED', () => {
    test('wrong recipient, tampering, wrong or missing passphrase, no encrypted data: byte-identical bodies', async () => {
      const toAlice = await ok('/v1/encrypt', { message: 'secret', publicKeys: alice.publicKey });
      const symmetric = await ok('/v1/encrypt', { message: 'secret', passphrase: 'right' });
      const lines = toAlice.split('\n');
      // Flip one character in the middle of the base64 body.
      const middle = Math.floor(lines.length / 2);
      const line = lines[middle]!;
      lines[middle] = line.slice(0, 10) + (line[10] === 'A' ? 'B' : 'A') + line.slice(11);
      const tampered = lines.join('\n');
      const unencrypted = (await openpgp.createMessage({ text: 'plain' })).armor();
      const cases: [string, unknown][] = [
        ['not a recipient', { message: toAlice, privateKey: bob.privateKey }],
        ['tampered', { message: tampered, privateKey: alice.privateKey, passphrase: ALICE_PASS }],
        ['wrong symmetric passphrase', { message: symmetric, passphrase: 'wrong' }],
        ['symmetric message, a key instead', { message: symmetric, privateKey: bob.privateKey }],
        ['public-key message, a passphrase instead', { message: toAlice, passphrase: 'right' }],
        ['no encrypted data', { message: unencrypted, privateKey: bob.privateKey }],
        [
          'damaged packets',
          { message: '-----BEGIN PGP MESSAGE-----\n\nAAAA\n-----END PGP MESSAGE-----\n', privateKey: bob.privateKey },
        ],
      ];
      const bodies = new Set<string>();
      for (const [label, body] of cases) {
        const response = await post('/v1/decrypt', body);
        const problem = assertProblem(response, 400, 'DECRYPTION_FAILED', label);
        assert.equal(problem.errors, undefined, label);
        assertDeprecated(response, label);
        bodies.add(response.body);
      }
      assert.equal(bodies.size, 1, 'one body for every cause');
    });
  });

  describe('wrong inputs are 4xx problems naming the field, never 500, never echoing a secret', () => {
    test('the table', async () => {
      const symmetric = await ok('/v1/encrypt', { message: 'x', passphrase: 'p' });
      const toBob = await ok('/v1/encrypt', { message: 'x', publicKeys: bob.publicKey });
      const cleartextSigned = await ok('/v1/sign', { message: 'x', privateKey: bob.privateKey });
      const damagedKey = alice.publicKey.replace(/\n([A-Za-z0-9+/]{20})/, '\n!!!!!!!!!!!!!!!!!!!!');
      const nonUtf8 = await openpgp.encrypt({
        message: await openpgp.createMessage({ binary: new Uint8Array([0xff, 0xfe, 0x00]) }),
        encryptionKeys: await readPublic(bob.publicKey),
      });
      const many = Array.from({ length: 101 }, () => bob.publicKey);
      const gen = { name: 'N', email: 'n@example.com' };
      type Row = [label: string, url: string, body: unknown, code: string, field: string | undefined, detail?: RegExp];
      const rows: Row[] = [
        ['generate: no name', '/v1/generate', { email: 'n@example.com' }, 'VALIDATION_FAILED', '/name'],
        ['generate: no email', '/v1/generate', { name: 'N' }, 'VALIDATION_FAILED', '/email'],
        ['generate: bad email', '/v1/generate', { ...gen, email: 'not an address' }, 'VALIDATION_FAILED', '/email'],
        [
          'generate: angle bracket in name',
          '/v1/generate',
          { ...gen, name: 'Eve <evil@example.com>' },
          'VALIDATION_FAILED',
          '/name',
        ],
        ['generate: control character in name', '/v1/generate', { ...gen, name: 'a\nb' }, 'VALIDATION_FAILED', '/name'],
        ['generate: unknown field', '/v1/generate', { ...gen, comment: 'x' }, 'VALIDATION_FAILED', '/comment'],
        ['generate: unknown type', '/v1/generate', { ...gen, type: 'dsa' }, 'VALIDATION_FAILED', '/type'],
        ['generate: secp256k1', '/v1/generate', { ...gen, curve: 'secp256k1' }, 'VALIDATION_FAILED', '/curve'],
        ['generate: curve448', '/v1/generate', { ...gen, curve: 'curve448' }, 'VALIDATION_FAILED', '/curve'],
        ['generate: brainpool', '/v1/generate', { ...gen, curve: 'brainpoolP256r1' }, 'VALIDATION_FAILED', '/curve'],
        [
          'generate: rsaBits 1024',
          '/v1/generate',
          { ...gen, type: 'rsa', rsaBits: 1024 },
          'VALIDATION_FAILED',
          '/rsaBits',
        ],
        [
          'generate: rsaBits 8192',
          '/v1/generate',
          { ...gen, type: 'rsa', rsaBits: 8192 },
          'VALIDATION_FAILED',
          '/rsaBits',
        ],
        [
          'generate: rsaBits 2500',
          '/v1/generate',
          { ...gen, type: 'rsa', rsaBits: 2500 },
          'VALIDATION_FAILED',
          '/rsaBits',
        ],
        [
          'generate: curve with rsa',
          '/v1/generate',
          { ...gen, type: 'rsa', curve: 'p256' },
          'INVALID_INPUT',
          '/curve',
          /type ecc only/,
        ],
        [
          'generate: rsaBits with ecc',
          '/v1/generate',
          { ...gen, rsaBits: 2048 },
          'INVALID_INPUT',
          '/rsaBits',
          /type rsa only/,
        ],
        [
          'generate: negative expiry',
          '/v1/generate',
          { ...gen, keyExpirationTime: -1 },
          'VALIDATION_FAILED',
          '/keyExpirationTime',
        ],
        [
          'generate: expiry over 32 bits',
          '/v1/generate',
          { ...gen, keyExpirationTime: 2 ** 32 },
          'VALIDATION_FAILED',
          '/keyExpirationTime',
        ],
        [
          'generate: fractional expiry',
          '/v1/generate',
          { ...gen, keyExpirationTime: 1.5 },
          'VALIDATION_FAILED',
          '/keyExpirationTime',
        ],
        ['generate: empty passphrase', '/v1/generate', { ...gen, passphrase: '' }, 'VALIDATION_FAILED', '/passphrase'],
        [
          'generate: numeric passphrase',
          '/v1/generate',
          { ...gen, passphrase: 1234 },
          'VALIDATION_FAILED',
          '/passphrase',
        ],

        ['encrypt: no message', '/v1/encrypt', { publicKeys: bob.publicKey }, 'VALIDATION_FAILED', '/message'],
        [
          'encrypt: no recipient, no passphrase',
          '/v1/encrypt',
          { message: 'x' },
          'INVALID_INPUT',
          '/publicKeys',
          /publicKeys or passphrase is required/,
        ],
        ['encrypt: empty array', '/v1/encrypt', { message: 'x', publicKeys: [] }, 'VALIDATION_FAILED', '/publicKeys'],
        [
          'encrypt: 101 recipients',
          '/v1/encrypt',
          { message: 'x', publicKeys: many },
          'VALIDATION_FAILED',
          '/publicKeys',
        ],
        [
          'encrypt: not armored',
          '/v1/encrypt',
          { message: 'x', publicKeys: 'hello' },
          'INVALID_INPUT',
          '/publicKeys/0',
          /must be an ASCII-armored OpenPGP public key/,
        ],
        [
          'encrypt: a private key as recipient',
          '/v1/encrypt',
          { message: 'x', publicKeys: [bob.publicKey, alice.privateKey] },
          'INVALID_INPUT',
          '/publicKeys/1',
          /private key; send the public key only/,
        ],
        [
          'encrypt: two armored blocks in one string',
          '/v1/encrypt',
          { message: 'x', publicKeys: bob.publicKey + alice.publicKey },
          'INVALID_INPUT',
          '/publicKeys/0',
          /2 armored blocks/,
        ],
        [
          'encrypt: damaged key',
          '/v1/encrypt',
          { message: 'x', publicKeys: damagedKey },
          'INVALID_INPUT',
          '/publicKeys/0',
          /not a readable OpenPGP public key/,
        ],
        [
          'encrypt: sign-only recipient',
          '/v1/encrypt',
          { message: 'x', publicKeys: signOnly.publicKey },
          'INVALID_INPUT',
          '/publicKeys',
          /no valid encryption key/,
        ],
        [
          'encrypt: expired recipient',
          '/v1/encrypt',
          { message: 'x', publicKeys: expired.publicKey },
          'INVALID_INPUT',
          '/publicKeys',
          /no valid encryption key/,
        ],
        [
          'encrypt: public signingKey',
          '/v1/encrypt',
          { message: 'x', publicKeys: bob.publicKey, signingKey: bob.publicKey },
          'INVALID_INPUT',
          '/signingKey',
          /public key; this needs the private key/,
        ],
        [
          'encrypt: locked signingKey, no passphrase',
          '/v1/encrypt',
          { message: 'x', publicKeys: bob.publicKey, signingKey: alice.privateKey },
          'INVALID_INPUT',
          '/signingPassphrase',
          /locked/,
        ],
        [
          'encrypt: wrong signingPassphrase',
          '/v1/encrypt',
          { message: 'x', publicKeys: bob.publicKey, signingKey: alice.privateKey, signingPassphrase: 'nope' },
          'INVALID_INPUT',
          '/signingPassphrase',
          /does not unlock/,
        ],
        [
          'encrypt: signingPassphrase alone',
          '/v1/encrypt',
          { message: 'x', publicKeys: bob.publicKey, signingPassphrase: 'nope' },
          'INVALID_INPUT',
          '/signingPassphrase',
        ],
        [
          'encrypt: expired signingKey',
          '/v1/encrypt',
          { message: 'x', publicKeys: bob.publicKey, signingKey: expired.privateKey },
          'INVALID_INPUT',
          '/signingKey',
          /no valid signing key/,
        ],

        ['decrypt: no message', '/v1/decrypt', { privateKey: bob.privateKey }, 'VALIDATION_FAILED', '/message'],
        [
          'decrypt: no key, no passphrase, no server key',
          '/v1/decrypt',
          { message: toBob },
          'INVALID_INPUT',
          '/privateKey',
          /CRYPTO_KEY_DIR/,
        ],
        [
          'decrypt: message not armored',
          '/v1/decrypt',
          { message: 'hello', privateKey: bob.privateKey },
          'INVALID_INPUT',
          '/message',
          /ASCII-armored OpenPGP message/,
        ],
        [
          'decrypt: a signed message',
          '/v1/decrypt',
          { message: cleartextSigned, privateKey: bob.privateKey },
          'INVALID_INPUT',
          '/message',
        ],
        [
          'decrypt: public key',
          '/v1/decrypt',
          { message: toBob, privateKey: bob.publicKey },
          'INVALID_INPUT',
          '/privateKey',
          /public key/,
        ],
        [
          'decrypt: locked key, no passphrase',
          '/v1/decrypt',
          { message: toBob, privateKey: alice.privateKey },
          'INVALID_INPUT',
          '/passphrase',
          /locked/,
        ],
        [
          'decrypt: wrong key passphrase',
          '/v1/decrypt',
          { message: toBob, privateKey: alice.privateKey, passphrase: 'wrong' },
          'INVALID_INPUT',
          '/passphrase',
          /does not unlock privateKey/,
        ],
        [
          'decrypt: sign-only key',
          '/v1/decrypt',
          { message: toBob, privateKey: signOnly.privateKey },
          'INVALID_INPUT',
          '/privateKey',
          /sign-only/,
        ],
        [
          'decrypt: two armored keys in one field',
          '/v1/decrypt',
          { message: toBob, privateKey: bob.privateKey + alice.privateKey },
          'INVALID_INPUT',
          '/privateKey',
          /2 armored blocks/,
        ],
        [
          'decrypt: not UTF-8',
          '/v1/decrypt',
          { message: nonUtf8, privateKey: bob.privateKey },
          'INVALID_INPUT',
          '/message',
          /not UTF-8/,
        ],

        ['sign: no message', '/v1/sign', { privateKey: bob.privateKey }, 'VALIDATION_FAILED', '/message'],
        ['sign: no key, no server key', '/v1/sign', { message: 'x' }, 'INVALID_INPUT', '/privateKey', /CRYPTO_KEY_DIR/],
        [
          'sign: public key',
          '/v1/sign',
          { message: 'x', privateKey: bob.publicKey },
          'INVALID_INPUT',
          '/privateKey',
          /public key/,
        ],
        [
          'sign: locked, no passphrase',
          '/v1/sign',
          { message: 'x', privateKey: rsa.privateKey },
          'INVALID_INPUT',
          '/passphrase',
          /locked/,
        ],
        [
          'sign: wrong passphrase',
          '/v1/sign',
          { message: 'x', privateKey: rsa.privateKey, passphrase: 'wrong' },
          'INVALID_INPUT',
          '/passphrase',
          /does not unlock/,
        ],
        [
          'sign: expired key',
          '/v1/sign',
          { message: 'x', privateKey: expired.privateKey },
          'INVALID_INPUT',
          '/privateKey',
          /no valid signing key/,
        ],
        [
          'sign: detached not boolean',
          '/v1/sign',
          { message: 'x', privateKey: bob.privateKey, detached: 'yes' },
          'VALIDATION_FAILED',
          '/detached',
        ],
        [
          'sign: garbage key',
          '/v1/sign',
          {
            message: 'x',
            privateKey: '-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nAAAA\n-----END PGP PRIVATE KEY BLOCK-----',
          },
          'INVALID_INPUT',
          '/privateKey',
          /not a readable/,
        ],

        ['verify: no publicKeys', '/v1/verify', { message: cleartextSigned }, 'VALIDATION_FAILED', '/publicKeys'],
        [
          'verify: plain text without signature',
          '/v1/verify',
          { message: 'hello', publicKeys: bob.publicKey },
          'INVALID_INPUT',
          '/message',
          /signed message/,
        ],
        [
          'verify: an encrypted message',
          '/v1/verify',
          { message: toBob, publicKeys: bob.publicKey },
          'INVALID_INPUT',
          '/message',
          /decrypted first/,
        ],
        [
          'verify: signature not armored',
          '/v1/verify',
          { message: 'x', signature: 'abc', publicKeys: bob.publicKey },
          'INVALID_INPUT',
          '/signature',
        ],
        [
          'verify: damaged signature',
          '/v1/verify',
          {
            message: 'x',
            signature: '-----BEGIN PGP SIGNATURE-----\n\nAAAA\n-----END PGP SIGNATURE-----',
            publicKeys: bob.publicKey,
          },
          'INVALID_INPUT',
          '/signature',
          /not a readable/,
        ],
        [
          'verify: a private key',
          '/v1/verify',
          { message: cleartextSigned, publicKeys: [bob.privateKey] },
          'INVALID_INPUT',
          '/publicKeys/0',
          /private key/,
        ],
        [
          'verify: publicKeys a number',
          '/v1/verify',
          { message: cleartextSigned, publicKeys: 7 },
          'VALIDATION_FAILED',
          '/publicKeys',
        ],

        ['revoke: no key', '/v1/revoke', { reason: 'x' }, 'VALIDATION_FAILED', '/privateKey'],
        [
          'revoke: public key',
          '/v1/revoke',
          { privateKey: bob.publicKey },
          'INVALID_INPUT',
          '/privateKey',
          /public key/,
        ],
        [
          'revoke: locked, no passphrase',
          '/v1/revoke',
          { privateKey: alice.privateKey },
          'INVALID_INPUT',
          '/passphrase',
          /locked/,
        ],
        [
          'revoke: wrong passphrase',
          '/v1/revoke',
          { privateKey: alice.privateKey, passphrase: 'wrong' },
          'INVALID_INPUT',
          '/passphrase',
          /does not unlock/,
        ],
        [
          'revoke: reason too long',
          '/v1/revoke',
          { privateKey: bob.privateKey, reason: 'x'.repeat(1025) },
          'VALIDATION_FAILED',
          '/reason',
        ],
      ];
      // Passphrases, and a stretch of each key's base64 body: none may come back in a problem.
      const keyBodies = [alice, bob, rsa]
        .flatMap((key) => [key.privateKey, key.publicKey])
        .map((armored) => armored.split('\n')[2]!.slice(0, 32));
      const secrets = [ALICE_PASS, RSA_PASS, 'nope', 'wrong', ...keyBodies];
      for (const [label, url, body, code, field, detail] of rows) {
        const response = await post(url, body);
        const problem = assertProblem(response, 400, code, label);
        assertDeprecated(response, label);
        if (field !== undefined) {
          assert.ok(
            problem.errors?.some((error) => error.field === field),
            `${label}: expected field ${field}, got ${JSON.stringify(problem.errors)}`,
          );
        }
        if (detail !== undefined) assert.match(problem.detail, detail, label);
        for (const secret of secrets)
          assert.ok(!response.body.includes(secret), `${label}: the body repeats "${secret}"`);
      }
      // Not a recipient of the symmetric message either way: DECRYPTION_FAILED, never INVALID_INPUT.
      assertProblem(await post('/v1/decrypt', { message: symmetric, passphrase: 'q' }), 400, 'DECRYPTION_FAILED');
    });

    test('the body itself: not JSON, not application/json', async () => {
      const notJson = await app.inject({
        method: 'POST',
        url: '/v1/encrypt',
        headers: { 'content-type': 'application/json' },
        payload: '{',
      });
      assertProblem(notJson, 400, 'MALFORMED_JSON');
      const text = await app.inject({
        method: 'POST',
        url: '/v1/sign',
        headers: { 'content-type': 'text/plain' },
        payload: 'x',
      });
      assertProblem(text, 415, 'UNSUPPORTED_MEDIA_TYPE');
    });
  });

  describe('scopes (JWT)', () => {
    test('each route needs its scope: 403 without it, through with it', async (t) => {
      const scoped = await testApp({ JWT_SECRET: TEST_JWT_SECRET });
      t.after(() => scoped.close());
      const secret = new TextEncoder().encode(TEST_JWT_SECRET);
      const token = (scope: string) =>
        new SignJWT({ scope }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('5m').sign(secret);
      const routes: [string, string][] = [
        ['/v1/generate', 'crypto:keys'],
        ['/v1/revoke', 'crypto:keys'],
        ['/v1/encrypt', 'crypto:encrypt'],
        ['/v1/decrypt', 'crypto:decrypt'],
        ['/v1/sign', 'crypto:sign'],
        ['/v1/verify', 'crypto:verify'],
      ];
      for (const [url, scope] of routes) {
        const denied = await postJson(
          scoped,
          url,
          {},
          { authorization: `Bearer ${await token('crypto:hash crypto:pq')}` },
        );
        const problem = assertProblem(denied, 403, 'FORBIDDEN', url);
        assert.match(problem.detail, new RegExp(scope), url);
        assertDeprecated(denied, url);
        // With the scope, the request reaches validation (the empty body is a 400, not a 403).
        const allowed = await postJson(scoped, url, {}, { authorization: `Bearer ${await token(scope)}` });
        assertProblem(allowed, 400, 'VALIDATION_FAILED', url);
      }
    });
  });

  describe('rate-limit prices', () => {
    test('1 unit for a request without a passphrase, 10 with one, 10 for an ecc key', async (t) => {
      const limited = await testApp({ RATE_LIMIT_MAX: '1000' });
      t.after(() => limited.close());
      const first = await postJson(limited, '/v1/encrypt', { message: 'x', publicKeys: bob.publicKey });
      assert.equal(remaining(first), 999);
      const withPassphrase = await postJson(limited, '/v1/encrypt', { message: 'x', passphrase: 'p' });
      assert.equal(withPassphrase.statusCode, 200);
      assert.equal(remaining(withPassphrase), 989);
      const sign = await postJson(limited, '/v1/sign', {
        message: 'x',
        privateKey: alice.privateKey,
        passphrase: ALICE_PASS,
      });
      assert.equal(remaining(sign), 979);
      const ecc = await postJson(limited, '/v1/generate', { name: 'N', email: 'n@example.com' });
      assert.equal(ecc.statusCode, 200);
      assert.equal(remaining(ecc), 969);
      const verify = await postJson(limited, '/v1/verify', { message: 'x', signature: 'x', publicKeys: bob.publicKey });
      assert.equal(remaining(verify), 968);
    });

    test('rsa costs 20, 40 or 120 units by size, charged before any work', async (t) => {
      // Exactly enough for RSA-2048: it succeeds and leaves nothing.
      const twenty = await testApp({ RATE_LIMIT_MAX: '20' });
      t.after(() => twenty.close());
      const rsa2048 = await postJson(twenty, '/v1/generate', {
        name: 'N',
        email: 'n@example.com',
        type: 'rsa',
        rsaBits: 2048,
      });
      assert.equal(rsa2048.statusCode, 200, rsa2048.body);
      assert.equal(remaining(rsa2048), 0);
      // One unit short of each size: refused at once, with the headers.
      for (const [max, bits] of [
        [19, 2048],
        [39, 3072],
        [119, 4096],
      ] as const) {
        const app = await testApp({ RATE_LIMIT_MAX: String(max) });
        t.after(() => app.close());
        const refused = await postJson(app, '/v1/generate', {
          name: 'N',
          email: 'n@example.com',
          type: 'rsa',
          rsaBits: bits,
        });
        assertProblem(refused, 429, 'RATE_LIMITED', `rsa ${bits}`);
        assertDeprecated(refused, `rsa ${bits}`);
        assert.ok(refused.headers['retry-after'], 'Retry-After');
        // Refused before any work: no generation was even attempted.
        const metrics = await app.inject({ method: 'GET', url: '/metrics' });
        assert.doesNotMatch(metrics.body, /operation="v1.generate"/, `rsa ${bits}`);
      }
      // Exactly enough for RSA-3072, the default size.
      const forty = await testApp({ RATE_LIMIT_MAX: '40' });
      t.after(() => forty.close());
      const rsa3072 = await postJson(forty, '/v1/generate', { name: 'N', email: 'n@example.com', type: 'rsa' });
      assert.equal(rsa3072.statusCode, 200, rsa3072.body);
      assert.equal(remaining(rsa3072), 0);
      const bits = (await readPublic(rsa3072.json().data.publicKey)).getAlgorithmInfo().bits;
      assert.equal(bits, 3072, 'rsaBits defaults to 3072');
    });
  });

  describe('the work stays off the event loop, and is bounded', () => {
    test('locked-key operations (synchronous S2K in OpenPGP.js) leave the event loop idle', async () => {
      // Locked with GnuPG's largest S2K count: each unlock is two derivations of 65 MB of hashing,
      // several hundred milliseconds of synchronous JavaScript that would keep the event loop busy
      // nearly all the time if it ran here.
      const heavy = await openpgp.encryptKey({
        privateKey: await readPrivate(bob.privateKey),
        passphrase: 'heavy',
        config: { s2kIterationCountByte: 255 },
      });
      const key = { privateKey: heavy.armor(), passphrase: 'heavy' };
      const body = { message: 'x', ...key };
      // Warm the pool: the first jobs also start the workers.
      await Promise.all([ok('/v1/sign', body), ok('/v1/sign', body)]);
      const before = performance.eventLoopUtilization();
      const started = performance.now();
      for (let round = 0; round < 3; round += 1) {
        await Promise.all([ok('/v1/sign', body), ok('/v1/revoke', key)]);
      }
      const elapsed = performance.now() - started;
      const { utilization } = performance.eventLoopUtilization(before);
      assert.ok(elapsed > 300, `the work took ${elapsed.toFixed(0)} ms: too little to measure anything`);
      assert.ok(
        utilization < 0.5,
        `event loop utilization ${utilization.toFixed(2)} during ${elapsed.toFixed(0)} ms of OpenPGP work`,
      );
    });

    test('RSA-4096 generation with a passphrase leaves the event loop idle', async () => {
      const before = performance.eventLoopUtilization();
      const started = performance.now();
      const data = await ok('/v1/generate', {
        name: 'Big',
        email: 'big@example.com',
        type: 'rsa',
        rsaBits: 4096,
        passphrase: 'big',
      });
      const elapsed = performance.now() - started;
      const { utilization } = performance.eventLoopUtilization(before);
      assert.equal((await readPublic(data.publicKey)).getAlgorithmInfo().bits, 4096);
      assert.ok(
        utilization < 0.5,
        `event loop utilization ${utilization.toFixed(2)} during ${elapsed.toFixed(0)} ms of RSA-4096 generation`,
      );
    });

    test('bounds on crafted input: at most 8 passphrase packets per message, 15 subkeys per private key', async () => {
      const passwords = Array.from({ length: 9 }, (_, index) => `password ${index}`);
      const eight = await openpgp.encrypt({
        message: await openpgp.createMessage({ text: 'eight' }),
        passwords: passwords.slice(0, 8),
      });
      assert.equal(await ok('/v1/decrypt', { message: eight, passphrase: 'password 7' }), 'eight');
      // Nine: refused before any S2K work, with the one decryption failure (the right passphrase included).
      const nine = await openpgp.encrypt({ message: await openpgp.createMessage({ text: 'nine' }), passwords });
      assertProblem(await post('/v1/decrypt', { message: nine, passphrase: 'password 0' }), 400, 'DECRYPTION_FAILED');

      const subkeys = (count: number) =>
        openpgp.generateKey({
          userIDs: [{ name: 'Many', email: 'many@example.com' }],
          type: 'ecc',
          subkeys: Array.from({ length: count }, () => ({})),
          format: 'armored',
        });
      assert.match(
        await ok('/v1/sign', { message: 'x', privateKey: (await subkeys(15)).privateKey }),
        /BEGIN PGP SIGNED MESSAGE/,
      );
      const tooMany = assertProblem(
        await post('/v1/sign', { message: 'x', privateKey: (await subkeys(16)).privateKey }),
        400,
        'INVALID_INPUT',
      );
      assert.match(tooMany.detail, /more than 15 subkeys/);
    });

    test('a full queue answers 503 with Retry-After after BUSY_REFUSAL_DELAY_MS, not a stall', async (t) => {
      const small = await testApp({
        V1_WORKERS: '1',
        V1_QUEUE_LIMIT: '0',
        RATE_LIMIT_MAX: '100000',
        BUSY_REFUSAL_DELAY_MS: '150',
      });
      t.after(() => small.close());
      // Two slow jobs at once on one worker with no waiting room: one runs, the other is refused.
      const slow = { message: 'x', privateKey: alice.privateKey, passphrase: ALICE_PASS };
      const sentAt = performance.now();
      const timed = async (request: ReturnType<typeof postJson>) => {
        const response = await request;
        return { response, ms: performance.now() - sentAt };
      };
      const results = await Promise.all([
        timed(postJson(small, '/v1/sign', slow)),
        timed(postJson(small, '/v1/sign', slow)),
      ]);
      const responses = results.map(({ response }) => response);
      const statuses = responses.map((response) => response.statusCode).sort();
      assert.deepEqual(statuses, [200, 503]);
      // A lower bound only: a timer never fires early (libuv's cached clock may make it look 1 ms early).
      assert.ok(results.find(({ response }) => response.statusCode === 503)!.ms >= 148, 'the refusal was held back');
      const refused = responses.find((response) => response.statusCode === 503)!;
      assertProblem(refused, 503, 'SERVICE_UNAVAILABLE');
      assert.equal(refused.headers['retry-after'], '1');
      assertDeprecated(refused, '503');
      // The queue has room again afterwards.
      assert.equal((await postJson(small, '/v1/sign', slow)).statusCode, 200);
      const metrics = await small.inject({ method: 'GET', url: '/metrics' });
      assert.match(metrics.body, /crypto_openpgp_rejected_total 1\b/);
      assert.match(
        metrics.body,
        /crypto_operations_total\{operation="v1.sign",algorithm="openpgp",outcome="unavailable"\} 1\b/,
      );
    });

    test('a job over V1_JOB_TIMEOUT_MS is stopped (503) and its worker replaced', async (t) => {
      // A key with 16 packets (the most a key may have here), each locked with GnuPG's largest S2K
      // count: unlocking it takes about a second. The timeout is 300 ms, under the 1 s that
      // V1_JOB_TIMEOUT_MS allows, so that the job outlasts it by far on any machine (with a 1 s
      // timeout a fast machine could finish the job in time).
      const heavy = await openpgp.generateKey({
        userIDs: [{ name: 'Heavy', email: 'heavy@example.com' }],
        type: 'ecc',
        subkeys: Array.from({ length: 15 }, () => ({})),
        format: 'object',
      });
      const locked = await openpgp.encryptKey({
        privateKey: heavy.privateKey,
        passphrase: 'slow',
        config: { s2kIterationCountByte: 255 },
      });
      const config = testConfig({ V1_WORKERS: '1', RATE_LIMIT_MAX: '100000' });
      const timed = await appWithConfig({ ...config, v1: { ...config.v1, jobTimeoutMs: 300 } });
      t.after(() => timed.close());
      const started = performance.now();
      const stopped = await postJson(timed, '/v1/sign', {
        message: 'x',
        privateKey: locked.armor(),
        passphrase: 'slow',
      });
      const elapsed = performance.now() - started;
      const problem = assertProblem(stopped, 503, 'SERVICE_UNAVAILABLE');
      assert.match(problem.detail, /longer than 0\.3 s/);
      assert.ok(elapsed >= 300, `answered after ${elapsed.toFixed(0)} ms, before the timeout`);
      // The next job runs on a fresh worker.
      const next = await postJson(timed, '/v1/sign', { message: 'after', privateKey: bob.privateKey });
      assert.equal(next.statusCode, 200, next.body);
      const metrics = await timed.inject({ method: 'GET', url: '/metrics' });
      assert.match(metrics.body, /crypto_openpgp_timeouts_total 1\b/);
    });
  });

  test('the OpenAPI document lists every /v1 route as a deprecated operation', async () => {
    const document = (await app.inject({ method: 'GET', url: '/docs/json' })).json();
    for (const route of ['generate', 'encrypt', 'decrypt', 'sign', 'verify', 'revoke']) {
      const operation = document.paths[`/v1/${route}`]?.post;
      assert.ok(operation, `/v1/${route}`);
      assert.equal(operation.deprecated, true, `/v1/${route}`);
    }
  });

  test('metrics count /v1 operations by route and outcome', async () => {
    const metrics = await app.inject({ method: 'GET', url: '/metrics' });
    assert.match(
      metrics.body,
      /crypto_operations_total\{operation="v1.generate",algorithm="curve25519",outcome="success"\} \d+/,
    );
    assert.match(
      metrics.body,
      /crypto_operations_total\{operation="v1.generate",algorithm="rsa-2048",outcome="success"\} \d+/,
    );
    assert.match(
      metrics.body,
      /crypto_operations_total\{operation="v1.decrypt",algorithm="openpgp",outcome="rejected"\} \d+/,
    );
    assert.match(metrics.body, /crypto_openpgp_jobs\{state="running"\} 0/);
  });
});
