import type { JsonObject } from '../../schemas/json-object.js';
import type { StopSignal } from '../linked-signals.js';
import type { PlanReads } from './plan-reads.js';

/**
 * The store's data as every part of it and every caller sees it: records, state, runs and rows.
 * It imports nothing of the store, so any module of it may import this one.
 */

/** A record ready to store: its key (the `id` column), its sequence if it has one, and the record as received. */
export interface StoreRecord {
  readonly key: string;
  /** Null when the record carries none: the last write wins. */
  readonly sequence: number | null;
  readonly data: JsonObject;
}

/** An answer's text, and the keys leading from its root to the records' array (`['data', 'items']`). */
export interface ReceivedRecords {
  readonly text: string;
  readonly path: readonly string[];
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
  /** The `maxSequence` snapshot of the cycle in progress (docs/sync-engine.md, invariant 2). */
  readonly cycleMaxSequence: number | null;
  /** Strategy-specific state (e.g. a window's end), any JSON. */
  readonly strategyState: unknown;
  readonly version: number;
  readonly updatedAt: Date | null;
}

/** Why a row is marked deleted (docs/store.md). */
export type DeleteReason = 'upstream' | 'snapshot_missing' | 'reconcile_missing' | 'parent_deleted';

/** What a page upsert did, row by row; the four counts add up to the rows given. */
export interface UpsertCounts {
  readonly inserted: number;
  readonly updated: number;
  /** Same data, sequence and live state: the row was not rewritten. */
  readonly unchanged: number;
  /** The stored row has a higher sequence: the record was older and lost (docs/sync-engine.md, invariant 5). */
  readonly staleSkipped: number;
}

/**
 * The mass-delete guard's thresholds (delete-guard.ts, docs/sync-engine.md invariant 4): it stops
 * what looks like a broken server emptying a table, and never a normal change.
 */
export interface DeleteGuard {
  /** A judged scope that would lose more than this share of its live rows on balance is held. @default 0.5 */
  readonly maxShare?: number;
  /** A scope is judged on its own from this many live rows (small ones are not: they are not implausible). @default 100 */
  readonly minRows?: number;
  /** A run's child scopes are judged together once at least this many of them would be emptied. @default 10 */
  readonly minScopes?: number;
  /** Apply every delete and hold none (`--approve-deletes`). @default false */
  readonly approveAll?: boolean;
}

/** Child scopes a run has judged so far: how many had rows, and how many it would empty. */
export interface ScopeTally {
  readonly hadRows: number;
  readonly emptied: number;
}

/** A parent whose children could not be fetched, and why (one line, no secret). */
export interface LeftParent {
  readonly parentId: string;
  readonly error: string;
}

/** One scope's complete current list (a parent's children). */
export interface ScopeReplacement {
  readonly scope: string;
  readonly records: readonly StoreRecord[];
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

/**
 * Why a run ran: its schedule, `trigger`, the webhook, `sync`, its parent's run that queued parents
 * (the worker), or `command`: a write-back command changed the stream (docs/write-back.md).
 */
export type RunTrigger = 'schedule' | 'manual' | 'webhook' | 'cli' | 'parent' | 'command';
/** How a run ended; `interrupted`: asked to stop, it resumes from its checkpoint (rows of older versions say `aborted`). */
export type RunResult = 'running' | 'succeeded' | 'failed' | 'interrupted';

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

/** A stream partition's latest run, as health checks read it: how it ended, and the last success. */
export interface PartitionRunHealth {
  readonly stream: string;
  readonly partition: string;
  /** Null only when the run's row was pruned by hand. */
  readonly result: RunResult | null;
  readonly error: string | null;
  readonly lastSuccessAt: Date | null;
}

/** What `status` shows of one stream partition the store knows (it has state, runs, or both). */
export interface PartitionOverview {
  readonly stream: string;
  readonly partition: string;
  readonly watermark: number | null;
  /** A cycle was interrupted and will resume from its checkpoint. */
  readonly cycleInProgress: boolean;
  /** The latest run (it may still be running); null when none ran, or its row was pruned by hand. */
  readonly lastRun: Omit<SyncRun, 'stream' | 'partition'> | null;
  readonly lastSuccessAt: Date | null;
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
  readonly signal?: StopSignal | undefined;
  /** Told after every commit (progress). @default nothing */
  readonly onCommit?: (counts: Readonly<RunTally>) => void;
  /**
   * The run commits at most this many pages (`sync.maxRunPages`): a page after them is handed on
   * only once they committed, when `onCommit` has aborted `signal` (sync/run-bound.ts), so it is
   * never sent ahead to the database behind the last. @default no bound
   */
  readonly maxPages?: number;
  /**
   * The reads of the plan the run is part of (plan-reads.ts): its state and its scope's live rows
   * come from reads made once per stream. @default the run reads its own, by their keys
   */
  readonly planReads?: PlanReads | undefined;
  /**
   * The run will ask of its own scope's live rows (a snapshot pass of a stream scoped by the
   * partition): where its start is a statement (PostgreSQL), they are counted by it, not apart.
   * @default false
   */
  readonly readsOwnScope?: boolean;
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
  /**
   * The answer the records were parsed from, where `records[i]` is item i of the JSON array at
   * `path` in `text`, parsed as JSON.parse does: a dialect may store each record's `data` from that
   * text rather than serialize it again (SQLite does). @default undefined
   */
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
