import type { RowSummary } from './results-table.js';
import { median } from './sample.js';

/** One target of issue 7 and how this run measured against it. */
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

export function formatTargets(checks: readonly TargetCheck[]): string {
  return checks
    .map((check) => `${check.met ? 'MET   ' : 'MISSED'} ${check.target}: ${check.measured}`)
    .join('\n');
}
