import type { ChildStream } from '../../../config/stream-definition.js';
import { HttpStatusError } from '../../client/index.js';
import type { PartitionJob } from '../partition-job.js';
import { keyReader, toStoreRejects } from '../record-keys.js';
import type { StreamStrategy } from '../stream-strategy.js';
import { fetchChildren } from './fetch-children.js';

const parentsPerBatch = 200;

/**
 * Children are refreshed for each parent the parent's run changed: its pages put their ids in the
 * store's child queue in the same transaction. A batch of queued parents is taken, each live parent's
 * children replace its scope, deleted parents' children are marked `parent_deleted`, and only then
 * is the batch removed from the queue (a crash repeats the batch; writes are idempotent).
 * `--full` and `--reconcile` queue every parent first.
 */
export const childStrategy: StreamStrategy<ChildStream> = {
  partitions: () => [''],
  async run(job) {
    const { store } = job.ctx;
    if ((job.options.full || job.options.reconcile) && !job.options.dryRun) {
      await store.enqueueAllParents(job.stream, job.definition.parent);
    }
    let after: string | undefined;
    for (;;) {
      job.signal?.throwIfAborted();
      const parents = await store.pendingParents(job.stream, { limit: parentsPerBatch, after });
      if (parents.length === 0) return;
      await refreshBatch(job, parents);
      // A dry run leaves the queue as it is, so it pages through it instead of draining it.
      if (job.options.dryRun) after = parents.at(-1);
      else await store.ackParents(job.stream, parents);
    }
  },
};

async function refreshBatch(job: PartitionJob<ChildStream>, parents: readonly string[]): Promise<void> {
  const live = await job.ctx.store.liveKeys(job.definition.parent, parents);
  const gone = parents.filter((id) => !live.has(id));
  if (gone.length > 0) await job.markDeletedByScope({ scopeValues: gone, reason: 'parent_deleted' });
  const queue = parents.filter((id) => live.has(id));
  const workers = Array.from({ length: job.ctx.settings.sync.childConcurrency }, async () => {
    for (let parentId = queue.shift(); parentId !== undefined; parentId = queue.shift()) {
      await refreshParent(job, parentId);
    }
  });
  await Promise.all(workers);
}

async function refreshParent(job: PartitionJob<ChildStream>, parentId: string): Promise<void> {
  let batch: Awaited<ReturnType<typeof fetchChildren>>;
  try {
    batch = await fetchChildren(job, parentId);
  } catch (error) {
    // The parent vanished upstream since its run: its children go with it.
    if (error instanceof HttpStatusError && error.status === 404) {
      await job.markDeletedByScope({ scopeValues: [parentId], reason: 'parent_deleted' });
      return;
    }
    throw error;
  }
  const keyOf = keyReader(job.definition);
  await job.writePage({
    scope: parentId,
    records: batch.items,
    rejected: toStoreRejects(batch.rejected, keyOf),
  });
  const seen = new Set<string>();
  for (const record of [...batch.items, ...batch.rejected.map((reject) => reject.record)]) {
    const key = keyOf(record);
    if (key !== null) seen.add(key);
  }
  await job.markMissing({ scope: parentId, seenIds: seen, reason: 'snapshot_missing' });
}
