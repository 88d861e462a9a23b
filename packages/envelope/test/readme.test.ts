/**
 * The README's ```ts examples run, unchanged but for the service's URL and the package names
 * (pointed at the sources), each in its own Node process against the real service; a
 * `console.log(…); // value` must print exactly that value. They also compile under --strict.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { useCryptoService } from '@crypto-service/testing/node-test';
import { typeErrors } from '../../client/test/typescript.ts';

const README = join(import.meta.dirname, '../README.md');
const EXAMPLE_URL = 'http://localhost:3000';
const PACKAGES: Record<string, string> = {
  '@crypto-service/envelope': pathToFileURL(join(import.meta.dirname, '../src/index.ts')).href,
  '@crypto-service/client': import.meta.resolve('@crypto-service/client'),
};
const EXPECTED_LOG = /console\.log\(.*\);\s*\/\/ (.+)$/;

const service = useCryptoService();
let scratch: string;
before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'envelope-readme-'));
});
after(() => rm(scratch, { recursive: true, force: true }));

async function blocks(): Promise<string[]> {
  const markdown = await readFile(README, 'utf8');
  return [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? '');
}

function runnable(source: string): string {
  let out = source.replaceAll(EXAMPLE_URL, service.url);
  for (const [name, url] of Object.entries(PACKAGES)) out = out.replaceAll(`'${name}'`, `'${url}'`);
  return out;
}

test('every README example compiles under --strict', async () => {
  const snippets = (await blocks()).map((source, index) => ({ name: `envelope-readme-${index + 1}`, source }));
  const failing = [...typeErrors(snippets)].filter(([, errors]) => errors.length > 0);
  assert.deepEqual(failing, []);
});

test('every README example runs against the service and prints what its comments say', async () => {
  const examples = await blocks();
  assert.ok(examples.length >= 3, `found ${examples.length} examples`);
  const backup = randomBytes(300_000);
  await writeFile(join(scratch, 'backup.tar'), backup);
  for (const [index, source] of examples.entries()) {
    const file = join(scratch, `example-${index}.ts`);
    await writeFile(file, runnable(source));
    const { stdout } = await promisify(execFile)(process.execPath, ['--conditions=crypto-service-source', file], {
      cwd: scratch,
      env: {
        PATH: process.env.PATH,
        CRYPTO_API_KEY: service.apiKey,
        BACKUP_KEK: randomBytes(32).toString('hex'),
        OLD_KEK: randomBytes(32).toString('hex'),
        NEW_KEK: randomBytes(16).toString('hex'),
      },
    });
    const expected = source.split('\n').flatMap((line) => EXPECTED_LOG.exec(line)?.[1] ?? []);
    assert.deepEqual(stdout.trimEnd().split('\n').filter(Boolean), expected, `example ${index + 1}`);
  }
  // The first example encrypts a file and decrypts it again.
  assert.ok((await readFile(join(scratch, 'out.tar'))).equals(backup));
  assert.ok((await readFile(join(scratch, 'backup.cse'))).byteLength > backup.byteLength);
});
