import type { LeftParent } from './child-queue.js';
import type { StoreVerbs } from './store.js';
import type { StreamTable } from './stream-tables.js';

/** Parents of a child stream taken together; each must be settled, `done` or `leave`, once. */
export interface ParentBatch {
  readonly parents: readonly string[];
  /** Which of them are live parents; the others are gone upstream (their children follow). */
  readonly live: ReadonlySet<string>;
  /** These parents' children are committed: off the queue (a refresh-all pass moves on past them). */
  done(parents: readonly string[]): Promise<void>;
  /** These parents' children could not be fetched: they stay queued with their error. */
  leave(parents: readonly LeftParent[]): Promise<void>;
}

/** What a child stream's run works through. */
export interface ChildWork {
  /** Queues every parent row, live or deleted (`--full`, `--reconcile`). Nothing in a dry run. */
  queueEveryParent(): Promise<void>;
  /**
   * The parents to refresh, in id order, batch by batch: first every live parent when a parent's
   * full cycle asked for it (from where an interrupted pass stood), then the queued parents, then,
   * once every batch before is settled (`settled`), the queue once more if a parent was left in
   * this run. A parent is off the queue only once `done`; a dry run leaves everything queued. A
   * parent the refresh-all pass fetched is not fetched again for its queue entry (queued before).
   */
  batches(settled: () => Promise<void>): AsyncIterable<ParentBatch>;
  /** The parents still left after the run's last pass (the first ones, with their errors) and how many. */
  left(): { readonly count: number; readonly first: LeftParent | undefined };
}

export const parentsPerBatch = 200;

/** The child work of a child stream's run (the store's child queue and refresh mark). */
export function createChildWork(
  verbs: StoreVerbs,
  table: StreamTable,
  options: { readonly dryRun: boolean; readonly signal?: AbortSignal | undefined },
): ChildWork {
  const child = table.name;
  const parent = table.parent;
  if (!parent) throw new Error(`${child} is not a child stream`);
  const { dryRun } = options;
  const refreshAll = refreshAllProgress(verbs, child, dryRun);
  let leftInPass = new Map<string, LeftParent>();

  const batch = async (
    parents: string[],
    settle: (parents: readonly string[]) => Promise<void>,
  ): Promise<ParentBatch> => ({
    parents,
    live: await verbs.liveKeys(parent, parents),
    async done(ids) {
      for (const id of ids) leftInPass.delete(id);
      await settle(ids);
    },
    async leave(left) {
      for (const entry of left) leftInPass.set(entry.parentId, entry);
      if (!dryRun) await verbs.leaveParents(child, left);
      await refreshAll.settled(
        parents,
        left.map((entry) => entry.parentId),
      );
    },
  });

  async function* queuePass(): AsyncGenerator<ParentBatch> {
    let after: string | undefined;
    for (;;) {
      options.signal?.throwIfAborted();
      const parents = await verbs.pendingParents(child, { limit: parentsPerBatch, after });
      if (parents.length === 0) return;
      after = parents.at(-1);
      yield await batch(parents, async (ids) => {
        if (!dryRun && ids.length > 0) await verbs.ackParents(child, ids);
      });
    }
  }

  return {
    async queueEveryParent() {
      if (!dryRun) await verbs.enqueueAllParents(child, parent);
    },
    async *batches(settled) {
      const pending = await verbs.refreshAllPending(child, { take: !dryRun });
      if (pending) {
        for await (const parents of verbs.liveIds(parent, {
          batchSize: parentsPerBatch,
          after: pending.after,
        })) {
          options.signal?.throwIfAborted();
          refreshAll.begin(parents);
          // Their queue entries (`--full` queued every parent; a parent page may have too) are
          // served by this fetch: taken now, acked once done, so the queue pass skips them.
          if (!dryRun) await verbs.takeParents(child, parents);
          yield await batch(parents, async (ids) => {
            await refreshAll.settled(parents, ids);
            if (!dryRun && ids.length > 0) await verbs.ackParents(child, ids);
          });
        }
        await settled();
        await refreshAll.end();
      }
      yield* queuePass();
      await settled();
      if (leftInPass.size === 0) return;
      // Faults come in bursts: the parents left are tried once more, after every other parent.
      leftInPass = new Map();
      yield* queuePass();
      await settled();
    },
    left() {
      const values = [...leftInPass.values()];
      return { count: values.length, first: values[0] };
    },
  };
}

/**
 * Where a refresh-all pass stands: parents settle in any order (fetched at once), but the mark
 * moves only past the longest run of settled parents from the start, so a crash never skips a
 * parent and repeats at most the ones that were in flight.
 */
function refreshAllProgress(verbs: StoreVerbs, child: string, dryRun: boolean) {
  const order: string[] = [];
  const settledIds = new Set<string>();
  const batches = new Set<readonly string[]>();
  let advancing: Promise<void> = Promise.resolve();
  return {
    begin(parents: readonly string[]) {
      batches.add(parents);
      order.push(...parents);
    },
    /** Counts `ids` of the batch `parents` as settled, and moves the mark past the settled prefix. */
    async settled(parents: readonly string[], ids: readonly string[]) {
      if (!batches.has(parents)) return;
      for (const id of ids) settledIds.add(id);
      let last: string | undefined;
      while (order.length > 0 && settledIds.has(order[0]!)) {
        last = order.shift();
        settledIds.delete(last!);
      }
      if (last === undefined || dryRun) return;
      const afterId = last;
      advancing = advancing.then(() => verbs.advanceRefreshAll(child, afterId));
      await advancing;
    },
    async end() {
      await advancing;
      if (!dryRun) await verbs.advanceRefreshAll(child, undefined);
    },
  };
}
