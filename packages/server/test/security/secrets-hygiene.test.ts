/**
 * Secrets hygiene: a broad mix of requests over every route family, successes and
 * failures (wrong key lengths, failed decryption, wrong passwords, bad and foreign JWTs, wrong API
 * keys, malformed JSON full of secrets, credentials in the query string, /v1 with passphrases), at
 * LOG_LEVEL=debug with the logs captured. No secret may appear in any log line or in any error
 * body, in any of the forms it could take there: as sent (UTF-8), hex, base64, base64url, or the
 * decimal byte list a logged Buffer would print. Success bodies are exempt (a decryption returns
 * its plaintext, key generation its private key); they are where secrets are supposed to go.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import type { FastifyInstance } from 'fastify';
import { testApp } from '../helpers.ts';

const API_KEY = 'apikey-HYGIENE-7f3a9c2e5b1d40680c';
const WRONG_API_KEY = 'apikey-HYGIENE-wrong-guess-5e6f7a8b';
const JWT_SECRET = 'jwt-secret-HYGIENE-0b9e8d7c6a5f4e3d2c1b0a99';
const FOREIGN_JWT_SECRET = 'jwt-secret-HYGIENE-never-configured-4d5e6f';
const PASSWORD = 'password-HYGIENE-correct horse battery';
const WRONG_PASSWORD = 'password-HYGIENE-wrong guess 1234';
const PASSPHRASE = 'passphrase-HYGIENE-open sesame 42';
const PLAINTEXT = 'plaintext-HYGIENE-attack at dawn';
const MESSAGE = 'message-HYGIENE-I owe you 100 EUR';
const HEX = { 'content-type': 'application/json' };

interface Secret {
  name: string;
  bytes: Uint8Array;
  /** The text as it was sent, when it is text. */
  text?: string;
}

/** Every form in which the secret could show up in a log line or a JSON body. */
function formsOf(secret: Secret): string[] {
  const bytes = Buffer.from(secret.bytes);
  const forms = [
    bytes.toString('hex'),
    bytes.toString('base64'),
    bytes.toString('base64url'),
    [...bytes.subarray(0, 12)].join(','),
  ];
  if (secret.text !== undefined) forms.push(secret.text, JSON.stringify(secret.text).slice(1, -1));
  // Also the first 16 bytes alone: a truncated or partial echo is still a leak.
  if (bytes.length > 24) forms.push(bytes.subarray(0, 16).toString('hex'), bytes.subarray(0, 18).toString('base64'));
  return forms.filter((form) => form.length >= 12);
}

const text = (name: string, value: string): Secret => ({ name, bytes: Buffer.from(value, 'utf8'), text: value });
const binary = (name: string, bytes: Uint8Array): Secret => ({ name, bytes });

