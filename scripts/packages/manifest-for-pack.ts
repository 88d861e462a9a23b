/**
 * The packed package.json states `engines` for the package's consumers; the repository's own
 * package.json files keep that range under `enginesForConsumers` instead, because npm checks the
 * engines of workspace packages against whatever Node runs `npm ci`, while the repository's
 * scripts run on the Node it brings (devDependency "node"), so a warning there would be noise.
 *
 * Run by each package's npm lifecycle scripts, in the package's folder:
 *   prepack:  node ../../scripts/packages/manifest-for-pack.ts stamp     engines from enginesForConsumers
 *   postpack: node ../../scripts/packages/manifest-for-pack.ts restore   the package.json as it was
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const SOURCE_KEY = 'enginesForConsumers';
const BACKUP = '.package.json.before-pack';

type Manifest = Record<string, unknown>;

/** The manifest as it is packed: `engines` in place of enginesForConsumers, in the same position. */
export function manifestForPack(manifest: Manifest): Manifest {
  const engines = manifest[SOURCE_KEY];
  if (typeof engines !== 'object' || engines === null) {
    throw new Error(`package.json has no "${SOURCE_KEY}" object to publish as "engines"`);
  }
  if ('engines' in manifest) throw new Error(`package.json has both "engines" and "${SOURCE_KEY}"`);
  return Object.fromEntries(
    Object.entries(manifest).map(([key, value]) => [key === SOURCE_KEY ? 'engines' : key, value]),
  );
}

function restore(dir: string): void {
  const backup = join(dir, BACKUP);
  if (existsSync(backup)) renameSync(backup, join(dir, 'package.json'));
}

function stamp(dir: string): void {
  // A pack that stopped between the two steps left a backup: start again from it.
  restore(dir);
  const file = join(dir, 'package.json');
  const text = readFileSync(file, 'utf8');
  const packed = manifestForPack(JSON.parse(text) as Manifest);
  writeFileSync(join(dir, BACKUP), text);
  writeFileSync(file, `${JSON.stringify(packed, null, 2)}\n`);
}

if (import.meta.main) {
  const [command] = process.argv.slice(2);
  const dir = process.cwd();
  if (command === 'stamp') stamp(dir);
  else if (command === 'restore') restore(dir);
  else {
    process.stderr.write('usage: node scripts/packages/manifest-for-pack.ts stamp|restore (in a package folder)\n');
    process.exit(2);
  }
}
