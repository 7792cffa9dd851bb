import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import type { HotFrame } from './profile-top.js';
import { formatTable, type RowSummary } from './results-table.js';
import type { StartupCost } from './startup-cost.js';
import { checkTargets, formatTargets, type TargetCheck } from './targets.js';

/** Everything one run of the benchmark found, as `bench/results.json` keeps it (one entry per data set size). */
export interface BenchReport {
  readonly generatedAt: string;
  readonly records: number;
  readonly repetitions: number;
  readonly durationSeconds: number;
  /** The machine is shared: the load averages say how noisy the run was. */
  readonly machine: { cpus: number; node: string; loadavgBefore: number[]; loadavgAfter: number[] };
  readonly rows: readonly RowSummary[];
  readonly startup: StartupCost;
  readonly targets: readonly TargetCheck[];
  readonly profile?: readonly HotFrame[];
}

export function buildReport(input: {
  records: number;
  repetitions: number;
  startedAt: number;
  loadavgBefore: number[];
  rows: readonly RowSummary[];
  startup: StartupCost;
  profile: readonly HotFrame[] | undefined;
}): BenchReport {
  const { startedAt, loadavgBefore, profile, ...rest } = input;
  return {
    generatedAt: new Date().toISOString(),
    ...rest,
    durationSeconds: Math.round((performance.now() - startedAt) / 1000),
    machine: { cpus: cpus().length, node: process.version, loadavgBefore, loadavgAfter: loadavg() },
    targets: checkTargets(input.rows),
    ...(profile ? { profile } : {}),
  };
}

/** Adds the report to the results file under its data set size, keeping the other sizes' figures. */
export function saveReport(path: string, report: BenchReport): void {
  const all = existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>) : {};
  writeFileSync(path, `${JSON.stringify({ ...all, [String(report.records)]: report }, null, 2)}\n`);
}

export function formatReport(report: BenchReport): string {
  const load = (values: readonly number[]) => values.map((value) => value.toFixed(2)).join(' ');
  const { startup, machine } = report;
  const lines = [
    `${report.records} invoices, ${report.repetitions} repetitions, ${report.durationSeconds} s; load average ${load(machine.loadavgBefore)} -> ${load(machine.loadavgAfter)} on ${machine.cpus} cores`,
    '',
    formatTable(report.rows),
    '',
    formatTargets(report.targets),
    '',
    `product start-up alone (tms-sync --help): ${startup.wallSeconds.toFixed(2)} s, ${startup.peakRssMb.toFixed(0)} MB peak RSS`,
  ];
  if (report.profile) {
    lines.push('', 'hottest frames of one product backfill (self time):');
    for (const frame of report.profile)
      lines.push(`${(frame.share * 100).toFixed(1).padStart(5)}%  ${frame.frame}`);
  }
  return `${lines.join('\n')}\n`;
}