describe('secrets never reach the logs or an error body', () => {
  const logs: string[] = [];
  const errorBodies: { label: string; body: string }[] = [];
  const secrets: Secret[] = [];
  let app: FastifyInstance;
  let requests = 0;

  async function send(
    label: string,
    url: string,
    body: unknown,
    headers: Record<string, string> = { 'x-api-key': API_KEY },
    raw?: string,
  ) {
    requests += 1;
    const response = await app.inject({
      method: 'POST',
      url,
      headers: { ...HEX, ...headers },
      payload: raw ?? JSON.stringify(body),
    });
    if (response.statusCode >= 400) errorBodies.push({ label, body: response.body });
    return response;
  }

  async function ok(label: string, url: string, body: unknown, headers?: Record<string, string>) {
    const response = await send(label, url, body, headers);
    assert.equal(response.statusCode, 200, `${label}: ${response.body.slice(0, 300)}`);
    return response.json().data;
  }

  async function refused(
    label: string,
    url: string,
    body: unknown,
    status: number,
    headers?: Record<string, string>,
    raw?: string,
  ) {
    const response = await send(label, url, body, headers, raw);
    assert.equal(response.statusCode, status, `${label}: ${response.body.slice(0, 300)}`);
  }

  /** What `work` threw, or undefined: the hook below keeps a failure for the test it belongs to. */
  async function failureOf(work: () => Promise<void>): Promise<unknown> {
    try {
      await work();
      return undefined;
    } catch (error) {
      return error ?? new Error('failed without an error');
    }
  }

  // Every request is sent from the hook, in one order, so that each test below reads finished
  // traffic whatever order the tests themselves run in.
  let requestMixFailure: unknown;
  let v1MixFailure: unknown;
  test.before(async () => {
    app = await testApp(
      { CRYPTO_API_KEY: API_KEY, JWT_SECRET, LOG_LEVEL: 'debug', RATE_LIMIT_MAX: '1000000', BODY_LIMIT_BYTES: '65536' },
      { logStream: { write: (line: string) => logs.push(line) } },
    );
    requestMixFailure = await failureOf(sendRequestMix);
    v1MixFailure = await failureOf(sendV1Mix);
  });
  test.after(() => app.close());

  async function sendRequestMix(): Promise<void> {
    secrets.push(
      text('API key', API_KEY),
      text('wrong API key', WRONG_API_KEY),
      text('JWT secret', JWT_SECRET),
      text('foreign JWT secret', FOREIGN_JWT_SECRET),
    );
    secrets.push(
      text('password', PASSWORD),
      text('wrong password', WRONG_PASSWORD),
      text('passphrase', PASSPHRASE),
      text('plaintext', PLAINTEXT),
      text('message', MESSAGE),
    );

    // Authentication: good and bad credentials of both kinds, and credentials in the query string.
    const jwt = await new SignJWT({ sub: 'hygiene', scope: 'crypto:*' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(JWT_SECRET));
    const foreignJwt = await new SignJWT({ sub: 'intruder' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(FOREIGN_JWT_SECRET));
    const expiredJwt = await new SignJWT({ sub: 'late' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime(Math.floor(Date.now() / 1000) - 3600)
      .sign(new TextEncoder().encode(JWT_SECRET));
    for (const [name, token] of [
      ['JWT', jwt],
      ['foreign JWT', foreignJwt],
      ['expired JWT', expiredJwt],
    ] as const) {
      secrets.push(text(name, token), text(`${name} signature`, token.split('.')[2]!));
    }
    const hash = { algorithm: 'sha256', data: PLAINTEXT };
    await ok('JWT', '/v2/hash', hash, { authorization: `Bearer ${jwt}` });
    await refused('foreign JWT', '/v2/hash', hash, 401, { authorization: `Bearer ${foreignJwt}` });
    await refused('expired JWT', '/v2/hash', hash, 401, { authorization: `Bearer ${expiredJwt}` });
    await refused('wrong API key', '/v2/hash', hash, 401, { 'x-api-key': WRONG_API_KEY });
    await refused('wrong API key beside a good JWT', '/v2/hash', hash, 401, {
      'x-api-key': WRONG_API_KEY,
      authorization: `Bearer ${jwt}`,
    });
    await refused('API key in the query string', `/v2/hash?api_key=${API_KEY}&access_token=${jwt}`, hash, 401, {});
    await refused('Basic credentials', '/v2/hash', hash, 401, {
      authorization: `Basic ${Buffer.from(`user:${PASSWORD}`).toString('base64')}`,
    });

    // AEAD: encrypt, decrypt, decrypt with the wrong key, keys of the wrong length.
    const key = randomBytes(32);
    const wrongKey = randomBytes(32);
    const aad = `aad-HYGIENE-${randomBytes(8).toString('hex')}`;
    secrets.push(
      binary('AEAD key', key),
      binary('wrong AEAD key', wrongKey),
      binary('31 bytes of a key', key.subarray(0, 31)),
    );
    secrets.push(text('AAD', aad));
    const sealed = (await ok('encrypt', '/v2/encrypt', { key: key.toString('hex'), plaintext: PLAINTEXT, aad }))
      .ciphertext;
    await ok('decrypt', '/v2/decrypt', { key: key.toString('hex'), ciphertext: sealed, aad });
    await refused('decrypt without the AAD', '/v2/decrypt', { key: key.toString('hex'), ciphertext: sealed }, 400);
    await refused(
      'decrypt with the wrong key',
      '/v2/decrypt',
      { key: wrongKey.toString('hex'), ciphertext: sealed },
      400,
    );
    await refused(
      'decrypt with a tampered ciphertext',
      '/v2/decrypt',
      {
        key: key.toString('hex'),
        ciphertext: Buffer.from(Buffer.from(sealed, 'base64').map((b, i) => (i === 30 ? b ^ 1 : b))).toString('base64'),
      },
      400,
    );
    await refused(
      'a 31-byte key',
      '/v2/encrypt',
      { key: key.subarray(0, 31).toString('hex'), plaintext: PLAINTEXT },
      400,
    );
    await refused(
      'a key that is not hex',
      '/v2/encrypt',
      { key: `${key.toString('hex').slice(0, 62)}zz`, plaintext: PLAINTEXT },
      400,
    );
    await ok('secretbox seal', '/v2/secretbox/seal', { key: key.toString('hex'), plaintext: PLAINTEXT });
    await refused(
      'secretbox open with the wrong key',
      '/v2/secretbox/open',
      { key: wrongKey.toString('hex'), ciphertext: sealed },
      400,
    );

    // Sealed boxes, classical and post-quantum.
    const x25519 = await ok('x25519 keys', '/v2/keys/generate', { algorithm: 'x25519' });
    secrets.push(binary('X25519 private key', Buffer.from(x25519.privateKey, 'hex')));
    const box = (
      await ok('sealedbox seal', '/v2/sealedbox/seal', { publicKey: x25519.publicKey, plaintext: PLAINTEXT })
    ).ciphertext;
    await ok('sealedbox open', '/v2/sealedbox/open', { privateKey: x25519.privateKey, ciphertext: box });
    await refused(
      'sealedbox open with another key',
      '/v2/sealedbox/open',
      { privateKey: wrongKey.toString('hex'), ciphertext: box },
      400,
    );
    const xwing = await ok('X-Wing keys', '/v2/pq/hybrid/keygen', {});
    secrets.push(binary('X-Wing seed', Buffer.from(xwing.privateKey, 'hex')));
    const pqBox = (await ok('PQ seal', '/v2/sealedbox/seal-pq', { publicKey: xwing.publicKey, plaintext: PLAINTEXT }))
      .ciphertext;
    await refused(
      'PQ open with another seed',
      '/v2/sealedbox/open-pq',
      { privateKey: wrongKey.toString('hex'), ciphertext: pqBox },
      400,
    );
    const encapsulated = await ok('X-Wing encapsulate', '/v2/pq/hybrid/encapsulate', { publicKey: xwing.publicKey });
    secrets.push(binary('X-Wing shared secret', Buffer.from(encapsulated.sharedSecret, 'hex')));
    await ok('X-Wing decapsulate', '/v2/pq/hybrid/decapsulate', {
      privateKey: xwing.privateKey,
      ciphertext: encapsulated.ciphertext,
    });

    // Signatures: a private key, a signature that does not verify, a key of the wrong length.
    const ed = await ok('ed25519 keys', '/v2/keys/generate', { algorithm: 'ed25519' });
    secrets.push(binary('Ed25519 seed', Buffer.from(ed.privateKey, 'hex')));
    const signature = (await ok('sign', '/v2/sign', { privateKey: ed.privateKey, message: MESSAGE })).signature;
    await ok('verify a forged message', '/v2/verify', { publicKey: ed.publicKey, message: `${MESSAGE}!`, signature });
    await refused('sign with 33 bytes of key', '/v2/sign', { privateKey: `${ed.privateKey}00`, message: MESSAGE }, 400);
    const mlDsa = await ok('ML-DSA keys', '/v2/pq/dsa/keygen', { algorithm: 'ml-dsa-44' });
    secrets.push(binary('ML-DSA seed', Buffer.from(mlDsa.privateKey, 'hex')));
    await ok('ML-DSA sign', '/v2/pq/dsa/sign', { privateKey: mlDsa.privateKey, message: MESSAGE });
    await refused(
      'ML-DSA sign with a bad context',
      '/v2/pq/dsa/sign',
      { privateKey: mlDsa.privateKey, message: MESSAGE, context: 'c'.repeat(300) },
      400,
    );

    // MACs and key derivation.
    const macKey = randomBytes(48);
    secrets.push(binary('HMAC key', macKey));
    const mac = (await ok('hmac', '/v2/hmac', { algorithm: 'hmac-sha384', key: macKey.toString('hex'), data: MESSAGE }))
      .mac;
    await ok('hmac verify, wrong data', '/v2/hmac/verify', {
      algorithm: 'hmac-sha384',
      key: macKey.toString('hex'),
      data: `${MESSAGE}.`,
      mac,
    });
    await refused(
      'hmac verify, truncated MAC',
      '/v2/hmac/verify',
      { algorithm: 'hmac-sha384', key: macKey.toString('hex'), data: MESSAGE, mac: mac.slice(0, 40) },
      400,
    );
    const ikm = randomBytes(40);
    secrets.push(binary('HKDF input keying material', ikm));
    const derived = await ok('hkdf', '/v2/kdf', {
      algorithm: 'hkdf-sha256',
      password: ikm.toString('hex'),
      encoding: 'hex',
      params: { info: '637478' },
    });
    secrets.push(binary('derived key', Buffer.from(derived.derivedKey, 'hex')));
    await ok('pbkdf2', '/v2/kdf', { algorithm: 'pbkdf2-sha256', password: PASSWORD, params: { iterations: 600_000 } });
    await refused(
      'scrypt over its memory cap',
      '/v2/kdf',
      { algorithm: 'scrypt', password: PASSWORD, params: { N: 2 ** 18, r: 16 } },
      400,
    );
    await refused(
      'kdf with a password that is not hex',
      '/v2/kdf',
      { algorithm: 'hkdf-sha256', password: `${PASSWORD}`, encoding: 'hex' },
      400,
    );

    // Key wrapping.
    const kek = randomBytes(32);
    const keyToWrap = randomBytes(32);
    secrets.push(binary('KEK', kek), binary('wrapped key', keyToWrap));
    const wrapped = (
      await ok('wrap', '/v2/keys/wrap', { kek: kek.toString('hex'), keyToWrap: keyToWrap.toString('hex') })
    ).wrappedKey;
    await refused(
      'unwrap with the wrong KEK',
      '/v2/keys/unwrap',
      { kek: wrongKey.toString('hex'), wrappedKey: wrapped },
      400,
    );
    await refused(
      'wrap with a 20-byte KEK',
      '/v2/keys/wrap',
      { kek: kek.subarray(0, 20).toString('hex'), keyToWrap: keyToWrap.toString('hex') },
      400,
    );

    // Passwords (Argon2id at OWASP's floor, to stay quick).
    const floor = { timeCost: 2, memoryCost: 19456, parallelism: 1 };
    const phc = (await ok('password hash', '/v2/password/hash', { password: PASSWORD, ...floor })).hash;
    await ok('password verify, wrong password', '/v2/password/verify', { password: WRONG_PASSWORD, hash: phc });
    await refused(
      'password verify, a PHC string over the caps',
      '/v2/password/verify',
      { password: PASSWORD, hash: phc.replace(/m=\d+/, 'm=999999999') },
      400,
    );
    await refused('password hash over the time cap', '/v2/password/hash', { password: PASSWORD, timeCost: 99 }, 400);
    const encrypted = (
      await ok('password encrypt', '/v2/password/encrypt', { password: PASSWORD, plaintext: PLAINTEXT })
    ).ciphertext;
    await refused(
      'password decrypt, wrong password',
      '/v2/password/decrypt',
      { password: WRONG_PASSWORD, ciphertext: encrypted },
      400,
    );

    // Multi-recipient envelopes.
    const envelope = await ok('multi-recipient encrypt', '/v2/multi-recipient/encrypt', {
      plaintext: PLAINTEXT,
      recipients: [{ type: 'x25519', publicKey: x25519.publicKey }],
    });
    await refused(
      'multi-recipient decrypt, not a recipient',
      '/v2/multi-recipient/decrypt',
      { ...envelope, privateKey: wrongKey.toString('hex') },
      400,
    );

    // Bodies the parser or the pipeline refuses, full of secrets.
    const leakyBody = `{"key":"${key.toString('hex')}","password":"${PASSWORD}","plaintext":"${PLAINTEXT}"`;
    await refused('truncated JSON', '/v2/encrypt', undefined, 400, { 'x-api-key': API_KEY }, leakyBody);
    await refused(
      'JSON with a trailing comma',
      '/v2/encrypt',
      undefined,
      400,
      { 'x-api-key': API_KEY },
      `${leakyBody},}`,
    );
    await refused(
      'a __proto__ key',
      '/v2/encrypt',
      undefined,
      400,
      { 'x-api-key': API_KEY },
      `{"__proto__":{"key":"${key.toString('hex')}"},"plaintext":"${PLAINTEXT}"}`,
    );
    await refused(
      'too deep',
      '/v2/encrypt',
      undefined,
      400,
      { 'x-api-key': API_KEY },
      `{"plaintext":"${PLAINTEXT}","x":${'['.repeat(40)}"${PASSWORD}"${']'.repeat(40)}}`,
    );
    await refused(
      'invalid UTF-8',
      '/v2/encrypt',
      undefined,
      400,
      { 'x-api-key': API_KEY },
      `{"plaintext":"${PLAINTEXT}\udc00"}`,
    );
    await refused(
      'unknown fields',
      '/v2/encrypt',
      { key: key.toString('hex'), plaintext: PLAINTEXT, password: PASSWORD },
      400,
    );
    await refused(
      'a password where a number goes',
      '/v2/password/hash',
      { password: PASSWORD, timeCost: PASSWORD },
      400,
    );
    await refused('an algorithm that is a secret', '/v2/hash', { algorithm: PASSWORD, data: PLAINTEXT }, 400);
    const textPlain = await app.inject({
      method: 'POST',
      url: '/v2/encrypt',
      headers: { 'content-type': 'text/plain', 'x-api-key': API_KEY },
      payload: `${PASSWORD} ${PLAINTEXT}`,
    });
    assert.equal(textPlain.statusCode, 415);
    errorBodies.push({ label: 'text/plain body', body: textPlain.body });
    await refused(
      'a body over the limit',
      '/v2/encrypt',
      { key: key.toString('hex'), plaintext: `${PLAINTEXT} ${'x'.repeat(70_000)}` },
      413,
    );
  }

  async function sendV1Mix(): Promise<void> {
    const generated = await ok('/v1 generate', '/v1/generate', {
      name: 'Hygiene',
      email: 'hygiene@example.com',
      passphrase: PASSPHRASE,
    });
    secrets.push(text('/v1 armored private key body', generated.privateKey.split('\n').slice(3, 5).join('\n')));
    const armored = await ok('/v1 encrypt', '/v1/encrypt', { message: MESSAGE, publicKeys: generated.publicKey });
    await ok('/v1 decrypt', '/v1/decrypt', {
      message: armored,
      privateKey: generated.privateKey,
      passphrase: PASSPHRASE,
    });
    await refused(
      '/v1 decrypt, wrong passphrase',
      '/v1/decrypt',
      { message: armored, privateKey: generated.privateKey, passphrase: WRONG_PASSWORD },
      400,
    );
    const symmetric = await ok('/v1 encrypt to a passphrase', '/v1/encrypt', {
      message: PLAINTEXT,
      passphrase: PASSPHRASE,
    });
    await refused(
      '/v1 decrypt a symmetric message, wrong passphrase',
      '/v1/decrypt',
      { message: symmetric, passphrase: WRONG_PASSWORD },
      400,
    );
    await refused(
      '/v1 sign with a locked key, no passphrase',
      '/v1/sign',
      { message: MESSAGE, privateKey: generated.privateKey },
      400,
    );
  }

  test('the request mix', () => {
    if (requestMixFailure !== undefined) throw requestMixFailure;
  });

  test('/v1 with passphrases: generate, encrypt, decrypt, and the wrong passphrase', () => {
    if (v1MixFailure !== undefined) throw v1MixFailure;
  });

  test('no secret, in any form, is in any log line or error body', () => {
    assert.ok(requests >= 60, `only ${requests} requests were made`);
    assert.ok(errorBodies.length >= 30, `only ${errorBodies.length} error bodies`);
    const parsed = logs.map((line) => JSON.parse(line) as Record<string, unknown>);
    // The logs are not empty: the requests are there, at debug, by method and path.
    assert.ok(
      parsed.filter((line) => line.msg === 'incoming request').length >= requests,
      'every request is logged at debug',
    );
    assert.ok(parsed.filter((line) => line.msg === 'request completed').length >= requests);
    const leaks: string[] = [];
    for (const secret of secrets) {
      for (const form of formsOf(secret)) {
        const line = logs.find((entry) => entry.includes(form));
        if (line !== undefined) leaks.push(`${secret.name} in a log line: ${line.slice(0, 200)}`);
        const body = errorBodies.find((entry) => entry.body.includes(form));
        if (body !== undefined)
          leaks.push(`${secret.name} in the error body of "${body.label}": ${body.body.slice(0, 200)}`);
      }
    }
    assert.deepEqual(leaks, []);
  });

  test('the credential headers are redacted wherever a log line would carry them', () => {
    const lines: string[] = [];
    const redacted = (async () => {
      const probe = await testApp({ LOG_LEVEL: 'debug' }, { logStream: { write: (line: string) => lines.push(line) } });
      probe.log.info(
        {
          headers: {
            authorization: `Bearer ${JWT_SECRET}`,
            'x-api-key': API_KEY,
            cookie: `session=${PASSWORD}`,
            accept: 'application/json',
          },
        },
        'headers',
      );
      probe.log.info(
        {
          req: {
            headers: { authorization: `Bearer ${JWT_SECRET}`, 'x-api-key': API_KEY, cookie: `session=${PASSWORD}` },
          },
        },
        'a raw request',
      );
      await probe.close();
    })();
    return redacted.then(() => {
      const all = lines.join('\n');
      for (const value of [JWT_SECRET, API_KEY, PASSWORD])
        assert.ok(!all.includes(value), `${value.slice(0, 12)}… was logged`);
      const headers = JSON.parse(lines.find((line) => line.includes('"msg":"headers"'))!) as {
        headers: Record<string, string>;
      };
      assert.equal(headers.headers.authorization, '[redacted]');
      assert.equal(headers.headers['x-api-key'], '[redacted]');
      assert.equal(headers.headers.cookie, '[redacted]');
      // Under `req`, the serializer keeps no header at all (nothing there to redact).
      const raw = JSON.parse(lines.find((line) => line.includes('"msg":"a raw request"'))!) as {
        req: Record<string, unknown>;
      };
      assert.equal(raw.req.headers, undefined);
      assert.equal(headers.headers.accept, 'application/json', 'other headers stay readable');
    });
  });
});

describe('the HMAC of a secret is not the secret', () => {
  // A guard on the guard: formsOf must not be so broad that any output matches.
  test('formsOf finds a secret and not its MAC', () => {
    const secret = text('s', PASSWORD);
    const mac = createHmac('sha256', 'k').update(PASSWORD).digest('hex');
    assert.ok(formsOf(secret).some((form) => `x${PASSWORD}x`.includes(form)));
    assert.ok(!formsOf(secret).some((form) => mac.includes(form)));
  });
});
