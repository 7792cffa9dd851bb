import { ChildWork } from './child-work.js';
import { noScopes } from './delete-guard.js';
import { markDeletedByScope } from './mark-deleted.js';
import { liveInScope, markMissing, settledScope } from './mark-missing.js';
import { PageLine } from './page-line.js';
import { type PassIds, referencesOf } from './pass-references.js';
import { referencedIds } from './read-rows.js';
import { replaceScopes } from './replace-scopes.js';
import { RunState } from './run-state.js';
import { addCounts, emptyTally, type WriteCounts } from './run-tally.js';
import type { StoreContext } from './store-context.js';
import type {
  OpenRunInput,
  PageCommit,
  RunTally,
  ScopeReplacement,
  ScopeTally,
  StoreRecord,
  SyncState,
} from './store-types.js';
import type { StreamTable } from './stream-tables.js';
import { endedRunValues, finishRun, type RunStart, startRun } from './sync-runs.js';
import { readState, type StateTransition, startRunReadingState, stateVersion } from './sync-state.js';
import { inTransaction, type RunWrite } from './transaction.js';
import { writePage } from './write-page.js';

/** A scope's live rows and the deletes the guard holds of it. */
interface ScopeCount {
  readonly live: number;
  readonly held: number;
}

/**
 * One run of one stream partition: the only way the engine writes a stream's rows and state. It
 * owns what a strategy must never decide itself (docs/sync-engine.md):
 * - the state and its version (run-state.ts): every commit is a compare-and-set on the version
 *   the run read, advanced by the run's own commits;
 * - the dry run, decided when the run opens: every write is the same transaction, rolled back;
 * - the child streams a parent's pages and deletes concern, from the catalogue;
 * - the counts, the progress reports and the run's `sync_runs` row. Where the state is read without
 *   a round trip (`StoreDialect.readsLocally`) or was read with its plan's (plan-reads.ts), the row
 *   is written before the run's first write, or whole when it ends if it wrote nothing else: one
 *   statement instead of two for a run that finds nothing new, most runs of an idle cycle
 *   (docs/store.md, "A run's row").
 * Pages commit in the order given (page-line.ts): `commitPage` returns while the database still
 * writes the last few, so the caller fetches and prepares the next page meanwhile.
 */
export class PartitionRun {
  readonly #counts: RunTally = emptyTally();
  readonly #context: StoreContext;
  readonly #table: StreamTable;
  readonly #input: OpenRunInput;
  readonly #now: () => Date;
  readonly #dryRun: boolean;
  readonly #state: RunState;
  readonly #pages: PageLine;
  #judgedScopes: ScopeTally = noScopes;
  /** How the run's row starts; undefined in a dry run, which records nothing. */
  readonly #start: RunStart | undefined;
  /** The run's row once written (its id), or being written. */
  #recording: Promise<number> | undefined;
  #runId: number | null = null;
  /** Whether the run began a write (`#recorded`, which every write awaits first). */
  #wrote = false;
  /** The plan's read of the run's own scope, made before its first write (`#ownScopeFoundEmpty`). */
  #scopeFoundEmpty: Promise<boolean> | undefined;
  /** The run's own scope's counts, read by its start statement (`OpenRunInput.readsOwnScope`). */
  readonly #startScope: ScopeCount | undefined;

  /**
   * Begins a run: reads the partition's state (or takes it from its plan's reads) and, unless the
   * dialect reads it locally or the plan read it, records the run's start in the same statement
   * (`sync_runs`; nothing in a dry run).
   */
  static async open(context: StoreContext, table: StreamTable, input: OpenRunInput): Promise<PartitionRun> {
    const { stream, partition } = input;
    const now = input.now ?? (() => new Date());
    const { db, types } = context.dialect;
    const start = input.dryRun
      ? undefined
      : { stream, partition, trigger: input.trigger, startedAt: now().toISOString() };
    if (input.planReads) {
      const found = await input.planReads.state(stream, partition);
      return new PartitionRun(context, table, input, found, start, undefined);
    }
    if (!start || context.dialect.readsLocally) {
      const found = await context.retry('readState', () => readState(db, types, stream, partition));
      return new PartitionRun(context, table, input, found, start, undefined);
    }
    // Its own scope: the partition's rows of a scoped table, every row of an unscoped one.
    const ownScope =
      input.readsOwnScope && Boolean(table.scopeColumn) === (partition !== '') ? table : undefined;
    const { runId, state, scope } = await context.retry('startRun', () =>
      startRunReadingState(db, types, start, ownScope),
    );
    return new PartitionRun(context, table, input, state, start, runId, scope);
  }

