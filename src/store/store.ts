import type { MigrationSummary } from './migrations/migrate-store.js';
import type { SequenceOf } from './row-mapping.js';
import type { DeleteReason, UpsertCounts } from './store-dialect.js';

export type { MigrationSummary } from './migrations/migrate-store.js';
export type { SequenceOf } from './row-mapping.js';
export type { DeleteReason, UpsertCounts } from './store-dialect.js';

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

/** A record that failed validation, kept with its reason. */
export interface RejectedRecord {
  readonly key: string | null;
  readonly reason: string;
  /** The record as received; stored as JSON text. */
  readonly data: unknown;
}

export interface WritePageInput {
  readonly stream: string;
  /** The scope value (operator id, parent id); required exactly for scoped streams. */
  readonly scope?: string;
  readonly records: readonly unknown[];
  /** Reads a record's sequence; without it sequences are null (last write wins). */
  readonly sequenceOf?: SequenceOf;
  readonly now: Date;
  readonly runId: number | null;
  /** The records come from a `status=deleted` listing: stored with `deleted_at` and reason `upstream`. */
  readonly deletedUpstream?: boolean;
  /** Child streams whose children of these records must be refreshed: their keys join the child queue. */
  readonly enqueueChildren?: readonly string[];
  /** Child streams that must refresh every live parent (the end of a full cycle): one mark each. */
  readonly refreshAllChildren?: readonly string[];
  /** Records the caller rejected; inserted in the same transaction (they vanish with a failed page). */
  readonly rejected?: readonly RejectedRecord[];
  readonly state?: StateTransition;
  /**
   * The page's transaction begins once this settles, and not at all if it rejects: the write of
   * the page before, so pages commit in order while this one is prepared. @default undefined
   */
  readonly after?: Promise<unknown>;
}

export interface PageResult extends UpsertCounts {
  /** Rejects written: the caller's plus records without a usable key or sequence. */
  readonly rejected: number;
  /** The state as committed by the page's transition. */
  readonly state?: SyncState;
}

interface DeleteInputBase {
  readonly stream: string;
  readonly now: Date;
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
  /** Stop (`MassDeleteError`) when more than this share of the scope's live rows would go. @default 0.5 */
  readonly maxDeleteShare?: number;
  /** The guard ignores passes that delete this many rows or fewer, so tiny scopes are not blocked. @default 10 */
  readonly minGuardedDeletes?: number;
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
}

/** A child stream's waiting work: parents queued, and a pending refresh of every live parent. */
export interface ChildWork {
  readonly stream: string;
  readonly queuedParents: number;
  readonly everyParent: boolean;
}

/** One scope's complete current list, for `replaceScopes`. */
export interface ScopeReplacement {
  readonly scope: string;
  readonly records: readonly unknown[];
  /** Records the caller rejected; their keys count as seen. */
  readonly rejected?: readonly RejectedRecord[];
}

export interface ReplaceScopesInput {
  readonly stream: string;
  readonly scopes: readonly ScopeReplacement[];
  readonly sequenceOf?: SequenceOf;
  readonly now: Date;
  readonly runId: number | null;
  /** Per scope, as in `markMissing`. @default 0.5 */
  readonly maxDeleteShare?: number;
  /** @default 10 */
  readonly minGuardedDeletes?: number;
  /** Compute the counts in a transaction that is rolled back. @default false */
  readonly dryRun?: boolean;
}

export interface ReplaceScopesResult extends UpsertCounts {
  readonly rejected: number;
  readonly deleted: number;
}

export interface DeleteResult {
  /** Rows marked deleted (or that would be, in a dry run). */
  readonly deleted: number;
  readonly state?: SyncState;
}

export interface MarkMissingResult extends DeleteResult {
  /** Live rows of the scope before the pass. */
  readonly live: number;
}

export type RunTrigger = 'schedule' | 'manual' | 'webhook' | 'cli';
export type RunResult = 'running' | 'succeeded' | 'failed' | 'aborted';

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
  readonly rejected: number;
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

export interface InsertRejectedInput extends RejectedRecord {
  readonly runId: number | null;
  readonly stream: string;
  readonly scope?: string;
  /** @default new Date() */
  readonly now?: Date;
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
 * The store's verbs, the same on SQLite and PostgreSQL. Every write is one transaction that may
 * carry a state transition, so state is never ahead of the data (invariant 1).
 */
export interface Store {
  readonly dialect: 'sqlite' | 'postgres';
  migrate(): Promise<MigrationSummary>;
  /** Resolves when the database answers (for `/healthz`). */
  ping(): Promise<void>;

  writePage(input: WritePageInput): Promise<PageResult>;
  /** The same counts as `writePage`, computed by running the page transaction and rolling it back. */
  previewPage(input: WritePageInput): Promise<PageResult>;
  markDeleted(input: MarkDeletedInput): Promise<DeleteResult>;
  markMissing(input: MarkMissingInput): Promise<MarkMissingResult>;
  markDeletedByScope(input: MarkDeletedByScopeInput): Promise<DeleteResult>;
  /** Many scopes' complete lists in one transaction: upserts, rejects, and `snapshot_missing` marks per scope. */
  replaceScopes(input: ReplaceScopesInput): Promise<ReplaceScopesResult>;

  readState(stream: string, partition?: string): Promise<SyncState>;
  listStates(): Promise<SyncState[]>;
  /** Forgets watermark, checkpoint and strategy state of every partition (data stays); bumps versions. */
  resetState(stream: string): Promise<number>;

  startRun(input: StartRunInput): Promise<number>;
  finishRun(runId: number, input: FinishRunInput): Promise<void>;
  /** Newest first. */
  listRuns(filter?: { stream?: string; limit?: number }): Promise<SyncRun[]>;
  /** The latest run of every stream partition. */
  lastRuns(): Promise<SyncRun[]>;
  insertRejected(input: InsertRejectedInput): Promise<void>;

  /** Queues every parent row, live or deleted, for the child stream (`--full`, `--reconcile`). */
  enqueueAllParents(child: string, parent: string): Promise<void>;
  /** Child streams with work waiting (for `status`). */
  pendingChildWork(): Promise<ChildWork[]>;
  /** The child stream's pending refresh of every live parent, and how far it got; `take` marks it worked on. */
  refreshAllPending(
    child: string,
    options: { take: boolean },
  ): Promise<{ after: string | undefined } | undefined>;
  /** Records the pass's progress (live parents up to `afterId` refreshed); undefined ends the pass. */
  advanceRefreshAll(child: string, afterId: string | undefined): Promise<void>;
  /** The next queued parents of a child stream in id order (after `after`), marked taken. */
  pendingParents(child: string, options: { limit: number; after?: string | undefined }): Promise<string[]>;
  /** Done with these parents: dequeued, unless a parent page queued them again meanwhile. */
  ackParents(child: string, parentIds: readonly string[]): Promise<void>;

  countRows(stream: string, filter?: RowFilter): Promise<number>;
  /** Which of the ids are live rows of an unscoped stream. */
  liveKeys(stream: string, ids: readonly string[]): Promise<Set<string>>;
  readRows(stream: string, filter?: RowFilter): Promise<StoredRow[]>;
  /** Ids of live rows in key order, in batches (keyset pages: safe to write while iterating). */
  liveIds(stream: string, options?: LiveBatchOptions): AsyncIterable<string[]>;
  /** Live rows' ids and records in key order, in batches (e.g. the tasks whose goods to fetch). */
  liveRecords(
    stream: string,
    options?: LiveBatchOptions,
  ): AsyncIterable<Array<{ id: string; data: unknown }>>;

  close(): Promise<void>;
}
