/** `crypto-service batch <route>`: newline-delimited JSON in, one entry per line out. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { startService, TEST_API_KEY, type Service } from '../../client/test/helpers.ts';
import { cli, json } from './helpers.ts';

let service: Service;
before(async () => {
  service = await startService({ CRYPTO_API_KEY: TEST_API_KEY });
});
after(() => service.close());

const env = () => ({ CRYPTO_SERVICE_URL: service.baseUrl, CRYPTO_API_KEY: TEST_API_KEY });
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

test('each line is one request body; --plain prints one entry per line, in order', async () => {
  const input = ['{"algorithm":"sha256","data":"a"}', '', '{"algorithm":"sha256","data":"b"}', ''].join('\n');
  const run = await cli(['batch', 'hash', '--plain'], { input, env: env() });
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(
    run.text.split('\n').map((line) => JSON.parse(line) as unknown),
    [{ data: sha256('a') }, { data: sha256('b') }],
  );
});

test('a failing line is an error entry beside the others, and the exit status is 1', async () => {
  const input = '{"privateKey":"' + '42'.repeat(32) + '","message":"m"}\n{"privateKey":"00","message":"m"}\n';
  const run = await cli(['batch', 'sign'], { input, env: env() });
  assert.equal(run.code, 1);
  const { data } = json(run) as { data: { data?: { signature: string }; error?: { code: string } }[] };
  assert.match(data[0]?.data?.signature ?? '', /^[0-9a-f]{128}$/);
  assert.equal(data[1]?.error?.code, 'INVALID_INPUT');
});

test('a line that is not a JSON object, an unknown route or no input is a usage error', async () => {
  for (const [args, input, message] of [
    [['batch', 'hash'], '{"algorithm":"sha256","data":"a"}\nnope\n', /line 2 is not JSON/],
    [['batch', 'hash'], '[1]\n', /line 1 is not a JSON object/],
    [['batch', 'password/hash'], '{}\n', /no batch form for 'password\/hash'/],
    [['batch', 'hash'], '\n\n', /no input/],
  ] as const) {
    const run = await cli([...args], { input, env: env() });
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, message);
  }
});
