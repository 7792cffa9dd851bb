import type { ClientTraffic } from '../client/index.js';
import type { PartitionSummary } from '../sync/run-options.js';
import { streamRows, valueCounts } from './stream-rows.js';
import { thousands } from './thousands.js';

/** One row of the table: a partition, or every partition of a stream with many. */
interface SummaryRow extends Omit<PartitionSummary, 'result' | 'cause' | 'runId'> {
  readonly label: string;
  readonly result: string;
}

const columns: Array<[string, (s: SummaryRow) => string]> = [
  ['stream', (s) => s.label],
  ['result', (s) => s.result],
  ['pages', (s) => count(s.pages)],
  ['fetched', (s) => count(s.records)],
  ['inserted', (s) => count(s.inserted)],
  ['updated', (s) => count(s.updated)],
  ['unchanged', (s) => count(s.unchanged)],
  ['older', (s) => count(s.older)],
  ['deleted', (s) => count(s.deleted)],
  ['held', (s) => count(s.held)],
  ['drift', (s) => count(s.drift)],
  ['watermark', (s) => (s.watermark === null ? '' : String(s.watermark))],
  ['seconds', (s) => (s.durationMs / 1000).toFixed(1)],
];

/** Failures with one reason named one by one up to this many; the rest counted. */
const namedPerReason = 3;

/**
 * The end-of-run table of `sync`, `demo` and `trigger --wait`, with each failure's or skip's reason
 * below it. `fetched` counts the records received from the TMS; `inserted` + `updated` are the rows
 * written (what `status` shows as `written`). A stream with many partitions (one per operator) is
 * one row, `tasks (500 partitions)`, its counts added up and its seconds those of its slowest
 * partition; failures sharing a reason are one line. The last line counts partitions by result.
 */
export function formatSummary(summaries: readonly PartitionSummary[]): string {
  const rows = summaryRows(summaries).map((summary) => columns.map(([, cell]) => cell(summary)));
  const header = columns.map(([title]) => title);
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i < 2 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  const dryRun = summaries.some((summary) => summary.dryRun) ? ['dry run: nothing was written', ''] : [];
  const notes = [...failureNotes(summaries), ...heldNotes(summaries), ...driftNotes(summaries)];
  return [
    ...dryRun,
    line(header),
    ...rows.map(line),
    ...(notes.length ? ['', ...notes] : []),
    '',
    totalLine(summaries),
    '',
  ].join('\n');
}

/** A row per partition, or one per stream of many partitions (its counts added up). */
function summaryRows(summaries: readonly PartitionSummary[]): SummaryRow[] {
  return streamRows(summaries, (summary) => ({ ...summary, label: labelOf(summary) }), streamRow);
}

function streamRow(group: readonly PartitionSummary[]): SummaryRow {
  const sum = (pick: (s: PartitionSummary) => number) => group.reduce((total, s) => total + pick(s), 0);
  return {
    ...group[0]!,
    label: `${group[0]!.stream} (${thousands(group.length)} partitions)`,
    result: resultCounts(group),
    pages: sum((s) => s.pages),
    records: sum((s) => s.records),
    inserted: sum((s) => s.inserted),
    updated: sum((s) => s.updated),
    unchanged: sum((s) => s.unchanged),
    older: sum((s) => s.older),
    deleted: sum((s) => s.deleted),
    held: sum((s) => s.held),
    drift: sum((s) => s.drift),
    watermark: null,
    durationMs: Math.max(...group.map((s) => s.durationMs)),
  };
}

const resultOrder = ['succeeded', 'failed', 'interrupted', 'skipped'];

/** `succeeded`, or, mixed, `498 succeeded, 2 failed`. */
function resultCounts(group: readonly PartitionSummary[]): string {
  return valueCounts(
    group.map((summary) => summary.result),
    resultOrder,
  );
}

/** Each reason once, with the partitions it stopped (the first few named). */
function failureNotes(summaries: readonly PartitionSummary[]): string[] {
  const byReason = new Map<string, string[]>();
  for (const summary of summaries) {
    if (summary.error === null) continue;
    const reason = `${summary.result === 'skipped' ? 'skipped: ' : ''}${summary.error}`;
    const labels = byReason.get(reason);
    if (labels) labels.push(labelOf(summary));
    else byReason.set(reason, [labelOf(summary)]);
  }
  return [...byReason].map(([reason, labels]) => {
    const more = labels.length - namedPerReason;
    const named = labels.slice(0, namedPerReason).join(', ');
    return `${more > 0 ? `${named} and ${thousands(more)} more` : named}: ${reason}`;
  });
}

function totalLine(summaries: readonly PartitionSummary[]): string {
  if (summaries.length === 0) return 'no partition ran';
  const streams = new Set(summaries.map((s) => s.stream)).size;
  const partitions = `${thousands(summaries.length)} partition${summaries.length === 1 ? '' : 's'}`;
  return `${partitions} of ${thousands(streams)} stream${streams === 1 ? '' : 's'}: ${resultCounts(summaries)}`;
}

function labelOf(summary: PartitionSummary): string {
  return summary.partition ? `${summary.stream}/${summary.partition}` : summary.stream;
}

/**
 * The line under `sync`'s table: what the run asked of the TMS, what it sent again, and how long the
 * TMS asked it to wait (429 Retry-After; every request of the run waited it out together).
 */
export function formatTraffic(traffic: ClientTraffic): string {
  const parts = [`TMS: ${thousands(traffic.requests)} requests`];
  if (traffic.retries > 0) parts.push(`${thousands(traffic.retries)} sent again after a failure`);
  if (traffic.rateLimited > 0)
    parts.push(
      `${thousands(traffic.rateLimited)} answered 429, ${(traffic.pausedMs / 1000).toFixed(1)} s paused as asked (Retry-After)`,
    );
  return `${parts.join(', ')}\n`;
}

/** Deletes the guard held back are loud: what, and how to apply them. */
function heldNotes(summaries: readonly PartitionSummary[]): string[] {
  const streams = [...new Set(summaries.filter((s) => s.held > 0).map((s) => s.stream))];
  return streams.map(
    (stream) =>
      `${stream}: deletes held back by the guard (implausibly many rows gone); ` +
      `see \`tms-sync status\`, apply with \`tms-sync approve-deletes ${stream}\``,
  );
}

function driftNotes(summaries: readonly PartitionSummary[]): string[] {
  const streams = [...new Set(summaries.filter((s) => s.drift > 0).map((s) => s.stream))];
  return streams.length === 0
    ? []
    : [
        `values that did not fit their typed column (NULL there, whole in data): see \`tms-sync schema ${streams.join(' ')}\``,
      ];
}

function count(value: number): string {
  return thousands(value);
}
