import type { StopSignal } from '../linked-signals.js';
import {
  ackParents,
  enqueueAllParents,
  hasChildWork,
  leaveParents,
  pendingParents,
  refreshAllPending,
  takeParents,
} from './child-queue.js';
import { liveIds, liveKeys } from './read-rows.js';
import { RefreshAllProgress } from './refresh-all-progress.js';
import type { StoreContext } from './store-context.js';
import { StreamUsageError } from './store-errors.js';
import type { LeftParent } from './store-types.js';
import type { StreamTable } from './stream-tables.js';
import type { RunWrite } from './transaction.js';

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

const parentsPerBatch = 200;

/**
 * What a child stream's run works through: the store's child queue and refresh mark. Its writes
 * are the run's (`RunWrite`): in a dry run each is rolled back, so everything stays queued.
 */
export class ChildWork {
  readonly #context: StoreContext;
  readonly #write: RunWrite;
  readonly #signal: StopSignal | undefined;
  readonly #child: string;
  readonly #parent: string;
  #leftInPass = new Map<string, LeftParent>();

  constructor(
    context: StoreContext,
    table: StreamTable,
    run: { write: RunWrite; signal?: StopSignal | undefined },
  ) {
    if (!table.parent) throw new StreamUsageError(table.name, 'not a child stream');
    context.catalogued(table.name);
    this.#context = context;
    this.#write = run.write;
    this.#signal = run.signal;
    this.#child = table.name;
    this.#parent = table.parent;
  }

  /** Queues every parent row, live or deleted (`--full`, `--reconcile`). */
  async queueEveryParent(): Promise<void> {
    const parent = this.#context.table(this.#parent);
    if (parent.scopeColumn) throw new StreamUsageError(this.#parent, 'a parent stream must be unscoped');
    await this.#write('enqueueAllParents', (db) => enqueueAllParents(db, this.#child, parent));
  }

  /**
   * The parents to refresh, in id order, batch by batch: first every live parent when a parent's
   * full cycle asked for it (from where an interrupted pass stood), then the queued parents, then,
   * once every batch before is settled (`settled`), the queue once more if a parent was left in
   * this run. A parent is off the queue only once `done`. A parent the refresh-all pass fetched is
   * not fetched again for its queue entry (queued before).
   */
  async *batches(settled: () => Promise<void>): AsyncIterable<ParentBatch> {
    const child = this.#child;
    const context = this.#context;
    if (!(await context.retry('hasChildWork', () => hasChildWork(context.dialect.db, child)))) return;
    const pending = await this.#write('refreshAllPending', (db) =>
      refreshAllPending(db, child, { take: true }),
    );
    if (pending) {
      const refreshAll = new RefreshAllProgress(this.#write, child);
      for await (const parents of liveIds(this.#context, this.#parent, {
        batchSize: parentsPerBatch,
        after: pending.after,
      })) {
        this.#signal?.throwIfAborted();
        refreshAll.begin(parents);
        // Their queue entries (`--full` queued every parent; a parent page may have too) are
        // served by this fetch: taken now, acked once done, so the queue pass skips them.
        await this.#write('takeParents', (db) => takeParents(db, child, parents));
        yield await this.#batch(parents, refreshAll, async (ids) => {
          await refreshAll.settled(parents, ids);
          await this.#ack(ids);
        });
      }
      await settled();
      await refreshAll.end();
    }
    yield* this.#queuePass();
    await settled();
    if (this.#leftInPass.size === 0) return;
    // Faults come in bursts: the parents left are tried once more, after every other parent.
    this.#leftInPass = new Map();
    yield* this.#queuePass();
    await settled();
  }

  /** The parents still left after the run's last pass (the first ones, with their errors) and how many. */
  left(): { readonly count: number; readonly first: LeftParent | undefined } {
    const values = [...this.#leftInPass.values()];
    return { count: values.length, first: values[0] };
  }

  async *#queuePass(): AsyncGenerator<ParentBatch> {
    let after: string | undefined;
    for (;;) {
      this.#signal?.throwIfAborted();
      const parents = await this.#write('pendingParents', (db) =>
        pendingParents(db, this.#child, { limit: parentsPerBatch, after }),
      );
      if (parents.length === 0) return;
      after = parents.at(-1);
      yield await this.#batch(parents, undefined, (ids) => this.#ack(ids));
    }
  }

  async #batch(
    parents: string[],
    refreshAll: RefreshAllProgress | undefined,
    settle: (parents: readonly string[]) => Promise<void>,
  ): Promise<ParentBatch> {
    const live = await this.#context.retry('liveKeys', () => liveKeys(this.#context, this.#parent, parents));
    return {
      parents,
      live,
      done: async (ids) => {
        for (const id of ids) this.#leftInPass.delete(id);
        await settle(ids);
      },
      leave: async (left) => {
        for (const entry of left) this.#leftInPass.set(entry.parentId, entry);
        await this.#write('leaveParents', (db) => leaveParents(db, this.#child, left));
        await refreshAll?.settled(
          parents,
          left.map((entry) => entry.parentId),
        );
      },
    };
  }

  async #ack(ids: readonly string[]): Promise<void> {
    if (ids.length > 0) await this.#write('ackParents', (db) => ackParents(db, this.#child, ids));
  }
}
