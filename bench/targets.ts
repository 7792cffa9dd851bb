import type { ChildSummary, FaultSummary, WholeProcessSummary } from './group-summaries.js';
import type { HistorySummary } from './history-rows.js';
import type { RowSummary } from './results-table.js';
import { median } from './sample.js';

/** One target (BENCHMARKS.md, Targets) and how this run measured against it. */
export interface TargetCheck {
  readonly target: string;
  readonly measured: string;
  readonly met: boolean;
}

const byId = (rows: readonly RowSummary[], id: string) => rows.find((row) => row.id === id);

/** Peak RSS of the product over the raw loop's, per repetition (the two ran side by side). */
function rssRatio(product: RowSummary, raw: RowSummary): number {
  return median(product.samples.map((sample, i) => sample.peakRssMb / raw.samples[i]!.peakRssMb));
}

/** The targets that this run's rows can answer; rows that did not run give no check. */
export function checkTargets(rows: readonly RowSummary[]): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const add = (target: string, value: number, measured: string, met: boolean) =>
    Number.isFinite(value) && checks.push({ target, measured, met });
  const product = byId(rows, 'product-sqlite');
  const raw = byId(rows, 'raw-sqlite');
  if (product?.vsRaw != null)
    add(
      'SQLite backfill >= 0.9x raw limit',
      product.vsRaw,
      `${product.vsRaw.toFixed(2)}x`,
      product.vsRaw >= 0.9,
    );
  if (product?.vsNaive != null)
    add(
      'SQLite backfill >= 2x naive script',
      product.vsNaive,
      `${product.vsNaive.toFixed(2)}x`,
      product.vsNaive >= 2,
    );
  const pgProduct = byId(rows, 'product-postgres');
  if (pgProduct?.vsRaw != null)
    add(
      'PostgreSQL backfill >= 0.8x its raw limit',
      pgProduct.vsRaw,
      `${pgProduct.vsRaw.toFixed(2)}x`,
      pgProduct.vsRaw >= 0.8,
    );
  const cycle = byId(rows, 'incremental-0.001');
  if (cycle && product) {
    const share = cycle.seconds / product.seconds;
    add('0.1% cycle < 1% of backfill time (sync time)', share, `${(share * 100).toFixed(2)}%`, share < 0.01);
    const wallShare = cycle.wallSeconds / product.wallSeconds;
    add(
      '0.1% cycle < 1% of backfill time (process wall)',
      wallShare,
      `${(wallShare * 100).toFixed(1)}%`,
      wallShare < 0.01,
    );
    const inWorker = byId(rows, 'worker-0.001');
    if (inWorker) {
      const workerShare = inWorker.seconds / product.seconds;
      add(
        '0.1% cycle < 1% of backfill time (running worker)',
        workerShare,
        `${(workerShare * 100).toFixed(2)}%`,
        workerShare < 0.01,
      );
    }
    const minimum = cycle.minimumPages ?? Number.NaN;
    add(
      '0.1% cycle fetches only the changed pages',
      cycle.pages,
      `${cycle.pages} pages (fewest ${minimum})`,
      cycle.pages <= minimum,
    );
  }
  if (product && raw) {
    const ratio = rssRatio(product, raw);
    add(
      'peak RSS <= 1.25x raw loop',
      ratio,
      `${ratio.toFixed(2)}x (${product.peakRssMb.toFixed(0)} / ${raw.peakRssMb.toFixed(0)} MB)`,
      ratio <= 1.25,
    );
    add(
      'peak RSS <= 200 MB',
      product.peakRssMb,
      `${product.peakRssMb.toFixed(0)} MB`,
      product.peakRssMb <= 200,
    );
  }
  const sim = byId(rows, 'sim-bytes');
  if (sim && product) {
    const headroom = sim.recordsPerSecond / product.recordsPerSecond;
    add(
      'simulator not the bottleneck (serving rate / product rate)',
      headroom,
      `${headroom.toFixed(1)}x, sim CPU ${Math.round(product.simCpuShare * 100)}% of the product's sync time`,
      headroom >= 2,
    );
  }
  return checks;
}

/** The children's speed before that work (4 parent requests in flight): its target (a) is five times that. */
const childBaseline = 115;

/** The speed, fault and history-mode targets that the whole-process, children and fault rows answer. */
export function checkGroupTargets(groups: {
  wholeProcess?: readonly WholeProcessSummary[] | undefined;
  children?: readonly ChildSummary[] | undefined;
  faults?: readonly FaultSummary[] | undefined;
  history?: readonly HistorySummary[] | undefined;
  limit: number;
}): TargetCheck[] {
  const checks: TargetCheck[] = [];
  for (const row of groups.history ?? []) {
    if (row.phase !== 'backfill') continue;
    checks.push({
      target: `history mode: backfill (${row.database === 'sqlite' ? 'SQLite' : 'PostgreSQL'}) <= 1.3x the time without`,
      measured: `${row.ratio.toFixed(2)}x`,
      met: row.ratio <= 1.3,
    });
  }
  const product = groups.wholeProcess?.find((row) => row.id === 'product-whole');
  if (product?.vsLoop != null)
    checks.push({
      target: 'whole process: sync invoices >= 0.9x a plain keep-alive loop',
      measured: `${product.vsLoop.toFixed(2)}x`,
      met: product.vsLoop >= 0.9,
    });
  const current = groups.wholeProcess?.find((row) => row.id === 'product-current');
  if (current)
    checks.push({
      target: 'time to the first request <= 0.3 s (store current)',
      measured: `${current.firstRequestSeconds.toFixed(3)} s`,
      met: current.firstRequestSeconds <= 0.3,
    });
  const children = (id: ChildSummary['id']) => groups.children?.find((row) => row.id === id);
  const a = children('children-product');
  if (a?.reference != null) {
    const goal = Math.min(5 * childBaseline, a.reference);
    checks.push({
      target: `(a) child streams at 30 ms >= min(5 x ${childBaseline}, the simulator's capacity) requests/s`,
      measured: `${Math.round(a.requestsPerSecond)}/s against ${Math.round(goal)}/s (${(a.requestsPerSecond / goal).toFixed(2)}x)`,
      met: a.requestsPerSecond >= goal,
    });
  }
  for (const [id, name] of [
    ['children-limited', '(b)'],
    ['children-untold', "(b') untold"],
    ['children-two-workers', '(c)'],
  ] as const) {
    const row = children(id);
    if (!row || row.share === null) continue;
    checks.push(
      {
        target: `${name} >= 90% of the allowance (${groups.limit} requests/s) used`,
        measured: `${(row.share * 100).toFixed(1)}%`,
        met: row.share >= 0.9,
      },
      {
        target: `${name} <= 1% of requests answered 429`,
        measured: `${(row.rateLimitedShare * 100).toFixed(2)}%`,
        met: row.rateLimitedShare <= 0.01,
      },
    );
    if (id === 'children-two-workers' && row.worstExcess !== undefined)
      checks.push({
        target: '(c) the two workers together never above the limit for more than one burst',
        measured: `at most ${row.worstExcess} requests above limit x seconds (one burst: ${groups.limit})`,
        met: row.worstExcess <= groups.limit,
      });
  }
  return checks;
}

export function formatTargets(checks: readonly TargetCheck[]): string {
  return checks
    .map((check) => `${check.met ? 'MET   ' : 'MISSED'} ${check.target}: ${check.measured}`)
    .join('\n');
}
