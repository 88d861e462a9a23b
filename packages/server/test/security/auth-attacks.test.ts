/**
 * Attacks on authentication: credentials smuggled in the query string, JWT algorithm
 * confusion (`none`, RS256/ES256 headers, an RS256 header over an HMAC made with a public key or
 * with our own secret), key-locating headers (`kid` tricks, `jku`/`x5u`/`jwk` pointing at a server
 * this test runs, which must receive nothing), `crit`, oversized tokens (a quick 401, and Node's
 * 431 past its header limit, never a 500 or a hang), `typ`, the time claims, issuer and audience,
 * and secret rotation. Every refusal is a 401 problem that never repeats the token, and nothing of
 * a credential reaches the logs. auth.test.ts covers the ordinary cases; these are the hostile ones.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { once } from 'node:events';
import fc from 'fast-check';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT } from 'jose';
import type { FastifyInstance } from 'fastify';
import { MAX_TOKEN_LENGTH } from '../../src/auth/authenticator.ts';
import { postJson, testApp, TEST_API_KEY, TEST_JWT_SECRET } from '../helpers.ts';

const SECRET = new TextEncoder().encode(TEST_JWT_SECRET);
const HASH_BODY = { algorithm: 'sha256', data: 'abc' };
const now = () => Math.floor(Date.now() / 1000);

const b64url = (value: unknown) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** A JWS compact token built by hand, so that any header at all can be signed (or not). */
function handMade(
  header: Record<string, unknown>,
  claims: Record<string, unknown>,
  sign: (input: string) => string = (input) => hs256(input, SECRET),
): string {
  const input = `${b64url(header)}.${b64url(claims)}`;
  return `${input}.${sign(input)}`;
}

function hs256(input: string, key: Uint8Array | string): string {
  return createHmac('sha256', key).update(input).digest('base64url');
}

const validClaims = () => ({ sub: 'attacker', iat: now(), exp: now() + 300 });

async function token(
  claims: Record<string, unknown> = {},
  header: Record<string, unknown> = {},
  key: Uint8Array = SECRET,
): Promise<string> {
  return new SignJWT({ exp: now() + 300, ...claims }).setProtectedHeader({ alg: 'HS256', ...header }).sign(key);
}

interface Captured {
  app: FastifyInstance;
  logs: string[];
}

async function capturedApp(env: Record<string, string> = {}): Promise<Captured> {
  const logs: string[] = [];
  const app = await testApp(
    {
      CRYPTO_API_KEY: TEST_API_KEY,
      JWT_SECRET: TEST_JWT_SECRET,
      LOG_LEVEL: 'debug',
      RATE_LIMIT_MAX: '1000000',
      ...env,
    },
    { logStream: { write: (line: string) => logs.push(line) } },
  );
  return { app, logs };
}

function bearer(app: FastifyInstance, value: string) {
  return postJson(app, '/v2/hash', HASH_BODY, { authorization: `Bearer ${value}` });
}

/** A 401 problem with a Bearer invalid_token challenge whose body does not repeat the token. */
function assertRefused(
  response: Awaited<ReturnType<typeof bearer>>,
  presented: string,
  label: string,
): Record<string, any> {
  assert.equal(response.statusCode, 401, `${label}: ${response.statusCode} ${response.body.slice(0, 200)}`);
  assert.match(String(response.headers['content-type']), /^application\/problem\+json/, label);
  const problem = response.json();
  assert.equal(problem.code, 'UNAUTHORIZED', label);
  assert.match(String(response.headers['www-authenticate']), /Bearer realm="crypto-service"/, label);
  // Neither the token nor any of its three parts comes back.
  for (const part of [presented, ...presented.split('.')].filter((piece) => piece.length >= 8)) {
    assert.ok(!response.body.includes(part), `${label}: the body repeats the token`);
  }
  return problem;
}

function assertNotLogged(logs: string[], secrets: string[]): void {
  const all = logs.join('\n');
  for (const secret of secrets.filter((value) => value.length >= 8)) {
    assert.ok(!all.includes(secret), `a credential reached the logs: ${secret.slice(0, 12)}…`);
  }
}

