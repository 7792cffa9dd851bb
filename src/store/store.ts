import type { JsonObject } from '../../schemas/json-object.js';
import type { LeftParent } from './child-queue.js';
import type { ColumnReport } from './columns/describe-columns.js';
import type { CommandOutbox } from './commands/command-outbox.js';
import type { DeleteGuard, ScopeTally } from './delete-guard.js';
import type { HeldDelete } from './held-deletes.js';
import type { MigrationSummary } from './migrations/migrate-store.js';
import type { OpenRunInput, PartitionRun } from './partition-run.js';
import type { ResetResult } from './reset-stream.js';
import type { DeleteReason, UpsertCounts } from './store-dialect.js';

export type { ChildWork, ParentBatch } from './child-work.js';
export type { ColumnReport } from './columns/describe-columns.js';
export type { CommandCount, CommandOutbox, Settlement } from './commands/command-outbox.js';
export type { DeleteGuard } from './delete-guard.js';
export type { HeldDelete } from './held-deletes.js';
export type { MigrationSummary } from './migrations/migrate-store.js';
export type { OpenRunInput, PageCommit, PageState, PartitionRun, RunTally } from './partition-run.js';
export type { ResetResult } from './reset-stream.js';
export type { DeleteReason, UpsertCounts } from './store-dialect.js';

/** A record ready to store: its key (the `id` column), its sequence if it has one, and the record as received. */
export interface StoreRecord {
  readonly key: string;
  /** Null when the record carries none: the last write wins. */
  readonly sequence: number | null;
  readonly data: JsonObject;
}

/** The committed sync state of one stream partition (`sync_state`); `version` 0 = never written. */
export interface SyncState {
  readonly stream: string;
  /** '' for streams that are not partitioned (e.g. per operator). */
  readonly partition: string;
  /** The `maxSequence` of the last complete cycle; null before the first. */
  readonly watermark: number | null;
  /** Where an interrupted cycle resumes; null between cycles. */
  readonly cursor: string | null;
  /** The `maxSequence` snapshot of the cycle in progress (invariant 2). */
  readonly cycleMaxSequence: number | null;
  /** Strategy-specific state (e.g. a window's end), any JSON. */
  readonly strategyState: unknown;
  readonly version: number;
  readonly updatedAt: Date | null;
}

/**
 * A compare-and-set on `sync_state`, applied in the same transaction as the data it describes
 * (invariants 1 and 3). Omitted fields keep their committed value; null clears them.
 */
export interface StateTransition {
  readonly stream: string;
  /** @default '' */
  readonly partition?: string;
  /** The `version` the run read; the transition fails with `StateConflictError` if the row moved. */
  readonly expectedVersion: number;
  /** Never lower than the committed one (`WatermarkRegressionError`); only `resetState` forgets it. */
  readonly watermark?: number | null;
  readonly cursor?: string | null;
  readonly cycleMaxSequence?: number | null;
  readonly strategyState?: unknown;
}

export interface WritePageInput {
  readonly stream: string;
  /** The scope value (operator id, parent id); required exactly for scoped streams. */
  readonly scope?: string;
  readonly records: readonly StoreRecord[];
  /**
   * The answer the records were parsed from, where `records[i]` is item i of the JSON array at
   * `path` in `text`, parsed as JSON.parse does: a dialect may store each record's `data` from that text rather than
   * serialize it again (SQLite does). @default undefined
   */
  readonly received?: ReceivedRecords | undefined;
  readonly now: Date;
  readonly runId: number | null;
  /** The records come from a `status=deleted` listing: stored with `deleted_at` and reason `upstream`. */
  readonly deletedUpstream?: boolean;
  /** Child streams whose children of these records must be refreshed: their keys join the child queue. */
  readonly enqueueChildren?: readonly string[];
  /** Child streams that must refresh every live parent (the end of a full cycle): one mark each. */
  readonly refreshAllChildren?: readonly string[];
  readonly state?: StateTransition;
  /**
   * The page's transaction begins once this settles, and not at all if it rejects: the write of
   * the page before, so pages commit in order while this one is prepared. @default undefined
   */
  readonly after?: Promise<unknown>;
  /**
   * The page's place in its run (partition-run.ts): where the database runs page work in the order
   * sent (SQLite), a page given the one before may be sent before that one commits, and commits
   * only if that one did (write-page.ts). @default undefined
   */
  readonly order?: PageOrder;
}

/** An answer's text, and the keys leading from its root to the records' array (`['data', 'items']`). */
export interface ReceivedRecords {
  readonly text: string;
  readonly path: readonly string[];
}

