/**
 * The project's own lint rules, run through the real eslint.config.js on code that breaks them and
 * code that does not, so that a config change cannot silently switch one off.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ESLint } from 'eslint';

const eslint = new ESLint({ cwd: new URL('../..', import.meta.url).pathname });

async function ruleIds(code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).map((message) => `${message.ruleId}:${message.line}`);
}

describe('core calls node:crypto key-taking functions only through node-crypto.ts', () => {
  const file = 'packages/core/src/example.ts';

  test('named, namespace and destructured uses are reported, each on its line', async () => {
    const code = [
      "import * as nc from 'node:crypto';",
      "import { createHmac, randomBytes } from 'node:crypto';",
      'const { verify, randomInt } = nc as typeof nc;',
      'export const used = [nc.sign, nc.createCipheriv, nc.randomBytes, createHmac, randomBytes, verify, randomInt];',
    ].join('\n');
    assert.deepEqual(await ruleIds(code, file), [
      'local/wrapped-node-crypto:2',
      'local/wrapped-node-crypto:3',
      'local/wrapped-node-crypto:4',
      'local/wrapped-node-crypto:4',
    ]);
  });

  test('functions that take no key, and node-crypto.ts itself, are allowed', async () => {
    assert.deepEqual(
      await ruleIds("import { randomBytes } from 'node:crypto';\nexport const r = randomBytes(1);", file),
      [],
    );
    const wrapper = "import { createHmac } from 'node:crypto';\nexport const h = createHmac;";
    assert.deepEqual(await ruleIds(wrapper, 'packages/core/src/node-crypto.ts'), []);
  });
});

describe('the server never goes around its log serializers', () => {
  const file = 'packages/server/src/example.ts';

  test("a route's own logSerializers and %j, %o or %O interpolation are reported", async () => {
    const code = [
      'export const route = { logSerializers: {} };',
      "export const line = (log: { info: (...args: unknown[]) => void }, o: object) => log.info('%j', o);",
      'export const other = (log: { info: (...args: unknown[]) => void }, o: object) => log.info(`${1} %O`, o);',
      "export const fine = (log: { info: (...args: unknown[]) => void }) => log.info('%s done', 'x');",
    ].join('\n');
    assert.deepEqual(await ruleIds(code, file), [
      'no-restricted-syntax:1',
      'no-restricted-syntax:2',
      'no-restricted-syntax:3',
    ]);
  });
});
