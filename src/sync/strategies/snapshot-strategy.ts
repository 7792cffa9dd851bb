import type { SnapshotStream } from '../../../config/stream-definition.js';
import type { StoreRecord } from '../../store/store.js';
import type { StreamStrategy } from '../stream-strategy.js';
import { LeftBehindError, SyncConfigurationError } from '../sync-errors.js';
import { fetchSnapshot } from './fetch-snapshot.js';

const leftBatches = {
  one: 'request',
  many: 'requests',
  outcome: 'everything else was stored, and no row was marked deleted on the incomplete list',
};

/**
 * The full list replaces the scope: its parts are upserted as they arrive (unchanged rows are not
 * rewritten), gathered into pages of up to `sync.pageLimit` records, so a list fetched one
 * referenced resource at a time (a dossier folder per order) costs a commit per page, not per
 * request. Only after a complete pass are the rows no longer listed marked `snapshot_missing`,
 * unless the delete guard finds that implausible and holds them back (delete-guard.ts). A pass
 * with parts that kept failing marks nothing and fails the run.
 */
export const snapshotStrategy: StreamStrategy<SnapshotStream> = {
  // Every pass is complete and marks what is gone: nothing more to find.
  reconciles: () => false,
  partitions: (definition, ctx) => (definition.scope === 'operator' ? operatorsOf(ctx) : ['']),
  async run(partition) {
    const { run } = partition;
    const scope = partition.definition.scope === 'operator' ? partition.partition : undefined;
    const seenIds: string[] = [];
    const state = { strategyState: { lastPassAt: partition.now().toISOString() } };
    const pageLimit = partition.settings.sync.pageLimit;
    let gathered: StoreRecord[] = [];
    let pages = 0;
    const commit = () => {
      const records = gathered;
      gathered = [];
      pages += 1;
      return run.commitPage({ ...(scope === undefined ? {} : { scope }), records, state });
    };
    const left = await fetchSnapshot(partition, async (records) => {
      for (const record of records) {
        seenIds.push(record.key);
        gathered.push(record);
      }
      if (gathered.length >= pageLimit) await commit();
    });
    // An empty list (no ids referenced) still records the pass.
    if (gathered.length > 0 || pages === 0) await commit();
    await run.flush();
    if (left.count > 0) throw new LeftBehindError(partition.stream, left.count, leftBatches, left.first);
    // The pass's rows it inserted are this scope's new ones, on its balance.
    await run.markMissing({
      ...(scope === undefined ? {} : { scope }),
      seenIds,
      reason: 'snapshot_missing',
      listedNew: run.counts.inserted,
    });
  },
};

/** The configured operators; a per-operator stream without any is a configuration error. */
export function operatorsOf(ctx: { readonly settings: { readonly operators: readonly string[] } }): string[] {
  if (ctx.settings.operators.length === 0) {
    throw new SyncConfigurationError(
      'TMS_OPERATORS',
      'no operators configured: set TMS_OPERATORS to sync the per-operator (Driver API) streams',
    );
  }
  return [...ctx.settings.operators];
}
