/**
 * The client in a browser: headless Chromium loads the client's own source (types erased by
 * TypeScript's transpiler, one module per file, as a bundler would) and calls the real service.
 * This proves that the client needs no Node API and no runtime dependency: a `node:` import or a
 * package import left after type erasure would fail to load here.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join, normalize } from 'node:path';
import ts from 'typescript';
import type { Browser, Page, Route } from 'playwright-core';
import { launchChromium } from '../../server/test/chromium.ts';
import { deadUrl, startService, type Service } from './helpers.ts';

const SOURCE_DIR = join(import.meta.dirname, '../src');
/** Where the page fetches the client's modules from: a path on the service's origin that the test answers itself. */
const MOUNT = '/__client-under-test/';

/** Answers MOUNT/<file>.ts with that source file as JavaScript, and MOUNT/ with an empty page. */
async function serveClient(route: Route): Promise<void> {
  const { pathname } = new URL(route.request().url());
  const file = pathname.slice(MOUNT.length);
  if (file === '') {
    await route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>client under test</title>' });
    return;
  }
  const path = normalize(join(SOURCE_DIR, file));
  if (!path.startsWith(SOURCE_DIR) || !path.endsWith('.ts')) {
    await route.fulfill({ status: 404, body: 'not part of the client' });
    return;
  }
  const source = await readFile(path, 'utf8');
  const { outputText } = ts.transpileModule(source, {
    fileName: path,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
  });
  await route.fulfill({ contentType: 'text/javascript', body: outputText });
}

describe('the client in headless Chromium', () => {
  let service: Service;
  let browser: Browser;
  let page: Page;
  before(async () => {
    service = await startService();
    browser = await launchChromium();
    page = await browser.newPage();
    await page.route(`${service.baseUrl}${MOUNT}**`, serveClient);
    await page.goto(`${service.baseUrl}${MOUNT}`);
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  test('hashes, round-trips post-quantum keys, and tells API, network and timeout errors apart', async () => {
    const unreachable = await deadUrl();
    // A string, not a function: the module specifier is the page's, which TypeScript here cannot resolve.
    const results = (await page.evaluate(`(async () => {
      const { CryptoClient, CryptoApiError, CryptoNetworkError, CryptoTimeoutError } = await import('${MOUNT}index.ts');
      const client = new CryptoClient({ baseUrl: location.origin + '/' });
      const hash = await client.hash({ algorithm: 'sha256', data: 'abc' });
      const pair = await client.pqGenerateKeyPair();
      const sent = await client.pqEncapsulate({ publicKey: pair.data.publicKey });
      const received = await client.pqDecapsulate({ privateKey: pair.data.privateKey, ciphertext: sent.data.ciphertext });
      const caught = async (promise) => promise.then(() => 'resolved', (error) => error);
      const api = await caught(client.hash({ algorithm: 'md5', data: 'abc' }));
      const network = await caught(new CryptoClient({ baseUrl: '${unreachable}' }).health());
      const timeout = await caught(client.passwordHash({ password: 'slow' }, { timeout: 5 }));
      return {
        hash: hash.data,
        sameSecret: received.data.sharedSecret === sent.data.sharedSecret,
        api: { isApi: api instanceof CryptoApiError, status: api.status, error: api.body && api.body.error },
        network: { isNetwork: network instanceof CryptoNetworkError, isTimeout: network instanceof CryptoTimeoutError },
        timeout: { isTimeout: timeout instanceof CryptoTimeoutError, isNetwork: timeout instanceof CryptoNetworkError },
        fetchIsNative: String(globalThis.fetch).includes('[native code]'),
      };
    })()`)) as Record<string, unknown>;

    assert.deepEqual(results.hash, {
      digest: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
      algorithm: 'sha256',
      length: 32,
    });
    assert.equal(results.sameSecret, true);
    const api = results.api as { isApi: boolean; status: number; error: string };
    assert.deepEqual([api.isApi, api.status], [true, 400]);
    assert.match(api.error, /md5/);
    assert.deepEqual(results.network, { isNetwork: true, isTimeout: false });
    assert.deepEqual(results.timeout, { isTimeout: true, isNetwork: false });
    assert.equal(results.fetchIsNative, true, "the browser's own fetch was used");
  });
});
