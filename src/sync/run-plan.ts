import type { StreamName } from '../../config/streams.js';
import type { StopSignal } from '../linked-signals.js';
import type { PartitionSummary } from './run-options.js';
import type { StreamPartition } from './select-partitions.js';
import { dependenciesOf, partitionLabel, readsOwnOperator } from './stream-order.js';

export interface RunPlanOptions {
  /** Partitions running at once. */
  readonly concurrency: number;
  /** No partition starts once it fires; the ones running end on their own (they watch it too). */
  readonly signal?: StopSignal | undefined;
  /** The summary of a partition not run because one it reads from did not succeed, with why. */
  readonly skip: (stream: StreamName, partition: string, reason: string) => PartitionSummary;
}

/** The units of one stream in the plan, and how far they got. */
interface StreamGroup {
  readonly stream: StreamName;
  readonly dependencies: readonly string[];
  /** Indexes into the plan's units, in order. */
  readonly units: number[];
  started: number;
  unfinished: number;
  /** The partitions that ended without succeeding, by partition. */
  readonly leftBehind: Map<string, PartitionSummary>;
}

/**
 * Runs the partitions of several streams, `concurrency` at a time, each only once every partition
 * of the streams it reads from (its parent, the stream its ids come from) has ended, whatever
 * their result: a child then finds the work its parent queued. A partition whose upstream
 * partition did not succeed (failed, stopped or skipped itself) is not run but `skipped`, naming
 * it: its rows would be read from a stream left behind. Units must come in run order
 * (stream-order.ts), so the plan can never wait on a unit that has not started. Summaries come
 * back in that order, for the partitions that started. The plan's own work per partition is
 * constant: what it looks up is kept per stream, never searched across partitions.
 */
export async function runPlan(
  units: readonly StreamPartition[],
  run: (stream: StreamName, partition: string) => Promise<PartitionSummary>,
  options: RunPlanOptions,
): Promise<PartitionSummary[]> {
  const summaries: (PartitionSummary | undefined)[] = [];
  const groups = groupByStream(units);
  // One waiter woken by the next run to end, not Promise.race over the runs: a race leaves a
  // reaction on every run still going, and a long run would gather one per partition ended beside it.
  const running = new Set<Promise<void>>();
  let wake: (() => void) | undefined;
  let failure: { readonly error: unknown } | undefined;
  const ended = () =>
    new Promise<void>((resolve) => {
      wake = resolve;
    });

  const ready = (group: StreamGroup) =>
    group.dependencies.every((dependency) => !groups.get(dependency)?.unfinished);
  const nextReady = () => {
    for (const group of groups.values()) if (group.started < group.units.length && ready(group)) return group;
    return undefined;
  };
  const upstreamLeft = (unit: StreamPartition) => {
    for (const dependency of dependenciesOf(unit.stream)) {
      const left = groups.get(dependency)?.leftBehind;
      if (!left?.size) continue;
      const found = readsOwnOperator(unit.stream) ? left.get(unit.partition) : left.values().next().value;
      if (found) return found;
    }
    return undefined;
  };
  const runUnit = (unit: StreamPartition): Promise<PartitionSummary> => {
    const left = upstreamLeft(unit);
    if (!left) return run(unit.stream, unit.partition);
    const reason = `${partitionLabel(left)} ${left.result === 'skipped' ? 'was skipped' : left.result}, and ${unit.stream} reads its rows`;
    return Promise.resolve(options.skip(unit.stream, unit.partition, reason));
  };

  const start = (group: StreamGroup) => {
    const index = group.units[group.started++]!;
    const unit = units[index]!;
    const ran = runUnit(unit)
      .then(
        (summary) => {
          summaries[index] = summary;
          if (summary.result !== 'succeeded') group.leftBehind.set(summary.partition, summary);
        },
        // A run that threw (its store unreachable) ends the plan with its error.
        (error: unknown) => {
          failure ??= { error };
        },
      )
      .finally(() => {
        group.unfinished--;
        running.delete(ran);
        wake?.();
        wake = undefined;
      });
    running.add(ran);
  };

  while (!options.signal?.aborted) {
    const group = running.size < options.concurrency ? nextReady() : undefined;
    if (group) start(group);
    else if (running.size > 0) await ended();
    else break;
    if (failure) throw failure.error;
  }
  await Promise.all(running);
  if (failure) throw failure.error;
  return summaries.filter((summary) => summary !== undefined);
}

function groupByStream(units: readonly StreamPartition[]): Map<string, StreamGroup> {
  const groups = new Map<string, StreamGroup>();
  units.forEach((unit, index) => {
    let group = groups.get(unit.stream);
    if (!group) {
      group = {
        stream: unit.stream,
        dependencies: dependenciesOf(unit.stream),
        units: [],
        started: 0,
        unfinished: 0,
        leftBehind: new Map(),
      };
      groups.set(unit.stream, group);
    }
    group.units.push(index);
    group.unfinished++;
  });
  return groups;
}
