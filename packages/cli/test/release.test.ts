/**
 * scripts/release.ts (`npm run release`). It lives with the CLI's tests because the test runner
 * collects packages/*\/test only. Every run acts on a temporary copy of the package files, never
 * on the repository itself.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { nextVersion } from '../../../scripts/release.ts';
import { releaseChangelog } from '../../../scripts/release/changelog.ts';
import { REPO_ROOT } from './helpers.ts';

const SCRIPT = join(REPO_ROOT, 'scripts/release.ts');
const REAL_FILES = [
  'package.json',
  'package-lock.json',
  ...['core', 'protocol', 'server', 'client', 'cli', 'testing'].map((name) => `packages/${name}/package.json`),
];

let scratch: string;
before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'crypto-service-release-'));
});
after(() => rm(scratch, { recursive: true, force: true }));

let fixtures = 0;
async function newDir(): Promise<string> {
  fixtures += 1;
  const dir = join(scratch, String(fixtures));
  await mkdir(dir);
  return dir;
}

async function writeJson(root: string, name: string, data: unknown): Promise<void> {
  await mkdir(dirname(join(root, name)), { recursive: true });
  await writeFile(join(root, name), `${JSON.stringify(data, null, 2)}\n`);
}

async function readJson(root: string, name: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(join(root, name), 'utf8')) as Record<string, unknown>;
}

async function snapshot(root: string, names: string[]): Promise<Map<string, string>> {
  return new Map(
    await Promise.all(names.map(async (name) => [name, await readFile(join(root, name), 'utf8')] as const)),
  );
}

function release(root: string, ...args: string[]) {
  return spawnSync(process.execPath, [SCRIPT, '--root', root, '--versions-only', ...args], { encoding: 'utf8' });
}

/** JSON pointers of every value that differs between a and b. */
function differences(a: unknown, b: unknown, pointer = ''): string[] {
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].flatMap((key) =>
      differences((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], `${pointer}/${key}`),
    );
  }
  return a === b ? [] : [pointer];
}

/** A two-workspace repository (found by a glob), at `version`, with a lockfile; `edit` can spoil it. */
async function fixture(
  version: string,
  edit: (files: Record<string, Record<string, unknown>>) => void = () => undefined,
): Promise<string> {
  const root = await newDir();
  const files: Record<string, Record<string, unknown>> = {
    'package.json': { name: 'fixture', version, private: true, workspaces: ['packages/*'] },
    'packages/a/package.json': { name: '@fx/a', version, dependencies: { 'left-pad': '1.3.0' } },
    'packages/b/package.json': {
      name: '@fx/b',
      version,
      dependencies: { '@fx/a': version },
      peerDependencies: { '@fx/a': `^${version}` },
    },
    'package-lock.json': {
      name: 'fixture',
      version,
      lockfileVersion: 3,
      requires: true,
      packages: {
        '': { name: 'fixture', version, workspaces: ['packages/*'] },
        'node_modules/@fx/a': { resolved: 'packages/a', link: true },
        'node_modules/left-pad': { version: '1.3.0' },
        'packages/a': { name: '@fx/a', version, dependencies: { 'left-pad': '1.3.0' } },
        'packages/b': { name: '@fx/b', version, dependencies: { '@fx/a': version } },
      },
    },
  };
  edit(files);
  for (const [name, data] of Object.entries(files)) await writeJson(root, name, data);
  return root;
}

test('nextVersion: one step at a time, 0.0.999 then 0.1.0, and the same carry after it', () => {
  const steps: [string, string][] = [
    ['0.0.0', '0.0.1'],
    ['0.0.1', '0.0.2'],
    ['0.0.9', '0.0.10'],
    ['0.0.998', '0.0.999'],
    ['0.0.999', '0.1.0'],
    ['0.1.0', '0.1.1'],
    ['0.1.999', '0.2.0'],
    ['0.999.999', '1.0.0'],
    ['1.2.3', '1.2.4'],
  ];
  for (const [from, to] of steps) assert.equal(nextVersion(from), to, from);
  for (const bad of ['1.0', '1.0.0-rc.1', '1.0.0+build', '01.0.0', 'v1.0.0', '0.0.1000']) {
    assert.throws(() => nextVersion(bad), { name: 'ReleaseError' }, bad);
  }
});

