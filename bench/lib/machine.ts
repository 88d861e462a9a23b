/**
 * What the figures were measured on: every benchmark prints this first, because a figure without
 * its machine, runtime and load average cannot be compared with anything.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { REPO_ROOT } from './server-process.ts';

function cpuModel(): string {
  try {
    const line = readFileSync('/proc/cpuinfo', 'utf8').split('\n').find((entry) => entry.startsWith('model name'));
    return line?.split(':')[1]?.trim() ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

export function loadAverage(): string {
  return loadavg().map((value) => value.toFixed(2)).join(' ');
}

/** A few markdown lines: machine, runtime, load average now. */
export function describeMachine(): string {
  return [
    `- machine: ${availableParallelism()} CPUs (nproc), ${cpuModel()}`,
    `- runtime: Node ${process.version} (${process.execPath}), OpenSSL ${process.versions.openssl}, V8 ${process.versions.v8}`,
    `- load average (1/5/15 min) at start: ${loadAverage()}`,
    `- date: ${new Date().toISOString()}`,
  ].join('\n');
}

/** The code measured: HEAD's short hash, and whether tracked files differ from it. */
export function codeRevision(): string {
  try {
    const git = (...gitArgs: string[]) => execFileSync('git', gitArgs, { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
    const head = git('rev-parse', '--short', 'HEAD');
    return git('status', '--porcelain', '--untracked-files=no') === '' ? head : `${head} with uncommitted changes`;
  } catch {
    return 'unknown (not a git checkout)';
  }
}