  private constructor(
    context: StoreContext,
    table: StreamTable,
    input: OpenRunInput,
    found: SyncState,
    start: RunStart | undefined,
    runId: number | undefined,
    startScope?: ScopeCount,
  ) {
    this.#context = context;
    this.#table = table;
    this.#input = input;
    this.#now = input.now ?? (() => new Date());
    this.#dryRun = input.dryRun ?? false;
    this.#state = new RunState(found, { writes: !this.#dryRun });
    this.#pages = new PageLine(input);
    this.#start = start;
    this.#startScope = startScope;
    if (runId !== undefined) {
      this.#runId = runId;
      this.#recording = Promise.resolve(runId);
    }
  }

  /** The run's row in `sync_runs`: null in a dry run, and until the row is written. */
  get runId(): number | null {
    return this.#runId;
  }

  get counts(): Readonly<RunTally> {
    return this.#counts;
  }

  /** The partition's state as the run found it, then as its own commits left it. */
  state(): SyncState {
    return this.#state.current;
  }

  /**
   * Commits one page with the state it leaves (`PageState`): its records, its transition and its
   * children's queue entries in one transaction. Returns once the page three before it committed.
   */
  async commitPage(page: PageCommit): Promise<void> {
    // Read before the run's first write: its own rows are then never in the count (markMissing).
    // A read that fails costs the page nothing: the pass is then checked as any other.
    if (!this.#wrote && (this.#input.planReads || this.#startScope)) {
      this.#scopeFoundEmpty = this.#ownScopeFoundEmpty(page.scope).catch(() => false);
      await this.#scopeFoundEmpty;
    }
    this.#wrote = true;
    const children = this.#table.children;
    const fullCycle = page.fullCycle ?? false;
    const lastOfCycle = 'watermark' in page.state;
    await this.#pages.hand(async (after, order) => {
      const result = await writePage(this.#context, {
        stream: this.#input.stream,
        runId: await this.#recorded(),
        now: this.#now(),
        ...(page.scope === undefined ? {} : { scope: page.scope }),
        records: page.records,
        received: page.received,
        deletedUpstream: page.deletedUpstream ?? false,
        enqueueChildren: fullCycle ? [] : children,
        refreshAllChildren: fullCycle && lastOfCycle ? children : [],
        state: this.#state.ofPage(page.state),
        rollback: this.#dryRun,
        after,
        order,
      });
      this.#counts.pages += 1;
      this.#counts.records += page.records.length;
      if ('watermark' in page.state) this.#counts.watermark = page.state.watermark;
      this.#state.committed(result.state);
      this.#count(result);
    });
  }

  /** Waits for every page given to commit; throws the first failure (pages after it never begin). */
  flush(): Promise<void> {
    return this.#pages.settled();
  }

  /**
   * Once the pages given committed, forgets the checkpoint of the cycle in progress (cursor, the
   * cycle's `maxSequence`, the strategy state), keeping the watermark: the engine refused what
   * that cursor led to, so no later run may resume from it. Nothing when there is no checkpoint.
   */
  async dropCheckpoint(): Promise<void> {
    await this.#pages.settled();
    const state = this.#state.withoutCheckpoint();
    if (state) await this.#writeState(state, undefined);
  }

  /**
   * A complete pass whose digest equals the last committed pass's: when the scope's live rows are
   * exactly its ids (none deleted or added since, nothing held by the guard), the rows already hold
   * these records, so nothing is written and the pass counts as one unchanged page (true). False:
   * the pass must be committed and marked as usual. With `learned`, the strategy state is still
   * written (what the strategy learned of the pass, its answers' digest), never the rows.
   */
  async keepUnchangedPass(
    pass: { scope?: string; records: readonly StoreRecord[] },
    learned?: unknown,
  ): Promise<boolean> {
    this.#input.signal?.throwIfAborted();
    const { stream } = this.#input;
    const input = { stream, scope: pass.scope, seenIds: pass.records.map((record) => record.key) };
    const settled = await this.#context.retry('settledScope', () =>
      settledScope(this.#context, this.#table, input),
    );
    if (!settled || settled.live !== settled.seen || settled.seen !== pass.records.length) return false;
    if (learned !== undefined)
      await this.#writeState(this.#state.ofPage({ strategyState: learned }), pass.scope);
    // The pass's records are now the scope's live rows, at the version this run read (or wrote).
    if (this.#input.partition === (pass.scope ?? ''))
      this.#context.passReferences.remember(
        this.#table,
        { scope: pass.scope, version: this.#state.current.version },
        pass.records,
      );
    this.#keptUnchanged(pass.records.length);
    return true;
  }

  /**
   * A complete pass whose answers equal to the byte those of the pass the state was committed with,
   * which held `records` records: when the scope has as many live rows and the guard holds nothing
   * of it, those rows are that pass's (only this partition writes its scope; a later commit would
   * have replaced the state), so nothing is read or written and the pass counts as one unchanged
   * page (true). False: the answers must be read.
   */
  async keepUnchangedAnswers(pass: {
    scope?: string;
    records: number;
    references?: PassIds;
  }): Promise<boolean> {
    this.#input.signal?.throwIfAborted();
    const input = { stream: this.#input.stream, scope: pass.scope };
    // The count of the run's own scope read before the run wrote stands: afresh once it did.
    const early = this.#wrote ? undefined : this.#earlyOwnScope(pass.scope);
    const found = early
      ? await early
      : await this.#context.retry('liveInScope', () => liveInScope(this.#context, this.#table, input));
    if (found.held > 0 || found.live !== pass.records) return false;
    // The ids other streams fetch by, kept with that pass: the scope's live rows' ids, at this version.
    if (pass.references && this.#input.partition === (pass.scope ?? ''))
      this.#context.passReferences.rememberIds(
        this.#table,
        { scope: pass.scope, version: this.#state.current.version },
        pass.references,
      );
    this.#keptUnchanged(pass.records);
    return true;
  }

  /**
   * The ids at every path other streams fetch by this stream's records at (the goods of the
   * tasks), for a pass to keep in its state; undefined when none does, or too many to keep.
   */
  referencesOf(records: readonly StoreRecord[]): PassIds | undefined {
    return referencesOf(this.#table, records);
  }

  #keptUnchanged(records: number): void {
    this.#counts.pages += 1;
    this.#counts.records += records;
    this.#count({ unchanged: records });
  }

  /** Writes the partition's state alone (no rows), once the pages given committed. */
  async #writeState(state: StateTransition | undefined, scope: string | undefined): Promise<void> {
    await this.#pages.settled();
    const result = await writePage(this.#context, {
      stream: this.#input.stream,
      ...(scope === undefined ? {} : { scope }),
      runId: await this.#recorded(),
      now: this.#now(),
      records: [],
      state,
      rollback: this.#dryRun,
    });
    this.#state.committed(result.state);
  }

  /** After a complete pass (snapshot, reconcile): marks the live rows not seen deleted, unless the guard holds them. */
  async markMissing(pass: {
    scope?: string;
    seenIds: Iterable<string>;
    reason: 'snapshot_missing' | 'reconcile_missing';
    listedNew?: number;
  }): Promise<void> {
    this.#input.signal?.throwIfAborted();
    if (await (this.#scopeFoundEmpty ?? this.#ownScopeFoundEmpty(pass.scope))) {
      this.#count({ deleted: 0, held: 0 });
      return;
    }
    const input = {
      ...pass,
      ...(await this.#writeOf()),
      guard: this.#input.guard,
      enqueueChildren: this.#table.children,
    };
    this.#count(await this.#context.retry('markMissing', () => markMissing(this.#context, input)));
  }

  /**
   * Whether the run's own scope was read before its first write (by the plan or the run's start)
   * with no live row and no delete held: only this run writes its scope, and only rows of its
   * pass, so no live row can be missing from the pass (a backfill's every operator, whose settled
   * check was a statement each, its list of ids kept across it). False without such a read.
   */
  async #ownScopeFoundEmpty(scope: string | undefined): Promise<boolean> {
    const early = this.#earlyOwnScope(scope);
    if (!early) return false;
    const found = await early;
    return found.live === 0 && found.held === 0;
  }

  /**
   * The run's own scope's live and held rows as read before its first write: by its plan, or by
   * its start statement. Undefined for another scope, or when neither read it.
   */
  #earlyOwnScope(scope: string | undefined): Promise<ScopeCount> | undefined {
    const { stream, partition, planReads } = this.#input;
    if ((scope ?? '') !== partition) return undefined;
    if (planReads) return scope === undefined ? undefined : planReads.live(stream, this.#table, scope);
    return this.#startScope && Promise.resolve(this.#startScope);
  }

  /**
   * The complete child lists of a group of parents, in one transaction (child streams). The
   * guard judges the scopes emptied over the whole run, whatever the size of the groups.
   */
  async replaceScopes(scopes: readonly ScopeReplacement[]): Promise<void> {
    this.#input.signal?.throwIfAborted();
    const input = {
      ...(await this.#writeOf()),
      scopes,
      guard: this.#input.guard,
      earlier: this.#judgedScopes,
    };
    const result = await this.#context.retry('replaceScopes', () => replaceScopes(this.#context, input));
    this.#judgedScopes = {
      hadRows: this.#judgedScopes.hadRows + result.scopes.hadRows,
      emptied: this.#judgedScopes.emptied + result.scopes.emptied,
    };
    this.#counts.pages += scopes.length;
    for (const scope of scopes) this.#counts.records += scope.records.length;
    this.#count(result);
  }

  /** Marks every live row of these scopes (parents gone upstream) `parent_deleted`. */
  async markScopesDeleted(scopeValues: readonly string[]): Promise<void> {
    if (scopeValues.length === 0) return;
    const input = { ...(await this.#writeOf()), scopeValues };
    const deleted = await this.#context.retry('markDeletedByScope', () =>
      markDeletedByScope(this.#context, input),
    );
    this.#count({ deleted });
  }

  /** The parents a child stream must refresh, batch by batch (child-work.ts). */
  childWork(): ChildWork {
    return new ChildWork(this.#context, this.#table, { write: this.#write, signal: this.#input.signal });
  }

  /** The distinct ids at `path` of another stream's live rows (the goods of the operator's tasks), sorted. */
  async referencedIds(stream: string, path: string, scope?: string): Promise<string[]> {
    const references = this.#context.passReferences;
    if (references.knows(stream, scope)) {
      const { db } = this.#context.dialect;
      const { planReads } = this.#input;
      const version = planReads
        ? await planReads.version(stream, scope ?? '')
        : await this.#context.retry('stateVersion', () => stateVersion(db, stream, scope ?? ''));
      const remembered = references.recall(stream, scope, path, version);
      if (remembered) return remembered;
    }
    return this.#context.retry('referencedIds', () => referencedIds(this.#context, stream, { path, scope }));
  }

  /**
   * Records how the run ended in `sync_runs` (nothing in a dry run): its row's end, or the whole
   * row when the run wrote nothing before (or its start could not be recorded).
   */
  async finish(outcome: {
    result: 'succeeded' | 'failed' | 'interrupted';
    error: string | null;
  }): Promise<void> {
    const start = this.#start;
    if (!start) return;
    const input = { now: this.#now(), ...outcome, ...this.#counts };
    const { db } = this.#context.dialect;
    const runId = this.#recording && (await this.#recording.catch(() => undefined));
    if (runId !== undefined) {
      await this.#context.retry('finishRun', () => finishRun(db, runId, input));
    } else {
      // A write after this (none is due: the strategy has ended) finds the row and carries its id.
      const row = endedRunValues(start, input);
      this.#recording = this.#context.retry('recordRun', () => this.#context.endedRuns.record(row));
      this.#runId = await this.#recording;
    }
    this.#context.runRetention.ended(input.now);
  }

  /** The run's row, written as the run starts its first write; null in a dry run. */
  #recorded(): Promise<number | null> {
    this.#wrote = true;
    const start = this.#start;
    if (!start) return Promise.resolve(null);
    this.#recording ??= this.#context
      .retry('startRun', () => startRun(this.#context.dialect.db, start))
      .then((runId) => {
        this.#runId = runId;
        return runId;
      });
    return this.#recording;
  }

  /** What every write of the run carries: its stream, clock and run, and whether it is rolled back. */
  async #writeOf() {
    const runId = await this.#recorded();
    return { stream: this.#input.stream, now: this.#now(), runId, rollback: this.#dryRun };
  }

  /** A write of the run's child work: one transaction, rolled back in a dry run. */
  readonly #write: RunWrite = async (verb, work) => {
    await this.#recorded();
    return this.#context.retry(verb, () => inTransaction(this.#context.dialect.db, this.#dryRun, work));
  };

  #count(result: WriteCounts): void {
    addCounts(this.#counts, result);
    this.#input.onCommit?.({ ...this.#counts });
  }
}
