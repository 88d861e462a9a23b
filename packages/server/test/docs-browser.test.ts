/**
 * The documentation page in a real browser: the server listens on a real port, headless Chromium
 * opens /docs, and Swagger UI must list every operation of the OpenAPI document and run "Try it
 * out" against the service under its own Content-Security-Policy.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import type { FastifyInstance } from 'fastify';
import { testApp, TEST_API_KEY } from './helpers.ts';
import { chromiumPath, launchChromium } from './chromium.ts';

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const SHA256_ABC = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

/** Console errors and CSP refusals of a page: Swagger UI working only in part shows up here. */
function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) =>
    problems.push(`request failed: ${request.url()} (${request.failure()?.errorText ?? '?'})`),
  );
  return problems;
}

/** Runs "Try it out" on POST /v2/hash with the body given and returns the text of the response panel. */
async function tryHash(page: Page, body: string): Promise<{ code: string; text: string }> {
  const operation = page.locator('#operations-hash-post_v2_hash');
  if ((await operation.getAttribute('class'))?.includes('is-open') !== true)
    await operation.locator('.opblock-summary').click();
  // A response from an earlier run is cleared first, so that the one read below is this run's.
  const clear = operation.locator('button.btn-clear');
  if ((await clear.count()) > 0) {
    await clear.click();
    await operation.locator('.live-responses-table').waitFor({ state: 'detached' });
  }
  // The UI is configured with tryItOutEnabled (the editor is on at once); should that change,
  // this button turns it on.
  const tryItOut = operation.locator('button.try-out__btn', { hasText: 'Try it out' });
  if ((await tryItOut.count()) > 0) await tryItOut.click();
  const editor = operation.locator('textarea.body-param__text');
  await editor.fill(body);
  await operation.locator('button.execute').click();
  // The live response: one row whose description cell holds the response body and headers.
  const row = operation.locator('.live-responses-table tbody tr.response').first();
  await row.locator('.response-col_description .microlight').first().waitFor();
  return {
    // The cell reads "401\nUndocumented" for a status that the operation does not list.
    code: (await row.locator('.response-col_status').innerText()).trim().split(/\s+/)[0] ?? '',
    text: await row.locator('.response-col_description').innerText(),
  };
}

describe('the /docs page in headless Chromium', () => {
  let browser: Browser;
  before(async () => {
    browser = await launchChromium();
  });
  after(() => browser?.close());

  test('lists every operation of the OpenAPI document, and Try it out on POST /v2/hash shows the digest', async (t) => {
    const app = await testApp();
    t.after(() => app.close());
    const baseUrl = await listen(app);
    const page = await browser.newPage();
    t.after(() => page.close());
    const problems = watchProblems(page);

    const response = await page.goto(`${baseUrl}/docs`);
    assert.equal(response?.status(), 200);
    await page.locator('.opblock').first().waitFor({ timeout: 20_000 });

    const document = (await (await fetch(`${baseUrl}/docs/json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const documented = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((key) => HTTP_METHODS.includes(key))
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
    assert.ok(documented.length >= 40, `the document lists ${documented.length} operations`);
    const listed = await page.$$eval('.opblock', (blocks) =>
      blocks.map((block) => {
        const method = block.querySelector('.opblock-summary-method')?.textContent ?? '';
        // Deprecated operations (/v1) are drawn with another class; data-path is on both.
        const path = block.querySelector('.opblock-summary [data-path]')?.getAttribute('data-path') ?? '';
        return `${method.trim().toUpperCase()} ${path}`;
      }),
    );
    assert.deepEqual([...listed].sort(), [...documented].sort());

    const result = await tryHash(page, JSON.stringify({ algorithm: 'sha256', data: 'abc' }));
    assert.equal(result.code, '200');
    assert.ok(result.text.includes(SHA256_ABC), `the response panel shows the digest:\n${result.text}`);
    assert.deepEqual(problems, [], 'no console errors, CSP refusals or failed requests');
  });

  test('with an API key configured, Authorize then Try it out succeeds, and without it the panel shows the 401', async (t) => {
    const app = await testApp({ CRYPTO_API_KEY: TEST_API_KEY });
    t.after(() => app.close());
    const baseUrl = await listen(app);
    const page = await browser.newPage();
    t.after(() => page.close());
    await page.goto(`${baseUrl}/docs`);
    await page.locator('.opblock').first().waitFor({ timeout: 20_000 });

    const refused = await tryHash(page, JSON.stringify({ algorithm: 'sha256', data: 'abc' }));
    assert.equal(refused.code, '401');
    assert.ok(!refused.text.includes(SHA256_ABC));

    await page.locator('.auth-wrapper button.authorize').click();
    const dialog = page.locator('.modal-ux');
    await dialog.locator('input[type=text], input[type=password]').first().fill(TEST_API_KEY);
    await dialog.locator('button.authorize').first().click();
    await dialog.locator('button.btn-done, button.close-modal').first().click();

    const allowed = await tryHash(page, JSON.stringify({ algorithm: 'sha256', data: 'abc' }));
    assert.equal(allowed.code, '200');
    assert.ok(allowed.text.includes(SHA256_ABC), `the response panel shows the digest:\n${allowed.text}`);
  });
});

test('a missing Chromium fails with a message that says how to get one', (t) => {
  const saved = process.env.CHROMIUM_PATH;
  t.after(() => {
    if (saved === undefined) delete process.env.CHROMIUM_PATH;
    else process.env.CHROMIUM_PATH = saved;
  });
  process.env.CHROMIUM_PATH = '/nonexistent/chromium';
  assert.throws(
    () => chromiumPath(),
    /not found at \/nonexistent\/chromium: install Debian's chromium package .*CHROMIUM_PATH/,
  );
});
