import type { SnapshotStream } from '../../../config/stream-definition.js';
import { passDigest } from '../../store/pass-digest.js';
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
 * with parts that kept failing marks nothing and fails the run. A pass of one page identical to
 * the last one committed, over a scope whose live rows are exactly its ids, writes nothing: the
 * Driver API lists have no `since`, so most passes of a steady day are such.
 */
export const snapshotStrategy: StreamStrategy<SnapshotStream> = {
  // Every pass is complete and marks what is gone: nothing more to find.
  reconciles: () => false,
  partitions: (definition, ctx) => (definition.scope === 'operator' ? operatorsOf(ctx) : ['']),
  async run(partition) {
    const { run } = partition;
    const scope = partition.definition.scope === 'operator' ? partition.partition : undefined;
    const seenIds: string[] = [];
    const lastPassAt = partition.now().toISOString();
    const pageLimit = partition.settings.sync.pageLimit;
    let gathered: StoreRecord[] = [];
    let pages = 0;
    const commit = (passDigest?: string) => {
      const records = gathered;
      gathered = [];
      pages += 1;
      const strategyState: SnapshotState = { lastPassAt, ...(passDigest ? { passDigest } : {}) };
      return run.commitPage({ records, state: { strategyState }, ...(scope === undefined ? {} : { scope }) });
    };
    const left = await fetchSnapshot(partition, async (records) => {
      for (const record of records) {
        seenIds.push(record.key);
        gathered.push(record);
      }
      if (gathered.length >= pageLimit) await commit();
    });
    // A pass of one page is compared whole with the last one; a `--full` run writes it regardless.
    const digest = pages === 0 && left.count === 0 ? passDigest(scope, gathered) : undefined;
    if (!partition.full && digest !== undefined && digest === lastDigest(run.state().strategyState)) {
      const pass = { records: gathered, ...(scope === undefined ? {} : { scope }) };
      if (await run.keepUnchangedPass(pass)) return;
    }
    // An empty list (no ids referenced) still records the pass.
    if (gathered.length > 0 || pages === 0) await commit(digest);
    await run.flush();
    if (left.count > 0) throw new LeftBehindError(partition.stream, left.count, leftBatches, left.first);
    // The pass's rows it inserted are this scope's new ones, on its balance.
    await run.markMissing({
      seenIds,
      reason: 'snapshot_missing',
      listedNew: run.counts.inserted,
      ...(scope === undefined ? {} : { scope }),
    });
  },
};

/**
 * What a snapshot partition keeps between passes: when the last one ran, and, for a pass of one
 * page, its digest (pass-digest.ts), so an identical pass writes nothing.
 */
interface SnapshotState {
  readonly lastPassAt: string;
  readonly passDigest?: string;
}

function lastDigest(state: unknown): string | undefined {
  const digest = (state as Partial<SnapshotState> | null)?.passDigest;
  return typeof digest === 'string' ? digest : undefined;
}

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
