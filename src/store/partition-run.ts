import { type ChildWork, createChildWork } from './child-work.js';
import { type DeleteGuard, noScopes, type ScopeTally } from './delete-guard.js';
import type {
  PageResult,
  ReceivedRecords,
  RunTrigger,
  ScopeReplacement,
  StateTransition,
  StoreRecord,
  StoreVerbs,
  SyncState,
  WritePageInput,
} from './store.js';
import type { StreamTable } from './stream-tables.js';

/** Counts of one run as its commits go. */
export interface RunTally {
  pages: number;
  /** Records received and committed (upserted, unchanged or older than the stored ones). */
  records: number;
  inserted: number;
  updated: number;
  /** Records already stored as they are (not rewritten). */
  unchanged: number;
  /** Records older than the stored ones (their sequence is lower): never written over newer ones. */
  older: number;
  deleted: number;
  /** Values that did not fit their typed column (NULL there, whole in `data`). */
  drift: number;
  /** Rows the delete guard kept live; their scopes wait in `held_deletes`. */
  held: number;
  /** The watermark the run committed (or, in a dry run, would commit). */
  watermark: number | null;
}

export interface OpenRunInput {
  readonly stream: string;
  /** '' for a stream without partitions. */
  readonly partition: string;
  readonly trigger: RunTrigger;
  /** The run's clock (rows' `synced_at`, `sync_runs`). @default () => new Date() */
  readonly now?: () => Date;
  /** Commit nothing: every write runs in a transaction that is rolled back, for its counts. @default false */
  readonly dryRun?: boolean;
  /** The mass-delete guard's thresholds (delete-guard.ts). @default defaultDeleteGuard */
  readonly guard?: DeleteGuard;
  /** Stops the run between writes: a write waiting for the one before never begins. */
  readonly signal?: AbortSignal | undefined;
  /** Told after every commit (progress). @default nothing */
  readonly onCommit?: (counts: Readonly<RunTally>) => void;
  /**
   * The run commits at most this many pages (`sync.maxRunPages`): a page after them is handed on
   * only once they committed, when `onCommit` has aborted `signal` (sync/run-bound.ts), so it is
   * never sent ahead to the database behind the last. @default no bound
   */
  readonly maxPages?: number;
}

/** Where a committed page leaves the partition's state. */
export type PageState =
  /** A page inside a sequence cycle: where to resume, and the cycle's snapshot `maxSequence`. */
  | { readonly checkpoint: { cursor: string | null; cycleMaxSequence: number; strategyState: unknown } }
  /** The last page of a sequence cycle: its `maxSequence` becomes the watermark. */
  | { readonly watermark: number }
  /** A whole list (snapshot, window): only the strategy's own state. */
  | { readonly strategyState: unknown };

export interface PageCommit {
  /** The scope value (operator id) of a scoped stream. */
  readonly scope?: string;
  readonly records: readonly StoreRecord[];
  /** The answer the records were parsed from, item for item (`WritePageInput.received`). @default undefined */
  readonly received?: ReceivedRecords | undefined;
  readonly state: PageState;
  /** Records of a `status=deleted` listing: stored deleted, reason `upstream`. @default false */
  readonly deletedUpstream?: boolean;
  /**
   * The page belongs to a full cycle of the live listing (since=1): its child streams get one
   * "refresh every parent" mark with the cycle's last page instead of a queue entry per parent.
   * @default false
   */
  readonly fullCycle?: boolean;
}

/**
 * One run of one stream partition: the only way the engine writes a stream's rows and state. It
 * owns what a strategy must never decide itself (docs/sync-engine.md):
 * - the state and its version: every commit is a compare-and-set on the version the run read,
 *   advanced by the run's own commits, so a strategy never predicts version numbers;
 * - the dry run: decided once here (every write rolled back, for its counts);
 * - the child streams a parent's pages and deletes concern, from the catalogue;
 * - the counts, the progress reports and the run's `sync_runs` row.
 * Pages commit in the order given; `commitPage` returns once the page three before it committed
 * (`pagesInFlight`), so the caller fetches and prepares the next page while the database writes
 * this one and the ones before (`flush` waits for the last).
 */
