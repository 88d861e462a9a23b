/**
 * Node 24's OpenSSL as an independent reader and writer of post-quantum keys, whatever runtime
 * runs the tests: a child process of the project's Node 24 (the `node` devDependency) runs a small
 * script on JSON from stdin. So the keys that Node 22 writes are checked by the same OpenSSL as
 * those of Node 24, and Node 22's readers see OpenSSL's own output.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export const NODE24_BINARY = join(dirname(createRequire(import.meta.url).resolve('node/package.json')), 'bin', 'node');

/**
 * Runs `body` (the inside of an async function of `input`, with `crypto` = node:crypto in scope)
 * on Node 24, and returns what it returns. The child refuses to run on an older Node.
 */
export function onNode24<T>(body: string, input: unknown): T {
  const script = `
    import * as crypto from 'node:crypto';
    if (Number(process.versions.node.split('.')[0]) < 24) throw new Error('not Node 24: ' + process.version);
    const chunks = [];
    for await (const chunk of process.stdin) chunks.push(chunk);
    const input = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const result = await (async (input) => { ${body} })(input);
    process.stdout.write(JSON.stringify(result));
  `;
  const child = spawnSync(NODE24_BINARY, ['--input-type=module', '-e', script], {
    input: JSON.stringify(input),
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (child.status !== 0) throw new Error(`the Node 24 child failed (${child.status}): ${child.stderr}`);
  return JSON.parse(child.stdout) as T;
}
