/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`): where the server's main thread spends its
 * time, by function (self time) and by package (self time, and "on the stack" time, which charges
 * a sample to every package with a frame anywhere in its stack: the share of requests' time that
 * passes through helmet, the rate limiter, prom-client, and so on).
 *
 * Only the main thread is profiled: work on libuv's pool (async Argon2id, scrypt) is not in it.
 */
import { readFileSync } from 'node:fs';
import { formatMs, markdownTable } from './stats.ts';

interface CallFrame { functionName: string; url: string; lineNumber: number }
interface ProfileNode { id: number; callFrame: CallFrame; children?: number[] }
interface Profile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }

/** Which package or layer a frame belongs to: a node_modules package, a workspace package, node itself. */
export function packageOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (url === '') {
    // V8's pseudo-frames: (program) is native code outside JS (syscalls, OpenSSL), (garbage collector).
    return functionName.startsWith('(') ? functionName : '(native)';
  }
  if (url.startsWith('node:')) return 'node internals';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules !== -1) {
    const rest = url.slice(modules + '/node_modules/'.length).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : (rest[0] ?? url);
  }
  const workspace = /\/packages\/([^/]+)\/src\/(.+)$/.exec(url);
  if (workspace !== null) return `@crypto-service/${workspace[1]} (${workspace[2]})`;
  return url.replace(/^file:\/\//, '');
}

function frameName(frame: CallFrame): string {
  const file = frame.url.replace(/^file:\/\//, '').replace(/^.*\/node_modules\//, '').replace(/^.*\/packages\//, 'packages/');
  return `${frame.functionName || '(anonymous)'} ${file === '' ? '' : `${file}:${frame.lineNumber + 1}`}`.trim();
}

function top(map: Map<string, number>, count: number): [string, number][] {
  return [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, count);
}

/**
 * `requests`, when given, is how many requests the process answered during its life: the summary
 * then states the main thread's busy time per request, the figure to compare between servers.
 */
export function summariseProfile(path: string, count = 20, requests?: number): string {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  const selfByFunction = new Map<string, number>();
  const selfByPackage = new Map<string, number>();
  const stackByPackage = new Map<string, number>();
  let busy = 0;
  let idle = 0;
  profile.samples.forEach((id, index) => {
    const delta = (profile.timeDeltas[index] ?? 0) / 1000; // µs → ms
    const node = byId.get(id);
    if (node === undefined) return;
    if (node.callFrame.functionName === '(idle)') {
      idle += delta;
      return;
    }
    busy += delta;
    const name = frameName(node.callFrame);
    selfByFunction.set(name, (selfByFunction.get(name) ?? 0) + delta);
    const own = packageOf(node.callFrame);
    selfByPackage.set(own, (selfByPackage.get(own) ?? 0) + delta);
    const seen = new Set<string>();
    for (let current: number | undefined = id; current !== undefined; current = parent.get(current)) {
      const frame = byId.get(current)?.callFrame;
      if (frame === undefined || frame.url === '') continue;
      seen.add(packageOf(frame));
    }
    for (const name of seen) stackByPackage.set(name, (stackByPackage.get(name) ?? 0) + delta);
  });

  const share = (ms: number) => `${((ms / busy) * 100).toFixed(1)} %`;
  return [
    `Profile ${path}: ${formatMs(busy)} busy, ${formatMs(idle)} idle on the main thread`
      + (requests === undefined ? '.' : `; ${requests} requests answered, ${formatMs(busy / requests)} of busy main thread per request (start-up included).`),
    '',
    `Top ${count} functions by self time (share of busy time):`,
    '',
    markdownTable(['Function', 'Self', 'Share'], top(selfByFunction, count).map(([name, ms]) => [name, formatMs(ms), share(ms)])),
    '',
    'By package: self time, and time with the package anywhere on the stack:',
    '',
    markdownTable(['Package', 'Self', 'On stack'], top(stackByPackage, count).map(([name, ms]) => [name, share(selfByPackage.get(name) ?? 0), share(ms)])
      .concat(top(selfByPackage, count).filter(([name]) => !stackByPackage.has(name)).map(([name, ms]) => [name, share(ms), '']))),
  ].join('\n');
}
