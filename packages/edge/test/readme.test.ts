/**
 * Every ```ts block of the README runs against the real service, with its free names (`client`,
 * the keys) bound to the service and its fixtures. Each `console.log(...); // → text` line must
 * print that text.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { useCryptoService } from '@crypto-service/testing/node-test';

const PACKAGE_DIR = join(import.meta.dirname, '..');
const README = await readFile(join(PACKAGE_DIR, 'README.md'), 'utf8');
const BLOCKS = [...README.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
const EXPECTED_OUTPUT = /console\.log\(.*\); \/\/ → (.*)$/;

/** Binds the README's free names; the block's own imports come after it. */
const PRELUDE = `
const { client, fixtures } = globalThis.__edgeReadme;
const backendPublicKey = fixtures.xWing.publicKey;
const backendPrivateKey = fixtures.xWing.privateKey;
const aeadKey = fixtures.aead.key;
const hmacKey = fixtures.hmac.key;
const mlDsaPublicKey = fixtures.mlDsa65.publicKey;
const mlDsaPrivateKey = fixtures.mlDsa65.privateKey;
`;

const service = useCryptoService();
// Inside the package, so that '@crypto-service/edge' resolves as it does for an application.
const directory = await mkdtemp(join(PACKAGE_DIR, '.readme-'));
after(() => rm(directory, { recursive: true, force: true }));

describe('README examples', () => {
  test('the README has examples', () => {
    assert.ok(BLOCKS.length >= 2);
  });

  BLOCKS.forEach((block, index) => {
    test(`block ${index + 1} runs and prints what its comments say`, async () => {
      const imports = block.split('\n').filter((line) => line.startsWith('import '));
      const body = block.split('\n').filter((line) => !line.startsWith('import '));
      const file = join(directory, `block-${index + 1}.ts`);
      await writeFile(file, [...imports, PRELUDE, ...body].join('\n'));
      const expected = body.flatMap((line) => EXPECTED_OUTPUT.exec(line)?.[1] ?? []);
      assert.ok(expected.length > 0, 'the block shows its output');
      const printed: string[] = [];
      const log = console.log;
      Object.assign(globalThis, { __edgeReadme: service });
      console.log = (...values: unknown[]) => printed.push(values.map(String).join(' '));
      try {
        await import(pathToFileURL(file).href);
      } finally {
        console.log = log;
      }
      assert.deepEqual(printed, expected);
    });
  });
});
