/**
 * Just enough of the Dockerfile and .dockerignore syntax to check deploy/Dockerfile statically (no
 * Docker engine runs here): instructions with their line continuations, stages, global ARG
 * defaults substituted into FROM, JSON (exec-form) arguments, and Docker's ignore-pattern matching.
 */
import { readFileSync } from 'node:fs';

export interface Instruction {
  /** Upper-case keyword: FROM, RUN, COPY, … */
  keyword: string;
  /** Everything after the keyword, continuations joined with a space. */
  args: string;
  line: number;
}

export interface Stage {
  /** The base image, with global ARG defaults substituted. */
  base: string;
  name: string | undefined;
  instructions: Instruction[];
}

export interface Dockerfile {
  /** ARG instructions before the first FROM, with their defaults. */
  globalArgs: Map<string, string | undefined>;
  stages: Stage[];
}

export function parseInstructions(text: string): Instruction[] {
  const instructions: Instruction[] = [];
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index += 1) {
    const first = lines[index]!.trim();
    if (first === '' || first.startsWith('#')) continue;
    const start = index;
    let logical = first;
    // A trailing backslash continues the instruction; comment lines inside it are skipped.
    while (logical.endsWith('\\') && index + 1 < lines.length) {
      logical = logical.slice(0, -1).trimEnd();
      index += 1;
      const next = lines[index]!.trim();
      if (next.startsWith('#')) {
        logical += ' \\';
        continue;
      }
      logical += ` ${next}`;
    }
    const match = /^(\S+)\s*(.*)$/s.exec(logical);
    if (match === null) continue;
    instructions.push({ keyword: match[1]!.toUpperCase(), args: match[2]!.trim(), line: start + 1 });
  }
  return instructions;
}

function substitute(value: string, args: Map<string, string | undefined>): string {
  return value.replace(
    /\$\{(\w+)\}|\$(\w+)/g,
    (_whole, braced: string | undefined, bare: string | undefined) => args.get((braced ?? bare)!) ?? '',
  );
}

export function parseDockerfile(path: string): Dockerfile {
  const globalArgs = new Map<string, string | undefined>();
  const stages: Stage[] = [];
  for (const instruction of parseInstructions(readFileSync(path, 'utf8'))) {
    if (instruction.keyword === 'FROM') {
      const [image, as, name] = instruction.args.split(/\s+/);
      stages.push({
        base: substitute(image!.replace(/^--platform=\S+\s*/, ''), globalArgs),
        name: as?.toUpperCase() === 'AS' ? name : undefined,
        instructions: [],
      });
    } else if (stages.length === 0) {
      if (instruction.keyword === 'ARG') {
        const [name, value] = instruction.args.split(/=(.*)/s);
        globalArgs.set(name!.trim(), value?.trim());
      }
    } else {
      stages.at(-1)!.instructions.push(instruction);
    }
  }
  return { globalArgs, stages };
}

/** The arguments of an exec-form instruction (`["node", "x.ts"]`); undefined for the shell form. */
export function execForm(args: string): string[] | undefined {
  if (!args.startsWith('[')) return undefined;
  const parsed = JSON.parse(args) as unknown;
  if (!Array.isArray(parsed) || !parsed.every((item) => typeof item === 'string')) return undefined;
  return parsed;
}

/** COPY's options (--from=deps, --chown=…), sources and destination. */
export function copyParts(args: string): { options: Map<string, string>; sources: string[]; destination: string } {
  const words = execForm(args) ?? args.split(/\s+/);
  const options = new Map<string, string>();
  while (words[0]?.startsWith('--')) {
    const [name, value = ''] = words.shift()!.slice(2).split(/=(.*)/s);
    options.set(name!, value);
  }
  const destination = words.pop();
  if (destination === undefined || words.length === 0)
    throw new Error(`COPY needs a source and a destination: ${args}`);
  return { options, sources: words, destination };
}

/**
 * A .dockerignore as Docker reads it: one pattern per line, `#` comments, `!` exceptions (the last
 * matching line wins), `*` and `?` within one path segment, `**` across any number of segments,
 * and a pattern that matches a directory excludes everything under it.
 */
export function dockerIgnore(text: string): (path: string) => boolean {
  const rules = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const exception = line.startsWith('!');
      const pattern = (exception ? line.slice(1) : line).trim().replace(/^\/+/, '').replace(/\/+$/, '');
      const source = pattern
        .split('/')
        .map((segment) =>
          segment === '**'
            ? '\u0000'
            : segment
                .replace(/[.+^${}()|[\]\\]/g, '\\$&')
                .replace(/\*/g, '[^/]*')
                .replace(/\?/g, '[^/]'),
        )
        .join('/')
        // NUL stands in for `**` while the other wildcards are translated: no path contains it.
        .replaceAll('\u0000/', '(?:.*/)?')
        .replaceAll('/\u0000', '(?:/.*)?')
        .replaceAll('\u0000', '.*');
      return { exception, regex: new RegExp(`^${source}(?:/.*)?$`) };
    });
  return (path: string) => {
    const clean = path.replace(/^\.\//, '').replace(/\/+$/, '');
    let ignored = false;
    for (const rule of rules) {
      if (rule.regex.test(clean)) ignored = !rule.exception;
    }
    return ignored;
  };
}
