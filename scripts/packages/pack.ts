/**
 * Packs each workspace package with npm into one folder and checks what each tarball holds: no
 * tests, and no TypeScript other than declarations and the sources under src/ that the source maps
 * point at.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGES } from '../build.ts';

export interface Tarball {
  /** The package's name, `@crypto-service/client`. */
  name: string;
  version: string;
  /** The tarball's absolute path. */
  path: string;
  files: string[];
}

export function npm(args: readonly string[], cwd: string): string {
  const result = spawnSync('npm', args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`npm ${args.join(' ')} failed in ${cwd}:\n${result.stderr}`);
  return result.stdout;
}

/** The files a package must not publish. */
export function unwantedFiles(files: readonly string[]): string[] {
  return files.filter(
    (file) =>
      /(^|\/)test\//.test(file) ||
      /\.test\.[cm]?[jt]s$/.test(file) ||
      /(^|\/)tsconfig(\.\w+)?\.json$/.test(file) ||
      (/\.[cm]?ts$/.test(file) && !/\.d\.[cm]?ts$/.test(file) && !file.startsWith('src/')),
  );
}

export function packAll(root: string, destination: string): Tarball[] {
  mkdirSync(destination, { recursive: true });
  return PACKAGES.map((dir) => {
    const output = npm(['pack', '--json', '--pack-destination', destination], join(root, 'packages', dir));
    const [packed] = JSON.parse(output) as {
      name: string;
      version: string;
      filename: string;
      files: { path: string }[];
    }[];
    if (packed === undefined) throw new Error(`npm pack of packages/${dir} reported nothing`);
    const files = packed.files.map((file) => file.path);
    const unwanted = unwantedFiles(files);
    if (unwanted.length > 0) throw new Error(`${packed.name} would publish ${unwanted.join(', ')}`);
    return { name: packed.name, version: packed.version, path: join(destination, packed.filename), files };
  });
}
