/**
 * What a release would publish: every package built, packed into one folder, each tarball checked
 * as the ecosystem checks packages (publint, attw), and the `npm publish` commands to run. With
 * `dryRun`, npm itself rehearses each publish (`npm publish --dry-run`). Nothing is published.
 */
import { rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { build } from '../build.ts';
import { attwProblems, publintProblems } from '../packages/lint.ts';
import { npm, packAll, type Tarball } from '../packages/pack.ts';

/** Where the tarballs go, relative to the repository root (git-ignored). */
export const RELEASE_DIR = 'release';

export async function preparePublish(root: string, dryRun: boolean, log: (line: string) => void): Promise<Tarball[]> {
  const destination = join(root, RELEASE_DIR);
  await rm(destination, { recursive: true, force: true });
  await build(root);
  const tarballs = packAll(root, destination);
  const problems: string[] = [];
  for (const tarball of tarballs) problems.push(...(await publintProblems(tarball)), ...attwProblems(tarball));
  if (problems.length > 0) throw new Error(`the tarballs are not fit to publish:\n${problems.join('\n')}`);
  log(`packed and checked (publint, attw) into ${RELEASE_DIR}/:`);
  for (const tarball of tarballs) {
    if (dryRun) npm(['publish', '--dry-run', '--access', 'public', tarball.path], root);
    log(`  ${relative(root, tarball.path)}${dryRun ? ' (npm publish --dry-run passed)' : ''}`);
  }
  log('To publish, in this order (each package after those it depends on):');
  for (const tarball of tarballs) log(`  npm publish --access public ${relative(root, tarball.path)}`);
  return tarballs;
}
