import type { ClientTraffic } from '../client/index.js';
import type { PartitionSummary } from '../sync/run-options.js';
import { thousands } from './thousands.js';

const columns: Array<[string, (s: PartitionSummary) => string]> = [
  ['stream', (s) => (s.partition ? `${s.stream}/${s.partition}` : s.stream)],
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

/**
 * The end-of-run table of `sync`, `demo` and `trigger --wait`, with each failure's or skip's reason
 * below it. `fetched` counts the records received from the TMS; `inserted` + `updated` are the rows
 * written (what `status` shows as `written`).
 */
export function formatSummary(summaries: readonly PartitionSummary[]): string {
  const rows = summaries.map((summary) => columns.map(([, cell]) => cell(summary)));
  const header = columns.map(([title]) => title);
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i < 2 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  const failures = summaries
    .filter((summary) => summary.error !== null)
    .map(
      (summary) =>
        `${columns[0]![1](summary)}: ${summary.result === 'skipped' ? 'skipped: ' : ''}${summary.error}`,
    );
  const dryRun = summaries.some((summary) => summary.dryRun) ? ['dry run: nothing was written', ''] : [];
  const notes = [...failures, ...heldNotes(summaries), ...driftNotes(summaries)];
  return [...dryRun, line(header), ...rows.map(line), ...(notes.length ? ['', ...notes] : []), ''].join('\n');
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
