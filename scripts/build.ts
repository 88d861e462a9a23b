/**
 * `npm run build`: each package's src/ to ESM JavaScript, declarations and source maps in its
 * dist/, in dependency order (a package compiles against the built declarations of the ones it
 * imports). Development and tests run the sources directly; the build is what gets packed.
 *
 *   node scripts/build.ts                   build every package
 *   node scripts/build.ts core protocol     build only these (in PACKAGES' order; the image builds the server's)
 */
import { spawnSync } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { rewriteDeclarations } from './build/declaration-specifiers.ts';
import { inlineWireTypes } from './build/inline-wire-types.ts';

const ROOT = resolve(import.meta.dirname, '..');
/** Every workspace package, each after the packages it depends on. */
export const PACKAGES: readonly string[] = [
  'core',
  'protocol',
  'server',
  'client',
  'cli',
  'testing',
  'edge',
  'envelope',
  'mcp',
  'middleware',
  'prisma',
  'typeorm',
  'react',
  'vue',
];
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

export async function build(root = ROOT, only: readonly string[] = PACKAGES): Promise<void> {
  const unknown = only.filter((name) => !PACKAGES.includes(name));
  if (unknown.length > 0) throw new Error(`no such package: ${unknown.join(', ')}`);
  for (const name of PACKAGES.filter((name) => only.includes(name))) {
    const dir = join(root, 'packages', name);
    await rm(join(dir, 'dist'), { recursive: true, force: true });
    const result = spawnSync(process.execPath, [TSC, '-p', join(dir, 'tsconfig.build.json')], { stdio: 'inherit' });
    if (result.status !== 0) throw new Error(`tsc failed for packages/${name}`);
    await rewriteDeclarations(join(dir, 'dist'));
    if (name === 'client') await inlineWireTypes(join(dir, 'dist'));
  }
}

if (import.meta.main) {
  const requested = process.argv.slice(2);
  const names = requested.length > 0 ? requested : PACKAGES;
  await build(ROOT, names);
  process.stdout.write(`built ${names.map((name) => `packages/${name}/dist`).join(', ')}\n`);
}
