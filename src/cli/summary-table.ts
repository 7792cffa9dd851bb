import type { PartitionSummary } from '../sync/run-options.js';

const columns: Array<[string, (s: PartitionSummary) => string]> = [
  ['stream', (s) => (s.partition ? `${s.stream}/${s.partition}` : s.stream)],
  ['result', (s) => s.result],
  ['pages', (s) => count(s.pages)],
  ['records', (s) => count(s.records)],
  ['inserted', (s) => count(s.inserted)],
  ['updated', (s) => count(s.updated)],
  ['unchanged', (s) => count(s.unchanged)],
  ['deleted', (s) => count(s.deleted)],
  ['rejected', (s) => count(s.rejected)],
  ['watermark', (s) => (s.watermark === null ? '' : String(s.watermark))],
  ['seconds', (s) => (s.durationMs / 1000).toFixed(1)],
];

/** The end-of-run table of `sync`, `demo` and `trigger --wait`, with each failure's reason below it. */
export function formatSummary(summaries: readonly PartitionSummary[]): string {
  const rows = summaries.map((summary) => columns.map(([, cell]) => cell(summary)));
  const header = columns.map(([title]) => title);
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i < 2 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  const failures = summaries
    .filter((summary) => summary.error !== null)
    .map((summary) => `${columns[0]![1](summary)}: ${summary.error}`);
  const dryRun = summaries.some((summary) => summary.dryRun) ? ['dry run: nothing was written', ''] : [];
  return [...dryRun, line(header), ...rows.map(line), ...(failures.length ? ['', ...failures] : []), ''].join(
    '\n',
  );
}

function count(value: number): string {
  return value.toLocaleString('en-US');
}
