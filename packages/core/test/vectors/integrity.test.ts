/**
 * The test-vector suite's first member: every file that data/SOURCES.md lists under "## SHA-256"
 * has the listed digest. The digest is computed with our own digest('sha256', ...) over the
 * uncompressed content, so this checks both that the vector files are the pinned ones and that our
 * SHA-256 is right on multi-megabyte inputs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, globSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { digest } from '../../src/hash.ts';
import { readVectorBytes, VECTORS_DATA_DIR } from './vector-files.ts';

interface ListedFile {
  readonly sha256: string;
  readonly path: string;
}

const LISTING_LINE = /^([0-9a-f]{64}) {2}(\S.*)$/;

/** The "<64 hex>  <relative path>" lines of the fenced block(s) in the "## SHA-256" section. */
function parseSha256Section(markdown: string): ListedFile[] {
  const lines = markdown.split(/\r?\n/);
  const start = lines.findIndex((line) => line.trim() === '## SHA-256');
  assert.notEqual(start, -1, 'SOURCES.md has no "## SHA-256" section');
  const listed: ListedFile[] = [];
  let inFence = false;
  for (const line of lines.slice(start + 1)) {
    if (!inFence && line.startsWith('## ')) {
      break;
    }
    if (line.trimStart().startsWith('```')) {
      inFence = !inFence;
      continue;
    }
    if (!inFence || line.trim() === '') {
      continue;
    }
    const match = LISTING_LINE.exec(line);
    assert.ok(
      match,
      `SOURCES.md, "## SHA-256": not a "<64 lowercase hex>  <relative path>" line: ${JSON.stringify(line)}`,
    );
    const [, sha256, path] = match;
    assert.ok(sha256 !== undefined && path !== undefined);
    listed.push({ sha256, path });
  }
  assert.equal(inFence, false, 'SOURCES.md, "## SHA-256": unterminated ``` block');
  return listed;
}

const root = VECTORS_DATA_DIR;
const sourcesPath = join(root, 'SOURCES.md');

test('the vector directory exists and has a SOURCES.md', () => {
  assert.ok(existsSync(root) && statSync(root).isDirectory(), `${root} is not a directory`);
  assert.ok(existsSync(sourcesPath), `${sourcesPath} does not exist`);
});

let listed: ListedFile[] = [];
let parseError: unknown;
try {
  listed = existsSync(sourcesPath) ? parseSha256Section(readFileSync(sourcesPath, 'utf8')) : [];
} catch (error) {
  parseError = error;
}

test('SOURCES.md lists at least one file under "## SHA-256", each once, each inside the directory', () => {
  if (parseError !== undefined) {
    throw parseError;
  }
  assert.ok(listed.length > 0, 'no files are listed under "## SHA-256"');
  const paths = listed.map((file) => file.path);
  assert.equal(new Set(paths).size, paths.length, 'a file is listed twice');
  for (const { path } of listed) {
    const inside = relative(root, resolve(root, path));
    assert.ok(
      !isAbsolute(path) && inside !== '' && !inside.startsWith('..'),
      `${path} is not a path inside the vector directory`,
    );
  }
});

test('every compressed vector file in the directory is listed in SOURCES.md', () => {
  const listedPaths = new Set(listed.map((file) => file.path));
  const unlisted = globSync('**/*.gz', { cwd: root })
    .map((file) => file.slice(0, -'.gz'.length))
    .filter((path) => !listedPaths.has(path));
  assert.deepEqual(unlisted, [], 'vector files without a SHA-256 line in SOURCES.md');
});

for (const { sha256, path } of listed) {
  test(`${path} exists (as ${path}.gz) and its SHA-256 (our digest, uncompressed) is the listed one`, () => {
    const file = resolve(root, `${path}.gz`);
    assert.ok(
      existsSync(file) && statSync(file).isFile(),
      `${path} is listed in SOURCES.md but ${path}.gz is not a file in ${root}`,
    );
    const bytes = readVectorBytes(path);
    assert.ok(bytes.byteLength > 0, `${path} is empty`);
    assert.equal(
      Buffer.from(digest('sha256', bytes)).toString('hex'),
      sha256,
      `${path} does not have the listed SHA-256`,
    );
  });
}
