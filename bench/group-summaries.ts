import type { ChildRowId, ChildSample } from './children-rows.js';
import { childRowLabels } from './children-rows.js';
import type { FaultRowId, FaultSample } from './fault-rows.js';
import { faultRowLabels } from './fault-rows.js';
import { median } from './sample.js';
import type { WholeProcessRowId, WholeProcessSample } from './whole-process.js';
import { wholeProcessLabels } from './whole-process.js';

/** A whole-process row: medians; the ratio is the median of per-repetition ratios to the loop's row. */
export interface WholeProcessSummary {
  readonly id: WholeProcessRowId;
  readonly label: string;
  readonly recordsPerSecond: number;
  readonly vsLoop: number | null;
  readonly wallSeconds: number;
  readonly firstRequestSeconds: number;
  readonly requests: number;
  readonly peakRssMb: number;
  readonly samples: readonly WholeProcessSample[];
}

/** A children row: its rate, beside the simulator's capacity (a) or the allowance (b, c). */
export interface ChildSummary {
  readonly id: ChildRowId;
  readonly label: string;
  readonly requests: number;
  readonly seconds: number;
  readonly requestsPerSecond: number;
  readonly rateLimitedShare: number;
  /** (a): the plain loop's rate; (b), (c): the limit, requests per second. */
  readonly reference: number | null;
  /**
   * (a): rate / the loop's; (b), (c): answered (not 429) over the allowance of the sync's time, the
   * limit x seconds plus the one burst the TMS's bucket holds at the start (a second's worth).
   */
  readonly share: number | null;
  readonly secondsAboveLimit?: number;
  readonly worstExcess?: number;
  readonly samples: readonly ChildSample[];
}

/** A fault row: the whole process; the product's rows beside the plain client's of the same profile. */
export interface FaultSummary {
  readonly id: FaultRowId;
  readonly label: string;
  readonly records: number;
  readonly seconds: number;
  readonly sends: number;
  readonly vsPlain: number | null;
  readonly pausedSeconds?: number;
  readonly rateLimited?: number;
  readonly samples: readonly FaultSample[];
}

const ratios = (values: readonly number[], references: readonly number[] | undefined) =>
  references && references.length === values.length
    ? median(values.map((value, i) => value / references[i]!))
    : null;

export function summarizeWholeProcess(
  samples: ReadonlyMap<WholeProcessRowId, WholeProcessSample[]>,
): WholeProcessSummary[] {
  const rate = (sample: WholeProcessSample) => sample.records / sample.wallSeconds;
  // The product's backfill rows beside the loop's from the same server (a current store has nothing to compare).
  const loopRow: Partial<Record<WholeProcessRowId, WholeProcessRowId>> = {
    'product-whole': 'loop-whole',
    'product-far': 'loop-far',
  };
  const loopRates = (id: WholeProcessRowId) => {
    const loopId = loopRow[id];
    return loopId ? samples.get(loopId)?.map(rate) : undefined;
  };
  return [...samples].map(([id, of]) => ({
    id,
    label: wholeProcessLabels[id],
    recordsPerSecond: median(of.map(rate)),
    vsLoop: ratios(of.map(rate), loopRates(id)),
    wallSeconds: median(of.map((s) => s.wallSeconds)),
    firstRequestSeconds: median(of.map((s) => s.firstRequestSeconds)),
    requests: median(of.map((s) => s.requests)),
    peakRssMb: median(of.map((s) => s.peakRssMb)),
    samples: of,
  }));
}

export function summarizeChildren(
  samples: ReadonlyMap<ChildRowId, ChildSample[]>,
  limit: number,
): ChildSummary[] {
  const rate = (sample: ChildSample) => sample.requests / sample.seconds;
  const loopRates = samples.get('children-loop')?.map(rate);
  return [...samples].map(([id, of]) => {
    const limited = id !== 'children-loop' && id !== 'children-product';
    const used = (sample: ChildSample) =>
      (sample.requests - sample.rateLimited) / (limit * (sample.seconds + 1));
    const total = (pick: (sample: ChildSample) => number) =>
      of.reduce((sum, sample) => sum + pick(sample), 0);
    return {
      id,
      label: childRowLabels[id],
      requests: median(of.map((s) => s.requests)),
      seconds: median(of.map((s) => s.seconds)),
      requestsPerSecond: median(of.map(rate)),
      rateLimitedShare: total((s) => s.rateLimited) / total((s) => s.requests),
      reference: limited ? limit : id === 'children-product' && loopRates ? median(loopRates) : null,
      share: limited
        ? median(of.map(used))
        : id === 'children-product'
          ? ratios(of.map(rate), loopRates)
          : null,
      ...(limited
        ? {
            secondsAboveLimit: Math.max(...of.map((s) => s.secondsAboveLimit ?? 0)),
            worstExcess: Math.max(...of.map((s) => s.worstExcess ?? 0)),
          }
        : {}),
      samples: of,
    };
  });
}

