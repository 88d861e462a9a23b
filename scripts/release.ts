/**
 * `npm run release`: moves every package of the repository (the root and each workspace) to the
 * next version, in lockstep (one version for the whole project), and updates everything that
 * names that version: the inter-workspace dependency ranges and package-lock.json's entries for
 * the root and the workspaces. The server reads its version from its package.json at run time, so nothing else
 * needs to change. CHANGELOG.md's Unreleased section becomes the new version's. Then it builds,
 * packs every package into release/, checks each tarball (publint, attw) and prints the
 * `npm publish` commands (release/publishable.ts). It publishes nothing, and it does not commit
 * or tag: review the change, then commit it.
 *
 *   npm run release                     make the release
 *   npm run release -- --dry-run        show what would change and write nothing to the sources;
 *                                       build, pack and check them, and run npm publish --dry-run
 *   --versions-only                     skip the build and the tarballs (the tests' copies have no sources)
 *   node scripts/release.ts --root DIR  act on another checkout (the tests use a temporary copy)
 *
 * The next version: each of patch and minor counts up to 999 and then carries into the position
 * on its left: 0.0.1, 0.0.2, … 0.0.999, then 0.1.0; 0.1.1, … 0.1.999, then 0.2.0; … 0.999.999,
 * then 1.0.0; and the same from 1.0.0 on.
 *
 * It refuses to run, and writes nothing, when the packages disagree on the current version, when
 * an inter-workspace dependency names another version, or when package-lock.json is out of step
 * with the package.json files: a release must start from one agreed version.
 */
import { existsSync, globSync, statSync } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ChangelogError, releaseChangelog } from './release/changelog.ts';
import { preparePublish } from './release/publishable.ts';

export class ReleaseError extends Error {
  override readonly name = 'ReleaseError';
}

const MAX_COUNTER = 999;
const VERSION = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/;
const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'] as const;

/** The version after `version` (see the rule above). Pre-release and build suffixes are refused. */
export function nextVersion(version: string): string {
  const match = VERSION.exec(version);
  if (match === null) throw new ReleaseError(`'${version}' is not a plain major.minor.patch version`);
  const [major, minor, patch] = match.slice(1).map(Number) as [number, number, number];
  if (patch > MAX_COUNTER || minor > MAX_COUNTER)
    throw new ReleaseError(`'${version}' is off the release line: minor and patch go up to ${MAX_COUNTER}`);
  if (patch < MAX_COUNTER) return `${major}.${minor}.${patch + 1}`;
  if (minor < MAX_COUNTER) return `${major}.${minor + 1}.0`;
  return `${major + 1}.0.0`;
}

type Json = Record<string, unknown>;

interface JsonFile {
  /** Relative to the root, for messages. */
  name: string;
  path: string;
  text: string;
  data: Json;
}

export interface PlannedFile {
  name: string;
  path: string;
  text: string;
}

export interface ReleasePlan {
  from: string;
  to: string;
  /** Every file to write, with its new text. */
  files: PlannedFile[];
}

