/**
 * The ```ts examples of the README run, in order as one module, against the real service and a
 * real PostgreSQL. They use decorators, which Node's type stripping does not run, so TypeScript
 * compiles them first as a TypeORM project would (experimentalDecorators). A `console.log(…)`
 * whose line ends in `// <value>` must print that value, as util.inspect writes it.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { inspect } from 'node:util';
import ts from 'typescript';
import { startCryptoService, type CryptoService } from '@crypto-service/testing';
import { startPostgres, type Postgres } from '../../../scripts/test-support/postgres.ts';

/** Where the rewritten README calls report what each console.log line printed. */
const readmeGlobal = globalThis as typeof globalThis & { readmeLog?: (want: string, ...values: unknown[]) => void };

let service: CryptoService;
let postgres: Postgres;

before(async () => {
  [service, postgres] = await Promise.all([
    startCryptoService({ env: { RATE_LIMIT_MAX: '10000000' } }),
    startPostgres(),
  ]);
});

after(async () => {
  await Promise.all([service?.close(), postgres?.stop()]);
});

test('the README examples run and print what they say', async () => {
  const markdown = await readFile(join(import.meta.dirname, '../README.md'), 'utf8');
  const blocks = [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? '');
  assert.ok(blocks.length >= 2);
  const printed: string[] = [];
  let expected = 0;
  const source = blocks
    .join('\n')
    .split('\n')
    .map((line) => {
      const match = /console\.log\((.*)\);\s*\/\/ (.+)$/.exec(line);
      if (match === null) return line;
      expected += 1;
      return `globalThis.readmeLog(${JSON.stringify(match[2])}, ${match[1]});`;
    })
    .join('\n');
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2023,
      experimentalDecorators: true,
      emitDecoratorMetadata: true,
      useDefineForClassFields: false,
    },
  });
  readmeGlobal.readmeLog = (want: string, ...values: unknown[]) => {
    printed.push(want);
    assert.equal(values.map((value) => inspect(value)).join(' '), want);
  };
  Object.assign(process.env, {
    CRYPTO_SERVICE_URL: service.url,
    CRYPTO_API_KEY: service.apiKey,
    DATABASE_URL: postgres.url,
    FIELD_KEY_2026_01: randomBytes(32).toString('hex'),
    FIELD_KEY_2026_07: randomBytes(32).toString('hex'),
    BLIND_INDEX_KEY: randomBytes(32).toString('hex'),
  });
  // Inside the package, so that the examples' imports resolve as in an application.
  const folder = join(import.meta.dirname, 'generated');
  const file = join(folder, `readme-${process.pid}.mjs`);
  await mkdir(folder, { recursive: true });
  await writeFile(file, outputText);
  try {
    await import(pathToFileURL(file).href);
  } finally {
    await rm(file, { force: true });
    await rm(folder, { recursive: true, force: true });
  }
  assert.equal(printed.length, expected);
  assert.ok(expected >= 2);
});