export interface PartitionRun {
  readonly stream: string;
  readonly partition: string;
  /** The run's row in `sync_runs`; null in a dry run. */
  readonly runId: number | null;
  readonly dryRun: boolean;
  readonly counts: Readonly<RunTally>;
  /** The partition's state as the run found it, then as its own commits left it. */
  state(): SyncState;
  commitPage(page: PageCommit): Promise<void>;
  /** Waits for every page given to commit; throws the first failure (pages after it never begin). */
  flush(): Promise<void>;
  /**
   * Once the pages given committed, forgets the checkpoint of the cycle in progress (cursor, the
   * cycle's `maxSequence`, the strategy state), keeping the watermark: the engine refused what
   * that cursor led to, so no later run may resume from it. Nothing when there is no checkpoint.
   */
  dropCheckpoint(): Promise<void>;
  /** After a complete pass (snapshot, reconcile): marks the live rows not seen deleted, unless the guard holds them. */
  markMissing(input: {
    scope?: string;
    seenIds: Iterable<string>;
    reason: 'snapshot_missing' | 'reconcile_missing';
    listedNew?: number;
  }): Promise<void>;
  /**
   * The complete child lists of a group of parents, in one transaction (child streams). The
   * guard judges the scopes emptied over the whole run, whatever the size of the groups.
   */
  replaceScopes(scopes: readonly ScopeReplacement[]): Promise<void>;
  /** Marks every live row of these scopes (parents gone upstream) `parent_deleted`. */
  markScopesDeleted(scopeValues: readonly string[]): Promise<void>;
  /** The parents a child stream must refresh, batch by batch (child-work.ts). */
  childWork(): ChildWork;
  /** The distinct ids at `path` of another stream's live rows (the goods of the operator's tasks), sorted. */
  referencedIds(stream: string, path: string, scope?: string): Promise<string[]>;
  /** Records how the run ended in `sync_runs` (nothing in a dry run). */
  finish(outcome: { result: 'succeeded' | 'failed' | 'interrupted'; error: string | null }): Promise<void>;
}

/**
 * Pages a run holds given but not yet committed when `commitPage` returns. With one, this thread
 * waited on every commit the database was slower with (the TMS and the other thread share the
 * cores): two kept the whole process 5% faster, three another 2-3% (BENCHMARKS.md, "2026-11-24
 * (received text)" and "(pages in flight)"); four no more. A crash loses at most these pages and
 * the one being prepared.
 */
const pagesInFlight = 3;

/** Numbers every page of the process's runs (`WritePageInput.order`). */
let pageNumbers = 0;

