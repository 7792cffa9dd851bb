import type { ChildStream } from '../../../config/stream-definition.js';
import { HttpStatusError } from '../../client/index.js';
import type { ScopeReplacement } from '../../store/store.js';
import type { PartitionJob } from '../partition-job.js';
import { keyReader, toStoreRejects } from '../record-keys.js';
import type { StreamStrategy } from '../stream-strategy.js';
import { fetchChildren } from './fetch-children.js';

const parentsPerBatch = 200;

/**
 * Children are refreshed for each parent the parent's run changed: its pages put their ids in the
 * store's child queue in the same transaction. A batch of queued parents is taken, the live
 * parents' children are fetched (bounded concurrency) and replace their scopes in ONE transaction,
 * deleted parents' children are marked `parent_deleted`, and only then is the batch removed from
 * the queue (a crash repeats the batch; writes are idempotent). A parent's full cycle marks the
 * stream to refresh every live parent instead (one mark, its progress kept per batch).
 * `--full` and `--reconcile` queue every parent first.
 */
export const childStrategy: StreamStrategy<ChildStream> = {
  partitions: () => [''],
  async run(job) {
    const { store } = job.ctx;
    if ((job.options.full || job.options.reconcile) && !job.options.dryRun) {
      await store.enqueueAllParents(job.stream, job.definition.parent);
    }
    await refreshAllParents(job);
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

/** After a parent's full cycle: every live parent, in id order, from where an interrupted pass stood. */
async function refreshAllParents(job: PartitionJob<ChildStream>): Promise<void> {
  const { store } = job.ctx;
  const dryRun = job.options.dryRun ?? false;
  const pending = await store.refreshAllPending(job.stream, { take: !dryRun });
  if (!pending) return;
  const batches = store.liveIds(job.definition.parent, { batchSize: parentsPerBatch, after: pending.after });
  for await (const parents of batches) {
    job.signal?.throwIfAborted();
    await refreshBatch(job, parents);
    if (!dryRun) await store.advanceRefreshAll(job.stream, parents.at(-1));
  }
  if (!dryRun) await store.advanceRefreshAll(job.stream, undefined);
}

async function refreshBatch(job: PartitionJob<ChildStream>, parents: readonly string[]): Promise<void> {
  const live = await job.ctx.store.liveKeys(job.definition.parent, parents);
  const gone = parents.filter((id) => !live.has(id));
  const queue = parents.filter((id) => live.has(id));
  const scopes: ScopeReplacement[] = [];
  const workers = Array.from({ length: job.ctx.settings.sync.childConcurrency }, async () => {
    for (let parentId = queue.shift(); parentId !== undefined; parentId = queue.shift()) {
      const scope = await fetchScope(job, parentId);
      if (scope) scopes.push(scope);
      else gone.push(parentId);
    }
  });
  await Promise.all(workers);
  if (gone.length > 0) await job.markDeletedByScope({ scopeValues: gone, reason: 'parent_deleted' });
  if (scopes.length > 0) await job.replaceScopes(scopes);
}

/** One parent's current children, or undefined when the parent vanished upstream since its run (404). */
async function fetchScope(
  job: PartitionJob<ChildStream>,
  parentId: string,
): Promise<ScopeReplacement | undefined> {
  try {
    const batch = await fetchChildren(job, parentId);
    return {
      scope: parentId,
      records: batch.items,
      rejected: toStoreRejects(batch.rejected, keyReader(job.definition)),
    };
  } catch (error) {
    if (error instanceof HttpStatusError && error.status === 404) return undefined;
    throw error;
  }
}
