import type { StopSignal } from '../linked-signals.js';
import type { RunTally, RunTrigger } from '../store/store.js';

export { emptyTally } from '../store/run-tally.js';
export type { RunTally } from '../store/store.js';

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
  /** Apply every delete the guard would hold back (`--approve-deletes`). @default false */
  readonly approveDeletes?: boolean;
  /** Recorded in `sync_runs`. @default 'cli' */
  readonly trigger?: RunTrigger;
  /** Stops the run between requests and pages; at most the uncommitted page is lost. */
  readonly signal?: StopSignal;
  /**
   * Awaited before each further page a long run fetches (a listing's next page, a parent's
   * children): the worker's backfills give way there to cycles that start late (jobs/fleet-pace.ts).
   * Called with the run's signal. @default none
   */
  readonly giveWay?: (signal: StopSignal) => Promise<void>;
  /** Called after every committed page. */
  readonly onProgress?: (progress: RunProgress) => void;
  /** `run` of several streams: called as each partition ends. */
  readonly onPartitionDone?: (summary: PartitionSummary) => void;
}

/**
 * `interrupted`: the run was asked to stop (a graceful stop, a lost lock) and will resume from its
 * checkpoint: not a failure. `skipped`: the partition did not run, `error` says why (a stream it
 * reads from failed in this run, or was never synced); nothing of it was recorded in `sync_runs`.
 */
export type PartitionOutcome = 'succeeded' | 'failed' | 'interrupted' | 'skipped';

/** What one partition run did. */
export interface PartitionSummary extends Readonly<RunTally> {
  readonly stream: string;
  readonly partition: string;
  readonly runId: number | null;
  readonly result: PartitionOutcome;
  /** Why it failed (the error's one line), or why it was skipped; null when it succeeded. */
  readonly error: string | null;
  /** The error itself, for callers that decide by its type (the worker's job outcome). */
  readonly cause?: unknown;
  readonly durationMs: number;
  readonly dryRun: boolean;
}
