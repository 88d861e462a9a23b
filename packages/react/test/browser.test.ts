/**
 * The hooks in React 19 in headless Chromium, against the real service across origins: the page
 * shows what the hooks hold, and the test checks it against node:crypto.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createPublicKey, verify } from 'node:crypto';
import { join } from 'node:path';
import { bundleApp, openBrowserApp, type BrowserApp } from './browser-app.ts';
import type { AppConfig, PageGlobals } from './app/page.ts';

const MESSAGE = 'attack at dawn';

function ed25519PublicKey(hex: string) {
  return createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(hex, 'hex').toString('base64url') },
    format: 'jwk',
  });
}

describe('@crypto-service/react in Chromium', () => {
  let app: BrowserApp;
  let publicKey: string;

  before(async () => {
    app = await openBrowserApp(() => bundleApp(join(import.meta.dirname, 'app/app.tsx')));
    const { data: pair } = await app.service.client.generateKeyPair();
    publicKey = pair.publicKey;
    const config: AppConfig = {
      url: app.service.url,
      apiKey: app.service.apiKey,
      message: MESSAGE,
      privateKey: pair.privateKey,
      publicKey,
    };
    await app.page.evaluate((c) => (globalThis as unknown as PageGlobals).startApp(c), config);
  });
  after(() => app?.close());

  const text = (selector: string) => app.page.locator(selector).textContent();
  const requests = () => app.page.evaluate(() => (globalThis as unknown as PageGlobals).requests);
  /** The text of `selector` once `settled` accepts it (polled, as the page updates asynchronously). */
  async function waitForText(selector: string, settled: (value: string) => boolean): Promise<string> {
    let value = '';
    for (const deadline = Date.now() + 10_000; Date.now() < deadline;) {
      value = (await text(selector)) ?? '';
      if (settled(value)) return value;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return value;
  }

  test('useHash shows the digest that node:crypto computes', async () => {
    assert.equal(await text('#hash-state'), 'idle');
    await app.page.click('#hash');
    const digest = await waitForText('#hash-state', (value) => /^[0-9a-f]{64}$/.test(value));
    assert.equal(digest, createHash('sha256').update(MESSAGE).digest('hex'));
  });

  test('reset clears the result', async () => {
    await app.page.click('#hash-reset');
    assert.equal(await waitForText('#hash-state', (value) => value === 'idle'), 'idle');
  });

  test('a second run aborts the first, whose result is never shown', async () => {
    const before = (await requests()).length;
    await app.page.click('#hash-twice');
    const digest = await waitForText('#hash-state', (value) => /^[0-9a-f]{64}$/.test(value));
    assert.equal(digest, createHash('sha256').update(MESSAGE).digest('hex'));
    const [first, second] = (await requests()).slice(before);
    assert.deepEqual(first, { path: '/v2/hash', outcome: 'aborted' });
    assert.deepEqual(second, { path: '/v2/hash', outcome: 'response' });
  });

  test('useSign then useVerify: the signature verifies, in the page and with node:crypto', async () => {
    await app.page.click('#sign');
    assert.equal(await waitForText('#verified', (value) => value !== ''), 'true');
    const signature = (await text('#signature')) ?? '';
    assert.match(signature, /^[0-9a-f]{128}$/);
    assert.ok(verify(null, Buffer.from(MESSAGE), ed25519PublicKey(publicKey), Buffer.from(signature, 'hex')));
  });

  test("a failed call shows the service's problem text", async () => {
    const expected = await app.service.client.sign({ privateKey: 'not a key', message: MESSAGE }).then(
      () => assert.fail('the service accepted a bad key'),
      (error: { body: { error: string } }) => error.body.error,
    );
    await app.page.click('#sign-bad-key');
    assert.equal(await waitForText('#signature', (value) => value.startsWith('error: ')), `error: ${expected}`);
  });

  test('a method without a body runs with no argument', async () => {
    await app.page.click('#health');
    assert.equal(await waitForText('#health-state', (value) => value !== ''), 'ok');
  });

  test('unmounting during a call aborts it, and its run resolves to undefined', async () => {
    const before = (await requests()).length;
    await app.page.click('#run-and-leave');
    await app.page.waitForSelector('#left');
    const leftBehind = await app.page.evaluate(async () => {
      const result = await (globalThis as unknown as PageGlobals).leftBehind;
      return result === undefined ? 'undefined' : JSON.stringify(result);
    });
    assert.equal(leftBehind, 'undefined');
    assert.deepEqual((await requests()).slice(before), [{ path: '/v2/password/hash', outcome: 'aborted' }]);
  });

  test('the page logged no error or warning', () => {
    assert.deepEqual(app.problems, []);
  });
});
