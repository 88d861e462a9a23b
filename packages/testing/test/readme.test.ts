/**
 * The README's node:test example, run as written: its first ```ts block becomes a test file next
 * to this one (so that the package resolves as in the repository) and runs under node --test, with
 * an assertion added after the line that hashes.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

const README = readFileSync(join(import.meta.dirname, '../README.md'), 'utf8');

test('the README example starts the service, hashes through it and stops it', () => {
  const block = /```ts\n([\s\S]*?)```/.exec(README)?.[1] ?? '';
  assert.ok(block.includes("from '@crypto-service/testing/node-test'"), 'the first ts block is the node:test example');
  const checked = block.replace(
    /^(\s*)(const \{ data \} = await service\.client\.hash\(.*\);)$/m,
    "$1$2\n$1if (data.digest !== '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824') throw new Error(data.digest);",
  );
  assert.notEqual(checked, block, 'the example hashes "hello"');
  const file = join(import.meta.dirname, `readme-example-${process.pid}.test.ts`);
  writeFileSync(file, checked);
  try {
    // Without NODE_TEST_CONTEXT, which would make the child report to this runner instead of printing.
    const { NODE_TEST_CONTEXT: _context, ...env } = process.env;
    const result = spawnSync(process.execPath, ['--test', '--test-reporter=tap', file], { encoding: 'utf8', env });
    assert.equal(result.status, 0, `${result.stdout}${result.stderr}`);
    assert.match(result.stdout, /^# pass 1$/m);
    assert.match(result.stdout, /^# fail 0$/m);
  } finally {
    rmSync(file, { force: true });
  }
});
