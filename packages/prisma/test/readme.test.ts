/**
 * The ```ts examples of the README run, in order as one module, against the real service, a real
 * PostgreSQL and the generated test client. A `console.log(…)` whose line ends in `// <value>` must
 * print that value, as util.inspect writes it.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { inspect } from 'node:util';
import { startStack, type Stack } from './stack.ts';

/** Where the rewritten README calls report what each console.log line printed. */
const readmeGlobal = globalThis as typeof globalThis & { readmeLog?: (want: string, ...values: unknown[]) => void };

let stack: Stack;

before(async () => {
  stack = await startStack();
});

after(async () => {
  await stack?.close();
});

test('the README examples run and print what they say', async () => {
  const markdown = await readFile(join(import.meta.dirname, '../README.md'), 'utf8');
  const blocks = [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? '');
  assert.ok(blocks.length >= 2);
  const printed: string[] = [];
  let expected = 0;
  const source = blocks
    .join('\n')
    .replace("'./generated/prisma/client.ts'", JSON.stringify(pathToFileURL(join(stack.generated, 'client.ts')).href))
    .split('\n')
    .map((line) => {
      const match = /console\.log\((.*)\);\s*\/\/ (.+)$/.exec(line);
      if (match === null) return line;
      expected += 1;
      return `globalThis.readmeLog(${JSON.stringify(match[2])}, ${match[1]});`;
    })
    .join('\n');
  readmeGlobal.readmeLog = (want: string, ...values: unknown[]) => {
    printed.push(want);
    assert.equal(values.map((value) => inspect(value)).join(' '), want);
  };
  Object.assign(process.env, {
    CRYPTO_SERVICE_URL: stack.service.url,
    CRYPTO_API_KEY: stack.service.apiKey,
    DATABASE_URL: stack.postgres.url,
    FIELD_KEY_2026_01: randomBytes(32).toString('hex'),
    FIELD_KEY_2026_07: randomBytes(32).toString('hex'),
    BLIND_INDEX_KEY: randomBytes(32).toString('hex'),
  });
  const file = join(stack.generated, `readme-${process.pid}.ts`);
  await writeFile(file, source);
  try {
    await import(pathToFileURL(file).href);
  } finally {
    await rm(file, { force: true });
  }
  assert.equal(printed.length, expected);
  assert.ok(expected >= 2);
});
