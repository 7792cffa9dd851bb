import type { SequenceStream } from '../../../config/stream-definition.js';
import type { Page } from '../../client/index.js';
import type { SyncState } from '../../store/store.js';
import { errorSays } from '../../tms-sync-error.js';
import { keyedRecords, sequenceReader } from '../record-keys.js';
import type { PartitionContext, StreamStrategy } from '../stream-strategy.js';
import { SyncProtocolError } from '../sync-errors.js';
import { reconcileIds } from './reconcile-ids.js';

/** The checkpoint's strategy state: the `since` of the cycle in progress, so a resume asks the same. */
interface CycleState {
  readonly since: number;
}

/** Partition of the `status=deleted` listing, beside the default (`''`) one. */
export const deletedPartition = 'deleted';

type Sequence = PartitionContext<SequenceStream>;

/**
 * The sync protocol to the letter (docs/sync-engine.md): the first cycle asks `since=1`; each page
 * is committed with a checkpoint (cursor + the cycle's `maxSequence`); the last page commits that
 * `maxSequence` as the watermark in the same transaction, never earlier, never backwards.
 */
export const sequenceStrategy: StreamStrategy<SequenceStream> = {
  // The id scan runs on the default listing only.
  reconciles: (_definition, partition) => partition === '',
  partitions: (definition) => (definition.softDeletes ? ['', deletedPartition] : ['']),
  async run(partition) {
    const { run } = partition;
    const resumed = !partition.full && run.state().cursor !== null;
    try {
      await runCycle(partition, run.state(), resumed);
    } catch (error) {
      // The checkpoint is gone by now (runCycle): an old cursor the TMS no longer honours must not
      // fail the partition for good, so the cycle starts again from the watermark, once.
      if (!(resumed && errorSays(error, 'refusesCursor'))) throw error;
      partition.logger.warn(
        { error: String(error) },
        'checkpoint cursor refused; restarting the cycle from the watermark',
      );
      await runCycle(partition, run.state(), false);
    }
    // A resumed cycle ends at the snapshot of the run that started it, before this run began: one
    // more cycle from its watermark brings in what changed since, so every run ends up to date.
    if (resumed) await runCycle(partition, run.state(), false);
    if (partition.reconcile && partition.partition === '') await reconcileIds(partition);
  },
};

async function runCycle(partition: Sequence, start: SyncState, resume: boolean): Promise<void> {
  const { client, definition, settings, run } = partition;
  const since = resume ? sinceOfCheckpoint(start) : partition.full ? 1 : (start.watermark ?? 1);
  // A full cycle of the live listing touches every parent: its child streams get one "refresh
  // every parent" mark with the last page instead of a queue entry per parent.
  const fullCycle = since === 1 && partition.partition === '';
  const cycleMax = resume ? start.cycleMaxSequence : null;
  const pages = client.pages(definition, {
    since,
    cursor: resume ? (start.cursor ?? undefined) : undefined,
    limit: settings.sync.pageLimit,
    status: partition.partition === deletedPartition ? 'deleted' : undefined,
    signal: partition.signal,
  });
  try {
    await commitPages(partition, pages, { since, fullCycle, cycleMax, start });
  } catch (error) {
    await run.flush();
    // The pages before the refused one stay; the cursor that led to it must never be resumed from.
    if (errorSays(error, 'refusesCursor')) await run.dropCheckpoint();
    throw error;
  }
  await run.flush();
}

async function commitPages(
  partition: Sequence,
  pages: AsyncIterable<Page>,
  cycle: { since: number; fullCycle: boolean; cycleMax: number | null; start: SyncState },
): Promise<void> {
  const { definition, settings, stream, run } = partition;
  const { since, fullCycle, start } = cycle;
  const sequenceOf = sequenceReader(settings.sequenceField);
  let { cycleMax } = cycle;
  for await (const page of pages) {
    const maxSequence = checkMaxSequence(stream, page.maxSequence, cycleMax, start.watermark);
    cycleMax = maxSequence;
    const last = !page.hasMore;
    // An empty page that says hasMore holds nothing to keep: checkpointing its cursor would let a
    // server serving endless empty pages move the state before the client gives up on it.
    if (!last && page.items.length === 0) continue;
    const origin = { stream, partition: partition.partition, where: `page ${page.pageNumber}` };
    // Returns once the page three before it committed: the next page is fetched while this one is written.
    await run.commitPage({
      records: keyedRecords(definition, page.items, origin, sequenceOf),
      received: page.received,
      deletedUpstream: partition.partition === deletedPartition,
      fullCycle,
      state: last
        ? { watermark: maxSequence }
        : {
            checkpoint: {
              cursor: page.nextCursor ?? null,
              cycleMaxSequence: maxSequence,
              strategyState: { since } satisfies CycleState,
            },
          },
    });
    if (!last) await partition.giveWay();
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
    throw new SyncProtocolError(stream, 'a page of a since listing carries no maxSequence');
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
