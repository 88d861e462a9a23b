/**
 * The ```ts examples of the client's README are true: each compiles under the project's strict
 * options against the client's sources, and runs against the real service. A `console.log(…)`
 * whose line ends in `// <value>` must print that value, written as util.inspect writes it (`…`
 * stands for any text), and must be reached.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { inspect } from 'node:util';
import ts from 'typescript';
import { startService, type Service } from './helpers.ts';
import { typeErrors, type Snippet } from './typescript.ts';

const README = join(import.meta.dirname, '../README.md');
const CLIENT_ENTRY = pathToFileURL(join(import.meta.dirname, '../src/index.ts')).href;
/** The service the examples are written for; the test points them at its own. */
const EXAMPLE_URL = 'http://localhost:3000';

async function readmeBlocks(): Promise<Snippet[]> {
  const markdown = await readFile(README, 'utf8');
  return [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => {
    const line = markdown.slice(0, match.index).split('\n').length;
    return { name: `README-block-at-line-${line}`, source: match[1] ?? '' };
  });
}

/** `console.log(args); // value` becomes a call that records `value` and what args print as. */
const ANNOTATED_LOG = /console\.log\((.*)\);\s*\/\/ (.+)$/;

function instrument(source: string): { source: string; expectations: number } {
  let expectations = 0;
  const lines = source.split('\n').map((line) => {
    const match = ANNOTATED_LOG.exec(line);
    if (match === null) return line;
    expectations += 1;
    return `${line.slice(0, match.index)}globalThis.readmeLog(${JSON.stringify(match[2])}, ${match[1]});`;
  });
  return { source: lines.join('\n'), expectations };
}

function matches(printed: string, expected: string): boolean {
  const pattern = expected
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${pattern}$`, 's').test(printed);
}

describe('the README examples', () => {
  let service: Service;
  let scratch: string;
  before(async () => {
    service = await startService();
    scratch = await mkdtemp(join(tmpdir(), 'crypto-service-readme-'));
  });
  after(async () => {
    await service.close();
    await rm(scratch, { recursive: true, force: true });
  });

  test('there are examples, and every one compiles under --strict', async () => {
    const blocks = await readmeBlocks();
    assert.ok(blocks.length >= 5, `expected the README's examples, found ${blocks.length} blocks`);
    const errors = typeErrors(blocks);
    const failing = [...errors]
      .filter(([, messages]) => messages.length > 0)
      .map(([name, messages]) => ({ name, messages }));
    assert.deepEqual(failing, [], 'README blocks with type errors');
  });

  test('every example runs against the service and prints what its comments say', async (t) => {
    const globals = globalThis as { readmeLog?: (expected: string, ...values: unknown[]) => void };
    const blocks = await readmeBlocks();
    for (const block of blocks) {
      const { source, expectations } = instrument(block.source);
      const printed: { expected: string; actual: string }[] = [];
      globals.readmeLog = (expected, ...values) => {
        printed.push({ expected, actual: values.map((value) => inspect(value)).join(' ') });
      };
      t.after(() => delete globals.readmeLog);
      const javascript = ts
        .transpileModule(source, {
          compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
        })
        .outputText.replaceAll("'@crypto-service/client'", JSON.stringify(CLIENT_ENTRY))
        .replaceAll(EXAMPLE_URL, service.baseUrl);
      assert.ok(!javascript.includes(EXAMPLE_URL), block.name);
      const file = join(scratch, `${block.name}.mjs`);
      await writeFile(file, javascript);
      try {
        await import(pathToFileURL(file).href);
      } catch (error) {
        throw new Error(`${block.name} failed: ${String(error)}`, { cause: error });
      }
      assert.equal(printed.length, expectations, `${block.name}: every annotated console.log runs`);
      for (const { expected, actual } of printed) {
        assert.ok(matches(actual, expected), `${block.name}: printed ${actual}, the comment says ${expected}`);
      }
    }
  });
});