/** A page's number (unique in the process), and the number of the page before it in its run. */
export interface PageOrder {
  readonly page: number;
  readonly after: number | undefined;
}

export interface PageResult extends UpsertCounts {
  /** Values that did not fit their typed column (stored as NULL there, whole in `data`). */
  readonly drift: number;
  /** The state as committed by the page's transition. */
  readonly state?: SyncState;
}

interface DeleteInputBase {
  readonly stream: string;
  readonly now: Date;
  /** The run that deletes: recorded with the versions it closes (docs/history.md). @default null */
  readonly runId?: number | null;
  readonly state?: StateTransition;
}

export interface MarkDeletedInput extends DeleteInputBase {
  readonly scope?: string;
  readonly ids: Iterable<string>;
  readonly reason: DeleteReason;
}

export interface MarkMissingInput extends DeleteInputBase {
  readonly scope?: string;
  /** Every id seen in the complete pass; live rows of the scope not in it are marked deleted. */
  readonly seenIds: Iterable<string>;
  readonly reason: 'snapshot_missing' | 'reconcile_missing';
  /** Rows the pass inserted (they count on the scope's balance, delete-guard.ts). @default 0 */
  readonly listedNew?: number;
  /** The mass-delete guard's thresholds. @default defaultDeleteGuard */
  readonly guard?: DeleteGuard;
  /** Compute and guard, write nothing. @default false */
  readonly dryRun?: boolean;
  /** Child streams whose children of the rows marked missing must be marked too: the ids join the child queue. */
  readonly enqueueChildren?: readonly string[];
}

export interface MarkDeletedByScopeInput extends DeleteInputBase {
  /** Scope values (parent ids) whose live rows are all marked deleted. */
  readonly scopeValues: Iterable<string>;
  /** @default 'parent_deleted' */
  readonly reason?: DeleteReason;
  /** Count what would be marked, in a transaction rolled back. @default false */
  readonly dryRun?: boolean;
}

/** A child stream's waiting work: parents queued, and a pending refresh of every live parent. */
export interface PendingChildWork {
  readonly stream: string;
  readonly queuedParents: number;
  /** Queued parents a run could not fetch the children of (left with their error). */
  readonly leftParents: number;
  /** One of them and its error, e.g. `parent 42: HttpStatusError ...`; null when none. */
  readonly lastError: string | null;
  readonly everyParent: boolean;
}

/** One scope's complete current list, for `replaceScopes`. */
export interface ScopeReplacement {
  readonly scope: string;
  readonly records: readonly StoreRecord[];
}

export interface ReplaceScopesInput {
  readonly stream: string;
  readonly scopes: readonly ScopeReplacement[];
  readonly now: Date;
  readonly runId: number | null;
  /** The mass-delete guard, judging the batch (delete-guard.ts). @default defaultDeleteGuard */
  readonly guard?: DeleteGuard;
  /** The scopes the run's earlier batches judged: the guard counts emptied scopes over the run. @default none */
  readonly earlier?: ScopeTally;
  /** Compute the counts in a transaction that is rolled back. @default false */
  readonly dryRun?: boolean;
}

export interface ReplaceScopesResult extends UpsertCounts {
  readonly drift: number;
  readonly deleted: number;
  /** Rows the guard kept live (their scopes are in `held_deletes`). */
  readonly held: number;
  /** What this batch adds to the run's tally of judged scopes. */
  readonly scopes: ScopeTally;
}

export interface DeleteResult {
  /** Rows marked deleted (or that would be, in a dry run). */
  readonly deleted: number;
  readonly state?: SyncState;
}

export interface MarkMissingResult extends DeleteResult {
  /** Live rows of the scope before the pass. */
  readonly live: number;
  /** Rows the guard kept live (the scope is in `held_deletes`). */
  readonly held: number;
}

/**
 * Why a run ran: its schedule, `trigger`, the webhook, `sync`, its parent's run that queued parents
 * (the worker), or `command`: a write-back command changed the stream (docs/write-back.md).
 */
export type RunTrigger = 'schedule' | 'manual' | 'webhook' | 'cli' | 'parent' | 'command';
/** How a run ended; `interrupted`: asked to stop, it resumes from its checkpoint (rows of older versions say `aborted`). */
export type RunResult = 'running' | 'succeeded' | 'failed' | 'interrupted';

export interface StartRunInput {
  readonly stream: string;
  /** @default '' */
  readonly partition?: string;
  readonly trigger: RunTrigger;
  /** @default new Date() */
  readonly now?: Date;
}

