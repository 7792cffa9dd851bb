import type { SimChange } from '../src/sim/sim-admin-client.js';
import { lastRunId, runProduct } from './product-run.js';
import { type Sample, sampled } from './sample.js';
import type { SimProcess } from './sim-process.js';

/** Shares of the data set changed before each incremental cycle (the 0.1%, 1%, 10%). */
export const changeShares = [0.001, 0.01, 0.1] as const;

export interface IncrementalSample extends Sample {
  readonly share: number;
  readonly changes: number;
  /** The fewest pages a cycle can fetch: the changed records' pages, at least one per partition. */
  readonly minimumPages: number;
}

export interface IncrementalOptions {
  readonly sim: SimProcess;
  /** A store the product has backfilled. */
  readonly storeUrl: string;
  readonly records: number;
  readonly repetitions: number;
  readonly pageLimit?: number;
}

/**
 * Incremental cycles on one backfilled store: each repetition changes 0.1%, 1% and 10% of the
 * records in turn (invoices only, every kind of change) and times the `sync invoices` that
 * follows each, so every cycle sees exactly the changes made since the one before.
 */
export async function measureIncremental(options: IncrementalOptions): Promise<IncrementalSample[]> {
  const { sim, storeUrl } = options;
  const samples: IncrementalSample[] = [];
  let afterRunId = await lastRunId(storeUrl);
  for (let repetition = 0; repetition < options.repetitions; repetition++) {
    for (const [index, share] of changeShares.entries()) {
      const count = Math.max(1, Math.round(options.records * share));
      const changes = await sim.changeInvoices(count, 1000 * (repetition + 1) + index * 100);
      let runId = afterRunId;
      const sample = await sampled(sim, async () => {
        const run = await runProduct({ simUrl: sim.url, storeUrl, afterRunId });
        runId = run.lastRunId;
        return run;
      });
      afterRunId = runId;
      samples.push({
        ...sample,
        share,
        changes: count,
        minimumPages: minimumPages(changes, options.pageLimit),
      });
    }
  }
  return samples;
}

/** By each changed invoice's last change: soft-deleted ones are in the `deleted` listing, hard-deleted in none. */
export function minimumPages(changes: readonly SimChange[], pageLimit = 1000): number {
  const last = new Map(changes.map((change) => [change.id, change.kind]));
  const kinds = [...last.values()];
  const deleted = kinds.filter((kind) => kind === 'softDelete').length;
  const live = kinds.filter((kind) => kind !== 'softDelete' && kind !== 'hardDelete').length;
  return Math.max(1, Math.ceil(live / pageLimit)) + Math.max(1, Math.ceil(deleted / pageLimit));
}