describe('credentials in the query string', () => {
  test('api_key, apiKey, access_token, token and friends are ignored: 401 without a header credential, and never logged', async (t) => {
    const { app, logs } = await capturedApp();
    t.after(() => app.close());
    const jwt = await token();
    for (const name of [
      'api_key',
      'apiKey',
      'apikey',
      'x-api-key',
      'key',
      'access_token',
      'token',
      'jwt',
      'authorization',
      'bearer',
    ]) {
      const value = name.includes('key') ? TEST_API_KEY : jwt;
      const response = await app.inject({
        method: 'POST',
        url: `/v2/hash?${name}=${encodeURIComponent(value)}`,
        payload: HASH_BODY,
      });
      assert.equal(response.statusCode, 401, name);
      assert.match(response.json().detail, /missing credentials/, name);
      assert.equal(response.json().instance, '/v2/hash', name);
      assert.ok(!response.body.includes(value), name);
    }
    // With a header credential, the query string is still nothing: the route works as usual.
    const withHeader = await app.inject({
      method: 'POST',
      url: `/v2/hash?token=${jwt}`,
      payload: HASH_BODY,
      headers: { 'x-api-key': TEST_API_KEY },
    });
    assert.equal(withHeader.statusCode, 200);
    assert.ok(
      logs.some((line) => line.includes('"url":"/v2/hash"')),
      'requests are logged, by path',
    );
    assertNotLogged(logs, [TEST_API_KEY, jwt, ...jwt.split('.')]);
  });
});

describe('JWT algorithm confusion', () => {
  test('alg none (any spelling, with or without a signature), RS256, ES256, HS384 and HS512 are refused', async (t) => {
    const { app, logs } = await capturedApp();
    t.after(() => app.close());
    const rsa = await generateKeyPair('RS256', { extractable: true });
    const ec = await generateKeyPair('ES256', { extractable: true });
    const claims = validClaims();
    const cases: [string, string][] = [
      ['alg none, no signature', handMade({ alg: 'none', typ: 'JWT' }, claims, () => '')],
      ['alg None', handMade({ alg: 'None' }, claims, () => '')],
      ['alg NONE with an HS256 signature', handMade({ alg: 'NONE' }, claims)],
      ['alg none, two parts only', `${b64url({ alg: 'none' })}.${b64url(claims)}`],
      [
        'RS256 signed with a real RSA key',
        await new SignJWT(claims).setProtectedHeader({ alg: 'RS256' }).sign(rsa.privateKey),
      ],
      [
        'ES256 signed with a real EC key',
        await new SignJWT(claims).setProtectedHeader({ alg: 'ES256' }).sign(ec.privateKey),
      ],
      ['HS384 with the right secret', await new SignJWT(claims).setProtectedHeader({ alg: 'HS384' }).sign(SECRET)],
      ['HS512 with the right secret', await new SignJWT(claims).setProtectedHeader({ alg: 'HS512' }).sign(SECRET)],
      ['alg hs256 (wrong case), valid HMAC', handMade({ alg: 'hs256' }, claims)],
      ['alg as an array', handMade({ alg: ['HS256'] }, claims)],
      ['no alg at all', handMade({ typ: 'JWT' }, claims)],
    ];
    for (const [label, presented] of cases) {
      const problem = assertRefused(await bearer(app, presented), presented, label);
      assert.match(problem.detail, /invalid bearer token/, label);
    }
    assertNotLogged(
      logs,
      cases.map(([, presented]) => presented),
    );
  });

  test('the classic confusion: an RS256 header over an HMAC keyed with a public key, or with our own secret', async (t) => {
    const { app } = await capturedApp();
    t.after(() => app.close());
    const rsa = await generateKeyPair('RS256', { extractable: true });
    const publicPem = await exportSPKI(rsa.publicKey);
    const claims = validClaims();
    // A verifier that took the algorithm from the token would check this HMAC with the PEM as key.
    const withPublicKey = handMade({ alg: 'RS256', typ: 'JWT' }, claims, (input) => hs256(input, publicPem));
    assert.match(
      assertRefused(await bearer(app, withPublicKey), withPublicKey, 'HMAC keyed with the public PEM').detail,
      /only HS256/,
    );
    // Even an HMAC that is right under JWT_SECRET does not pass under another algorithm's name.
    const withOurSecret = handMade({ alg: 'RS256' }, claims, (input) => hs256(input, SECRET));
    assertRefused(await bearer(app, withOurSecret), withOurSecret, 'HMAC keyed with our secret, RS256 header');
    const es256Named = handMade({ alg: 'ES256' }, claims, (input) => hs256(input, SECRET));
    assertRefused(await bearer(app, es256Named), es256Named, 'HMAC keyed with our secret, ES256 header');
    // The same HMAC under its true name is accepted: the refusals above are about the header.
    assert.equal((await bearer(app, handMade({ alg: 'HS256' }, claims))).statusCode, 200);
  });
});

