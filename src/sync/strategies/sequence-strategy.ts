import type { SequenceStream } from '../../../config/stream-definition.js';
import { HttpStatusError } from '../../client/index.js';
import type { SyncState } from '../../store/store.js';
import { createPagePipeline } from '../page-pipeline.js';
import type { PartitionJob } from '../partition-job.js';
import { keyReader, sequenceReader, toStoreRejects } from '../record-keys.js';
import { childStreamsOf } from '../stream-order.js';
import type { StreamStrategy } from '../stream-strategy.js';
import { SyncProtocolError } from '../sync-errors.js';
import { reconcileIds } from './reconcile-ids.js';

/** The checkpoint's strategy state: the `since` of the cycle in progress, so a resume asks the same. */
interface CycleState {
  readonly since: number;
}

/** Partition of the `status=deleted` listing, beside the default (`''`) one. */
export const deletedPartition = 'deleted';

/**
 * Spec section 8 to the letter: the first cycle asks `since=1`; each page is committed with a
 * checkpoint (cursor + the cycle's `maxSequence`); the last page commits that `maxSequence` as the
 * watermark in the same transaction, never earlier, never backwards.
 */
export const sequenceStrategy: StreamStrategy<SequenceStream> = {
  partitions: (definition) => (definition.softDeletes ? ['', deletedPartition] : ['']),
  async run(job) {
    const state = await job.readState();
    const resumed = !job.options.full && state.cursor !== null;
    try {
      await runCycle(job, state, resumed);
    } catch (error) {
      if (!(resumed && isCursorRejected(error))) throw error;
      job.ctx.logger.warn(
        { stream: job.stream, partition: job.partition },
        'checkpoint cursor refused; restarting the cycle from the watermark',
      );
      await runCycle(job, await job.readState(), false);
    }
    // A resumed cycle ends at the snapshot of the run that started it, before this run began: one
    // more cycle from its watermark brings in what changed since, so every run ends up to date.
    if (resumed) await runCycle(job, await job.readState(), false);
    if (job.options.reconcile && job.partition === '') await reconcileIds(job);
  },
};

async function runCycle(job: PartitionJob<SequenceStream>, start: SyncState, resume: boolean): Promise<void> {
  const { ctx, definition, stream } = job;
  const since = resume ? sinceOfCheckpoint(start) : job.options.full ? 1 : (start.watermark ?? 1);
  const keyOf = keyReader(definition);
  const sequenceOf = sequenceReader(ctx.settings.sequenceField);
  const children = childStreamsOf(stream);
  // A full cycle of the live listing touches every parent: instead of a queue entry per parent and
  // child (PostgreSQL spent a quarter of a backfill on them), its last page marks each child stream
  // to refresh every live parent, in the transaction that commits the watermark.
  const fullCycle = since === 1 && job.partition === '';
  let version = start.version;
  let cycleMax = resume ? start.cycleMaxSequence : null;
  const pages = ctx.client.pages(definition, {
    since,
    cursor: resume ? (start.cursor ?? undefined) : undefined,
    limit: ctx.settings.sync.pageLimit,
    status: job.partition === deletedPartition ? 'deleted' : undefined,
    signal: job.signal,
  });
  // Pages are written in order, one in flight while the next is fetched and prepared. Each
  // committed transition bumps the state's version by one, so the next page can expect it before
  // the write lands; if that write fails, the pages behind it are not written at all.
  const pipeline = createPagePipeline();
  try {
    for await (const page of pages) {
      const maxSequence = checkMaxSequence(stream, page.maxSequence, cycleMax, start.watermark);
      cycleMax = maxSequence;
      const last = !page.hasMore;
      // An empty page that says hasMore holds nothing to keep: checkpointing its cursor would let a
      // server serving endless empty pages move the state before the client gives up on it.
      if (!last && page.items.length === 0 && page.rejected.length === 0) continue;
      const expectedVersion = version;
      version += 1;
      await pipeline.push((after) =>
        job.writePage(
          {
            records: page.items,
            rejected: toStoreRejects(page.rejected, keyOf),
            sequenceOf,
            deletedUpstream: job.partition === deletedPartition,
            enqueueChildren: fullCycle ? [] : children,
            refreshAllChildren: fullCycle && last ? children : [],
            state: last
              ? {
                  expectedVersion,
                  watermark: maxSequence,
                  cursor: null,
                  cycleMaxSequence: null,
                  strategyState: null,
                }
              : {
                  expectedVersion,
                  cursor: page.nextCursor ?? null,
                  cycleMaxSequence: maxSequence,
                  strategyState: { since } satisfies CycleState,
                },
          },
          after,
        ),
      );
    }
  } finally {
    await pipeline.drain();
  }
}

/** Refuses a page that breaks the `maxSequence` rules before anything of it is written. */
function checkMaxSequence(
  stream: string,
  maxSequence: number | undefined,
  cycleMax: number | null,
  watermark: number | null,
): number {
  if (maxSequence === undefined) {
    throw new SyncProtocolError(stream, 'a page of a since listing carries no maxSequence (spec 8)');
  }
  if (cycleMax !== null && maxSequence !== cycleMax) {
    throw new SyncProtocolError(
      stream,
      `maxSequence changed within a cycle, from ${cycleMax} to ${maxSequence}`,
    );
  }
  if (watermark !== null && maxSequence < watermark) {
    throw new SyncProtocolError(
      stream,
      `maxSequence ${maxSequence} is below the committed watermark ${watermark}`,
    );
  }
  return maxSequence;
}

function sinceOfCheckpoint(state: SyncState): number {
  const since = (state.strategyState as Partial<CycleState> | null)?.since;
  return typeof since === 'number' ? since : (state.watermark ?? 1);
}

function isCursorRejected(error: unknown): boolean {
  return error instanceof HttpStatusError && error.status === 400;
}
