/**
 * The README's ```tsx examples are true (types.test.ts compiles them): each runs in Chromium against the real service (anonymous, CORS for the page), where clicking its
 * buttons shows what the test expects.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { bundleModules, openBrowserApp, type BrowserApp } from './browser-app.ts';
import { readmeBlocks } from './typecheck.ts';

/** The service the examples are written for; the test points them at its own. */
const EXAMPLE_URL = 'http://localhost:3000';
const BLOCKS = readmeBlocks();

/** Per block, in order: the button to click and the text its <output> then shows. */
function expectations(badKeyProblem: string): { button: string; shows: string }[][] {
  return [
    [{ button: 'Hash', shows: createHash('sha256').update('hello').digest('hex') }],
    [
      { button: 'Sign and verify', shows: 'valid: true' },
      { button: 'Sign with a bad key', shows: badKeyProblem },
    ],
  ];
}

describe('the README examples', () => {
  let app: BrowserApp;

  before(async () => {
    app = await openBrowserApp(
      (serviceUrl) => {
        const modules = new Map(
          BLOCKS.map((block, index) => [`block-${index}`, block.replaceAll(EXAMPLE_URL, serviceUrl)]),
        );
        const main = [
          "import { createElement } from 'react';",
          "import { createRoot } from 'react-dom/client';",
          ...BLOCKS.map((_, index) => `import { App as App${index} } from 'virtual:block-${index}';`),
          `for (const [index, App] of [${BLOCKS.map((_, index) => `App${index}`).join(', ')}].entries()) {`,
          "  const root = document.body.appendChild(document.createElement('div'));",
          '  root.id = `block-${index}`;',
          '  createRoot(root).render(createElement(App));',
          '}',
        ].join('\n');
        return bundleModules(main, modules, import.meta.dirname);
      },
      { CRYPTO_API_KEY: undefined },
    );
  });
  after(() => app?.close());

  test('every example shows what it should when its buttons are clicked', async () => {
    const badKey = await app.service.client.sign({ privateKey: 'not a key', message: 'x' }).then(
      () => assert.fail('the service accepted a bad key'),
      (error: { body: { error: string } }) => error.body.error,
    );
    const steps = expectations(badKey);
    assert.equal(steps.length, BLOCKS.length);
    for (const [index, blockSteps] of steps.entries()) {
      for (const { button, shows } of blockSteps) {
        const block = app.page.locator(`#block-${index}`);
        await block.getByRole('button', { name: button, exact: true }).click();
        const output = block.locator('output');
        await output.filter({ hasText: shows }).waitFor({ timeout: 10_000 });
        assert.equal(await output.textContent(), shows, `block ${index}, after clicking ${button}`);
      }
    }
    assert.deepEqual(app.problems, []);
  });
});
