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
 * A run whose load got answers other than 2xx (load.ts, soak.ts) measured something other than
 * the target, so it counts as a failed measurement, not as a verdict; a /live probe that fails or
 * times out under load counts against the /live target, since answering is what it measures.
 *
 * Exit status: 0 when every target judged was met; 3 when at least one was not met and no
 * measurement failed; 1 when a measurement failed (a script exited with an error, wrote no
 * summary, or its figures are missing or unusable). The figures are ratios measured in one run on
 * this machine, so they say what this machine does: docs/performance.md's section on the machine
 * explains how much a busy host moves them.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { LIVE_P99_MAX_MS, ONE_PROCESS_MIN_RATIO, SOAK_MAX_GROWTH_PERCENT, TARGET_WORKERS, WORKERS_MIN_RATIO } from './lib/issue-targets.ts';
import { codeRevision, describeMachine, loadAverage } from './lib/machine.ts';
import { REPO_ROOT } from './lib/server-process.ts';
import { formatMiB, formatMs, formatPercent, formatRatio, markdownTable, print } from './lib/stats.ts';
import { readSummary, type LoadSummary, type Spread } from './lib/summary.ts';

interface Verdict {
  figure: string;
  met: boolean;
  /** The command that measured it, as the script recorded it. */
  command: string;
  loadAverageAtEnd: string;
}

interface TargetRun {
  name: string;
  /** The target as the issue states it. */
  title: string;
  script: string;
  args: string[];
  /** Reads a summary and judges it; throws when the figures cannot be judged (a failed measurement). */
  judge: (summaryFile: string) => Verdict;
}

/** A figure a verdict rests on; NaN or a missing value (JSON writes NaN as null) is a failed measurement. */
function figure(value: number | null | undefined, what: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new Error(`no figure for ${what}`);
  return value;
}

/** A ratio as the tables print it, with a third decimal when two would hide which side of the threshold it is on. */
function ratioAgainst(value: number, threshold: number): string {
  return formatRatio(value) === formatRatio(threshold) && value !== threshold ? `${value.toFixed(3)}×` : formatRatio(value);
}
const spreadAgainst = (spread: Spread, threshold: number) =>
  `${ratioAgainst(figure(spread.median, 'the median ratio'), threshold)} (${spread.min.toFixed(2)}–${spread.max.toFixed(2)})`;
const us = (value: number) => formatMs(value / 1000);
const times = (count: number) => `${count} time${count === 1 ? '' : 's'}`;

type Scenario = LoadSummary['scenarios'][number];

/** The SHA-256 scenario of a load summary, refused if its run had any answer other than 2xx. */
function hashScenario(summary: LoadSummary): Scenario {
  const scenario = summary.scenarios.find((entry) => entry.name === 'hash');
  if (scenario === undefined) throw new Error('the load summary holds no hash scenario');
  if (scenario.failures !== 0) throw new Error(`${scenario.failures} answers other than 2xx, or errors, in the load`);
  return scenario;
}
/** The round-by-round ratio of two of a scenario's servers. */
function ratioOf(scenario: Scenario, of: string, to: string): Scenario['ratios'][number] {
  const ratio = scenario.ratios.find((entry) => entry.of === of && entry.to === to);
  if (ratio === undefined) throw new Error(`the load summary holds no ${of}/${to} ratio`);
  return ratio;
}
/** One server's medians in a scenario. */
function serverOf(scenario: Scenario, name: string): Scenario['servers'][string] {
  const figures = scenario.servers[name];
  if (figures === undefined) throw new Error(`the load summary holds no server ${name}`);
  return figures;
}

