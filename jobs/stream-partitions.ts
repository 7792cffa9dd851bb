import type { Settings } from '../config/settings.js';
import { SettingsError } from '../config/settings-error.js';
import type { StreamName } from '../config/streams.js';
import { partitionsOf } from '../src/sync/stream-partitions.js';
import { resolveStreams } from '../src/sync/sync-engine.js';
import { SyncConfigurationError } from '../src/sync/sync-errors.js';

/** One unit the queue schedules, locks and runs: a job runs exactly one stream partition. */
export interface StreamPartition {
  readonly stream: StreamName;
  readonly partition: string;
}

export interface ExpandResult {
  readonly partitions: StreamPartition[];
  /** Streams left out because their configuration is missing (e.g. no TMS_OPERATORS), with why. */
  readonly skipped: Array<{ stream: StreamName; reason: string }>;
}

/**
 * Every partition of the named streams (all of the catalogue when empty), in run order. A stream
 * named explicitly whose partitions cannot be listed fails; with no names it is skipped and reported.
 */
export function expandStreams(names: readonly string[], settings: Settings): ExpandResult {
  const result: ExpandResult = { partitions: [], skipped: [] };
  for (const stream of resolveStreams(names)) {
    try {
      for (const partition of partitionsOf(stream, settings)) result.partitions.push({ stream, partition });
    } catch (error) {
      if (!(error instanceof SyncConfigurationError)) throw error;
      if (names.length > 0) throw new SettingsError(stream, error.message);
      result.skipped.push({ stream, reason: error.message });
    }
  }
  return result;
}
