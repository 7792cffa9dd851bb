import type { Settings } from '../../config/settings.js';
import { type StreamName, streams } from '../../config/streams.js';
import { strategyOf } from './strategies/index.js';

/**
 * The partitions of a stream, as its strategy defines them: `''` and `deleted` for a sequence stream
 * with soft deletes, one per operator of TMS_OPERATORS for per-operator streams, `''` otherwise.
 * Each has its own `sync_state` row, run and job. Reads only the settings, so the worker's
 * schedulers and `trigger` list them without a client or a store; SyncConfigurationError when the
 * stream needs configuration it lacks.
 */
export function partitionsOf(stream: StreamName, settings: Settings): string[] {
  const definition = streams[stream];
  return strategyOf(definition).partitions(definition, { settings });
}

/** Whether a reconcile run of the partition finds what a plain run would not (stream-strategy.ts). */
export function reconciles(stream: StreamName, partition: string): boolean {
  const definition = streams[stream];
  return strategyOf(definition).reconciles(definition, partition);
}
