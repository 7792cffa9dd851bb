import type { Settings } from '../../config/settings.js';
import type { StreamDefinition } from '../../config/stream-definition.js';
import type { StreamName } from '../../config/streams.js';
import type { TmsClient } from '../client/index.js';
import type { StopSignal } from '../linked-signals.js';
import type { PartitionRun } from '../store/store.js';
import type { RunLog } from './run-log.js';

/**
 * One partition to run, as a strategy gets it: the TMS client to fetch with, and the run to commit
 * through (`PartitionRun`: it owns the state, the dry run, the child streams and the counts). A
 * strategy fetches pages and says what to commit; it never sees the store.
 */
export interface PartitionContext<D extends StreamDefinition = StreamDefinition> {
  readonly stream: StreamName;
  readonly definition: D;
  readonly partition: string;
  readonly client: TmsClient;
  readonly settings: Settings;
  /** The run's log lines (its stream and partition in each). */
  readonly logger: RunLog;
  /** The engine's clock; tests inject one. */
  readonly now: () => Date;
  readonly full: boolean;
  readonly reconcile: boolean;
  /** Stops the run between requests and pages. */
  readonly signal: StopSignal | undefined;
  readonly run: PartitionRun;
  /** Awaited before each further page or parent fetched: a backfill's pause while the fleet is late (RunOptions.giveWay). */
  readonly giveWay: () => Promise<void>;
}

/**
 * The seam between the engine and a kind of stream (sequence, child, snapshot, window): which
 * partitions a stream has, and how one partition runs. Adding a stream of an existing strategy is a
 * catalogue entry, not a new strategy.
 */
export interface StreamStrategy<D extends StreamDefinition = StreamDefinition> {
  /** The partitions of the stream, each with its own `sync_state` row and run. */
  partitions(definition: D, ctx: { readonly settings: Settings }): string[];
  /**
   * Whether a `reconcile` run of the partition does more than a plain one (finds hard deletes, re-reads
   * what a plain run would not); the worker schedules reconcile runs only for those.
   */
  reconciles(definition: D, partition: string): boolean;
  /** Runs one partition to its end, committing as it goes. */
  run(partition: PartitionContext<D>): Promise<void>;
}
