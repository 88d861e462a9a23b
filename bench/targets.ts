/**
 * Issue 7's four targets, measured and judged in one command:
 *
 *   node bench/targets.ts                                  all four, one after the other (about 20 minutes)
 *   node bench/targets.ts --only one-process,workers       a subset: one-process, workers, live, soak
 *   node bench/targets.ts --summaries DIR                  keep each script's summary as DIR/<target>.json
 *   node bench/targets.ts --summaries DIR --judge-only     judge the summaries in DIR again, measuring nothing
 *
 * Each target runs the script and options that docs/performance.md quotes for it, as a child
 * process whose output streams through (the full record of every round), with `--summary FILE`
 * so that the figures come back as JSON (lib/summary.ts) rather than parsed from print. The last
 * thing printed is the verdict table: target, figure, met or not, and the command that measured it.
 * The runs take turns, never overlap: each saturates the cores and would disturb the others.
 *
 * Exit status: 0 when every target judged was met, 3 when one was not, 1 when a measurement failed
 * (a script exited with an error or wrote no summary). The figures are ratios measured in one run
 * on this machine, so they say what this machine does: docs/performance.md's section on the
 * machine explains how much a busy host moves them.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { describeMachine, loadAverage } from './lib/machine.ts';
import { REPO_ROOT } from './lib/server-process.ts';
import { formatMiB, formatMs, formatRatio, markdownTable, print } from './lib/stats.ts';
import { readSummary, type LiveSummary, type LoadSummary, type SoakSummary, type Spread } from './lib/summary.ts';

/** The issue's thresholds. */
const ONE_PROCESS_MIN_RATIO = 0.8;
const WORKERS_MIN_RATIO = 1.3;
const WORKERS = 2;

interface Verdict {
  target: string;
  figure: string;
  met: boolean;
  /** The command that measured it, as the script recorded it. */
  command: string;
}

interface TargetRun {
  name: string;
  script: string;
  args: string[];
  judge: (summaryFile: string) => Verdict;
}

const ratioWithRange = (spread: Spread) => `${formatRatio(spread.median)} (${spread.min.toFixed(2)}–${spread.max.toFixed(2)})`;
const us = (value: number) => formatMs(value / 1000);

/** The one scenario of a load summary, and the ratio of two of its servers. */
function hashScenario(summary: LoadSummary): LoadSummary['scenarios'][number] {
  const scenario = summary.scenarios[0];
  if (scenario === undefined) throw new Error('the load summary holds no scenario');
  return scenario;
}
function ratioOf(scenario: LoadSummary['scenarios'][number], of: string, to: string): LoadSummary['scenarios'][number]['ratios'][number] {
  const ratio = scenario.ratios.find((entry) => entry.of === of && entry.to === to);
  if (ratio === undefined) throw new Error(`the load summary holds no ${of}/${to} ratio`);
  return ratio;
}
function server(scenario: LoadSummary['scenarios'][number], name: string): LoadSummary['scenarios'][number]['servers'][string] {
  const figures = scenario.servers[name];
  if (figures === undefined) throw new Error(`the load summary holds no server ${name}`);
  return figures;
}

