/**
 * deploy/Dockerfile, checked without a Docker engine: the stages and base image, the user, the
 * health check, the command, that development dependencies stay out, that every file it copies
 * exists and survives .dockerignore, and that the packages it builds are all the server loads at run
 * time (every import a production dependency or a built workspace). The build runs here, and the
 * health check's own command line runs against the built server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, globSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { copyParts, dockerIgnore, execForm, parseDockerfile, type Stage } from './dockerfile.ts';
import { K8S_DIR, REPO_ROOT, parseYamlFile } from './k8s.ts';
import { delay, freePort } from '../../packages/server/test/e2e/helpers.ts';
import { SERVER_V8_FLAGS } from '../../packages/server/src/v8-flags.ts';

const dockerfile = parseDockerfile(join(REPO_ROOT, 'deploy/Dockerfile'));
const runtime = dockerfile.stages.at(-1)!;
const ignored = dockerIgnore(readFileSync(join(REPO_ROOT, '.dockerignore'), 'utf8'));
const lockfile = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; dev?: boolean; link?: boolean; resolved?: string }>;
};

function instructions(stage: Stage, keyword: string) {
  return stage.instructions.filter((instruction) => instruction.keyword === keyword);
}

/** The last instruction of a kind in a stage (the one Docker keeps for USER, CMD, HEALTHCHECK). */
function last(stage: Stage, keyword: string): string {
  const found = instructions(stage, keyword).at(-1);
  assert.ok(found !== undefined, `the ${stage.name ?? 'final'} stage has no ${keyword}`);
  return found.args;
}

/** ENV key=value pairs of a stage (unquoted values, as this Dockerfile writes them). */
function environment(stage: Stage): Map<string, string> {
  const env = new Map<string, string>();
  for (const { args } of instructions(stage, 'ENV')) {
    for (const pair of args.split(/\s+/)) {
      const [key, value] = pair.split(/=(.*)/s);
      if (value !== undefined) env.set(key!, value.replace(/^"(.*)"$/, '$1'));
    }
  }
  return env;
}

/** The HEALTHCHECK's options and its exec-form command. */
function healthCheck(): { options: Map<string, string>; command: string[] } {
  const match = /^((?:--\S+\s+)*)CMD\s+(.*)$/s.exec(last(runtime, 'HEALTHCHECK'));
  assert.ok(match !== null, 'HEALTHCHECK [options] CMD …');
  const options = new Map(
    match[1]!
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map((option) => option.slice(2).split('=') as [string, string]),
  );
  const command = execForm(match[2]!);
  assert.ok(
    command !== undefined,
    'the HEALTHCHECK command is in exec form (a JSON array): slim images need no shell for it',
  );
  return { options, command };
}

/** Sources the runtime stage copies from the build context (not from another stage). */
function contextSources(stage: Stage): string[] {
  return instructions(stage, 'COPY')
    .map((copy) => copyParts(copy.args))
    .filter(({ options }) => !options.has('from'))
    .flatMap(({ sources }) => sources);
}

test('two stages or more, all on the Node version the lockfile pins, an official slim image', () => {
  assert.ok(dockerfile.stages.length >= 2, 'multi-stage: dependencies are installed in a stage of their own');
  const pinned = lockfile.packages['node_modules/node']?.version;
  assert.ok(pinned !== undefined && pinned.startsWith('24.'), `the lockfile pins Node 24 (got ${pinned})`);
  const named = new Set(dockerfile.stages.map((stage) => stage.name));
  for (const stage of dockerfile.stages) {
    // One base for every stage: native binaries npm picks in one (glibc builds) must load in the other.
    if (named.has(stage.base)) continue;
    assert.equal(stage.base, runtime.base, `stage ${stage.name} is on ${stage.base}`);
  }
  const match = /^node:(\d+\.\d+\.\d+)-[a-z]+-slim(@sha256:[0-9a-f]{64})?$/.exec(runtime.base);
  assert.ok(match !== null, `an exact node:<version>-<debian>-slim tag (got ${runtime.base})`);
  assert.equal(match[1], pinned, 'the image runs the Node version the tests run on');
});

