/**
 * valgrind's callgrind, for bench/instructions.ts: a server runs under it with counting off, is
 * switched on for the measured stretches only (callgrind_control), and the dump of each stretch is
 * read back: instructions executed in user space by every thread of the process (the kernel's are
 * not counted), in total and by the function that executed them.
 *
 * callgrind_control reaches the process through vgdb's pipes in TMPDIR, which valgrind names after
 * the LOGNAME (else USER) and HOST (else HOSTNAME) variables of its environment: the servers'
 * environments set neither LOGNAME nor TMPDIR, and the control command is given the server's USER
 * and HOST.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Whether valgrind and its callgrind tools are installed. */
export function callgrindAvailable(): boolean {
  // Whether each runs at all: callgrind_annotate answers --version with a non-zero status.
  return ['valgrind', 'callgrind_control', 'callgrind_annotate'].every((tool) => spawnSync(tool, ['--version'], { stdio: 'ignore' }).error === undefined);
}

/**
 * The command that runs Node under callgrind with counting off; dumps go to `outFile`(.N), its
 * messages to `outFile`.log.
 * `simulate`: callgrind also simulates the caches (first-level instruction and data caches and the
 * last level, sized as this machine's) and the branch predictor, and counts their misses.
 */
export function callgrindLauncher(outFile: string, simulate: boolean): string[] {
  const simulation = simulate ? ['--cache-sim=yes', '--branch-sim=yes'] : [];
  return ['valgrind', '--tool=callgrind', ...simulation, '--instr-atstart=no', `--callgrind-out-file=${outFile}`, `--log-file=${outFile}.log`];
}

/** The variables callgrind_control must share with the server it controls. */
export function controlEnv(serverEnv: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '', USER: serverEnv.USER ?? '', HOST: serverEnv.HOST ?? '' };
}

/**
 * Runs `callgrind_control` with `args` against `pid`: `['-i', 'on']` starts counting, `['-d', name]`
 * dumps what was counted since the last dump (to the next outFile.N, its "Trigger" naming it) and
 * starts again from zero.
 */
export function control(pid: number, args: readonly string[], env: Record<string, string>): void {
  const result = spawnSync('callgrind_control', [...args, String(pid)], { env, encoding: 'utf8' });
  // Its output repeats the server's command line: only its own error lines count.
  if (result.status !== 0 || /^Error:|not detected|No active callgrind runs/m.test(result.stdout + result.stderr)) {
    throw new Error(`callgrind_control ${args.join(' ')} ${pid} failed: ${(result.stdout + result.stderr).trim()}`);
  }
}

/**
 * What a dump counted in all, by event: Ir (instructions) always; with the simulation, I1mr, D1mr
 * and D1mw (first-level misses: instruction fetch, data read, data write), ILmr, DLmr and DLmw
 * (the same at the last level), Bcm and Bim (mispredicted conditional and indirect branches), and
 * the counts they are out of (Dr, Dw, Bc, Bi).
 */
export function dumpedEvents(file: string): Map<string, number> {
  const text = readFileSync(file, 'utf8');
  const events = /^events:\s+(.+)$/m.exec(text)?.[1]?.trim().split(/\s+/);
  const summary = /^summary:\s+(.+)$/m.exec(text)?.[1]?.trim().split(/\s+/);
  if (events === undefined || summary === undefined) throw new Error(`${file} has no events or summary line`);
  return new Map(events.map((event, index) => [event, Number(summary[index] ?? 0)]));
}

/** The category of V8's optimising compilers' own instructions. */
export const COMPILERS = "V8's compilers (TurboFan, Maglev)";
/** The category of V8's garbage collector's instructions. */
export const GARBAGE_COLLECTOR = 'garbage collector';

/** Which part of the process executed an instruction, by the name of its function. */
const CATEGORIES: readonly (readonly [string, RegExp])[] = [
  [COMPILERS, /v8::internal::(compiler|maglev|turboshaft)::|v8::internal::Pipeline/],
  [GARBAGE_COLLECTOR, /v8::internal::(?:(?:Heap|Scavenger|Sweeper|MemoryAllocator|PagedSpace|NewSpace|SemiSpace|LocalHeap)\b|Marking|MarkCompact|MinorMark|Concurrent(?:Marking|Sweeper)|Evacuat|Young)|heap::base::|cppgc::/],
  ['V8 builtins (inline caches, strings, regexps, …)', /^Builtins_/],
  ['JIT-compiled JavaScript', /^0x[0-9a-f]+$/],
  ['HTTP parser (llhttp and its binding)', /llhttp|node::http_parser/],
  ['OpenSSL', /sha256_|sha512_|EVP_|CRYPTO_|OPENSSL_|ossl_|BN_|ecp_nistz256|x25519|ED25519|chacha|poly1305/i],
  ['V8 runtime and API (C++)', /v8::/],
  ['Node and libuv (C++)', /node::|uv_|uv__/],
];

/**
 * Instructions by category: callgrind_annotate's list of every function with its own (exclusive)
 * count, each function put in the first category its name matches (the name without its parameter
 * list, whose types would put a Node function taking a v8::Isolate* among V8's); libc and the rest
 * as "other".
 */
export function instructionsByCategory(file: string): Map<string, number> {
  const annotated = spawnSync('callgrind_annotate', ['--show=Ir', '--sort=Ir', '--threshold=100', '--inclusive=no', '--auto=no', file], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (annotated.status !== 0) throw new Error(`callgrind_annotate ${file} failed: ${annotated.stderr}`);
  const totals = new Map<string, number>(CATEGORIES.map(([name]) => [name, 0]));
  totals.set('libc and other', 0);
  for (const line of annotated.stdout.split('\n')) {
    // "  1,234,567 ( 1.23%)  file:function [object]"
    const match = /^\s*([\d,]+)\s+\([^)]*\)\s+(?:[^:\s]*:)?(.+?)(?: \[[^\]]*\])?$/.exec(line);
    if (match === null || line.includes('PROGRAM TOTALS')) continue;
    const count = Number((match[1] as string).replaceAll(',', ''));
    const name = (match[2] as string).replace(/\((?!anonymous namespace\)).*$/, '');
    const category = CATEGORIES.find(([, pattern]) => pattern.test(name))?.[0] ?? 'libc and other';
    totals.set(category, (totals.get(category) ?? 0) + count);
  }
  return totals;
}