const TARGETS: TargetRun[] = [
  {
    name: 'one-process',
    title: `The full pipeline serves small POST /v2/hash at ≥ ${ONE_PROCESS_MIN_RATIO}× a bare Fastify doing the same hash, one process`,
    script: 'bench/load.ts',
    args: ['--scenarios', 'hash', '--rounds', '8', '--duration', '4', '--launches', '3'],
    judge: (file) => {
      const summary = readSummary(file, 'load');
      const scenario = hashScenario(summary);
      const ratio = ratioOf(scenario, 'production', 'bare').requestsPerSecond;
      const production = serverOf(scenario, 'production');
      const bare = serverOf(scenario, 'bare');
      return {
        figure: `${spreadAgainst(ratio, ONE_PROCESS_MIN_RATIO)} in ${summary.rounds} rounds, every server launched ${times(summary.launches)}; ` +
          `CPU per request ${us(production.cpuUsPerRequest)} against ${us(bare.cpuUsPerRequest)}; p50 / p99 ${formatMs(production.p50Ms)} / ${formatMs(production.p99Ms)} against ${formatMs(bare.p50Ms)} / ${formatMs(bare.p99Ms)}`,
        met: figure(ratio.median, 'production/bare') >= ONE_PROCESS_MIN_RATIO,
        command: summary.command,
        loadAverageAtEnd: summary.loadAverageAtEnd,
      };
    },
  },
  {
    name: 'workers',
    title: `WORKERS=${TARGET_WORKERS} serves ≥ ${WORKERS_MIN_RATIO}× one bare process`,
    script: 'bench/load.ts',
    args: ['--workers', String(TARGET_WORKERS), '--generator', 'light', '--pipelining', '32', '--scenarios', 'hash', '--rounds', '6', '--duration', '4', '--launches', '3'],
    judge: (file) => {
      const summary = readSummary(file, 'load');
      const scenario = hashScenario(summary);
      const cluster = `prod-${TARGET_WORKERS}`;
      const ratio = ratioOf(scenario, cluster, 'bare-1').requestsPerSecond;
      const median = (of: string, to: string) => formatRatio(ratioOf(scenario, of, to).requestsPerSecond.median);
      const ceiling = scenario.ceiling;
      return {
        figure: `${spreadAgainst(ratio, WORKERS_MIN_RATIO)} in ${summary.rounds} rounds, every server launched ${times(summary.launches)}; ` +
          `${cluster}/prod-1 ${median(cluster, 'prod-1')}, bare-${TARGET_WORKERS}/bare-1 ${median(`bare-${TARGET_WORKERS}`, 'bare-1')}, prod-1/bare-1 ${median('prod-1', 'bare-1')}` +
          (ceiling === undefined ? '' : `; the cores allowed ${cluster} at most ${formatRatio(ceiling.overBare)} bare-1, and it served ${formatRatio(ceiling.clusterShare)} of that`),
        met: figure(ratio.median, `${cluster}/bare-1`) >= WORKERS_MIN_RATIO,
        command: summary.command,
        loadAverageAtEnd: summary.loadAverageAtEnd,
      };
    },
  },
  {
    name: 'live',
    title: `/live p99 < ${LIVE_P99_MAX_MS} ms while Argon2id or SLH-DSA signing saturate every core`,
    script: 'bench/live-under-load.ts',
    args: [],
    judge: (file) => {
      const summary = readSummary(file, 'live');
      const loaded = summary.phases.filter((phase) => phase.load !== undefined);
      if (loaded.length === 0) throw new Error('the summary holds no loaded phase');
      const idle = summary.phases.filter((phase) => phase.load === undefined);
      const loads = [...new Set(loaded.map((phase) => phase.load))];
      const failedProbes = (phases: typeof loaded) => phases.reduce((sum, phase) => sum + phase.probeFailures, 0);
      const parts = loads.map((load) => {
        const phases = loaded.filter((phase) => phase.load === load);
        const each = (f: (phase: (typeof loaded)[number]) => string) => phases.map(f).join(' / ');
        return `${load}, ${each((phase) => String(phase.connections))} connections: p99 ${each((phase) => formatMs(phase.p99Ms))} (max ${each((phase) => formatMs(phase.maxMs))}), ` +
          `${each((phase) => (phase.okPerSecond ?? Number.NaN).toFixed(2))} answers a second, ${each((phase) => String(phase.refusals ?? 0))} refusals` +
          (failedProbes(phases) > 0 ? `, ${failedProbes(phases)} of ${phases.reduce((sum, phase) => sum + phase.probes, 0)} probes unanswered` : '');
      });
      const idleFigure = `idle p99 ${idle.map((phase) => formatMs(phase.p99Ms)).join(' / ')} before / after${failedProbes(idle) > 0 ? ` (${failedProbes(idle)} idle probes unanswered)` : ''}`;
      return {
        figure: `${parts.join('; ')}; ${idleFigure}`,
        met: failedProbes(loaded) === 0 && loaded.every((phase) => figure(phase.p99Ms, `${phase.name}'s /live p99`) < LIVE_P99_MAX_MS),
        command: summary.command,
        loadAverageAtEnd: summary.loadAverageAtEnd,
      };
    },
  },
  {
    name: 'soak',
    title: `Resident memory grows < ${SOAK_MAX_GROWTH_PERCENT} % over a 5-minute soak at full load`,
    script: 'bench/soak.ts',
    args: [],
    judge: (file) => {
      const summary = readSummary(file, 'soak');
      if (summary.failures !== 0) throw new Error(`${summary.failures} answers other than 2xx, or errors, in the load`);
      return {
        figure: `over ${summary.durationSeconds} s: window floors ${formatPercent(summary.floorGrowthPercent)} (${formatMiB(summary.floorWarmBytes)} → ${formatMiB(summary.floorEndBytes)}); ` +
          `medians ${formatPercent(summary.medianGrowthPercent)}; maximum ${formatMiB(summary.maxBytes)}; trend ${formatMiB(summary.trendBytesPerMinute)}/min; ` +
          `${(summary.answersPerSecond / 1000).toFixed(2)} k answers a second, ${summary.answers} in all, none failed`,
        met: figure(summary.floorGrowthPercent, 'the floors\' growth') < SOAK_MAX_GROWTH_PERCENT,
        command: summary.command,
        loadAverageAtEnd: summary.loadAverageAtEnd,
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
const JUDGE_ONLY = args['judge-only'];
if (JUDGE_ONLY && args.summaries === undefined) throw new Error('--judge-only judges the summaries of an earlier run: name their directory with --summaries');
const chosen = args.only.split(',');
const unknown = chosen.filter((name) => !TARGETS.some((target) => target.name === name));
if (unknown.length > 0) throw new Error(`unknown target ${unknown.join(', ')}; choose from ${TARGETS.map((target) => target.name).join(', ')}`);
const runs = TARGETS.filter((target) => chosen.includes(target.name));

/** Runs one script to its end, its output streaming through; rejects unless it exits with status 0. */
function runScript(script: string, scriptArgs: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...scriptArgs], { cwd: REPO_ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(signal === null ? `${script} exited with status ${code}` : `${script} was stopped by ${signal}`));
    });
  });
}

