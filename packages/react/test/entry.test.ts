/**
 * The entry is a client module for React Server Components: its first statement is the
 * 'use client' directive, in the source and in what the compiler emits from it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

test("the entry starts with 'use client', and keeps it once compiled", () => {
  const source = readFileSync(join(import.meta.dirname, '../src/index.ts'), 'utf8');
  assert.ok(source.startsWith("'use client';\n"));
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      rewriteRelativeImportExtensions: true,
    },
  });
  assert.ok(outputText.startsWith("'use client';\n"), outputText.slice(0, 80));
});
