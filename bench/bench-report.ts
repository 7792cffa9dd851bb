import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import type { ConnectionFleetRow } from './connection-fleet.js';
import { checkConnectionTargets, formatConnections } from './connection-report.js';
import {
  type ChildSummary,
  type FaultSummary,
  formatChildren,
  formatFaults,
  formatWholeProcess,
  type WholeProcessSummary,
} from './group-summaries.js';
import { formatHistory, type HistorySummary } from './history-rows.js';
import { checkPartitionTargets, formatPartitions, type PartitionGroup } from './partition-report.js';
import type { HotFrame } from './profile-top.js';
import { formatTable, type RowSummary } from './results-table.js';
import type { Startup } from './startup-cost.js';
import { checkGroupTargets, checkTargets, formatTargets, type TargetCheck } from './targets.js';

/** Everything one run of the benchmark found, as `bench/results.json` keeps it (one entry per data set size). */
export interface BenchReport {
  readonly generatedAt: string;
  readonly records: number;
  readonly repetitions: number;
  /** The groups of rows this run measured (`--only`). */
  readonly groups: readonly string[];
  readonly durationSeconds: number;
  /** The machine is shared: the load averages say how noisy the run was. */
  readonly machine: { cpus: number; node: string; loadavgBefore: number[]; loadavgAfter: number[] };
  /** Backfill and incremental rows. */
  readonly rows?: readonly RowSummary[];
  readonly wholeProcess?: readonly WholeProcessSummary[];
  readonly children?: {
    readonly invoices: number;
    readonly clients: number;
    readonly rows: readonly ChildSummary[];
  };
  readonly faults?: {
    readonly invoices: number;
    readonly clients: number;
    readonly rows: readonly FaultSummary[];
  };
  /** History mode's cost: the same rows with history on and off. */
  readonly history?: readonly HistorySummary[];
  /** Many operators: product against a plain client per operator count, the worker at the largest. */
  readonly partitions?: PartitionGroup;
  /** Many accounts: a fleet of workers over many connections, per connection count. */
  readonly connections?: readonly ConnectionFleetRow[];
  readonly startup: Startup;
  readonly targets: readonly TargetCheck[];
  readonly profile?: readonly HotFrame[];
}

export interface ReportInput {
  records: number;
  repetitions: number;
  groups: readonly string[];
  startedAt: number;
  loadavgBefore: number[];
  rows: readonly RowSummary[] | undefined;
  wholeProcess: readonly WholeProcessSummary[] | undefined;
  children: BenchReport['children'];
  faults: BenchReport['faults'];
  history: readonly HistorySummary[] | undefined;
  partitions: PartitionGroup | undefined;
  connections: readonly ConnectionFleetRow[] | undefined;
  limit: number;
  startup: Startup;
  profile: readonly HotFrame[] | undefined;
}

export function buildReport(input: ReportInput): BenchReport {
  const {
    startedAt,
    loadavgBefore,
    profile,
    limit,
    rows,
    wholeProcess,
    children,
    faults,
    history,
    partitions,
    connections,
    ...rest
  } = input;
  return {
    generatedAt: new Date().toISOString(),
    ...rest,
    durationSeconds: Math.round((performance.now() - startedAt) / 1000),
    machine: { cpus: cpus().length, node: process.version, loadavgBefore, loadavgAfter: loadavg() },
    ...(rows ? { rows } : {}),
    ...(wholeProcess ? { wholeProcess } : {}),
    ...(children ? { children } : {}),
    ...(faults ? { faults } : {}),
    ...(history ? { history } : {}),
    ...(partitions ? { partitions } : {}),
    ...(connections ? { connections } : {}),
    targets: [
      ...checkTargets(rows ?? []),
      ...checkGroupTargets({ wholeProcess, children: children?.rows, faults: faults?.rows, history, limit }),
      ...(partitions ? checkPartitionTargets(partitions) : []),
      ...(connections ? checkConnectionTargets(connections) : []),
    ],
    ...(profile ? { profile } : {}),
  };
}

/**
 * Adds the report to the results file under its data set size; the groups this run left out keep
 * the figures an earlier run measured (the entry's `groups` says which ones this run measured).
 */
export function saveReport(path: string, report: BenchReport): void {
  const all = existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, object>) : {};
  const key = String(report.records);
  const earlier = (all[key] ?? {}) as Partial<BenchReport>;
  // Targets of the groups this run left out stay, as their figures do.
  const measured = new Set(report.targets.map((check) => check.target));
  const kept = (earlier.targets ?? []).filter((check) => !measured.has(check.target));
  const entry = { ...earlier, ...report, targets: [...report.targets, ...kept] };
  writeFileSync(path, `${JSON.stringify({ ...all, [key]: entry }, null, 2)}\n`);
}

export function formatReport(report: BenchReport): string {
  const load = (values: readonly number[]) => values.map((value) => value.toFixed(2)).join(' ');
  const { startup, machine } = report;
  const lines = [
    `${report.records} invoices, ${report.repetitions} repetitions, groups ${report.groups.join(',')}, ${report.durationSeconds} s; load average ${load(machine.loadavgBefore)} -> ${load(machine.loadavgAfter)} on ${machine.cpus} cores`,
  ];
  if (report.rows?.length) lines.push('', formatTable(report.rows));
  if (report.wholeProcess)
    lines.push(
      '',
      'whole process, against a listing server that is not tms-sim:',
      formatWholeProcess(report.wholeProcess),
    );
  if (report.children)
    lines.push(
      '',
      `child streams of ${report.children.invoices} invoices and ${report.children.clients} clients (tms-sim, 30 ms on every answer):`,
      formatChildren(report.children.rows),
    );
  if (report.faults)
    lines.push(
      '',
      `the REST streams of ${report.faults.invoices} invoices and ${report.faults.clients} clients, whole processes:`,
      formatFaults(report.faults.rows),
    );
  if (report.history)
    lines.push(
      '',
      'history mode (streams.history: ["invoices"]) against the same rows without it:',
      formatHistory(report.history),
    );
  if (report.partitions)
    lines.push(
      '',
      'many operators: every stream, whole processes, beside a plain client sending the same requests (16 in flight):',
      formatPartitions(report.partitions),
    );
  if (report.connections)
    lines.push(
      '',
      'many accounts: tms-sim accounts of 50 invoices, 50 clients, 2 operators; worker --all-connections processes; one PostgreSQL:',
      formatConnections(report.connections),
    );
  lines.push(
    '',
    formatTargets(report.targets),
    '',
    `product start-up alone: tms-sync --help (every command) ${startup.help.wallSeconds.toFixed(2)} s, ${startup.help.peakRssMb.toFixed(0)} MB; tms-sync sync --help ${startup.syncHelp.wallSeconds.toFixed(2)} s, ${startup.syncHelp.peakRssMb.toFixed(0)} MB peak RSS`,
  );
  if (report.profile) {
    lines.push('', 'hottest frames of one product backfill (self time):');
    for (const frame of report.profile)
      lines.push(`${(frame.share * 100).toFixed(1).padStart(5)}%  ${frame.frame}`);
  }
  return `${lines.join('\n')}\n`;
}