const machine = describeMachine();
const revision = codeRevision();
print(`# Issue 7's targets: ${runs.map((target) => target.name).join(', ')}\n\n${machine}\n- code: ${revision}\n`);

const rows: string[][] = [];
const loadAverages: string[] = [];
let failed = false;
let missed = false;
const keep = args.summaries !== undefined;
const workDir = keep ? resolve(args.summaries as string) : mkdtempSync(join(tmpdir(), 'crypto-service-targets-'));
if (keep && !JUDGE_ONLY) mkdirSync(workDir, { recursive: true });
try {
  for (const target of runs) {
    const command = `node ${target.script}${target.args.length > 0 ? ` ${target.args.join(' ')}` : ''}`;
    const summaryFile = join(workDir, `${target.name}.json`);
    let verdict: Verdict;
    try {
      if (!JUDGE_ONLY) {
        print(`\n# ${target.name}: ${command}\n`);
        // An earlier run's summary left in DIR must not pass for this run's.
        rmSync(summaryFile, { force: true });
        await runScript(target.script, [...target.args, '--summary', summaryFile]);
      }
      verdict = target.judge(summaryFile);
    } catch (error) {
      failed = true;
      rows.push([target.title, `measurement failed: ${(error as Error).message}`, 'failed', `\`${command}\``]);
      continue;
    }
    if (!verdict.met) missed = true;
    loadAverages.push(`${target.name} ${verdict.loadAverageAtEnd}`);
    // A summary judged again may come from a shorter or otherwise different run: say so beside the verdict.
    const asQuoted = verdict.command === command ? '' : ' (not the target\'s command)';
    rows.push([target.title, verdict.figure, `${verdict.met ? '**met**' : '**not met**'}${asQuoted}`, `\`${verdict.command}\``]);
  }
} finally {
  if (!keep) rmSync(workDir, { recursive: true, force: true });
}

print(JUDGE_ONLY
  ? `\n# Verdicts, judged again from the summaries in ${workDir} (measured earlier: the machine lines above are of now)\n`
  : `\n# Verdicts\n\n${machine}\n- code: ${revision}\n- load average (1/5/15 min) at the end: ${loadAverage()}\n`);
print(markdownTable(['Target', 'Measured here', 'Verdict', 'Command'], rows, { allText: true }));
if (runs.some((target) => target.script === 'bench/load.ts')) {
  print('\n- ratios are medians of alternating rounds measured in the same run; the range in parentheses is the lowest and highest round');
}
if (loadAverages.length > 0) print(`- load average (1/5/15 min) at the end of each measurement: ${loadAverages.join('; ')}`);
// The documented exit status: a failed measurement outranks a missed target. Set, not forced
// with process.exit(), so that output still buffered for a pipe is written first.
process.exitCode = failed ? 1 : missed ? 3 : 0;