test('a normal step on a copy of the real package files: only the versions change, layout kept', async () => {
  const root = await newDir();
  for (const name of REAL_FILES) {
    await mkdir(dirname(join(root, name)), { recursive: true });
    await writeFile(join(root, name), await readFile(join(REPO_ROOT, name)));
  }
  const before = await snapshot(root, REAL_FILES);
  const from = (await readJson(root, 'package.json')).version as string;
  const to = nextVersion(from);

  const run = release(root);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, new RegExp(`released ${from.replaceAll('.', '\\.')} -> ${to.replaceAll('.', '\\.')}`));

  // Every reference from one workspace to another must move with the version (read from the real
  // files, so that adding such a dependency does not need this test edited).
  const workspaceDeps: Record<string, string[]> = {};
  for (const name of REAL_FILES.filter((file) => file.startsWith('packages/'))) {
    const manifest = JSON.parse(before.get(name) ?? '{}') as Record<string, Record<string, string> | undefined>;
    workspaceDeps[dirname(name)] = ['dependencies', 'devDependencies', 'peerDependencies'].flatMap((field) =>
      Object.keys(manifest[field] ?? {})
        .filter((dep) => dep.startsWith('@crypto-service/'))
        .map((dep) => `/${field}/${dep}`),
    );
  }
  assert.ok(Object.values(workspaceDeps).flat().length >= 5, 'the real packages do refer to each other');
  for (const name of REAL_FILES) {
    const old = JSON.parse(before.get(name) ?? '') as unknown;
    const text = await readFile(join(root, name), 'utf8');
    assert.equal(
      text,
      `${JSON.stringify(JSON.parse(text), null, 2)}\n`,
      `${name} keeps two-space indentation and its final newline`,
    );
    const changed = differences(old, JSON.parse(text)).sort();
    const expected =
      name === 'package-lock.json'
        ? [
            '/version',
            '/packages//version',
            ...Object.entries(workspaceDeps).flatMap(([dir, deps]) => deps.map((dep) => `/packages/${dir}${dep}`)),
            ...['core', 'protocol', 'server', 'client', 'cli', 'testing'].map(
              (dir) => `/packages/packages/${dir}/version`,
            ),
          ]
        : ['/version', ...(workspaceDeps[dirname(name)] ?? [])];
    assert.deepEqual(changed, expected.sort(), name);
    const updated = JSON.parse(text) as Record<string, unknown>;
    assert.equal(updated.version, to, name);
  }
  const lock = await readJson(root, 'package-lock.json');
  const server = (lock.packages as Record<string, { dependencies: Record<string, string> }>)['packages/server'];
  assert.equal(server?.dependencies['@crypto-service/protocol'], to);
  assert.equal(
    server?.dependencies.fastify,
    JSON.parse(before.get('package-lock.json') ?? '').packages['packages/server'].dependencies.fastify,
    'third-party ranges stay',
  );
});

test('0.0.999 → 0.1.0 across packages found by a workspace glob, ranges keep their operator', async () => {
  const root = await fixture('0.0.999');
  const run = release(root);
  assert.equal(run.status, 0, run.stderr);
  assert.equal((await readJson(root, 'package.json')).version, '0.1.0');
  assert.equal((await readJson(root, 'packages/a/package.json')).version, '0.1.0');
  const b = await readJson(root, 'packages/b/package.json');
  assert.equal(b.version, '0.1.0');
  assert.deepEqual(b.dependencies, { '@fx/a': '0.1.0' });
  assert.deepEqual(b.peerDependencies, { '@fx/a': '^0.1.0' });
  const lock = await readJson(root, 'package-lock.json');
  const packages = lock.packages as Record<string, Record<string, unknown>>;
  assert.equal(lock.version, '0.1.0');
  assert.equal(packages['']?.version, '0.1.0');
  assert.equal(packages['packages/a']?.version, '0.1.0');
  assert.deepEqual(packages['packages/b']?.dependencies, { '@fx/a': '0.1.0' });
  assert.deepEqual(packages['node_modules/left-pad'], { version: '1.3.0' }, 'other packages are untouched');
  assert.deepEqual(packages['packages/a']?.dependencies, { 'left-pad': '1.3.0' });
  // And the step after it.
  assert.equal(release(root).status, 0);
  assert.equal((await readJson(root, 'packages/b/package.json')).version, '0.1.1');
});

