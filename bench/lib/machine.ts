/**
 * What the figures were measured on: every benchmark prints this first, because a figure without
 * its machine, runtime and load average cannot be compared with anything.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';

function cpuModel(): string {
  try {
    const line = readFileSync('/proc/cpuinfo', 'utf8')
      .split('\n')
      .find((entry) => entry.startsWith('model name'));
    return line?.split(':')[1]?.trim() ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

export function loadAverage(): string {
  return loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
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
