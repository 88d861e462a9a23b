import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { manifestForPack } from './manifest-for-pack.ts';
import { PACKAGES } from '../build.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const SCRIPT = join(ROOT, 'scripts/packages/manifest-for-pack.ts');

test('engines takes the place of enginesForConsumers, in the same position', () => {
  const packed = manifestForPack({ name: 'x', enginesForConsumers: { node: '>=22' }, license: 'MIT' });
  assert.deepEqual(Object.keys(packed), ['name', 'engines', 'license']);
  assert.deepEqual(packed.engines, { node: '>=22' });
  assert.throws(() => manifestForPack({ name: 'x' }), /enginesForConsumers/);
  assert.throws(() => manifestForPack({ engines: {}, enginesForConsumers: {} }), /both/);
});

test('stamp then restore leaves the package.json byte for byte as it was', () => {
  const dir = mkdtempSync(join(tmpdir(), 'manifest-for-pack-'));
  try {
    const original = '{\n  "name": "x",\n  "enginesForConsumers": {"node": ">=22"}\n}\n';
    writeFileSync(join(dir, 'package.json'), original);
    const run = (command: string) => execFileSync(process.execPath, [SCRIPT, command], { cwd: dir });
    run('stamp');
    const stamped = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
    assert.deepEqual(stamped, { name: 'x', engines: { node: '>=22' } });
    // A pack that failed before postpack: the next stamp starts again from the original.
    run('stamp');
    run('restore');
    assert.equal(readFileSync(join(dir, 'package.json'), 'utf8'), original);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("every package states its consumers' engines through the pack scripts, never as engines", () => {
  for (const name of PACKAGES) {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'packages', name, 'package.json'), 'utf8')) as {
      engines?: unknown;
      enginesForConsumers?: { node?: unknown };
      scripts?: Record<string, string>;
    };
    assert.equal(manifest.engines, undefined, `packages/${name}: npm ci would warn on an older Node`);
    assert.equal(typeof manifest.enginesForConsumers?.node, 'string', `packages/${name}: enginesForConsumers.node`);
    assert.equal(manifest.scripts?.prepack, 'node ../../scripts/packages/manifest-for-pack.ts stamp');
    assert.equal(manifest.scripts?.postpack, 'node ../../scripts/packages/manifest-for-pack.ts restore');
  }
});