const TARGETS: TargetRun[] = [
  {
    name: 'one-process',
    script: 'bench/load.ts',
    args: ['--scenarios', 'hash', '--rounds', '8', '--duration', '4', '--launches', '3'],
    judge: (file) => {
      const summary = readSummary(file, 'load');
      const scenario = hashScenario(summary);
      const ratio = ratioOf(scenario, 'production', 'bare');
      const production = server(scenario, 'production');
      const bare = server(scenario, 'bare');
      return {
        target: `The full pipeline serves small POST /v2/hash at ≥ ${ONE_PROCESS_MIN_RATIO}× a bare Fastify doing the same hash, one process`,
        figure: `${ratioWithRange(ratio.requestsPerSecond)} in ${summary.rounds} rounds, every server launched ${summary.launches} time${summary.launches === 1 ? '' : 's'}; ` +
          `CPU per request ${us(production.cpuUsPerRequest)} against ${us(bare.cpuUsPerRequest)}; p50 / p99 ${formatMs(production.p50Ms)} / ${formatMs(production.p99Ms)} against ${formatMs(bare.p50Ms)} / ${formatMs(bare.p99Ms)}`,
        met: ratio.requestsPerSecond.median >= ONE_PROCESS_MIN_RATIO,
        command: summary.command,
      };
    },
  },
  {
    name: 'workers',
    script: 'bench/load.ts',
    args: ['--workers', String(WORKERS), '--generator', 'light', '--pipelining', '32', '--scenarios', 'hash', '--rounds', '6', '--duration', '4', '--launches', '3'],
    judge: (file) => {
      const summary = readSummary(file, 'load');
      const scenario = hashScenario(summary);
      const cluster = `prod-${WORKERS}`;
      const target = ratioOf(scenario, cluster, 'bare-1');
      const scaling = ratioOf(scenario, cluster, 'prod-1');
      const bareScaling = ratioOf(scenario, `bare-${WORKERS}`, 'bare-1');
      const pipeline = ratioOf(scenario, 'prod-1', 'bare-1');
      const ceiling = scenario.ceiling;
      return {
        target: `WORKERS=${WORKERS} serves ≥ ${WORKERS_MIN_RATIO}× one bare process`,
        figure: `${ratioWithRange(target.requestsPerSecond)} in ${summary.rounds} rounds, every server launched ${summary.launches} time${summary.launches === 1 ? '' : 's'}; ` +
          `${cluster}/prod-1 ${formatRatio(scaling.requestsPerSecond.median)}, bare-${WORKERS}/bare-1 ${formatRatio(bareScaling.requestsPerSecond.median)}, prod-1/bare-1 ${formatRatio(pipeline.requestsPerSecond.median)}` +
          (ceiling === undefined ? '' : `; the cores allowed ${cluster} at most ${formatRatio(ceiling.overBare)} bare-1, and it served ${formatRatio(ceiling.clusterShare)} of that`),
        met: target.requestsPerSecond.median >= WORKERS_MIN_RATIO,
        command: summary.command,
      };
    },
  },
  {
    name: 'live',
    script: 'bench/live-under-load.ts',
    args: [],
    judge: (file) => {
      const summary: LiveSummary = readSummary(file, 'live');
      const loaded = summary.phases.filter((phase) => phase.load !== undefined);
      const idle = summary.phases.filter((phase) => phase.load === undefined);
      const byLoad = new Map<string, typeof loaded>();
      for (const phase of loaded) byLoad.set(phase.load as string, [...(byLoad.get(phase.load as string) ?? []), phase]);
      const figure = [...byLoad].map(([load, phases]) =>
        `${load}, ${phases.map((phase) => phase.connections).join(' / ')} connections: p99 ${phases.map((phase) => formatMs(phase.p99Ms)).join(' / ')} (max ${phases.map((phase) => formatMs(phase.maxMs)).join(' / ')})`);
      return {
        target: `/live p99 < ${summary.targetMs} ms while Argon2id or SLH-DSA signing saturate every core`,
        figure: `${figure.join('; ')}; idle p99 ${idle.map((phase) => formatMs(phase.p99Ms)).join(' / ')} before / after`,
        met: loaded.length > 0 && loaded.every((phase) => phase.p99Ms < summary.targetMs),
        command: summary.command,
      };
    },
  },
  {
    name: 'soak',
    script: 'bench/soak.ts',
    args: [],
    judge: (file) => {
      const summary: SoakSummary = readSummary(file, 'soak');
      const signed = (value: number) => `${value >= 0 ? '+' : ''}${value.toFixed(1)} %`;
      return {
        target: `Resident memory grows < ${summary.targetPercent} % over a ${summary.durationSeconds} s soak at full load`,
        figure: `window floors ${signed(summary.floorGrowthPercent)} (${formatMiB(summary.floorWarmBytes)} → ${formatMiB(summary.floorEndBytes)}); medians ${signed(summary.medianGrowthPercent)}; ` +
          `maximum ${formatMiB(summary.maxBytes)}; trend ${formatMiB(summary.trendBytesPerMinute)}/min; ${(summary.answersPerSecond / 1000).toFixed(2)} k answers a second, ${summary.answers} in all, ${summary.failures} failed`,
        met: summary.failures === 0 && summary.floorGrowthPercent < summary.targetPercent,
        command: summary.command,
      };
    },
  },
];

