/** The command line: flags over the CLI's environment variables, and the mistakes it refuses. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { parseInvocation, UsageError } from '../src/config.ts';
import { BIN } from './helpers.ts';

const ENV = {
  CRYPTO_SERVICE_URL: 'http://service.test:3000',
  CRYPTO_API_KEY: 'key-from-env',
  CRYPTO_SERVICE_TOKEN: 'token-from-env',
  CRYPTO_MCP_HTTP_TOKEN: 'http-token-from-env',
};

describe('parseInvocation', () => {
  test('stdio by default, the connection from the environment, secret output off', () => {
    assert.deepEqual(parseInvocation([], ENV), {
      kind: 'stdio',
      options: {
        service: {
          url: 'http://service.test:3000',
          apiKey: 'key-from-env',
          token: 'token-from-env',
          timeout: 30_000,
          retry: false,
        },
        allowSecretOutput: false,
      },
    });
  });

  test('flags win over the environment; an empty variable is unset', () => {
    const invocation = parseInvocation(
      ['--url', 'http://other:1', '--api-key', 'flag-key', '--timeout', '500', '--retry', '--allow-secret-output'],
      { ...ENV, CRYPTO_SERVICE_TOKEN: '' },
    );
    assert.equal(invocation.kind, 'stdio');
    assert.ok(invocation.kind === 'stdio');
    assert.deepEqual(invocation.options.service, {
      url: 'http://other:1',
      apiKey: 'flag-key',
      token: undefined,
      timeout: 500,
      retry: true,
    });
    assert.equal(invocation.options.allowSecretOutput, true);
  });

  test('--http with its defaults, and the endpoint token from the environment', () => {
    const invocation = parseInvocation(['--http'], ENV);
    assert.ok(invocation.kind === 'http');
    assert.equal(invocation.options.host, '127.0.0.1');
    assert.equal(invocation.options.port, 3001);
    assert.equal(invocation.options.path, '/mcp');
    assert.equal(invocation.options.authToken, 'http-token-from-env');
    const flags = parseInvocation(['--http', '--port', '0', '--path', '/tools', '--http-token', 't'], ENV);
    assert.ok(flags.kind === 'http');
    assert.deepEqual([flags.options.port, flags.options.path, flags.options.authToken], [0, '/tools', 't']);
  });

  test('refuses HTTP flags without --http, bad numbers and unknown flags', () => {
    assert.throws(() => parseInvocation(['--port', '80'], {}), new UsageError('--port needs --http'));
    assert.throws(
      () => parseInvocation(['--http', '--port', '70000'], {}),
      /--port must be an integer from 0 to 65535/,
    );
    assert.throws(() => parseInvocation(['--timeout', '1.5'], {}), /--timeout must be an integer/);
    assert.throws(() => parseInvocation(['--http', '--path', 'mcp'], {}), /--path must start with \//);
    assert.throws(() => parseInvocation(['--allow-secrets'], {}), UsageError);
  });
});

describe('the bin', () => {
  const run = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8' });

  test('--help and --version', () => {
    const help = run('--help');
    assert.equal(help.status, 0);
    assert.match(help.stdout, /--allow-secret-output/);
    assert.match(run('--version').stdout, /^\d+\.\d+\.\d+\n$/);
  });

  test('a usage error exits 2 with the message on stderr', () => {
    const result = run('--nope');
    assert.equal(result.status, 2);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /^crypto-service-mcp: .*--nope/);
  });
});
