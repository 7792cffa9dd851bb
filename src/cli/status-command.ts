import type { Command } from 'commander';
import { defaultConnectionName } from '../../config/connections/connection-name.js';
import { loadConnection } from '../connections/load-connection.js';
import type { ColumnReport, HeldDelete, Store } from '../store/store.js';
import { selectPartitions } from '../sync/select-partitions.js';
import { exitCodes, runCommand } from './cli-failure.js';
import { type ConnectionFlag, connectionOption } from './connection-option.js';
import { formatDuration, parseDuration } from './durations.js';
import { jsonOutput } from './json-output.js';
import { formatQueueStatus, readQueueStatus } from './queue-status.js';
import { type PartitionProblem, partitionProblems } from './status-checks.js';
import { streamRows, valueCounts } from './stream-rows.js';
import { readStatus, type StatusReport, type StreamStatus } from './stream-status.js';
import { formatTable } from './text-table.js';
import { thousands } from './thousands.js';
import { openCliStore } from './with-cli-store.js';
import { formatCommandStatus } from './write-back-status.js';

/** Longest error text per partition in the table's notes (`--json` has it whole). */
const errorWidth = 240;

export function registerStatusCommand(program: Command): void {
  program
    .command('status')
    .description(
      'Per configured stream partition: watermark, last run (when, result, rows written, error) and lag; with Redis: workers alive, the queue.',
    )
    .option('--json', 'print JSON')
    .option(
      '--max-lag <duration>',
      'exit 1 when a partition has not succeeded for longer (e.g. 15m, 2h), never succeeded, or its latest run failed (for cron and monitoring)',
    )
    .addHelpText(
      'after',
      '\nExit codes: 0 all well (or no --max-lag), 1 a partition is stale or failing (--max-lag), 2 bad usage or configuration.',
    )
    .addOption(connectionOption())
    .action((flags: { json?: boolean; maxLag?: string } & ConnectionFlag) =>
      runCommand('status', async () => {
        const maxLag = flags.maxLag === undefined ? undefined : parseDuration(flags.maxLag, '--max-lag');
        const settings = await loadConnection(flags.connection);
        const store = await openCliStore(settings);
        try {
          const now = new Date();
          const [report, attention, queue, commands] = await Promise.all([
            readStatus(store, now, selectPartitions([], settings)),
            readAttention(store),
            readQueueStatus(settings),
            store.commands.counts(),
          ]);
          const problems = maxLag === undefined ? undefined : partitionProblems(report.partitions, maxLag);
          const check = maxLag === undefined ? undefined : { maxLagSeconds: maxLag, problems: problems! };
          const { partitions, ...rest } = report;
          process.stdout.write(
            flags.json
              ? jsonOutput({
                  connection: settings.connection,
                  streams: partitions,
                  ...rest,
                  ...attention,
                  queue,
                  commands,
                  ...(check ? { check } : {}),
                })
              : formatStatus(report) +
                  formatAttention(attention) +
                  formatCommandStatus(commands) +
                  formatQueueStatus(queue, now) +
                  (check
                    ? formatCheck(check.problems, check.maxLagSeconds, partitions.length, settings.connection)
                    : ''),
          );
          // Redis answered and refused REDIS_URL's credentials: a configuration error, after the rest.
          if (!queue.reachable && queue.refused) {
            process.stderr.write(`tms-sync status: ${queue.error}\n`);
            return exitCodes.usage;
          }
          return problems && problems.length > 0 ? exitCodes.failed : exitCodes.ok;
        } finally {
          await store.close();
        }
      }),
    );
}

/** What needs a person: deletes the guard held back, and typed columns whose values stopped fitting. */
export interface Attention {
  readonly heldDeletes: HeldDelete[];
  readonly drift: Array<
    Pick<ColumnReport, 'stream' | 'column' | 'type' | 'drift' | 'driftSample' | 'driftAt'>
  >;
}

export async function readAttention(store: Store): Promise<Attention> {
  const [heldDeletes, columns] = await Promise.all([store.heldDeletes(), store.describeColumns()]);
  const drift = columns
    .filter((column) => column.drift > 0)
    .map(({ stream, column, type, drift, driftSample, driftAt }) => ({
      stream,
      column,
      type,
      drift,
      driftSample,
      driftAt,
    }));
  return { heldDeletes, drift };
}

function formatAttention({ heldDeletes, drift }: Attention): string {
  const held = heldDeletes.map((entry) => [
    entry.scope ? `${entry.stream}/${entry.scope}` : entry.stream,
    `${entry.wouldDelete} of ${entry.liveBefore}`,
    entry.reason,
    entry.detectedAt.toISOString(),
    entry.approvedAt
      ? `approved ${entry.approvedAt.toISOString()}`
      : `tms-sync approve-deletes ${entry.stream}${entry.scope ? ` ${entry.scope}` : ''}`,
  ]);
  const drifting = drift.map((entry) => [
    `${entry.stream}.${entry.column}`,
    entry.type,
    String(entry.drift),
    entry.driftSample ?? '',
  ]);
  return [
    held.length
      ? `\ndeletes held back by the mass-delete guard\n${formatTable(['scope', 'rows', 'reason', 'since', 'to apply'], held, '  ')}`
      : '',
    drifting.length
      ? `\nvalues that did not fit their typed column (NULL there, whole in data)\n${formatTable(['column', 'type', 'values', 'latest'], drifting, '  ')}`
      : '',
  ].join('');
}

