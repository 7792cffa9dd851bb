import type { StreamDefinition } from '../../config/stream-definition.js';
import type { EngineContext } from './engine-context.js';
import type { PartitionJob } from './partition-job.js';

/**
 * The seam between the engine and a kind of stream (sequence, child, snapshot, window): which
 * partitions a stream has, and how one partition runs. Adding a stream of an existing strategy is a
 * catalogue entry, not a new strategy.
 */
export interface StreamStrategy<D extends StreamDefinition = StreamDefinition> {
  /** The partitions of the stream, each with its own `sync_state` row and run. */
  partitions(definition: D, ctx: Pick<EngineContext, 'settings'>): string[];
  /** Runs one partition to its end, committing as it goes. */
  run(job: PartitionJob<D>): Promise<void>;
}
