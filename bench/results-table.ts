import type { BackfillRow } from './backfill-rows.js';
import type { IncrementalSample } from './incremental.js';
import { median, rate, type Sample } from './sample.js';

/** One row of the table: medians over the repetitions; ratios are medians of per-repetition ratios. */
export interface RowSummary {
  readonly id: string;
  readonly label: string;
  readonly recordsPerSecond: number;
  /** To the raw limit of the row's database (SQLite for the rows that write nothing). */
  readonly vsRaw: number | null;
  readonly vsNaive: number | null;
  readonly seconds: number;
  readonly wallSeconds: number;
  readonly records: number;
  readonly pages: number;
  readonly requests: number;
  readonly peakRssMb: number;
  /** The simulator's CPU time over the row's sync time: near 100% would make it the bottleneck. */
  readonly simCpuShare: number;
  readonly note: string;
  /** Incremental rows: the fewest pages the cycle could fetch. */
  readonly minimumPages?: number;
  readonly samples: readonly Sample[];
}

const ratioOfMedians = (samples: readonly Sample[], reference: readonly Sample[] | undefined) =>
  reference && reference.length === samples.length
    ? median(samples.map((sample, i) => rate(sample) / rate(reference[i]!)))
    : null;

function summary(
  id: string,
  label: string,
  samples: readonly Sample[],
  refs: References,
  note = '',
): RowSummary {
  return {
    id,
    label,
    recordsPerSecond: median(samples.map(rate)),
    vsRaw: ratioOfMedians(samples, refs.raw),
    vsNaive: ratioOfMedians(samples, refs.naive),
    seconds: median(samples.map((s) => s.seconds)),
    wallSeconds: median(samples.map((s) => s.wallSeconds)),
    records: median(samples.map((s) => s.records)),
    pages: median(samples.map((s) => s.pages)),
    requests: median(samples.map((s) => s.requests)),
    peakRssMb: median(samples.map((s) => s.peakRssMb)),
    simCpuShare: median(samples.map((s) => s.simCpuSeconds / s.seconds)),
    note,
    samples,
  };
}

interface References {
  readonly raw?: readonly Sample[] | undefined;
  readonly naive?: readonly Sample[] | undefined;
}

/** Summaries of the backfill rows that ran, each against its own database's raw limit. */
export function summarizeBackfill(
  rows: readonly BackfillRow[],
  samples: ReadonlyMap<string, Sample[]>,
): RowSummary[] {
  const naive = samples.get('naive-sqlite');
  return rows
    .filter((row) => samples.has(row.id))
    .map((row) => {
      const raw = samples.get(row.database === 'postgres' ? 'raw-postgres' : 'raw-sqlite');
      return summary(row.id, row.label, samples.get(row.id)!, { raw, naive });
    });
}

/** One row per change share; the note gives the cycle's time as a share of the backfill's, and pages. */
export function summarizeIncremental(
  samples: readonly IncrementalSample[],
  backfillSeconds: number,
  where: { readonly id: string; readonly label: string } = { id: 'incremental', label: '' },
): RowSummary[] {
  const shares = [...new Set(samples.map((s) => s.share))];
  return shares.map((share) => {
    const of = samples.filter((s) => s.share === share);
    const base = summary(
      `${where.id}-${share}`,
      `incremental cycle, ${share * 100}% changed${where.label}`,
      of,
      {},
    );
    const minimum = median(of.map((s) => s.minimumPages));
    const note = `${((base.seconds / backfillSeconds) * 100).toFixed(2)}% of backfill time; ${of[0]!.changes} changes, fewest pages ${minimum}`;
    return { ...base, note, minimumPages: minimum };
  });
}

const columns = [
  'row',
  'records/s',
  'x raw',
  'x naive',
  'sync s',
  'wall s',
  'pages',
  'requests',
  'peak RSS MB',
  'sim CPU',
  'note',
];

/** The one table the benchmark prints (also pasted into BENCHMARKS.md: it is Markdown). */
export function formatTable(rows: readonly RowSummary[]): string {
  const ratio = (value: number | null) => (value === null ? '' : `${value.toFixed(2)}x`);
  const cells = rows.map((row) => [
    row.label,
    Math.round(row.recordsPerSecond).toLocaleString('en-US'),
    ratio(row.vsRaw),
    ratio(row.vsNaive),
    row.seconds.toFixed(2),
    row.wallSeconds.toFixed(2),
    String(row.pages),
    String(row.requests),
    row.peakRssMb.toFixed(0),
    `${Math.round(row.simCpuShare * 100)}%`,
    row.note,
  ]);
  const line = (values: readonly string[]) => `| ${values.join(' | ')} |`;
  return [line(columns), line(columns.map(() => '---')), ...cells.map(line)].join('\n');
}
