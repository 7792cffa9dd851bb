import pMap from 'p-map';
import type { ChildStream } from '../../../config/stream-definition.js';
import type { JsonObject } from '../../../schemas/json-object.js';
import { HttpStatusError } from '../../client/index.js';
import { forLibrary } from '../../linked-signals.js';
import type { ChildWork, ParentBatch, ScopeReplacement } from '../../store/store.js';
import { describeError, errorSays } from '../../tms-sync-error.js';
import { keyedRecords, sequenceReader } from '../record-keys.js';
import type { PartitionContext, StreamStrategy } from '../stream-strategy.js';
import { LeftBehindError } from '../sync-errors.js';
import { fetchChildren } from './fetch-children.js';
import { createScopeCommitter, type ScopeCommitter } from './scope-committer.js';

type Child = PartitionContext<ChildStream>;

const leftParents = {
  one: 'parent',
  many: 'parents',
  outcome: "every other parent's children were stored; they stay queued and the next run tries them again",
};

/**
 * Children are refreshed for each parent the parent's runs changed (the run's child work: the
 * parents queued by the parent's pages, or every live parent after its full cycle). Up to
 * `TMS_MAX_CONCURRENCY` parents are fetched at once, across batches; each parent's children
 * replace its scope as soon as they arrive, committed in groups (scope-committer.ts), and only
 * then is the parent off the queue (a crash repeats at most the parents in flight). A parent whose
 * request still fails after the client's patience is left queued with its error while the others
 * go on; the run tries it once more at the end, then fails naming how many are left.
 * `--full` and `--reconcile` queue every parent first.
 */
export const childStrategy: StreamStrategy<ChildStream> = {
  // Every parent is fetched again: children gone without their parent's sequence moving.
  reconciles: () => true,
  partitions: () => [''],
  async run(partition) {
    const work = partition.run.childWork();
    if (partition.full || partition.reconcile) await work.queueEveryParent();
    const committer = createScopeCommitter(partition.run);
    const inFlight = new Set<Promise<void>>();
    const settled = async () => {
      await Promise.all(inFlight);
      await committer.drain();
    };
    try {
      await pMap(
        parentsToFetch(work, committer, settled),
        (item) => {
          const fetched = partition
            .giveWay()
            .then(() => refreshParent(partition, committer, item.batch, item.parentId));
          inFlight.add(fetched);
          return fetched.finally(() => inFlight.delete(fetched));
        },
        { concurrency: partition.settings.tms.maxConcurrency, signal: forLibrary(partition.signal) },
      );
    } finally {
      // What was fetched before a failure is still committed; nothing runs on after the run ends.
      await Promise.allSettled(inFlight);
      await committer.drain().catch(() => undefined);
    }
    await committer.drain();
    const left = work.left();
    if (left.count > 0) {
      const first = left.first && { what: `parent ${left.first.parentId}`, error: left.first.error };
      throw new LeftBehindError(partition.stream, left.count, leftParents, first);
    }
  },
};

/** The live parents of every batch, one by one; the gone ones go straight to the committer. */
async function* parentsToFetch(
  work: ChildWork,
  committer: ScopeCommitter,
  settled: () => Promise<void>,
): AsyncGenerator<{ batch: ParentBatch; parentId: string }> {
  for await (const batch of work.batches(settled)) {
    for (const parentId of batch.parents) {
      if (batch.live.has(parentId)) yield { batch, parentId };
      else committer.gone(batch, parentId);
    }
  }
}

async function refreshParent(
  partition: Child,
  committer: ScopeCommitter,
  batch: ParentBatch,
  parentId: string,
): Promise<void> {
  committer.check();
  let scope: ScopeReplacement | undefined;
  try {
    scope = await fetchScope(partition, parentId);
  } catch (error) {
    if (!errorSays(error, 'concernsOneRequest')) throw error;
    partition.logger.warn({ parent: parentId, error: describeError(error) }, 'parent left for later');
    committer.leave(batch, { parentId, error: describeError(error) });
    return;
  }
  if (scope) await committer.replace(batch, scope);
  else committer.gone(batch, parentId);
}

/** One parent's current children, or undefined when the parent vanished upstream since its run (404). */
async function fetchScope(partition: Child, parentId: string): Promise<ScopeReplacement | undefined> {
  try {
    const { children, detail } = await fetchChildren(partition, parentId);
    const origin = {
      stream: partition.stream,
      partition: partition.partition,
      where: `the children of ${parentId}`,
    };
    const sequence = sequenceReader(partition.settings.sequenceField);
    // Lines of an invoice's detail carry no sequence of their own: they are of the detail's version.
    const detailSequence = detail ? sequence(detail) : null;
    const sequenceOf = (record: JsonObject) => sequence(record) ?? detailSequence;
    return { scope: parentId, records: keyedRecords(partition.definition, children, origin, sequenceOf) };
  } catch (error) {
    if (error instanceof HttpStatusError && error.status === 404) return undefined;
    throw error;
  }
}