test('the runtime stage: production environment, non-root numeric user, the server port', async () => {
  const env = environment(runtime);
  assert.equal(env.get('NODE_ENV'), 'production');
  assert.equal(env.get('HOST'), '0.0.0.0', 'reachable from outside the container');
  const user = last(runtime, 'USER');
  const uid = /^(\d+)(?::(\d+))?$/.exec(user);
  assert.ok(uid !== null, `a numeric USER, so that Kubernetes' runAsNonRoot can verify it (got ${user})`);
  assert.notEqual(Number(uid[1]), 0);
  // The USER comes before the command, so nothing after it runs as root.
  const order = runtime.instructions.map((instruction) => instruction.keyword);
  assert.ok(order.lastIndexOf('USER') < order.lastIndexOf('CMD'));
  assert.equal(order.slice(order.lastIndexOf('USER')).includes('RUN'), false, 'no RUN after USER');

  const exposed = Number(last(runtime, 'EXPOSE').replace(/\/tcp$/, ''));
  assert.equal(exposed, Number(env.get('PORT') ?? 3000));
  const deployment = parseYamlFile(join(K8S_DIR, 'deployment.yaml'))[0] as {
    spec: { template: { spec: { containers: { ports: { containerPort: number }[] }[] } } };
  };
  assert.equal(
    deployment.spec.template.spec.containers[0]!.ports[0]!.containerPort,
    exposed,
    'the Deployment uses the exposed port',
  );
});

/** The build output of a source file: packages/x/src/a/b.ts -> packages/x/dist/a/b.js. */
const builtFrom = (source: string) => source.replace(/^(packages\/[^/]+)\/src\/(.*)\.ts$/, '$1/dist/$2.js');

test('the command is exec form and runs the built server entry point with the V8 flags of npm start', () => {
  const command = execForm(last(runtime, 'CMD'));
  assert.ok(command !== undefined, 'exec form: node itself receives SIGTERM and drains (a shell would not pass it on)');
  assert.deepEqual(command, ['node', ...SERVER_V8_FLAGS, 'packages/server/dist/server.js']);
  const rootPackage = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    scripts: { start: string };
  };
  const start = rootPackage.scripts.start.split(' ');
  assert.deepEqual(start.slice(0, -1), command.slice(0, -1), 'the same runtime flags as npm start');
  assert.equal(builtFrom(start.at(-1)!), command.at(-1), 'the build output of the file npm start runs');
  assert.equal(instructions(runtime, 'ENTRYPOINT').length, 0, "the official image's entrypoint execs the command");
});

test('the runtime stage holds no TypeScript and selects no source condition', () => {
  const env = environment(runtime);
  assert.equal(env.get('NODE_OPTIONS'), undefined, 'the packages resolve to their dist/ as a consumer gets them');
  for (const { sources } of instructions(runtime, 'COPY').map((copy) => copyParts(copy.args))) {
    for (const source of sources) {
      assert.ok(!/(^|\/)src(\/|$)/.test(source) && !source.endsWith('.ts'), `${source} is source, not build output`);
    }
  }
});

