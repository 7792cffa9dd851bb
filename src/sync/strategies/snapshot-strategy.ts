import type { SnapshotStream } from '../../../config/stream-definition.js';
import type { RejectedRecord } from '../../client/index.js';
import type { EngineContext } from '../engine-context.js';
import type { PartitionJob } from '../partition-job.js';
import { keyReader, toStoreRejects } from '../record-keys.js';
import type { StreamStrategy } from '../stream-strategy.js';
import { SyncConfigurationError } from '../sync-errors.js';
import { fetchSnapshot } from './fetch-snapshot.js';

/**
 * The full list replaces the scope: every record is upserted (unchanged rows are not rewritten),
 * then, only after the complete pass, the rows no longer listed are marked `snapshot_missing`,
 * unless that would delete an implausible share of the scope (MassDeleteError).
 */
export const snapshotStrategy: StreamStrategy<SnapshotStream> = {
  partitions: (definition, ctx) => (definition.scope === 'operator' ? operatorsOf(ctx) : ['']),
  async run(job) {
    const scope = job.definition.scope === 'operator' ? job.partition : undefined;
    const { items, rejected } = await fetchSnapshot(job);
    const keyOf = keyReader(job.definition);
    const state = await job.readState();
    await job.writePage({
      scope,
      records: items,
      rejected: toStoreRejects(rejected, keyOf),
      state: { expectedVersion: state.version, strategyState: { lastPassAt: job.ctx.now().toISOString() } },
    });
    await job.markMissing({ scope, seenIds: seenKeys(items, rejected, keyOf), reason: 'snapshot_missing' });
  },
};

/** The configured operators; a per-operator stream without any is a configuration error. */
export function operatorsOf(ctx: Pick<EngineContext, 'settings'>): string[] {
  if (ctx.settings.operators.length === 0) {
    throw new SyncConfigurationError(
      'no operators configured: set TMS_OPERATORS to sync the per-operator streams',
    );
  }
  return [...ctx.settings.operators];
}

function seenKeys(
  items: readonly unknown[],
  rejected: readonly RejectedRecord[],
  keyOf: (r: unknown) => string | null,
) {
  const seen = new Set<string>();
  for (const record of [...items, ...rejected.map((reject) => reject.record)]) {
    const key = keyOf(record);
    if (key !== null) seen.add(key);
  }
  return seen;
}

export type SnapshotJob = PartitionJob<SnapshotStream>;
