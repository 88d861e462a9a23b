/**
 * `npm run test:packages`: the packages as someone outside this repository gets them. Builds and
 * packs every package, checks each tarball (contents, publint, attw), installs the tarballs with
 * plain npm into a fresh project in a temporary folder, compiles a TypeScript consumer of the
 * client (moduleResolution node16 and bundler), and then, on each runtime: starts the service
 * with the installed CLI, uses it through the installed client (hash, encrypt/decrypt,
 * sign/verify) and the installed CLI, and through the client bundled by esbuild in headless
 * Chromium from another origin.
 *
 * Runtimes: Node 24 from node_modules, and Node 22 from $CRYPTO_SERVICE_NODE22 (.ci/run sets it).
 * Nothing here runs TypeScript from the packages: NODE_OPTIONS, which selects the sources in this
 * repository, is left out of every process started in the consumer project.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { copyFile, cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { bundleForBrowser, runInChromium } from './packages/browser.ts';
import { attwProblems, publintProblems } from './packages/lint.ts';
import { npm, packAll } from './packages/pack.ts';
import { freePort, startService } from './packages/service.ts';
import { build } from './build.ts';

const ROOT = resolve(import.meta.dirname, '..');
const CONSUMER = join(ROOT, 'scripts/packages/consumer');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

function step(message: string): void {
  process.stdout.write(`\n== ${message}\n`);
}

function runtimes(): { name: string; node: string }[] {
  const list = [{ name: 'Node 24', node: join(ROOT, 'node_modules/node/bin/node') }];
  const node22 = process.env.CRYPTO_SERVICE_NODE22;
  if (node22 !== undefined && node22 !== '') list.push({ name: 'Node 22', node: node22 });
  return list;
}

function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; input?: string },
): string {
  const result = spawnSync(command, args, { ...options, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(' ')} exited with ${result.status}:\n${result.stdout}${result.stderr}`);
  return result.stdout;
}

/** The test runners whose global setup @crypto-service/testing serves, as an application installs them. */
const TEST_RUNNERS = { vitest: '4.1.12', jest: '30.5.2', '@jest/globals': '30.5.2' };
/** What use-suite.mjs and use-bindings.mjs bring besides the tarballs: the frameworks and ORMs, the MCP SDK's client. */
const SUITE_PEERS = {
  express: '5.3.0',
  '@modelcontextprotocol/sdk': '1.32.2',
  react: '19.3.1',
  'react-dom': '19.3.1',
  vue: '3.5.45',
  '@prisma/client': '7.5.0',
  typeorm: '1.1.1',
};

/**
 * A Vitest and a Jest project that use @crypto-service/testing's global setup: each run starts one
 * service, its test hashes through it, and the service is gone after the run.
 */