export interface RunCounts {
  readonly pages: number;
  readonly inserted: number;
  readonly updated: number;
  readonly deleted: number;
  /** Values that did not fit their typed column (NULL there, whole in `data`). */
  readonly drift: number;
  /** Rows the delete guard kept live (`held_deletes`). */
  readonly held: number;
}

export interface FinishRunInput extends RunCounts {
  readonly result: Exclude<RunResult, 'running'>;
  readonly error?: string | null;
  /** @default new Date() */
  readonly now?: Date;
}

export interface SyncRun extends RunCounts {
  readonly id: number;
  readonly stream: string;
  readonly partition: string;
  readonly trigger: RunTrigger;
  readonly startedAt: Date;
  readonly finishedAt: Date | null;
  readonly result: RunResult;
  readonly error: string | null;
}

/** Which runs `listRuns` returns (newest first): every field narrows. */
export interface RunFilter {
  readonly stream?: string;
  readonly partition?: string;
  readonly result?: RunResult;
  /** @default 20 */
  readonly limit?: number;
}

/** The end of a partition's latest run that succeeded. */
export interface RunSuccess {
  readonly stream: string;
  readonly partition: string;
  readonly finishedAt: Date;
}

/** A stored stream row, decoded the same way on both dialects (for tests, `compare`, BI checks). */
export interface StoredRow {
  readonly id: string;
  readonly scope: string | null;
  readonly data: unknown;
  readonly sequence: number | null;
  readonly syncedAt: Date;
  readonly deletedAt: Date | null;
  readonly deletedReason: DeleteReason | null;
  /** Typed columns: booleans, ISO timestamps, `YYYY-MM-DD` dates, numbers, text, or null. */
  readonly columns: Readonly<Record<string, unknown>>;
}

/** One version of a record (history mode, docs/history.md). */
export interface StoredVersion {
  readonly id: string;
  readonly scope: string | null;
  /** When the sync saw the change that opened it (the page time, or the deletion's). */
  readonly validFrom: Date;
  /** When the next version began; null while it is the current one. */
  readonly validTo: Date | null;
  /** What opened it: first seen (or seeded when history started), changed, deleted, back after a deletion. */
  readonly change: 'insert' | 'update' | 'delete' | 'restore';
  /** The run that saw it; null for versions seeded when history started, or writes outside a run. */
  readonly run: number | null;
  readonly data: unknown;
  readonly sequence: number | null;
  readonly deletedAt: Date | null;
  readonly deletedReason: DeleteReason | null;
  readonly columns: Readonly<Record<string, unknown>>;
}

export interface RowFilter {
  /** Only this scope. @default all scopes */
  readonly scope?: string;
  /** Only live rows (true) or only deleted ones (false). @default both */
  readonly live?: boolean;
}

export interface LiveBatchOptions {
  /** Required exactly for scoped streams. */
  readonly scope?: string;
  /** @default 10000 */
  readonly batchSize?: number;
  /** Start after this id (ids come in id order). @default undefined */
  readonly after?: string | undefined;
}

/**
 * The store as the engine, the worker and the CLI use it, the same on SQLite and PostgreSQL. A
 * stream's rows and state are written only through a partition's run (`openRun`); the rest reads
 * what `status`, `schema` and the checks show, or administers (reset, approve held deletes).
 */
export interface Store {
  readonly dialect: 'sqlite' | 'postgres';
  /** Creates or upgrades the tables, then reads the typed columns. */
  migrate(): Promise<MigrationSummary>;
  /** Resolves when the database answers (for `/healthz`). */
  ping(): Promise<void>;
  /** Begins one run of one stream partition (partition-run.ts): the only way to write a stream. */
  openRun(input: OpenRunInput): Promise<PartitionRun>;

