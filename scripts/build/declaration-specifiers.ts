/**
 * tsc rewrites `.ts` import specifiers in the JavaScript it emits but not in declarations; a
 * consumer's TypeScript (older ones, or without allowImportingTsExtensions) wants `.js` there too.
 */
import { globSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** `from './x.ts'`, `import('./x.ts')` and `declare module './x.ts'` with relative paths only. */
const RELATIVE_TS_SPECIFIER = /(['"])(\.{1,2}\/[^'"\n]*?)\.ts\1/g;

export function rewriteSpecifiers(declaration: string): string {
  return declaration.replace(
    RELATIVE_TS_SPECIFIER,
    (_match, quote: string, path: string) => `${quote}${path}.js${quote}`,
  );
}

/** Rewrites every `.d.ts` under `dir` in place. */
export async function rewriteDeclarations(dir: string): Promise<void> {
  for (const file of globSync('**/*.d.ts', { cwd: dir })) {
    const path = join(dir, file);
    const text = await readFile(path, 'utf8');
    const rewritten = rewriteSpecifiers(text);
    if (rewritten !== text) await writeFile(path, rewritten);
  }
}