function runTestRunners(project: string, node: string, env: NodeJS.ProcessEnv): void {
  const runners = [
    { name: 'vitest', args: ['node_modules/vitest/vitest.mjs', 'run', '--root', 'runners/vitest'] },
    {
      name: 'jest',
      args: ['--experimental-vm-modules', 'node_modules/jest/bin/jest.js', '--config', 'runners/jest/jest.config.mjs'],
    },
  ];
  for (const { name, args } of runners) {
    const result = spawnSync(node, args, { cwd: project, env: { ...env, CI: '1' }, encoding: 'utf8' });
    const output = `${result.stdout}${result.stderr}`;
    assert.equal(result.status, 0, `${name} failed:\n${output}`);
    assert.match(output, /1 passed/, `${name}: ${output}`);
    const served = /served by (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
    assert.ok(served !== undefined, `${name}: the test did not reach the service:\n${output}`);
    const stopped = spawnSync(node, [
      '-e',
      `fetch('${served}/live').then(() => process.exit(1), () => process.exit(0))`,
    ]);
    assert.equal(stopped.status, 0, `${name}: the service at ${served} outlived the run`);
    process.stdout.write(`${name} with the global setup: 1 passed against ${served}, stopped after the run\n`);
  }
}

/** The consumer project: a package.json, the fixtures, the tarballs installed by npm. */
async function consumerProject(tarballs: readonly string[]): Promise<string> {
  const project = await mkdtemp(join(tmpdir(), 'crypto-service-consumer-'));
  await writeFile(
    join(project, 'package.json'),
    `${JSON.stringify({ name: 'consumer', private: true, type: 'module', devDependencies: { ...TEST_RUNNERS, ...SUITE_PEERS } }, null, 2)}\n`,
  );
  for (const file of [
    'use-client.mjs',
    'use-testing.mjs',
    'use-suite.mjs',
    'use-bindings.mjs',
    'browser-entry.mjs',
    'typed.ts',
  ])
    await copyFile(join(CONSUMER, file), join(project, file));
  await cp(join(CONSUMER, 'runners'), join(project, 'runners'), { recursive: true });
  npm(['install', '--no-audit', '--no-fund', '--no-package-lock', ...tarballs], project);
  return project;
}

/** tsc against the installed client's declarations, in each module resolution a consumer may use. */
function compileTypedConsumer(project: string, env: NodeJS.ProcessEnv): void {
  const settings = [
    { module: 'node16', moduleResolution: 'node16' },
    { module: 'esnext', moduleResolution: 'bundler' },
  ];
  for (const { module, moduleResolution } of settings) {
    // No @types/node: the client's declarations must stand on the DOM's types alone.
    const compilerOptions = {
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      target: 'es2022',
      lib: ['es2022', 'dom'],
      types: [],
      module,
      moduleResolution,
    };
    const config = join(project, `tsconfig.${moduleResolution}.json`);
    writeFileSync(config, JSON.stringify({ compilerOptions, files: ['typed.ts'] }));
    run(process.execPath, [TSC, '-p', config], { cwd: project, env });
    process.stdout.write(`typed.ts compiles with moduleResolution ${moduleResolution}\n`);
  }
}

async function main(): Promise<void> {
  const { NODE_OPTIONS: _sources, ...env } = process.env;
  const work = await mkdtemp(join(tmpdir(), 'crypto-service-packages-'));
  try {
    step('build');
    await build();
    step('pack');
    const tarballs = packAll(ROOT, join(work, 'tarballs'));
    for (const tarball of tarballs) process.stdout.write(`${tarball.path} (${tarball.files.length} files)\n`);
    step('publint and attw');
    const problems = [];
    for (const tarball of tarballs) problems.push(...(await publintProblems(tarball)), ...attwProblems(tarball));
    assert.deepEqual(problems, [], problems.join('\n'));
    process.stdout.write(`${tarballs.length} tarballs pass publint and attw\n`);
    step('install the tarballs into a fresh project');
    const project = await consumerProject(tarballs.map((tarball) => tarball.path));
    process.stdout.write(`${project}\n`);
    compileTypedConsumer(project, env);
    const bundle = await bundleForBrowser(project, 'browser-entry.mjs');
    for (const { name, node } of runtimes()) {
      step(`${name}: ${run(node, ['--version'], { cwd: project, env }).trim()}`);
      // The shebang of the installed bin (`#!/usr/bin/env node`) finds this runtime first.
      const runtimeEnv = { ...env, PATH: `${dirname(node)}:${env.PATH ?? ''}` };
      const pagePort = await freePort();
      const service = await startService(project, runtimeEnv, { CORS_ORIGIN: `http://127.0.0.1:${pagePort}` });
      try {
        const used = JSON.parse(
          run(node, ['use-client.mjs', service.url], { cwd: project, env: runtimeEnv }),
        ) as unknown;
        const abc = createHash('sha256').update('abc').digest('hex');
        assert.deepEqual(used, { digest: abc, decrypted: 'attack at dawn', verified: true });
        process.stdout.write(`the installed client: ${JSON.stringify(used)}\n`);
        const cli = join(project, 'node_modules/.bin/crypto-service');
        const printed = run(cli, ['hash', '--plain', '--url', service.url], {
          cwd: project,
          env: runtimeEnv,
          input: 'abc',
        });
        assert.equal(printed.trim(), abc);
        assert.equal(run(cli, ['--version'], { cwd: project, env: runtimeEnv }).trim(), tarballs[0]?.version);
        process.stdout.write(`the installed CLI: hash ${printed.trim()}\n`);
        const tested = JSON.parse(run(node, ['use-testing.mjs'], { cwd: project, env: runtimeEnv })) as unknown;
        assert.deepEqual(tested, { digest: abc, anonymous: 401, verified: true });
        process.stdout.write(`the installed testing kit: ${JSON.stringify(tested)}\n`);
        runTestRunners(project, node, runtimeEnv);
        const suite = JSON.parse(
          run(node, ['use-suite.mjs', service.url], { cwd: project, env: runtimeEnv }),
        ) as unknown;
        assert.deepEqual(suite, {
          edge: { opened: 'from edge', verified: true },
          envelope: { roundTrip: true },
          middleware: { accepted: 'invoice.paid', tampered: 401 },
          mcp: { digest: abc },
        });
        process.stdout.write(`the installed edge, envelope, middleware and mcp: ${JSON.stringify(suite)}\n`);
        const bindings = JSON.parse(
          run(node, ['use-bindings.mjs', service.url], { cwd: project, env: runtimeEnv }),
        ) as unknown;
        assert.deepEqual(bindings, {
          orm: { prisma: 'User.email:["7","fr"]', typeorm: 'User.email:["7","fr"]' },
          react: '<p>true false</p>',
          vue: { rendered: '<p>ready</p>', digest: createHash('sha256').update('vue').digest('hex') },
        });
        process.stdout.write(`the installed prisma, typeorm, react and vue: ${JSON.stringify(bindings)}\n`);
        const inBrowser = await runInChromium(bundle, service.url, pagePort);
        assert.deepEqual(inBrowser, { digest: abc, decrypted: 'from the browser', verified: true, refused: 400 });
        process.stdout.write(`the bundled client in Chromium: ${JSON.stringify(inBrowser)}\n`);
      } finally {
        await service.stop();
      }
    }
    await rm(project, { recursive: true, force: true });
    step(
      `passed on ${runtimes()
        .map((runtime) => runtime.name)
        .join(' and ')}`,
    );
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

await main();