async function readJson(root: string, name: string): Promise<JsonFile> {
  const path = join(root, name);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ReleaseError(`cannot read ${name}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  try {
    return { name, path, text, data: JSON.parse(text) as Json };
  } catch (error) {
    throw new ReleaseError(`${name} is not valid JSON: ${(error as Error).message}`);
  }
}

/** The same text layout as the original (indentation, final newline), so that the diff is only the versions. */
function serialize(file: JsonFile): string {
  const indent = /^\{\r?\n([ \t]+)"/.exec(file.text)?.[1] ?? '  ';
  const newline = file.text.includes('\r\n') ? '\r\n' : '\n';
  const body = JSON.stringify(file.data, null, indent).replaceAll('\n', newline);
  return file.text.endsWith('\n') ? body + newline : body;
}

function asObject(value: unknown): Json | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

/** The workspace directories, relative to the root, in the order the root lists them (globs expanded). */
function workspaceDirs(root: string, rootManifest: Json): string[] {
  const declared = rootManifest.workspaces;
  const patterns = Array.isArray(declared) ? declared : asObject(declared)?.packages;
  if (!Array.isArray(patterns)) return [];
  const dirs: string[] = [];
  for (const pattern of patterns) {
    if (typeof pattern !== 'string') throw new ReleaseError('package.json: workspaces must be strings');
    const matches = pattern.includes('*') ? globSync(pattern, { cwd: root }).sort() : [pattern];
    for (const dir of matches) {
      const normalized = relative(root, resolve(root, dir)).split('\\').join('/');
      const isPackage =
        existsSync(join(root, normalized, 'package.json')) && statSync(join(root, normalized)).isDirectory();
      if (!isPackage && !pattern.includes('*')) throw new ReleaseError(`workspace ${pattern} has no package.json`);
      if (isPackage && !dirs.includes(normalized)) dirs.push(normalized);
    }
  }
  return dirs;
}

/**
 * Collects every place that states the current version, checks that they agree, and moves them
 * to the next one in memory. `problems` gathers every disagreement, so that one run reports all.
 */
class VersionEdits {
  readonly problems: string[] = [];
  readonly from: string;
  readonly to: string;
  readonly #internal: ReadonlySet<string>;

  constructor(internalNames: ReadonlySet<string>, from: string, to: string) {
    this.#internal = internalNames;
    this.from = from;
    this.to = to;
  }

  /** `holder[key]` is a version: it must be the current one, and becomes the next. */
  version(holder: Json, key: string, where: string): void {
    const value = holder[key];
    if (value !== this.from) {
      this.problems.push(`${where} is ${JSON.stringify(value)}`);
      return;
    }
    holder[key] = this.to;
  }

  /** The dependency ranges on the repository's own packages, in every dependency field of `manifest`. */
  dependencies(manifest: Json, where: string): void {
    for (const field of DEPENDENCY_FIELDS) {
      const dependencies = asObject(manifest[field]);
      if (dependencies === undefined) continue;
      for (const [name, range] of Object.entries(dependencies)) {
        if (!this.#internal.has(name) || typeof range !== 'string') continue;
        // Ranges that name no version follow the workspace by themselves.
        if (range === '*' || range.startsWith('workspace:') || range.startsWith('file:')) continue;
        const exact = /^([\^~]?)(.*)$/.exec(range);
        if (exact?.[2] !== this.from) {
          this.problems.push(`${where} ${field}.${name} is "${range}"`);
          continue;
        }
        dependencies[name] = `${exact[1] ?? ''}${this.to}`;
      }
    }
  }
}

/** Reads the repository at `root` and works out the release, without writing anything. `date` dates the changelog's new section. */
export async function planRelease(root: string, date = new Date().toISOString().slice(0, 10)): Promise<ReleasePlan> {
  const rootManifest = await readJson(root, 'package.json');
  const workspaces = await Promise.all(
    workspaceDirs(root, rootManifest.data).map((dir) => readJson(root, `${dir}/package.json`)),
  );
  const manifests = [rootManifest, ...workspaces];

  const versions = manifests.map((file) => [file.name, file.data.version] as const);
  const distinct = new Set(versions.map(([, version]) => version));
  if (distinct.size !== 1) {
    const list = versions.map(([name, version]) => `  ${name}: ${JSON.stringify(version)}`).join('\n');
    throw new ReleaseError(`the packages disagree on the version; set them all to one version first:\n${list}`);
  }
  const from = rootManifest.data.version;
  if (typeof from !== 'string') throw new ReleaseError('package.json has no version');
  const to = nextVersion(from);

  const internal = new Set(
    manifests.map((file) => file.data.name).filter((name): name is string => typeof name === 'string'),
  );
  const edits = new VersionEdits(internal, from, to);
  for (const file of manifests) {
    edits.version(file.data, 'version', `${file.name} version`);
    edits.dependencies(file.data, file.name);
  }

  const files = [...manifests];
  const lockName = 'package-lock.json';
  if (existsSync(join(root, lockName))) {
    const lock = await readJson(root, lockName);
    editLockfile(
      lock,
      workspaces.map((file) => file.name.replace(/\/package\.json$/, '')),
      internal,
      edits,
    );
    files.push(lock);
  }

  if (edits.problems.length > 0) {
    throw new ReleaseError(
      `every package must be at ${from} before a release, but:\n${edits.problems.map((problem) => `  ${problem}`).join('\n')}`,
    );
  }
  const planned = files.map((file) => ({ name: file.name, path: file.path, text: serialize(file) }));
  const changelog = join(root, 'CHANGELOG.md');
  if (existsSync(changelog)) {
    try {
      planned.push({
        name: 'CHANGELOG.md',
        path: changelog,
        text: releaseChangelog(await readFile(changelog, 'utf8'), to, date),
      });
    } catch (error) {
      if (error instanceof ChangelogError) throw new ReleaseError(error.message);
      throw error;
    }
  }
  return { from, to, files: planned };
}

/** package-lock.json: its own version, the root's entry, each workspace's entry, and any versioned link to a workspace. */
function editLockfile(
  lock: JsonFile,
  workspaceDirs: string[],
  internal: ReadonlySet<string>,
  edits: VersionEdits,
): void {
  edits.version(lock.data, 'version', `${lock.name} version`);
  const packages = asObject(lock.data.packages);
  if (packages === undefined) {
    edits.problems.push(`${lock.name} has no "packages" (lockfileVersion 2 or 3 is needed)`);
    return;
  }
  for (const key of ['', ...workspaceDirs]) {
    const entry = asObject(packages[key]);
    const where = `${lock.name} packages["${key}"]`;
    if (entry === undefined) {
      edits.problems.push(`${where} is missing (run npm install)`);
      continue;
    }
    edits.version(entry, 'version', `${where}.version`);
    edits.dependencies(entry, where);
  }
  for (const name of internal) {
    const link = asObject(packages[`node_modules/${name}`]);
    if (link !== undefined && 'version' in link)
      edits.version(link, 'version', `${lock.name} packages["node_modules/${name}"].version`);
  }
}

/** Writes every file of the plan: all new texts first to temporary files, then renamed into place. */
export async function applyRelease(plan: ReleasePlan): Promise<void> {
  const staged = plan.files.map((file) => ({ ...file, temporary: `${file.path}.release-${process.pid}` }));
  await Promise.all(staged.map((file) => writeFile(file.temporary, file.text)));
  for (const file of staged) await rename(file.temporary, file.path);
}

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      root: { type: 'string' },
      'dry-run': { type: 'boolean' },
      'versions-only': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help === true) {
    process.stdout.write(
      'Usage: npm run release [-- --dry-run] [-- --versions-only] [-- --root <dir>]\nMoves every package to the next version in lockstep, packs and checks the tarballs; see scripts/release.ts.\n',
    );
    return 0;
  }
  const root = resolve(values.root ?? join(import.meta.dirname, '..'));
  const plan = await planRelease(root);
  const list = plan.files.map((file) => `  ${file.name}`).join('\n');
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const dryRun = values['dry-run'] === true;
  if (dryRun) {
    log(`would release ${plan.from} -> ${plan.to}, changing:\n${list}`);
  } else {
    await applyRelease(plan);
    log(`released ${plan.from} -> ${plan.to}, changed:\n${list}`);
  }
  if (values['versions-only'] !== true) await preparePublish(root, dryRun, log);
  if (!dryRun) log(`Review, then commit and tag: git commit -am 'Release ${plan.to}' && git tag v${plan.to}`);
  return 0;
}

const invokedDirectly = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  try {
    process.exitCode = await main(process.argv.slice(2));
  } catch (error) {
    const message =
      error instanceof ReleaseError || (error as NodeJS.ErrnoException).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION'
        ? (error as Error).message
        : ((error as Error).stack ?? String(error));
    process.stderr.write(`release: ${message}\n`);
    process.exitCode = 1;
  }
}
