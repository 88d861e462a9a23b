/**
 * The type tests and the test app compile under the project's strict options: type-cases.ts
 * (each @ts-expect-error line must be an error, or the directive itself is one) and the React
 * app and the README's examples, whose JSX the repository's typecheck does not cover. One program
 * for all, as building one is the slow part.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readmeBlocks, typeErrors } from './typecheck.ts';

test('the type cases, the test app and the README examples compile; each @ts-expect-error is an error', () => {
  const readme = readmeBlocks();
  assert.equal(readme.length, 2, 'the README has its two examples');
  const inMemory = new Map(
    readme.map((block, index) => [join(import.meta.dirname, `readme-block-${index}.tsx`), block]),
  );
  const files = [
    join(import.meta.dirname, 'type-cases.ts'),
    join(import.meta.dirname, 'app/app.tsx'),
    ...inMemory.keys(),
  ];
  assert.deepEqual(typeErrors(files, inMemory), []);
});