describe('key-locating headers', () => {
  test('kid is never used to find a key: path traversal, SQL and an empty-key signature are refused, a right signature passes', async (t) => {
    const { app } = await capturedApp();
    t.after(() => app.close());
    const claims = validClaims();
    for (const kid of [
      '../../../../../../dev/null',
      "' OR '1'='1' --",
      '/proc/self/environ',
      'file:///etc/passwd',
      '\u0000',
      'a'.repeat(2000),
    ]) {
      // The classic kid=/dev/null attack: an HMAC under the empty key that a file lookup would yield.
      const emptyKey = handMade({ alg: 'HS256', kid }, claims, (input) => hs256(input, ''));
      assertRefused(await bearer(app, emptyKey), emptyKey, `kid ${JSON.stringify(kid).slice(0, 30)} with an empty key`);
      const guessed = handMade({ alg: 'HS256', kid }, claims, (input) => hs256(input, kid));
      assertRefused(await bearer(app, guessed), guessed, `kid ${JSON.stringify(kid).slice(0, 30)} as the key`);
      // Signed with JWT_SECRET, the token is valid whatever kid says: kid selects nothing.
      assert.equal(
        (await bearer(app, handMade({ alg: 'HS256', kid }, claims))).statusCode,
        200,
        JSON.stringify(kid).slice(0, 30),
      );
    }
  });

  test('jku, x5u and jwk headers are ignored: the server they name receives no request, and an embedded key verifies nothing', async (t) => {
    let requests = 0;
    const attacker = http.createServer((request, response) => {
      requests += 1;
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"keys":[]}');
    });
    attacker.listen(0, '127.0.0.1');
    await once(attacker, 'listening');
    t.after(() => attacker.close());
    const base = `http://127.0.0.1:${(attacker.address() as net.AddressInfo).port}`;
    const { app } = await capturedApp();
    t.after(() => app.close());

    const rsa = await generateKeyPair('RS256', { extractable: true });
    const attackerJwk = await exportJWK(rsa.publicKey);
    const attackerSecret = new TextEncoder().encode('the-attackers-own-secret-of-32-bytes-or-more');
    const claims = validClaims();
    const cases: [string, string][] = [
      [
        'RS256 with jku',
        await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', jku: `${base}/jwks.json` }).sign(rsa.privateKey),
      ],
      [
        'RS256 with x5u',
        await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', x5u: `${base}/cert.pem` }).sign(rsa.privateKey),
      ],
      [
        'RS256 with an embedded jwk',
        await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', jwk: attackerJwk }).sign(rsa.privateKey),
      ],
      [
        'HS256 with jku, signed with another secret',
        await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', jku: `${base}/jwks.json` }).sign(attackerSecret),
      ],
      [
        'HS256 with an embedded oct jwk of that secret',
        handMade(
          { alg: 'HS256', jwk: { kty: 'oct', k: Buffer.from(attackerSecret).toString('base64url') } },
          claims,
          (input) => hs256(input, attackerSecret),
        ),
      ],
      [
        'HS256 with x5c',
        await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', x5c: ['MIIB'] }).sign(attackerSecret),
      ],
    ];
    for (const [label, presented] of cases) assertRefused(await bearer(app, presented), presented, label);
    // Give a fetch that should not exist every chance to arrive.
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(requests, 0, 'the server named by jku/x5u was contacted');
  });

  test('crit is refused whatever it lists (we understand no extension), b64:false too', async (t) => {
    const { app } = await capturedApp();
    t.after(() => app.close());
    const claims = validClaims();
    for (const header of [
      { alg: 'HS256', crit: ['exp'] },
      { alg: 'HS256', crit: ['x-custom'], 'x-custom': 1 },
      { alg: 'HS256', crit: [] },
      { alg: 'HS256', crit: 'b64' },
      { alg: 'HS256', b64: false, crit: ['b64'] },
    ]) {
      const presented = handMade(header, claims);
      assertRefused(await bearer(app, presented), presented, JSON.stringify(header));
    }
  });
});

