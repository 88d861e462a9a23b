/** The ecosystem's checks of a tarball: publint (package.json against the files) and attw (types resolution). */
import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import type { Tarball } from './pack.ts';

const ROOT = resolve(import.meta.dirname, '../..');

/** Every publint message of any level, formatted; empty when the tarball is clean. */
export async function publintProblems(tarball: Tarball): Promise<string[]> {
  const bytes = await readFile(tarball.path);
  const { messages, pkg } = await publint({
    pack: { tarball: bytes.buffer as ArrayBuffer },
    level: 'suggestion',
    strict: true,
  });
  return messages.map(
    (message) => `${tarball.name}: publint ${message.type}: ${formatMessage(message, pkg) ?? message.code}`,
  );
}

/** attw's verdict on the tarball's entry points, for every resolution mode; empty when it passes. */
export function attwProblems(tarball: Tarball): string[] {
  // ESM only, as the packages are: CommonJS `require` and node10 resolution are not served. The
  // CLI, a bin without exports, has no entry point for types to resolve.
  const args =
    tarball.name === '@crypto-service/cli' ? [] : [tarball.path, '--profile', 'esm-only', '--format', 'table-flipped'];
  if (args.length === 0) return [];
  const result = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules/@arethetypeswrong/cli/dist/index.js'), ...args],
    {
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    },
  );
  return result.status === 0 ? [] : [`${tarball.name}: attw:\n${result.stdout}${result.stderr}`];
}
