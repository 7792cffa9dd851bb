import type { Settings } from '../../config/settings.js';
import { SettingsError } from '../../config/settings-error.js';
import { type StreamName, streams } from '../../config/streams.js';
import { inRunOrder, isStreamName, partitionLabel } from './stream-order.js';
import { partitionsOf } from './stream-partitions.js';
import { SyncConfigurationError, UnknownStreamError } from './sync-errors.js';

/** One unit the engine runs and the queue schedules, locks and runs: a stream partition. */
export interface StreamPartition {
  readonly stream: StreamName;
  readonly partition: string;
}

/** A stream left out of a selection because its configuration is missing, and why. */
export interface SkippedStream {
  readonly stream: StreamName;
  readonly reason: string;
}

export interface Selection {
  readonly partitions: StreamPartition[];
  readonly skipped: SkippedStream[];
}

/**
 * The partitions to run, in run order, from what a command names: stream names (every partition
 * of each) and partition names as shown everywhere (`tasks/1001`, `invoices/deleted`). Nothing
 * named: the configured streams (`streams.include` / `streams.exclude`), leaving out, as `skipped`,
 * the streams whose configuration is missing (the per-operator streams without TMS_OPERATORS).
 * What is named explicitly must be runnable: an unknown stream or partition is an
 * UnknownStreamError, a named stream lacking its configuration a SettingsError naming the setting.
 */
export function selectPartitions(targets: readonly string[], settings: Settings): Selection {
  const named = checkStreamNames(targets);
  const names = named.length > 0 ? named.map((target) => target.stream) : configuredStreams(settings);
  const selection: Selection = { partitions: [], skipped: [] };
  for (const stream of inRunOrder(names)) {
    let partitions: string[];
    try {
      partitions = partitionsOf(stream, settings);
    } catch (error) {
      if (!(error instanceof SyncConfigurationError)) throw error;
      if (named.length > 0) throw new SettingsError(error.setting, `${stream}: ${error.message}`);
      selection.skipped.push({ stream, reason: error.message });
      continue;
    }
    for (const partition of wantedPartitions(stream, partitions, named))
      selection.partitions.push({ stream, partition });
  }
  return selection;
}

/**
 * Checks the stream of every stream or partition name against the catalogue (which partitions a
 * stream has depends on the configuration: `selectPartitions` checks those); UnknownStreamError.
 */
export function checkStreamNames(targets: readonly string[]): Target[] {
  const named = targets.map(parseTarget);
  const unknown = named.filter((target) => !isStreamName(target.stream)).map((target) => target.label);
  if (unknown.length > 0) throw new UnknownStreamError(unknown, Object.keys(streams));
  return named;
}

/** The streams that run when none are named: `streams.include` (all by default) less `streams.exclude`. */
export function configuredStreams(settings: Pick<Settings, 'streams'>): string[] {
  const included = settings.streams.include ?? Object.keys(streams);
  return included.filter((stream) => !settings.streams.exclude.includes(stream));
}

/** One line per reason: which streams a selection left out, and what would bring them in. */
export function formatSkipped(
  skipped: ReadonlyArray<{ readonly stream: string; readonly reason: string }>,
): string[] {
  const byReason = new Map<string, string[]>();
  for (const { stream, reason } of skipped) byReason.set(reason, [...(byReason.get(reason) ?? []), stream]);
  return [...byReason].map(
    ([reason, names]) =>
      `skipped ${names.length} stream${names.length === 1 ? '' : 's'} (${names.join(', ')}): ${reason}`,
  );
}

export interface Target {
  readonly label: string;
  readonly stream: string;
  /** Undefined: every partition of the stream. */
  readonly partition: string | undefined;
}

function parseTarget(label: string): Target {
  const slash = label.indexOf('/');
  if (slash < 0) return { label, stream: label, partition: undefined };
  return { label, stream: label.slice(0, slash), partition: label.slice(slash + 1) };
}

function wantedPartitions(
  stream: StreamName,
  partitions: readonly string[],
  named: readonly Target[],
): string[] {
  const targets = named.filter((target) => target.stream === stream);
  if (targets.length === 0 || targets.some((target) => target.partition === undefined))
    return [...partitions];
  const missing = targets.filter((target) => !partitions.includes(target.partition!));
  if (missing.length > 0) {
    throw new UnknownStreamError(
      missing.map((target) => target.label),
      partitions.map((partition) => partitionLabel({ stream, partition })),
      'partition',
    );
  }
  return [...new Set(targets.map((target) => target.partition!))];
}