describe('oversized and malformed tokens', () => {
  test(`a token over ${MAX_TOKEN_LENGTH} characters is a quick 401, unread; at the limit it is read like any other`, async (t) => {
    const { app } = await capturedApp();
    t.after(() => app.close());
    // A valid signature over claims padded to the size: refused for its size alone.
    const padded = (length: number) => {
      const base = handMade({ alg: 'HS256' }, { ...validClaims(), pad: '' });
      const claims = { ...validClaims(), pad: 'p'.repeat(Math.floor(((length - base.length) * 3) / 4)) };
      return handMade({ alg: 'HS256' }, claims);
    };
    const over = padded(MAX_TOKEN_LENGTH + 200);
    assert.ok(over.length > MAX_TOKEN_LENGTH);
    for (const presented of [over, padded(15 * 1024), `${'a'.repeat(15 * 1024)}.b.c`]) {
      const started = performance.now();
      const problem = assertRefused(await bearer(app, presented), presented, `${presented.length} characters`);
      assert.match(problem.detail, /too long/);
      assert.ok(performance.now() - started < 2000);
    }
    const under = padded(MAX_TOKEN_LENGTH - 100);
    assert.ok(under.length <= MAX_TOKEN_LENGTH);
    assert.equal((await bearer(app, under)).statusCode, 200);
  });

  test("over a real socket: 15 KiB of token is a 401 problem, past Node's 16 KiB header limit a 431 problem; never a 500, never a hang", async (t) => {
    const { app } = await capturedApp();
    t.after(() => app.close());
    await app.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.server.address() as net.AddressInfo).port;
    // A raw socket, the request written in one piece: an HTTP client that is still sending when
    // the server answers 431 and closes would report a write error instead of the response.
    const send = (length: number) =>
      new Promise<{ status: number; type: string | undefined; body: Record<string, unknown> }>((resolve, reject) => {
        const socket = net.connect(port, '127.0.0.1');
        let raw = '';
        socket.setEncoding('utf8');
        socket.setTimeout(5000, () => socket.destroy(new Error(`no answer to a ${length}-character token within 5 s`)));
        socket.on('data', (chunk: string) => {
          raw += chunk;
        });
        socket.on('error', (error) => (raw === '' ? reject(error) : undefined));
        socket.on('close', () => {
          const [head = '', body = ''] = raw.split('\r\n\r\n', 2);
          const type = /^content-type: *(.+)$/im.exec(head)?.[1]?.trim();
          resolve({ status: Number(head.split(' ')[1]), type, body: JSON.parse(body) as Record<string, unknown> });
        });
        const payload = JSON.stringify(HASH_BODY);
        socket.write(
          `POST /v2/hash HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\n` +
            `Authorization: Bearer ${'a'.repeat(length)}\r\nContent-Length: ${payload.length}\r\n\r\n${payload}`,
        );
      });
    const fifteen = await send(15 * 1024);
    assert.equal(fifteen.status, 401);
    assert.match(String(fifteen.type), /^application\/problem\+json/);
    assert.equal(fifteen.body.code, 'UNAUTHORIZED');
    for (const length of [17 * 1024, 64 * 1024]) {
      const tooLarge = await send(length);
      assert.equal(tooLarge.status, 431, `${length}`);
      assert.match(String(tooLarge.type), /^application\/problem\+json/);
      assert.equal(tooLarge.body.code, 'HEADERS_TOO_LARGE');
    }
  });

  test('headers and claims of the wrong types are a 401, never a 500', async (t) => {
    const { app } = await capturedApp();
    t.after(() => app.close());
    const cases: [string, string][] = [
      ['typ a number', handMade({ alg: 'HS256', typ: 1 }, validClaims())],
      ['typ an object', handMade({ alg: 'HS256', typ: { a: 1 } }, validClaims())],
      ['typ null', handMade({ alg: 'HS256', typ: null }, validClaims())],
      ['header an array', `${b64url(['HS256'])}.${b64url(validClaims())}.${hs256('x', SECRET)}`],
      ['header not JSON', `${b64url('{alg:HS256')}.${b64url(validClaims())}.sig`],
      ['claims an array', handMade({ alg: 'HS256' }, [1, 2] as unknown as Record<string, unknown>)],
      ['exp a string', handMade({ alg: 'HS256' }, { exp: String(now() + 300) })],
      ['exp NaN-ish', handMade({ alg: 'HS256' }, { exp: Infinity })], // JSON writes it as null
      ['iat a string', handMade({ alg: 'HS256' }, { exp: now() + 300, iat: 'yesterday' })],
      ['nbf an object', handMade({ alg: 'HS256' }, { exp: now() + 300, nbf: {} })],
      ['scope a number', handMade({ alg: 'HS256' }, { exp: now() + 300, scope: 7 })],
      ['five parts (JWE-shaped)', `${b64url({ alg: 'dir', enc: 'A256GCM' })}.x.y.z.w`],
      ['empty', ''],
      ['dots only', '...'],
    ];
    for (const [label, presented] of cases) {
      const response = await bearer(app, presented);
      assert.equal(response.statusCode, 401, `${label}: ${response.statusCode} ${response.body.slice(0, 200)}`);
    }
    // And any string at all.
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.stringMatching(/^[A-Za-z0-9_.-]{0,300}$/),
          fc
            .tuple(fc.jsonValue(), fc.jsonValue())
            .map(([header, claims]) => handMade(header as Record<string, unknown>, claims as Record<string, unknown>)),
          fc
            .dictionary(fc.constantFrom('alg', 'typ', 'crit', 'kid', 'b64', 'jku', 'cty'), fc.jsonValue())
            .map((header) => handMade(header, validClaims())),
        ),
        async (presented) => {
          const response = await bearer(app, presented);
          return response.statusCode === 401 || (response.statusCode === 200 && presented.split('.').length === 3);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('typ', () => {
  test('absent, JWT, jwt and application/jwt pass (RFC 7519 §5.1, RFC 7515 §4.1.9: case-insensitive); at+jwt, JWE, JOSE do not', async (t) => {
    const { app } = await capturedApp();
    t.after(() => app.close());
    for (const typ of [undefined, 'JWT', 'jwt', 'Jwt', 'application/jwt', 'APPLICATION/JWT']) {
      const response = await bearer(app, await token({}, typ === undefined ? {} : { typ }));
      assert.equal(response.statusCode, 200, `typ ${typ}`);
    }
    for (const typ of ['at+jwt', 'application/at+jwt', 'JWE', 'JOSE', 'JOSE+JSON', 'secevent+jwt', '', 'JWT ']) {
      const presented = await token({}, { typ });
      assert.match(assertRefused(await bearer(app, presented), presented, `typ ${typ}`).detail, /typ must be JWT/);
    }
  });
});

describe('time claims, issuer and audience', () => {
  test('exp, nbf and iat with 60 s of clock tolerance', async (t) => {
    const { app } = await capturedApp();
    t.after(() => app.close());
    const cases: [string, Record<string, unknown>, number, RegExp?][] = [
      ['expired 2 minutes ago', { exp: now() - 120 }, 401, /expired/],
      ['expired 20 s ago (within tolerance)', { exp: now() - 20 }, 200],
      ['nbf in 10 minutes', { nbf: now() + 600 }, 401, /not yet valid/],
      ['nbf in 30 s (within tolerance)', { nbf: now() + 30 }, 200],
      ['iat in 10 minutes', { iat: now() + 600 }, 401, /issued in the future/],
      ['iat in 30 s (within tolerance)', { iat: now() + 30 }, 200],
      ['iat hours ago, still valid', { iat: now() - 3600 }, 200],
      ['iat a day ago: lifetime over JWT_MAX_TTL_SECONDS', { iat: now() - 86_400 }, 401, /lifetime/],
      ['no exp', { exp: undefined }, 401, /exp/],
    ];
    for (const [label, claims, status, detail] of cases) {
      const presented = handMade({ alg: 'HS256', typ: 'JWT' }, { exp: now() + 300, ...claims });
      const response = await bearer(app, presented);
      assert.equal(response.statusCode, status, `${label}: ${response.body.slice(0, 200)}`);
      if (detail !== undefined) assert.match(response.json().detail, detail, label);
    }
  });

  test('wrong or missing iss and aud are refused when configured; aud may be a list that contains ours', async (t) => {
    const { app } = await capturedApp({ JWT_ISSUER: 'https://issuer.example', JWT_AUDIENCE: 'crypto-service' });
    t.after(() => app.close());
    const good = { iss: 'https://issuer.example', aud: 'crypto-service' };
    const cases: [string, Record<string, unknown>, number][] = [
      ['both right', good, 200],
      ['aud a list with ours', { ...good, aud: ['other', 'crypto-service'] }, 200],
      ['wrong iss', { ...good, iss: 'https://issuer.example.evil' }, 401],
      ['iss differing in case', { ...good, iss: 'https://ISSUER.example' }, 401],
      ['missing iss', { aud: 'crypto-service' }, 401],
      ['wrong aud', { ...good, aud: 'crypto-service-2' }, 401],
      ['aud a list without ours', { ...good, aud: ['a', 'b'] }, 401],
      ['missing aud', { iss: good.iss }, 401],
    ];
    for (const [label, claims, status] of cases) {
      assert.equal((await bearer(app, await token(claims))).statusCode, status, label);
    }
  });
});

describe('secret rotation', () => {
  test("a token signed with the old secret of JWT_SECRET's list passes; one with an unknown secret does not", async (t) => {
    const oldSecret = 'the-old-secret-still-in-its-rotation-window';
    const { app, logs } = await capturedApp({ JWT_SECRET: `${TEST_JWT_SECRET},${oldSecret}` });
    t.after(() => app.close());
    assert.equal((await bearer(app, await token({}, {}, SECRET))).statusCode, 200, 'new secret');
    assert.equal(
      (await bearer(app, await token({}, {}, new TextEncoder().encode(oldSecret)))).statusCode,
      200,
      'old secret',
    );
    const unknown = await token({}, {}, new TextEncoder().encode('a-secret-that-was-never-configured-here'));
    assert.match(
      assertRefused(await bearer(app, unknown), unknown, 'unknown secret').detail,
      /signature verification failed/,
    );
    // A secret that was removed from the list no longer works.
    const { app: rotated } = await capturedApp({ JWT_SECRET: TEST_JWT_SECRET });
    t.after(() => rotated.close());
    assert.equal((await bearer(rotated, await token({}, {}, new TextEncoder().encode(oldSecret)))).statusCode, 401);
    assertNotLogged(logs, [oldSecret, TEST_JWT_SECRET, unknown]);
  });
});