function formatStatus({ partitions, unconfigured, skipped }: StatusReport): string {
  const header = ['stream', 'watermark', 'last run', 'result', 'written', 'lag', 'pending'];
  const rows = streamRows(partitions, partitionRow, streamRow);
  const failed = new Map<string, string[]>();
  for (const item of partitions) {
    if (item.lastRun?.result !== 'failed') continue;
    const reason = clip(item.lastRun.error ?? 'no error recorded');
    failed.set(reason, [...(failed.get(reason) ?? []), labelOf(item)]);
  }
  const errors = [...failed].map(([reason, labels]) => `  ${namedFew(labels)}: ${reason}`);
  const notes = [
    errors.length ? `\nlatest run failed:\n${errors.join('\n')}` : '',
    ...skippedNotes(skipped),
    unconfigured.length
      ? `\nin the store but no longer configured (not shown): ${namedFew(unconfigured, 20)}`
      : '',
  ].filter(Boolean);
  return `${formatTable(header, rows)}${notes.length ? `${notes.join('\n')}\n` : ''}`;
}

function partitionRow(item: StreamStatus): string[] {
  return [
    labelOf(item),
    item.watermark === null ? '' : `${item.watermark}${item.cycleInProgress ? ' (cycle in progress)' : ''}`,
    item.lastRun ? item.lastRun.startedAt.toISOString() : 'never',
    item.lastRun?.result ?? '',
    item.lastRun ? String(item.lastRun.inserted + item.lastRun.updated) : '',
    item.lagSeconds === null ? 'never' : formatDuration(item.lagSeconds),
    pendingText(item.pending),
  ];
}

/** Every partition of a stream in one row: its latest run, results counted, the largest lag. */
function streamRow(group: readonly StreamStatus[]): string[] {
  const starts = group.flatMap((item) => (item.lastRun ? [item.lastRun.startedAt.getTime()] : []));
  const never = group.filter((item) => item.lagSeconds === null).length;
  const lags = group.flatMap((item) => (item.lagSeconds === null ? [] : [item.lagSeconds]));
  return [
    `${group[0]!.stream} (${thousands(group.length)} partitions)`,
    '',
    starts.length ? new Date(Math.max(...starts)).toISOString() : 'never',
    valueCounts(group.map((item) => item.lastRun?.result ?? 'never ran')),
    String(
      group.reduce((sum, item) => sum + (item.lastRun ? item.lastRun.inserted + item.lastRun.updated : 0), 0),
    ),
    [
      lags.length ? `${formatDuration(Math.max(...lags))} at most` : '',
      never ? `${thousands(never)} never` : '',
    ]
      .filter(Boolean)
      .join(', '),
    '',
  ];
}

/** `a, b, c`, or past `count` names `a, b, c and 40 more`. */
function namedFew(labels: readonly string[], count = 3): string {
  const more = labels.length - count;
  return more > 0 ? `${labels.slice(0, count).join(', ')} and ${thousands(more)} more` : labels.join(', ');
}

function labelOf(item: { readonly stream: string; readonly partition: string }): string {
  return item.partition ? `${item.stream}/${item.partition}` : item.stream;
}

function skippedNotes(skipped: StatusReport['skipped']): string[] {
  const byReason = new Map<string, string[]>();
  for (const { stream, reason } of skipped) byReason.set(reason, [...(byReason.get(reason) ?? []), stream]);
  return [...byReason].map(([reason, streams]) => `\nnot configured here (${reason}): ${streams.join(', ')}`);
}

function formatCheck(
  problems: readonly PartitionProblem[],
  maxLagSeconds: number,
  total: number,
  connection: string,
): string {
  const limit = formatDuration(maxLagSeconds);
  // Cron mail from several connections' checks must say whose partitions these are.
  const check = connection === defaultConnectionName ? 'check' : `check of connection ${connection}`;
  if (problems.length === 0) return `\n${check}: all ${total} partitions succeeded within ${limit}\n`;
  const lines = problems.map(
    (problem) => `  ${problem.kind.toUpperCase()}  ${problem.partition}: ${clip(problem.detail)}`,
  );
  return `\n${check}: ${problems.length} of ${total} partitions need attention (--max-lag ${limit})\n${lines.join('\n')}\n`;
}

function clip(text: string): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length > errorWidth ? `${line.slice(0, errorWidth - 1)}…` : line;
}

function pendingText(pending: StreamStatus['pending']): string {
  if (!pending) return '';
  const left =
    pending.leftParents > 0 ? ` (${pending.leftParents} left by failures; ${pending.lastError})` : '';
  const queued = pending.queuedParents > 0 ? `${pending.queuedParents} parents${left}` : '';
  return pending.everyParent ? ['every parent', queued].filter(Boolean).join(' + ') : queued;
}