test('refuses, writing nothing, when the packages disagree on the version', async () => {
  const cases: [string, (files: Record<string, Record<string, unknown>>) => void, RegExp][] = [
    [
      'a workspace at another version',
      (files) => {
        (files['packages/a/package.json'] as Record<string, unknown>).version = '0.0.4';
      },
      /the packages disagree on the version[\s\S]*packages\/a\/package\.json: "0\.0\.4"[\s\S]*packages\/b\/package\.json: "0\.0\.5"/,
    ],
    [
      'an inter-workspace dependency on another version',
      (files) => {
        (files['packages/b/package.json'] as { dependencies: Record<string, string> }).dependencies['@fx/a'] = '0.0.3';
      },
      /packages\/b\/package\.json dependencies\.@fx\/a is "0\.0\.3"/,
    ],
    [
      'a lockfile out of step',
      (files) => {
        (files['package-lock.json'] as { packages: Record<string, Record<string, unknown>> }).packages[
          'packages/a'
        ]!.version = '0.0.4';
      },
      /package-lock\.json packages\["packages\/a"\]\.version is "0\.0\.4"/,
    ],
    [
      'a lockfile without a workspace',
      (files) => {
        delete (files['package-lock.json'] as { packages: Record<string, unknown> }).packages['packages/b'];
      },
      /packages\["packages\/b"\] is missing \(run npm install\)/,
    ],
  ];
  const names = ['package.json', 'package-lock.json', 'packages/a/package.json', 'packages/b/package.json'];
  for (const [what, spoil, message] of cases) {
    const root = await fixture('0.0.5', spoil);
    const before = await snapshot(root, names);
    const run = release(root);
    assert.equal(run.status, 1, what);
    assert.match(run.stderr, message, what);
    assert.deepEqual(await snapshot(root, names), before, `${what}: nothing written`);
  }
});

test('--dry-run says what would change and writes nothing', async () => {
  const root = await fixture('0.0.7');
  const names = ['package.json', 'package-lock.json', 'packages/a/package.json', 'packages/b/package.json'];
  const before = await snapshot(root, names);
  const run = release(root, '--dry-run');
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /would release 0\.0\.7 -> 0\.0\.8/);
  for (const name of names) assert.ok(run.stdout.includes(`  ${name}\n`), name);
  assert.deepEqual(await snapshot(root, names), before);
});

test('releaseChangelog: Unreleased becomes the dated section, an empty Unreleased stays above it', () => {
  const before =
    '# Changelog\n\nIntro.\n\n## [Unreleased]\n\n### Added\n\n- a thing\n\n## [0.0.7] - 2026-01-01\n\n- old\n';
  assert.equal(
    releaseChangelog(before, '0.0.8', '2026-02-03'),
    '# Changelog\n\nIntro.\n\n## [Unreleased]\n\n## [0.0.8] - 2026-02-03\n\n### Added\n\n- a thing\n\n## [0.0.7] - 2026-01-01\n\n- old\n',
  );
  assert.throws(
    () => releaseChangelog('# Changelog\n\n## [0.0.7] - 2026-01-01\n', '0.0.8', '2026-02-03'),
    /no "## \[Unreleased\]"/,
  );
  assert.throws(() => releaseChangelog('## [Unreleased]\n\n## [0.0.7] - 2026-01-01\n', '0.0.8', 'x'), /nothing under/);
});

test('a release writes the new CHANGELOG.md section; --dry-run leaves it as it was', async () => {
  const root = await fixture('0.0.7');
  const changelog = '# Changelog\n\n## [Unreleased]\n\n- a fix\n\n## [0.0.7] - 2026-01-01\n';
  await writeFile(join(root, 'CHANGELOG.md'), changelog);
  const dry = release(root, '--dry-run');
  assert.equal(dry.status, 0, dry.stderr);
  assert.match(dry.stdout, /^ {2}CHANGELOG\.md$/m);
  assert.equal(await readFile(join(root, 'CHANGELOG.md'), 'utf8'), changelog);
  const run = release(root);
  assert.equal(run.status, 0, run.stderr);
  const today = new Date().toISOString().slice(0, 10);
  assert.equal(
    await readFile(join(root, 'CHANGELOG.md'), 'utf8'),
    `# Changelog\n\n## [Unreleased]\n\n## [0.0.8] - ${today}\n\n- a fix\n\n## [0.0.7] - 2026-01-01\n`,
  );
});
