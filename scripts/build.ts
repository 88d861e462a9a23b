/**
 * `npm run build`: each package's src/ to ESM JavaScript, declarations and source maps in its
 * dist/, in dependency order (a package compiles against the built declarations of the ones it
 * imports). Development and tests run the sources directly; the build is what gets packed.
 *
 *   node scripts/build.ts           build every package
 */
import { spawnSync } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { rewriteDeclarations } from './build/declaration-specifiers.ts';
import { inlineWireTypes } from './build/inline-wire-types.ts';

const ROOT = resolve(import.meta.dirname, '..');
/** Every workspace package, each after the packages it depends on. */
export const PACKAGES: readonly string[] = ['core', 'protocol', 'server', 'client', 'cli', 'testing', 'prisma', 'typeorm'];
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

export async function build(root = ROOT): Promise<void> {
  for (const name of PACKAGES) {
    const dir = join(root, 'packages', name);
    await rm(join(dir, 'dist'), { recursive: true, force: true });
    const result = spawnSync(process.execPath, [TSC, '-p', join(dir, 'tsconfig.build.json')], { stdio: 'inherit' });
    if (result.status !== 0) throw new Error(`tsc failed for packages/${name}`);
    await rewriteDeclarations(join(dir, 'dist'));
    if (name === 'client') await inlineWireTypes(join(dir, 'dist'));
  }
}

if (import.meta.main) {
  await build();
  process.stdout.write(`built ${PACKAGES.map((name) => `packages/${name}/dist`).join(', ')}\n`);
}
