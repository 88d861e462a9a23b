/**
 * Packs each workspace package with npm into one folder and checks what each tarball holds: no
 * tests, and no TypeScript other than declarations and the sources under src/ that the source maps
 * point at.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
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

/**
 * The packed package.json states engines for consumers, and packing left the repository's own
 * package.json as it was (see manifest-for-pack.ts).
 */
function checkPackedManifest(name: string, tarball: string, dir: string): void {
  const packed = JSON.parse(
    spawnSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' }).stdout,
  ) as {
    engines?: { node?: string };
    enginesForConsumers?: unknown;
  };
  if (typeof packed.engines?.node !== 'string') throw new Error(`${name}: the packed package.json has no engines.node`);
  if (packed.enginesForConsumers !== undefined)
    throw new Error(`${name}: the packed package.json kept enginesForConsumers`);
  const source = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { engines?: unknown };
  if (source.engines !== undefined || existsSync(join(dir, '.package.json.before-pack'))) {
    throw new Error(`${name}: packing did not restore ${dir}/package.json`);
  }
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
    const path = join(destination, packed.filename);
    checkPackedManifest(packed.name, path, join(root, 'packages', dir));
    return { name: packed.name, version: packed.version, path, files };
  });
}
