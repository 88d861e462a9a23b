/**
 * Type-checks snippets of TypeScript as a user's own files would be: with the TypeScript compiler
 * API, under the project's strict options, importing `@crypto-service/client` from its sources.
 */
import { join } from 'node:path';
import ts from 'typescript';

const REPO_ROOT = join(import.meta.dirname, '../../..');
/** Where the snippets pretend to live: inside the client package, so that its package.json and node_modules apply. */
const SNIPPET_DIR = join(import.meta.dirname, '__snippets__');

export interface Snippet {
  /** Names the snippet in error messages, and its virtual file. */
  name: string;
  source: string;
}

function compilerOptions(): ts.CompilerOptions {
  const configPath = join(REPO_ROOT, 'tsconfig.base.json');
  const { config, error } = ts.readConfigFile(configPath, (path) => ts.sys.readFile(path));
  if (error !== undefined) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
  const { options, errors } = ts.parseJsonConfigFileContent(config, ts.sys, REPO_ROOT);
  if (errors.length > 0)
    throw new Error(errors.map((e) => ts.flattenDiagnosticMessageText(e.messageText, '\n')).join('\n'));
  return { ...options, strict: true, noEmit: true };
}

/** For every snippet, its type errors as "line: message" (an empty list when it compiles). */
export function typeErrors(snippets: readonly Snippet[]): Map<string, string[]> {
  const files = new Map(snippets.map((snippet) => [join(SNIPPET_DIR, `${snippet.name}.ts`), snippet]));
  const options = compilerOptions();
  const host = ts.createCompilerHost(options);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (path) => files.has(path) || fileExists.call(host, path);
  host.readFile = (path) => files.get(path)?.source ?? readFile.call(host, path);
  host.getSourceFile = (path, languageVersion, ...rest) => {
    const snippet = files.get(path);
    return snippet === undefined
      ? getSourceFile.call(host, path, languageVersion, ...rest)
      : ts.createSourceFile(path, snippet.source, languageVersion, true);
  };
  const program = ts.createProgram([...files.keys()], options, host);
  const result = new Map<string, string[]>();
  for (const [path, snippet] of files) {
    const sourceFile = program.getSourceFile(path);
    if (sourceFile === undefined) throw new Error(`${snippet.name} was not compiled`);
    const diagnostics = ts.getPreEmitDiagnostics(program, sourceFile);
    result.set(
      snippet.name,
      diagnostics.map((diagnostic) => {
        const line =
          diagnostic.start === undefined ? '?' : sourceFile.getLineAndCharacterOfPosition(diagnostic.start).line + 1;
        return `line ${line}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
      }),
    );
  }
  return result;
}