  /** Every partition's committed state (`status`: read once per command, never per partition). */
  listStates(): Promise<SyncState[]>;
  /** Whether the partition (or, without one, any partition of the stream) ever committed state: one keyed read. */
  everCommitted(stream: string, partition?: string): Promise<boolean>;
  /** Newest first. */
  listRuns(filter?: RunFilter): Promise<SyncRun[]>;
  /** The latest run of every stream partition. */
  lastRuns(): Promise<SyncRun[]>;
  /** When each stream partition last succeeded, however many runs ago (for `status` and lag metrics). */
  lastSuccesses(): Promise<RunSuccess[]>;
  /** Child streams with work waiting (for `status`). */
  pendingChildWork(): Promise<PendingChildWork[]>;
  /** Scopes whose deletes the guard holds back, of one stream or all. */
  heldDeletes(stream?: string): Promise<HeldDelete[]>;
  /** The typed columns of one stream table or all, with where they came from and their drift (`tms-sync schema`). */
  describeColumns(stream?: string): Promise<ColumnReport[]>;
  /** Every row matching the filter, decoded alike on both dialects (checks, `verify`; it loads all). */
  readRows(stream: string, filter?: RowFilter): Promise<StoredRow[]>;
  countRows(stream: string, filter?: RowFilter): Promise<number>;
  /** Which of the ids are live rows of an unscoped stream. */
  liveKeys(stream: string, ids: readonly string[]): Promise<Set<string>>;
  /** The versions of one record, oldest first (history mode, docs/history.md). */
  history(stream: string, key: { readonly id: string; readonly scope?: string }): Promise<StoredVersion[]>;

  /**
   * Forgets watermark, checkpoint and strategy state of every partition of the stream, or of one
   * (versions bumped): the next run is a full backfill; with `data` the rows go too (reset-stream.ts).
   */
  resetState(stream: string, options?: { partition?: string; data?: boolean }): Promise<ResetResult>;
  /**
   * Approves held deletes (`tms-sync approve-deletes`): the next pass of each scope applies them.
   * Child scopes are queued for a refresh. Answers the scopes approved.
   */
  approveDeletes(input: { stream: string; scopes?: readonly string[]; now?: Date }): Promise<string[]>;
  /** Reads the typed columns of every stream table again (another process may have added some). */
  loadColumns(): Promise<void>;

  /** The write-back outbox `tms_commands` (docs/write-back.md). */
  readonly commands: CommandOutbox;

  close(): Promise<void>;
}

/**
 * The store's SQL verbs under a `Store`, one per file (write-page.ts, mark-missing.ts, ...): what a
 * partition's run is made of, and what the store's tests check one by one. Every write is one
 * transaction that may carry a state transition, so state is never ahead of the data (invariant 1).
 */
export interface StoreVerbs extends Store {
  writePage(input: WritePageInput): Promise<PageResult>;
  /** The same counts as `writePage`, computed by running the page transaction and rolling it back. */
  previewPage(input: WritePageInput): Promise<PageResult>;
  markDeleted(input: MarkDeletedInput): Promise<DeleteResult>;
  markMissing(input: MarkMissingInput): Promise<MarkMissingResult>;
  markDeletedByScope(input: MarkDeletedByScopeInput): Promise<DeleteResult>;
  /** Many scopes' complete lists in one transaction: upserts and `snapshot_missing` marks per scope. */
  replaceScopes(input: ReplaceScopesInput): Promise<ReplaceScopesResult>;

  readState(stream: string, partition?: string): Promise<SyncState>;
  startRun(input: StartRunInput): Promise<number>;
  finishRun(runId: number, input: FinishRunInput): Promise<void>;

  /** Queues every parent row, live or deleted, for the child stream (`--full`, `--reconcile`). */
  enqueueAllParents(child: string, parent: string): Promise<void>;
  /** The child stream's pending refresh of every live parent, and how far it got; `take` marks it worked on. */
  refreshAllPending(
    child: string,
    options: { take: boolean },
  ): Promise<{ after: string | undefined } | undefined>;
  /** Records the pass's progress (live parents up to `afterId` refreshed); undefined ends the pass. */
  advanceRefreshAll(child: string, afterId: string | undefined): Promise<void>;
  /** The next queued parents of a child stream in id order (after `after`), marked taken. */
  pendingParents(child: string, options: { limit: number; after?: string | undefined }): Promise<string[]>;
  /** Marks the queued entries of these parents taken (a refresh-all pass fetching them serves them too). */
  takeParents(child: string, parentIds: readonly string[]): Promise<void>;
  /** Done with these parents: dequeued, unless a parent page queued them again meanwhile. */
  ackParents(child: string, parentIds: readonly string[]): Promise<void>;
  /** Parents whose children could not be fetched stay (or are) queued, with their error (child-queue.ts). */
  leaveParents(child: string, parents: readonly LeftParent[]): Promise<void>;

  /** Ids of live rows in key order, in batches (keyset pages: safe to write while iterating). */
  liveIds(stream: string, options?: LiveBatchOptions): AsyncIterable<string[]>;
  /** The distinct ids at `path` of the live rows (of one scope), sorted (read-rows.ts `referencedIds`). */
  referencedIds(stream: string, options: { path: string; scope?: string | undefined }): Promise<string[]>;
}