/** Begins a run: reads the partition's state and records the run (`sync_runs`, unless a dry run). */
export async function openPartitionRun(
  verbs: StoreVerbs,
  table: StreamTable,
  input: OpenRunInput,
): Promise<PartitionRun> {
  const { stream, partition } = input;
  const now = input.now ?? (() => new Date());
  const dryRun = input.dryRun ?? false;
  let state = await verbs.readState(stream, partition);
  let version = state.version;
  const runId = dryRun
    ? null
    : await verbs.startRun({ stream, partition, trigger: input.trigger, now: now() });
  const counts: RunTally = emptyTally();
  let judgedScopes: ScopeTally = noScopes;
  let last: Promise<unknown> = Promise.resolve();
  let lastPage: number | undefined;
  const maxPages = input.maxPages ?? Number.POSITIVE_INFINITY;
  let handed = 0;
  const uncommitted: Promise<unknown>[] = [];
  let failure: { error: unknown } | undefined;
  const check = () => {
    if (failure) throw failure.error;
  };
  const report = () => input.onCommit?.({ ...counts });
  const count = (result: Partial<PageResult> & { deleted?: number; held?: number }) => {
    counts.inserted += result.inserted ?? 0;
    counts.updated += result.updated ?? 0;
    counts.unchanged += result.unchanged ?? 0;
    counts.older += result.staleSkipped ?? 0;
    counts.drift += result.drift ?? 0;
    counts.deleted += result.deleted ?? 0;
    counts.held += result.held ?? 0;
  };
  const stopIfAborted = () => input.signal?.throwIfAborted();
  const base = { stream, runId };

  /** The compare-and-set of a page, on the version the run's previous commit leaves. */
  const transition = (pageState: PageState): StateTransition | undefined => {
    if (dryRun) return undefined;
    const expectedVersion = version;
    version += 1;
    if ('watermark' in pageState) {
      return {
        stream,
        partition,
        expectedVersion,
        watermark: pageState.watermark,
        cursor: null,
        cycleMaxSequence: null,
        strategyState: null,
      };
    }
    if ('checkpoint' in pageState) return { stream, partition, expectedVersion, ...pageState.checkpoint };
    return { stream, partition, expectedVersion, strategyState: pageState.strategyState };
  };

  const pageInput = (page: PageCommit, after: Promise<unknown>): WritePageInput => {
    const children = table.children;
    const last = 'watermark' in page.state;
    const fullCycle = page.fullCycle ?? false;
    const gate = after.then(stopIfAborted);
    gate.catch(() => undefined);
    return {
      ...base,
      now: now(),
      ...(page.scope === undefined ? {} : { scope: page.scope }),
      records: page.records,
      received: page.received,
      deletedUpstream: page.deletedUpstream ?? false,
      enqueueChildren: fullCycle ? [] : children,
      refreshAllChildren: fullCycle && last ? children : [],
      state: transition(page.state),
      after: gate,
      order: { page: ++pageNumbers, after: lastPage },
    };
  };

  return {
    stream,
    partition,
    runId,
    dryRun,
    counts,
    state: () => state,
    async commitPage(page) {
      stopIfAborted();
      check();
      if (handed >= maxPages) {
        await last.catch(() => undefined);
        check();
        stopIfAborted();
        throw new Error(`the run committed the ${maxPages} pages it may commit`);
      }
      handed += 1;
      const previous = last;
      const input = pageInput(page, previous);
      lastPage = input.order?.page;
      last = (dryRun ? verbs.previewPage(input) : verbs.writePage(input)).then((result) => {
        counts.pages += 1;
        counts.records += page.records.length;
        count(result);
        if ('watermark' in page.state) counts.watermark = page.state.watermark;
        if (result.state) state = result.state;
        report();
      });
      last.catch((error: unknown) => {
        failure ??= { error };
      });
      uncommitted.push(last);
      if (uncommitted.length > pagesInFlight) await uncommitted.shift()!.catch(() => undefined);
      check();
    },
    async flush() {
      await last.catch(() => undefined);
      check();
    },
    async dropCheckpoint() {
      await last.catch(() => undefined);
      check();
      if (dryRun || state.cursor === null) return;
      const expectedVersion = version;
      version += 1;
      const result = await verbs.writePage({
        ...base,
        now: now(),
        records: [],
        state: {
          stream,
          partition,
          expectedVersion,
          cursor: null,
          cycleMaxSequence: null,
          strategyState: null,
        },
      });
      if (result.state) state = result.state;
    },
    async markMissing(pass) {
      stopIfAborted();
      const result = await verbs.markMissing({
        ...pass,
        stream,
        now: now(),
        dryRun,
        guard: input.guard,
        runId,
        enqueueChildren: table.children,
      });
      count(result);
      report();
    },
    async replaceScopes(scopes) {
      stopIfAborted();
      const result = await verbs.replaceScopes({
        stream,
        scopes,
        now: now(),
        runId,
        dryRun,
        guard: input.guard,
        earlier: judgedScopes,
      });
      judgedScopes = {
        hadRows: judgedScopes.hadRows + result.scopes.hadRows,
        emptied: judgedScopes.emptied + result.scopes.emptied,
      };
      counts.pages += scopes.length;
      for (const scope of scopes) counts.records += scope.records.length;
      count(result);
      report();
    },
    async markScopesDeleted(scopeValues) {
      if (scopeValues.length === 0) return;
      const result = await verbs.markDeletedByScope({ stream, scopeValues, now: now(), dryRun, runId });
      count(result);
      report();
    },
    childWork: () => createChildWork(verbs, table, { dryRun, signal: input.signal }),
    referencedIds: (other, path, scope) => verbs.referencedIds(other, { path, scope }),
    async finish(outcome) {
      if (runId === null) return;
      await verbs.finishRun(runId, { ...counts, ...outcome, now: now() });
    },
  };
}

export function emptyTally(): RunTally {
  return {
    pages: 0,
    records: 0,
    inserted: 0,
    updated: 0,
    unchanged: 0,
    older: 0,
    deleted: 0,
    drift: 0,
    held: 0,
    watermark: null,
  };
}