export function summarizeFaults(samples: ReadonlyMap<FaultRowId, FaultSample[]>): FaultSummary[] {
  return [...samples].map(([id, of]) => {
    const plain = id.startsWith('faults-product-')
      ? samples.get(id.replace('product', 'plain') as FaultRowId)
      : undefined;
    const paused = of.every((s) => s.pausedSeconds !== undefined);
    return {
      id,
      label: faultRowLabels[id],
      records: median(of.map((s) => s.records)),
      seconds: median(of.map((s) => s.seconds)),
      sends: median(of.map((s) => s.sends)),
      // Speed over the plain client's: its time over ours.
      vsPlain: plain
        ? ratios(
            plain.map((s) => s.seconds),
            of.map((s) => s.seconds),
          )
        : null,
      ...(paused
        ? {
            pausedSeconds: median(of.map((s) => s.pausedSeconds!)),
            rateLimited: median(of.map((s) => s.rateLimited ?? 0)),
          }
        : {}),
      samples: of,
    };
  });
}

const table = (columns: readonly string[], rows: readonly (readonly string[])[]) => {
  const line = (values: readonly string[]) => `| ${values.join(' | ')} |`;
  return [line(columns), line(columns.map(() => '---')), ...rows.map(line)].join('\n');
};
const whole = (value: number) => Math.round(value).toLocaleString('en-US');
const times = (value: number | null) => (value === null ? '' : `${value.toFixed(2)}x`);
const percent = (value: number) => `${(value * 100).toFixed(1)}%`;

export function formatWholeProcess(rows: readonly WholeProcessSummary[]): string {
  return table(
    ['row', 'records/s (whole process)', 'x loop', 'wall s', 'first request s', 'requests', 'peak RSS MB'],
    rows.map((row) => [
      row.label,
      whole(row.recordsPerSecond),
      times(row.vsLoop),
      row.wallSeconds.toFixed(2),
      row.firstRequestSeconds.toFixed(3),
      String(row.requests),
      row.peakRssMb.toFixed(0),
    ]),
  );
}

export function formatChildren(rows: readonly ChildSummary[]): string {
  return table(
    [
      'row',
      'requests',
      'sync s',
      'requests/s',
      '429s',
      'beside',
      'share',
      'seconds above limit',
      'worst excess',
    ],
    rows.map((row) => [
      row.label,
      whole(row.requests),
      row.seconds.toFixed(1),
      whole(row.requestsPerSecond),
      percent(row.rateLimitedShare),
      row.reference === null
        ? ''
        : row.secondsAboveLimit === undefined
          ? `capacity ${whole(row.reference)}/s`
          : `allowance ${whole(row.reference)}/s x (${row.seconds.toFixed(1)} + 1) s`,
      row.share === null ? '' : row.secondsAboveLimit === undefined ? times(row.share) : percent(row.share),
      row.secondsAboveLimit === undefined ? '' : String(row.secondsAboveLimit),
      row.worstExcess === undefined
        ? ''
        : `${row.worstExcess} (${(row.worstExcess / (row.reference ?? 1)).toFixed(2)} bursts)`,
    ]),
  );
}

export function formatFaults(rows: readonly FaultSummary[]): string {
  return table(
    ['row', 'records', 'wall s', 'sends', 'speed x plain client', 'paused as asked s', '429s'],
    rows.map((row) => [
      row.label,
      whole(row.records),
      row.seconds.toFixed(1),
      whole(row.sends),
      times(row.vsPlain),
      row.pausedSeconds === undefined
        ? ''
        : `${row.pausedSeconds.toFixed(1)} (${percent(row.pausedSeconds / row.seconds)} of wall)`,
      row.rateLimited === undefined ? '' : String(row.rateLimited),
    ]),
  );
}
