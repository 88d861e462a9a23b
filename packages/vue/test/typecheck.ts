/**
 * Type-checks files as a user's own would be: the project's strict options plus the DOM, importing
 * the packages from their sources. Files may exist only in memory (README examples).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const REPO_ROOT = join(import.meta.dirname, '../../..');

function compilerOptions(): ts.CompilerOptions {
  const { config } = ts.readConfigFile(join(REPO_ROOT, 'tsconfig.base.json'), (path) => ts.sys.readFile(path));
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, REPO_ROOT);
  return { ...options, lib: ['lib.es2024.d.ts', 'lib.dom.d.ts'], noEmit: true };
}

/** The type errors of `files` (only theirs, not those of what they import), as "file:line: message". */
export function typeErrors(files: readonly string[], inMemory: ReadonlyMap<string, string> = new Map()): string[] {
  const options = compilerOptions();
  const host = ts.createCompilerHost(options);
  const { fileExists, readFile } = host;
  host.fileExists = (path) => inMemory.has(path) || fileExists.call(host, path);
  host.readFile = (path) => inMemory.get(path) ?? readFile.call(host, path);
  const program = ts.createProgram([...files], options, host);
  const diagnostics = [...program.getOptionsDiagnostics()];
  for (const file of files) diagnostics.push(...ts.getPreEmitDiagnostics(program, program.getSourceFile(file)));
  return diagnostics.map((diagnostic) => {
    const where = diagnostic.file?.fileName.slice(REPO_ROOT.length + 1) ?? '';
    const line =
      diagnostic.file === undefined || diagnostic.start === undefined
        ? '?'
        : diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line + 1;
    return `${where}:${line}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
  });
}

/** The ```ts blocks of the package's README, in order. */
export function readmeBlocks(): string[] {
  const markdown = readFileSync(join(import.meta.dirname, '../README.md'), 'utf8');
  return [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? '');
}
