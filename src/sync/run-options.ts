import type { RunTrigger } from '../store/store.js';

/** Counts of one partition run, as it goes. */
export interface RunTally {
  pages: number;
  records: number;
  inserted: number;
  updated: number;
  unchanged: number;
  deleted: number;
  rejected: number;
  /** The watermark the run committed (or, in a dry run, would commit). */
  watermark: number | null;
}

export interface RunProgress extends Readonly<RunTally> {
  readonly stream: string;
  readonly partition: string;
  readonly elapsedMs: number;
}

/** How one run goes; every field has a default. */
export interface RunOptions {
  /** Ignore watermarks and checkpoints for this run (a re-sync). @default false */
  readonly full?: boolean;
  /** Also detect hard deletes by a full id scan. @default false */
  readonly reconcile?: boolean;
  /** Compute what would change and commit nothing. @default false */
  readonly dryRun?: boolean;
  /** Recorded in `sync_runs`. @default 'cli' */
  readonly trigger?: RunTrigger;
  /** Only this partition of the stream (an operator id, `deleted`, ...). @default every partition */
  readonly partition?: string;
  /** Stops the run between requests and pages; at most the uncommitted page is lost. */
  readonly signal?: AbortSignal;
  /** Called after every committed page. */
  readonly onProgress?: (progress: RunProgress) => void;
}

export type PartitionOutcome = 'succeeded' | 'failed' | 'aborted';

/** What one partition run did. */
export interface PartitionSummary extends Readonly<RunTally> {
  readonly stream: string;
  readonly partition: string;
  readonly runId: number | null;
  readonly result: PartitionOutcome;
  readonly error: string | null;
  /** The error itself, for callers that decide by its type (the worker's job outcome). */
  readonly cause?: unknown;
  readonly durationMs: number;
  readonly dryRun: boolean;
}

export function emptyTally(): RunTally {
  return {
    pages: 0,
    records: 0,
    inserted: 0,
    updated: 0,
    unchanged: 0,
    deleted: 0,
    rejected: 0,
    watermark: null,
  };
}
