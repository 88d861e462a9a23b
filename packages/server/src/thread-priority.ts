/**
 * Runs the expensive work at a lower CPU priority than the event loop (HEAVY_WORK_NICE).
 *
 * Why: Argon2id, scrypt, PBKDF2, SLH-DSA and RSA key generation never run on the event loop, but
 * they do run on the same cores. When they saturate every core, the event loop has to wait for a
 * time slice like any other thread, and a liveness probe or a cheap hash waits with it (tens of
 * milliseconds at p99 on two cores; docs/performance.md). Giving the threads that run heavy work
 * a higher nice value lets the scheduler run the event loop first whenever it has something to do;
 * the heavy work still takes every idle cycle, so its throughput is unchanged when nothing else
 * wants the CPU.
 *
 * Which threads: libuv's thread pool (named `libuv-worker` on Linux), where node:crypto runs every
 * asynchronous job (Argon2id, scrypt, PBKDF2, the native post-quantum calls, key generation), and
 * this service's own worker threads (post-quantum on Node 22, OpenPGP), each lowering itself when
 * it starts. Threads those threads create (OpenSSL's Argon2 lanes) inherit their nice value.
 * libuv's pool also runs fs, dns and zlib work: under saturation response compression waits behind
 * the event loop too, which is the intended order.
 *
 * Linux only: on Linux nice is a property of each thread, and setpriority(2) accepts a thread id.
 * Elsewhere it would change the whole process, so nothing is done. Raising one's own nice value
 * needs no privilege; a failure (a seccomp profile, say) leaves the priorities as they were.
 */
import { randomFill } from 'node:crypto';
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** The name libuv gives its pool threads (libuv ≥ 1.50, Node ≥ 22.12 and 24). */
const THREAD_POOL_NAME = 'libuv-worker';
/** The lowest priority there is. */
const MAX_NICE = 19;

/**
 * Sets a thread to `offset` below the calling thread's own priority. Relative, not absolute: a
 * service started under `nice -n 15` must not end up running its heavy work ABOVE its event loop.
 */
function lowerThread(threadId: number, offset: number): boolean {
  try {
    setPriority(threadId, Math.min(MAX_NICE, getPriority() + offset));
    return true;
  } catch {
    return false;
  }
}

/** Starts libuv's pool if no asynchronous job has yet (libuv creates all its threads at once). */
function startThreadPool(): Promise<void> {
  return new Promise((resolve) => randomFill(new Uint8Array(1), () => resolve()));
}

/**
 * Lowers every thread of libuv's pool `nice` steps below the calling (event-loop) thread. Returns
 * how many threads were changed: 0 where this does not apply (nice 0, not Linux, no /proc, a libuv
 * that does not name its threads).
 */
export async function lowerThreadPoolPriority(nice: number): Promise<number> {
  if (nice <= 0 || process.platform !== 'linux') return 0;
  await startThreadPool();
  let tasks: string[];
  try {
    tasks = readdirSync('/proc/self/task');
  } catch {
    return 0; // no /proc (a chroot, a sandbox): priorities stay as they are
  }
  let lowered = 0;
  for (const task of tasks) {
    let name: string;
    try {
      name = readFileSync(`/proc/self/task/${task}/comm`, 'utf8').trim();
    } catch {
      continue; // the thread ended while we looked
    }
    if (name === THREAD_POOL_NAME && lowerThread(Number(task), nice)) lowered += 1;
  }
  return lowered;
}

/** Lowers the calling thread (a worker thread, at its start) `nice` steps; false if nothing changed. */
export function lowerCurrentThreadPriority(nice: number): boolean {
  if (nice <= 0 || process.platform !== 'linux') return false;
  try {
    // /proc/thread-self names the calling thread: "<pid>/task/<tid>".
    const threadId = Number(readlinkSync('/proc/thread-self').split('/').at(-1));
    return Number.isInteger(threadId) && lowerThread(threadId, nice);
  } catch {
    return false;
  }
}
