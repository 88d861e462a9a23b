/**
 * The README's examples run as written against the real service: each ```ts block in its own
 * process, with the example URL pointed at the test's service; the ```json host configuration
 * names only what the command reads.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { delimiter, dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { startCryptoService, type CryptoService } from '@crypto-service/testing';
import { HELP } from '../src/config.ts';

const PACKAGE = join(import.meta.dirname, '..');
const EXAMPLE_URL = 'http://localhost:3000';

let service: CryptoService;
let scratch: string;

before(async () => {
  service = await startCryptoService();
  // Inside the package, so that the examples resolve @crypto-service/mcp and the SDK as an app would.
  scratch = await mkdtemp(join(PACKAGE, 'test', '.readme-'));
});
after(async () => {
  await service?.close();
  if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
});

async function blocks(language: string): Promise<string[]> {
  const markdown = await readFile(join(PACKAGE, 'README.md'), 'utf8');
  return [...markdown.matchAll(new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map(
    (match) => match[1] ?? '',
  );
}

// The repository runs the bin from its sources: the spawned server needs this run's export conditions.
function forThisRepository(source: string): string {
  return source
    .replaceAll(EXAMPLE_URL, service.url)
    .replace('const env = { ', "const env = { NODE_OPTIONS: process.env.NODE_OPTIONS ?? '', ");
}

test('every TypeScript example runs against the service', async () => {
  const examples = await blocks('ts');
  assert.equal(examples.length, 3);
  const outputs: string[] = [];
  for (const [index, example] of examples.entries()) {
    const file = join(scratch, `example-${index}.ts`);
    await writeFile(file, forThisRepository(example));
    const result = spawnSync(process.execPath, [file], {
      encoding: 'utf8',
      timeout: 30_000,
      env: {
        ...process.env,
        // The bin's `#!/usr/bin/env node` must find this Node, and the command must be on PATH.
        PATH: [dirname(process.execPath), join(PACKAGE, '../../node_modules/.bin'), process.env.PATH].join(delimiter),
        CRYPTO_API_KEY: service.apiKey,
      },
    });
    assert.equal(result.status, 0, `example ${index} failed: ${result.stderr}`);
    outputs.push(result.stdout);
  }
  assert.ok(outputs[0]?.includes(createHash('sha256').update('hello').digest('hex')), outputs[0]);
  assert.match(outputs[1] ?? '', /^http:\/\/127\.0\.0\.1:\d+\/mcp\n$/);
});

test('the host configuration names the package and the variables the command reads', async () => {
  const [json] = await blocks('json');
  const config = JSON.parse(json ?? '') as {
    mcpServers: Record<string, { command: string; args: string[]; env: Record<string, string> }>;
  };
  const server = config.mcpServers['crypto-service'];
  assert.deepEqual(server?.args, ['-y', '@crypto-service/mcp']);
  for (const variable of Object.keys(server?.env ?? {})) assert.ok(HELP.includes(variable), variable);
});