const { values: args } = parseArgs({
  options: {
    only: { type: 'string', default: TARGETS.map((target) => target.name).join(',') },
    summaries: { type: 'string' },
    'judge-only': { type: 'boolean', default: false },
  },
});
if (args['judge-only'] && args.summaries === undefined) throw new Error('--judge-only judges the summaries of an earlier run: name their directory with --summaries');
const chosen = args.only.split(',');
const unknown = chosen.filter((name) => !TARGETS.some((target) => target.name === name));
if (unknown.length > 0) throw new Error(`unknown target ${unknown.join(', ')}; choose from ${TARGETS.map((target) => target.name).join(', ')}`);
const runs = TARGETS.filter((target) => chosen.includes(target.name));

/** Runs one script to its end, its output streaming through; resolves with its exit code. */
function runScript(script: string, scriptArgs: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...scriptArgs], { cwd: REPO_ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve(code ?? (signal === null ? 1 : 128)));
  });
}

function commit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim() !== '';
    return dirty ? `${head} with uncommitted changes` : head;
  } catch {
    return 'unknown (not a git checkout)';
  }
}

const machine = describeMachine();
const revision = commit();
print(`# Issue 7's targets: ${runs.map((target) => target.name).join(', ')}\n\n${machine}\n- code: ${revision}\n`);

const rows: string[][] = [];
let failed = false;
let missed = false;
const keep = args.summaries !== undefined;
const workDir = keep ? resolve(args.summaries as string) : mkdtempSync(join(tmpdir(), 'crypto-service-targets-'));
mkdirSync(workDir, { recursive: true });
try {
  for (const target of runs) {
    const command = `node ${target.script}${target.args.length > 0 ? ` ${target.args.join(' ')}` : ''}`;
    const summaryFile = join(workDir, `${target.name}.json`);
    let code = 0;
    if (!args['judge-only']) {
      print(`\n# ${target.name}: ${command}\n`);
      code = await runScript(target.script, [...target.args, '--summary', summaryFile]);
    }
    let verdict: Verdict;
    try {
      if (code !== 0) throw new Error(`exited with status ${code}`);
      verdict = target.judge(summaryFile);
    } catch (error) {
      failed = true;
      rows.push([target.name, `measurement failed: ${(error as Error).message}`, 'failed', `\`${command}\``]);
      continue;
    }
    if (!verdict.met) missed = true;
    // A summary judged again may come from a shorter or otherwise different run: say so beside the verdict.
    const asQuoted = verdict.command === command ? '' : ' (not the target\'s command)';
    rows.push([verdict.target, verdict.figure, `${verdict.met ? '**met**' : '**not met**'}${asQuoted}`, `\`${verdict.command}\``]);
  }
} finally {
  if (!keep) rmSync(workDir, { recursive: true, force: true });
}

print(args['judge-only']
  ? `\n# Verdicts, judged again from the summaries in ${workDir} (measured earlier: the machine lines above are of now)\n`
  : `\n# Verdicts\n\n${machine}\n- code: ${revision}\n- load average (1/5/15 min) at the end: ${loadAverage()}\n`);
print(markdownTable(['Target', 'Measured here', 'Verdict', 'Command'], rows, { allText: true }));
print('\n- ratios are medians of alternating rounds measured in the same run; the range in parentheses is the lowest and highest round');
process.exit(failed ? 1 : missed ? 3 : 0);
