/**
 * The crypto-service command against the real service: every command's help, the exit statuses
 * (0 ok, 1 API error, 2 usage, 3 not valid), flags and environment for the connection, JSON and
 * --plain output, and round trips of the cryptographic commands.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COMMANDS, GROUPS } from '../src/commands/index.ts';
import {
  deadUrl,
  hs256Token,
  startService,
  TEST_API_KEY,
  TEST_JWT_SECRET,
  type Service,
} from '../../client/test/helpers.ts';
import { BIN, cli, json } from './helpers.ts';

const SHA256_ABC = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'crypto-service-cli-'));
});
after(() => rm(dir, { recursive: true, force: true }));

async function file(name: string, content: string | Uint8Array): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
}

describe('help and usage errors (no service needed)', () => {
  test('--help for every command: exit 0, its usage on stdout, the common options unless it is serve', async () => {
    const runs = await Promise.all(COMMANDS.map((command) => cli([...command.name.split(' '), '--help'])));
    COMMANDS.forEach((command, index) => {
      const run = runs[index];
      assert.ok(run !== undefined);
      assert.equal(run.code, 0, command.name);
      assert.ok(
        run.text.startsWith(`Usage: crypto-service ${command.name}`),
        `${command.name}: ${run.text.slice(0, 80)}`,
      );
      assert.equal(run.text.includes('--api-key'), command.name !== 'serve', command.name);
    });
  });

  test("the program's help lists every command; groups have their own", async () => {
    const help = await cli(['--help']);
    assert.equal(help.code, 0);
    for (const command of COMMANDS) assert.ok(help.text.includes(`  ${command.name} `), command.name);
    for (const variable of ['CRYPTO_SERVICE_URL', 'CRYPTO_API_KEY', 'CRYPTO_SERVICE_TOKEN'])
      assert.ok(help.text.includes(variable));
    for (const group of GROUPS) {
      const run = await cli([group, '--help']);
      assert.equal(run.code, 0);
      assert.match(run.text, new RegExp(`^Usage: crypto-service ${group} <command>`));
    }
  });

  test('usage errors exit 2 with the reason on stderr and nothing on stdout', async () => {
    const cases: [string[], RegExp][] = [
      [[], /Usage: crypto-service <command>/],
      [['frobnicate'], /unknown command: frobnicate/],
      [['pq', 'frobnicate'], /unknown command: pq frobnicate/],
      [['keys'], /Usage: crypto-service keys <command>/],
      [['hash', '--frobnicate'], /Unknown option '--frobnicate'/],
      [['hash', 'a', 'b'], /too many arguments: b/],
      [['hash', join('/nonexistent', 'input')], /cannot read \/nonexistent\/input: ENOENT/],
      [['encrypt'], /--key is required/],
      [['verify', '--public-key', 'aa'], /--signature is required/],
      [['sign', '--private-key', '@/nonexistent/key'], /--private-key: cannot read \/nonexistent\/key/],
      [['hash', '--timeout', 'soon'], /--timeout must be a whole number/],
      [['pq', 'sign-keygen', '--level', '44'], /Unknown option '--level'/],
      [['pq', 'decapsulate', '--secret-key', 'aa'], /Unknown option '--secret-key'/],
      [['pq', 'decapsulate', '--ciphertext', 'aa'], /--private-key is required/],
      [['--url', 'http://x', 'hash'], /the command comes first/],
    ];
    for (const [args, message] of cases) {
      const run = await cli(args);
      assert.equal(run.code, 2, args.join(' '));
      assert.match(run.stderr, message, args.join(' '));
      assert.equal(run.stdout.length, 0, args.join(' '));
    }
  });

  test('no service listening: exit 1 with the network error on stderr', async () => {
    const run = await cli(['hash', '--url', await deadUrl()], { input: 'abc' });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^crypto-service: request to http:\/\/127\.0\.0\.1:\d+\/v2\/hash failed: .*ECONNREFUSED/);
  });
});

describe('against the real service', () => {
  let service: Service;
  before(async () => {
    service = await startService();
  });
  after(() => service.close());
  const url = () => ['--url', service.baseUrl];

  test('hash: JSON by default, --plain for the digest alone, of stdin or of a file', async () => {
    const fromStdin = await cli(['hash', ...url()], { input: 'abc' });
    assert.equal(fromStdin.code, 0);
    assert.deepEqual(json(fromStdin), { digest: SHA256_ABC, algorithm: 'sha256', length: 32 });
    const plain = await cli(['hash', '--plain', ...url()], { input: 'abc' });
    assert.equal(plain.stdout.toString(), `${SHA256_ABC}\n`);
    // Binary content hashes as the bytes it is.
    const bytes = randomBytes(4096);
    const fromFile = await cli(['hash', await file('blob.bin', bytes), '-a', 'sha512', '--plain', ...url()]);
    assert.equal(fromFile.text, createHash('sha512').update(bytes).digest('hex'));
    const xof = await cli(['hash', '--algorithm', 'blake3', '--length', '8', '--plain', ...url()], { input: '' });
    assert.equal(xof.text, 'af1349b9f5f9a1a6');
  });

  test("an API error exits 1 with the service's message on stderr", async () => {
    const run = await cli(['hash', '--algorithm', 'md5', ...url()], { input: 'abc' });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^crypto-service: 400: .*md5/);
    assert.equal(run.stdout.length, 0);
  });

  test('keys generate, sign, verify: exit 0 when valid, 3 when not', async () => {
    const keys = await cli(['keys', 'generate', '--plain', ...url()]);
    assert.equal(keys.code, 0);
    const [publicKey, privateKey] = keys.text.split('\n');
    assert.match(publicKey ?? '', /^[0-9a-f]{64}$/);
    const keyFile = await file('ed25519.key', `${privateKey}\n`);
    const message = await file('message.txt', 'release 0.0.2\n');
    const signed = await cli(['sign', message, '--private-key', `@${keyFile}`, '--plain', ...url()]);
    assert.equal(signed.code, 0);
    const valid = await cli(['verify', message, '--public-key', publicKey ?? '', '--signature', signed.text, ...url()]);
    assert.equal(valid.code, 0);
    assert.deepEqual(json(valid), { valid: true, algorithm: 'ed25519' });
    const forged = await cli(
      ['verify', '--public-key', publicKey ?? '', '--signature', signed.text, '--plain', ...url()],
      { input: 'release 0.0.3\n' },
    );
    assert.equal(forged.code, 3);
    assert.equal(forged.text, 'invalid');
  });

  test('keys generate --format jwk prints each key as one line of JSON with --plain', async () => {
    const run = await cli(['keys', 'generate', '--algorithm', 'ecdsa-p256', '--format', 'jwk', '--plain', ...url()]);
    assert.equal(run.code, 0);
    const [publicJwk, privateJwk] = run.text.split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.equal(publicJwk?.kty, 'EC');
    assert.equal(typeof privateJwk?.d, 'string');
  });

  test('stream encrypt then stream decrypt: stdin to stdout and a file, larger than a chunk', async () => {
    const key = (await cli(['keys', 'generate', '-a', 'xchacha20-poly1305', '--plain', ...url()])).text;
    const bytes = randomBytes(3 * 65_536 + 7);
    const sealed = await cli(['stream', 'encrypt', '--key', key, ...url()], { input: bytes });
    assert.equal(sealed.code, 0, sealed.stderr);
    assert.equal(sealed.stdout.byteLength, 24 + bytes.byteLength + 4 * 17);
    const opened = await cli(['stream', 'decrypt', await file('sealed.bin', sealed.stdout), '--key', key, ...url()]);
    assert.equal(opened.code, 0, opened.stderr);
    assert.deepEqual(opened.stdout, bytes);
  });

  test('stream decrypt of a truncated stream exits 1 and says the output is incomplete', async () => {
    const key = (await cli(['keys', 'generate', '-a', 'xchacha20-poly1305', '--plain', ...url()])).text;
    const sealed = await cli(['stream', 'encrypt', '--key', key, ...url()], { input: randomBytes(3 * 65_536) });
    const cut = sealed.stdout.subarray(0, 24 + 2 * 65_553);
    const opened = await cli(['stream', 'decrypt', '--key', key, ...url()], { input: cut });
    assert.equal(opened.code, 1);
    assert.match(opened.stderr, /aborted: the output is incomplete/);
    const wrongKey = await cli(['stream', 'decrypt', '--key', 'ab'.repeat(32), ...url()], { input: sealed.stdout });
    assert.equal(wrongKey.code, 1);
    assert.match(wrongKey.stderr, /^crypto-service: 400: decryption failed/);
    assert.equal(wrongKey.stdout.byteLength, 0);
  });

  test('encrypt then decrypt: any bytes round-trip through --plain; JSON shows UTF-8 as text', async () => {
    const key = (await cli(['keys', 'generate', '-a', 'xchacha20-poly1305', '--plain', ...url()])).text;
    const bytes = Buffer.concat([randomBytes(1000), Buffer.from([0xff, 0xfe, 0x00])]);
    const sealed = await cli([
      'encrypt',
      await file('plain.bin', bytes),
      '--key',
      key,
      '--aad',
      'v1',
      '--plain',
      ...url(),
    ]);
    assert.equal(sealed.code, 0);
    const opened = await cli(['decrypt', '--key', key, '--aad', 'v1', '--plain', ...url()], {
      input: `${sealed.text}\n`,
    });
    assert.equal(opened.code, 0);
    assert.deepEqual(opened.stdout, bytes);
    const asJson = await cli(['decrypt', '--key', key, '--aad', 'v1', ...url()], { input: sealed.text });
    assert.equal(json(asJson).encoding, 'base64', 'bytes that are not UTF-8 come as base64');
    const text = await cli(['encrypt', '--key', key, '--plain', ...url()], { input: 'héllo' });
    assert.deepEqual(json(await cli(['decrypt', '--key', key, ...url()], { input: text.text })), {
      plaintext: 'héllo',
      encoding: 'utf8',
    });
    const wrongAad = await cli(['decrypt', '--key', key, '--aad', 'v2', ...url()], { input: sealed.text });
    assert.equal(wrongAad.code, 1);
    assert.match(wrongAad.stderr, /^crypto-service: 400: /);
  });

  test('password hash then password verify (floor parameters): 0 on a match, 3 otherwise', async () => {
    const floor = ['--memory-cost', '19456', '--time-cost', '2', '--parallelism', '1'];
    const hashed = await cli(['password', 'hash', ...floor, '--plain', ...url()], { input: 'hunter2\n' });
    assert.equal(hashed.code, 0);
    assert.match(hashed.text, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    const hashFile = await file('password.phc', hashed.text);
    const match = await cli(['password', 'verify', '--hash', `@${hashFile}`, ...url()], { input: 'hunter2\n' });
    assert.equal(match.code, 0);
    assert.deepEqual(json(match), { valid: true, needsRehash: true });
    const wrong = await cli(['password', 'verify', '--hash', hashed.text, '--plain', ...url()], { input: 'hunter3' });
    assert.equal(wrong.code, 3);
    assert.equal(wrong.text, 'invalid');
  });

  test('pq keygen, pq encapsulate, pq decapsulate agree on the shared secret', async () => {
    const keys = await cli(['pq', 'keygen', ...url()]);
    assert.deepEqual(Object.keys(json(keys)).sort(), ['algorithm', 'privateKey', 'publicKey']);
    const [publicKey, privateKey] = (await cli(['pq', 'keygen', '--plain', ...url()])).text.split('\n');
    const encapsulated = await cli(['pq', 'encapsulate', '--public-key', publicKey ?? '', '--plain', ...url()]);
    assert.equal(encapsulated.code, 0);
    const [ciphertext, sharedSecret] = encapsulated.text.split('\n');
    assert.match(sharedSecret ?? '', /^[0-9a-f]{64}$/);
    const ciphertextFile = await file('xwing.ct', ciphertext ?? '');
    const decapsulated = await cli([
      'pq',
      'decapsulate',
      '--private-key',
      privateKey ?? '',
      '--ciphertext',
      `@${ciphertextFile}`,
      '--plain',
      ...url(),
    ]);
    assert.equal(decapsulated.text, sharedSecret);
  });

  test('pq sign-keygen, pq sign, pq verify (ML-DSA-44)', async () => {
    const keys = await cli(['pq', 'sign-keygen', '--algorithm', 'ml-dsa-44', ...url()]);
    const { publicKey, privateKey, algorithm } = json(keys) as {
      publicKey: string;
      privateKey: string;
      algorithm: string;
    };
    assert.equal(algorithm, 'ml-dsa-44');
    const signed = await cli(
      ['pq', 'sign', '--private-key', privateKey, '-a', 'ml-dsa-44', '--context', 'cli', '--plain', ...url()],
      { input: 'pq message' },
    );
    assert.equal(signed.code, 0);
    const signatureFile = await file('ml-dsa.sig', signed.text);
    const args = [
      'pq',
      'verify',
      '--public-key',
      publicKey,
      '--signature',
      `@${signatureFile}`,
      '--context',
      'cli',
      '--plain',
      ...url(),
    ];
    assert.equal((await cli(args, { input: 'pq message' })).text, 'valid');
    const other = await cli(args, { input: 'pq massage' });
    assert.equal(other.code, 3);
    assert.equal((await cli([...args, '-a', 'ml-dsa-44'], { input: 'pq message' })).text, 'valid');
    // The public key reveals its parameter set, so another one named with it is refused.
    const mismatch = await cli([...args, '-a', 'ml-dsa-87'], { input: 'pq message' });
    assert.equal(mismatch.code, 1);
    assert.match(mismatch.stderr, /^crypto-service: 400: .*algorithm/);
  });

  test('algorithms and health', async () => {
    const families = await cli(['algorithms', '--plain', ...url()]);
    assert.match(families.text, /^hash: .*\bsha256\b/m);
    assert.equal((await cli(['health', '--plain', ...url()])).text, 'ok');
  });

  test('the installed bin, node_modules/.bin/crypto-service, runs the same program', async () => {
    const run = await cli(['hash', '--plain', ...url()], { executable: BIN, input: 'abc' });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.text, SHA256_ABC);
  });
});

describe('the connection from flags or environment', () => {
  test('URL and API key from CRYPTO_SERVICE_URL and CRYPTO_API_KEY; flags win over them', async (t) => {
    const service = await startService({ CRYPTO_API_KEY: TEST_API_KEY });
    t.after(() => service.close());
    const env = { CRYPTO_SERVICE_URL: service.baseUrl, CRYPTO_API_KEY: TEST_API_KEY };
    assert.equal((await cli(['hash', '--plain'], { input: 'abc', env })).text, SHA256_ABC);
    const wrongFlag = await cli(['hash', '--api-key', 'wrong'], { input: 'abc', env });
    assert.equal(wrongFlag.code, 1);
    assert.match(wrongFlag.stderr, /^crypto-service: 401: /);
    const flagOnly = await cli(['hash', '--plain', '--url', service.baseUrl, '--api-key', TEST_API_KEY], {
      input: 'abc',
    });
    assert.equal(flagOnly.text, SHA256_ABC);
    const elsewhere = await cli(['hash', '--url', await deadUrl()], { input: 'abc', env });
    assert.equal(elsewhere.code, 1, '--url wins over CRYPTO_SERVICE_URL');
    assert.match(elsewhere.stderr, /ECONNREFUSED/);
  });

  test('a JWT from CRYPTO_SERVICE_TOKEN or --token', async (t) => {
    const service = await startService({ JWT_SECRET: TEST_JWT_SECRET });
    t.after(() => service.close());
    const token = hs256Token(TEST_JWT_SECRET);
    const viaEnv = await cli(['hash', '--plain', '--url', service.baseUrl], {
      input: 'abc',
      env: { CRYPTO_SERVICE_TOKEN: token },
    });
    assert.equal(viaEnv.text, SHA256_ABC);
    const viaFlag = await cli(['hash', '--plain', '--url', service.baseUrl, '--token', token], { input: 'abc' });
    assert.equal(viaFlag.text, SHA256_ABC);
    const without = await cli(['hash', '--url', service.baseUrl], { input: 'abc' });
    assert.equal(without.code, 1);
    assert.match(without.stderr, /401/);
  });
});
