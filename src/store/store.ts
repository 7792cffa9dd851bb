import type { ColumnReport } from './describe-columns.js';
import type { HeldDelete } from './held-deletes.js';
import type { MigrationSummary } from './migrations/migrate-store.js';
import type { CommandOutbox } from './outbox/outbox-types.js';
import type { PartitionRun } from './partition-run.js';
import type { PlanReads } from './plan-reads.js';
import type { ResetResult } from './reset-stream.js';
import type {
  OpenRunInput,
  PartitionOverview,
  PartitionRunHealth,
  PendingChildWork,
  RowFilter,
  RunFilter,
  RunSuccess,
  StoredRow,
  StoredVersion,
  SyncRun,
  SyncState,
} from './store-types.js';

export type { ChildWork, ParentBatch } from './child-work.js';
export type { ColumnReport } from './describe-columns.js';
export type { HeldDelete } from './held-deletes.js';
export type { MigrationSummary } from './migrations/migrate-store.js';
export type { CommandCount, CommandOutbox, Settlement } from './outbox/outbox-types.js';
export type { PartitionRun } from './partition-run.js';
export type { PlanReads } from './plan-reads.js';
export type { ResetResult } from './reset-stream.js';
export type * from './store-types.js';

/**
 * The store, the one door through which the engine, the worker, write-back and the CLI use it, the
 * same on SQLite and PostgreSQL (docs/store.md). A stream's rows and state are written only through
 * a partition's run (`openRun`, partition-run.ts); the rest reads what `status`, `schema` and the
 * checks show, or administers (migrations, reset, approving held deletes, the write-back outbox).
 */
export interface Store {
  readonly dialect: 'sqlite' | 'postgres';
  /** Creates or upgrades the tables, then reads the typed columns. */
  migrate(): Promise<MigrationSummary>;
  /** Resolves when the database answers (for `/healthz`). */
  ping(): Promise<void>;
  /** Begins one run of one stream partition (partition-run.ts): the only way to write a stream. */
  openRun(input: OpenRunInput): Promise<PartitionRun>;
  /**
   * The reads a plan of these partitions (by stream) makes once per stream for its runs
   * (plan-reads.ts), to give each run's `openRun` and to tell as each partition ends.
   */
  planReads(planned: ReadonlyMap<string, readonly string[]>): PlanReads;

  /** Every partition's committed state (`status`: read once per command, never per partition). */
  listStates(): Promise<SyncState[]>;
  /** Whether the partition (or, without one, any partition of the stream) ever committed state: one keyed read. */
  everCommitted(stream: string, partition?: string): Promise<boolean>;
  /** Newest first. */
  listRuns(filter?: RunFilter): Promise<SyncRun[]>;
  /** The latest run of every stream partition. */
  lastRuns(): Promise<SyncRun[]>;
  /** When each stream partition last succeeded, however many runs ago (for `status`). */
  lastSuccesses(): Promise<RunSuccess[]>;
  /** Every stream partition the store knows: watermark, latest run, last success (`status`: read once per command). */
  partitionOverview(): Promise<PartitionOverview[]>;
  /** Every stream partition's latest result and error and its last success, in one read (lag metrics, readiness). */
  partitionHealth(): Promise<PartitionRunHealth[]>;
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

  /** The write-back outbox `tms_commands` (docs/write-back.md). */
  readonly commands: CommandOutbox;

  /**
   * Deletes at most `limit` runs (@default 1000) started before `before`, oldest first, never a
   * partition's latest run nor its latest success (run-retention.ts); how many. Runs end by doing
   * it for `keepRunsDays`; this is the same delete, for a caller that decides when.
   */
  forgetRuns(before: Date, limit?: number): Promise<number>;
  close(): Promise<void>;
}
