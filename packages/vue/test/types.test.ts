/**
 * The type cases and the README's examples compile under the project's strict options, with the
 * DOM, as a user's files would: each @ts-expect-error line of type-cases.ts must be an error (or
 * the directive itself is one). One program for all, as building one is the slow part.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readmeBlocks, typeErrors } from './typecheck.ts';

test('the type cases and the README examples compile; each @ts-expect-error is an error', () => {
  const readme = readmeBlocks();
  assert.equal(readme.length, 2, 'the README has its two examples');
  const inMemory = new Map(
    readme.map((block, index) => [join(import.meta.dirname, `readme-block-${index}.ts`), block]),
  );
  const files = [
    join(import.meta.dirname, 'type-cases.ts'),
    join(import.meta.dirname, 'app/app.ts'),
    ...inMemory.keys(),
  ];
  assert.deepEqual(typeErrors(files, inMemory), []);
});