test("the health check asks /live with Node's fetch, within its own timeout", () => {
  const { options, command } = healthCheck();
  assert.equal(command[0], 'node', 'slim images have no curl or wget');
  assert.equal(command[1], '-e');
  assert.match(command[2]!, /fetch\(/);
  assert.match(command[2]!, /\/live'/);
  const fetchTimeoutMs = Number(/AbortSignal\.timeout\((\d+)\)/.exec(command[2]!)?.[1]);
  const dockerTimeoutMs = Number(/^(\d+)s$/.exec(options.get('timeout') ?? '')?.[1]) * 1000;
  assert.ok(
    fetchTimeoutMs > 0 && fetchTimeoutMs < dockerTimeoutMs,
    'fetch gives up (exit 1) before Docker kills the check',
  );
});

test('development dependencies stay out: npm ci --omit=dev, and the runtime takes node_modules from that stage only', () => {
  const stagesByName = new Map(dockerfile.stages.map((stage) => [stage.name, stage]));
  const copies = instructions(runtime, 'COPY').map((copy) => copyParts(copy.args));
  const modules = copies.filter(({ sources }) => sources.some((source) => source.includes('node_modules')));
  assert.equal(modules.length, 1, 'node_modules comes in once');
  const from = stagesByName.get(modules[0]!.options.get('from'));
  assert.ok(from !== undefined, 'from a named build stage');
  const installs = instructions(from, 'RUN')
    .map(({ args }) => args)
    .filter((args) => /\bnpm (ci|install)\b/.test(args));
  assert.ok(installs.length > 0, 'that stage installs the dependencies');
  for (const install of installs) {
    assert.ok(/\bnpm ci\b/.test(install), 'npm ci: exactly the lockfile');
    assert.ok(
      /--omit=dev\b/.test(install) || /\bnpm prune --omit=dev\b/.test(install),
      `devDependencies omitted or pruned: ${install}`,
    );
  }
  // The context copies name paths; none may bring the host's node_modules or the whole context.
  for (const source of contextSources(runtime)) {
    assert.notEqual(source.replace(/\/$/, ''), '.', 'no COPY . in the runtime stage');
    assert.ok(!source.includes('node_modules'), `${source} from the host`);
  }
});

test("the deps stage has every workspace's package.json, which npm ci checks the lockfile against", () => {
  const root = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { workspaces: string[] };
  const deps = dockerfile.stages[0]!;
  const sources = contextSources(deps);
  for (const workspace of root.workspaces) {
    assert.ok(sources.includes(`${workspace}/package.json`), `${workspace}/package.json is not copied`);
  }
});

test('every file the Dockerfile copies from the context exists and is not excluded by .dockerignore', () => {
  const sources = dockerfile.stages.flatMap(contextSources);
  assert.ok(sources.length > 0);
  for (const source of sources) {
    assert.ok(existsSync(join(REPO_ROOT, source)), `${source} does not exist`);
    assert.equal(ignored(source), false, `${source} is excluded by .dockerignore: the build would fail`);
    if (statSync(join(REPO_ROOT, source)).isDirectory()) {
      const files = globSync(`${source.replace(/\/$/, '')}/**/*.ts`, { cwd: REPO_ROOT });
      const dropped = files.filter((file) => ignored(file));
      assert.deepEqual(dropped, [], `files under ${source} that .dockerignore would drop`);
    }
  }
  // And the context leaves out what must never be sent to the builder.
  for (const path of [
    'node_modules',
    'node_modules/fastify/package.json',
    'packages/server/node_modules/x',
    '.git',
    '.git/config',
    '.ci/runtimes/node22',
    'coverage/lcov.info',
    '.env',
  ]) {
    assert.equal(ignored(path), true, `${path} should be excluded`);
  }
  assert.equal(ignored('packages/server/src/server.ts'), false);
});

/** Static imports, re-exports, side-effect and dynamic imports; `import type` is erased, so skipped. */
function runtimeImports(source: string): string[] {
  const specifiers: string[] = [];
  for (const match of source.matchAll(
    /(?:^|[;\n])\s*(?:import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/g,
  )) {
    if (match[1] === undefined) specifiers.push(match[2]!);
  }
  for (const match of source.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) specifiers.push(match[1]!);
  return specifiers;
}

/** Files the code loads by path: new URL('./x.ts', import.meta.url) and createRequire(...)('../x.json'). */
function loadedPaths(source: string): string[] {
  return [
    ...[...source.matchAll(/new URL\(\s*'(\.{1,2}\/[^']+)'\s*,\s*import\.meta\.url\s*\)/g)].map((match) => match[1]!),
    ...[...source.matchAll(/createRequire\(import\.meta\.url\)\(\s*'(\.{1,2}\/[^']+)'\s*\)/g)].map(
      (match) => match[1]!,
    ),
  ];
}

const packageName = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

const buildStage = dockerfile.stages.find((stage) => stage.name === 'build');

/** The workspaces whose dist/ the runtime stage takes from the build stage: packages/core, … */
function builtWorkspaces(): string[] {
  return instructions(runtime, 'COPY')
    .map((copy) => copyParts(copy.args))
    .filter(({ options }) => options.get('from') === 'build')
    .flatMap(({ sources }) => sources)
    .map((source) => {
      const match = /^\/app\/(packages\/[^/]+)\/dist\/?$/.exec(source);
      assert.ok(match !== null, `the runtime takes only packages' dist/ from the build stage (got ${source})`);
      return match[1]!;
    });
}

test('the build stage compiles exactly the packages whose build output the runtime takes', () => {
  assert.ok(buildStage !== undefined, 'a stage named build');
  const workspaces = builtWorkspaces();
  assert.ok(workspaces.includes('packages/server'));
  const compiled = contextSources(buildStage)
    .map((source) => /^(packages\/[^/]+)\/src\/?$/.exec(source)?.[1])
    .filter((workspace) => workspace !== undefined);
  assert.deepEqual(compiled.sort(), [...workspaces].sort(), 'sources come in for every built package');
  const builds = instructions(buildStage, 'RUN').filter(({ args }) => args.includes('scripts/build.ts'));
  assert.equal(builds.length, 1);
  const named = builds[0]!.args.split(/\s+/).slice(2);
  assert.deepEqual(
    named.map((name) => `packages/${name}`).sort(),
    [...workspaces].sort(),
    'scripts/build.ts builds those packages',
  );
  const runtimeSources = contextSources(runtime);
  for (const workspace of workspaces) {
    assert.ok(runtimeSources.includes(`${workspace}/package.json`), `${workspace}/package.json (its exports)`);
  }
});

test('the built sources are everything the server loads: built workspaces and production dependencies only', () => {
  assert.ok(buildStage !== undefined);
  const workspaces = builtWorkspaces();
  const sourceDirs = workspaces.map((workspace) => `${workspace}/src`);
  const runtimeFiles = contextSources(runtime);
  const isBuilt = (path: string) => sourceDirs.some((dir) => path.startsWith(`${dir}/`)) || runtimeFiles.includes(path);
  const files = sourceDirs.flatMap((directory) => globSync(`${directory}/**/*.ts`, { cwd: REPO_ROOT }));
  assert.ok(files.includes('packages/server/src/server.ts'));

  const packagesUsed = new Set<string>();
  for (const file of files) {
    const source = readFileSync(join(REPO_ROOT, file), 'utf8');
    for (const specifier of runtimeImports(source)) {
      if (specifier.startsWith('node:')) continue;
      if (specifier.startsWith('.')) {
        const target = relative(REPO_ROOT, resolve(REPO_ROOT, dirname(file), specifier));
        assert.ok(isBuilt(target), `${file} imports ${specifier}, which the image does not have`);
      } else {
        packagesUsed.add(packageName(specifier));
      }
    }
    for (const path of loadedPaths(source)) {
      const target = relative(REPO_ROOT, resolve(REPO_ROOT, dirname(file), path));
      assert.ok(
        existsSync(join(REPO_ROOT, target)) && isBuilt(target),
        `${file} loads ${path}, which the image does not have`,
      );
    }
  }
  assert.ok(packagesUsed.has('fastify') && packagesUsed.has('@crypto-service/core'), 'the import scan finds imports');
  for (const name of packagesUsed) {
    const entry = lockfile.packages[`node_modules/${name}`];
    assert.ok(entry !== undefined, `${name} is imported but not in the lockfile`);
    if (entry.link === true) {
      assert.ok(workspaces.includes(entry.resolved!), `workspace ${entry.resolved} is imported but not built`);
    } else {
      assert.notEqual(
        entry.dev,
        true,
        `${name} is imported at run time but is a devDependency: npm ci --omit=dev leaves it out`,
      );
    }
  }
});

const execFileAsync = promisify(execFile);

/** Runs the HEALTHCHECK command line as Docker would inside the container (node = this runtime). */
async function runHealthCheck(port: number): Promise<number> {
  const [program, ...args] = healthCheck().command;
  assert.equal(program, 'node');
  try {
    await execFileAsync(process.execPath, args, { env: { PORT: String(port) }, timeout: 15_000 });
    return 0;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code !== 'number') throw error;
    return code;
  }
}

/**
 * The image's command run here: the build stage's build, then the built entry point with no
 * source condition and type stripping off, so that any TypeScript it reached would fail the start.
 */
async function startBuiltServer(port: number): Promise<ChildProcess> {
  const build = instructions(buildStage!, 'RUN').find(({ args }) => args.includes('scripts/build.ts'))!;
  const [program, ...buildArgs] = build.args.split(/\s+/);
  assert.equal(program, 'node');
  await execFileAsync(process.execPath, buildArgs, { cwd: REPO_ROOT, timeout: 240_000 });
  const [, ...flags] = execForm(last(runtime, 'CMD'))!;
  const child = spawn(process.execPath, ['--no-experimental-strip-types', ...flags], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, NODE_ENV: 'test', HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const status = await fetch(`http://127.0.0.1:${port}/ready`).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) return child;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      assert.fail(`the built server did not become ready:\n${output}`);
    }
    await delay(100);
  }
}

test(
  'the built server starts without TypeScript; the HEALTHCHECK passes against it and fails once it has stopped',
  { timeout: 300_000 },
  async (t) => {
    const port = await freePort();
    const server = await startBuiltServer(port);
    t.after(() => server.kill('SIGKILL'));
    assert.equal(await runHealthCheck(port), 0);
    const exited = once(server, 'exit');
    server.kill('SIGTERM');
    assert.deepEqual(await exited, [0, null]);
    assert.equal(await runHealthCheck(port), 1);
  },
);
