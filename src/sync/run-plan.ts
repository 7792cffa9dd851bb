import type { StreamName } from '../../config/streams.js';
import type { PartitionSummary } from './run-options.js';
import type { StreamPartition } from './select-partitions.js';
import { dependenciesOf, partitionLabel, readsFrom } from './stream-order.js';

export interface RunPlanOptions {
  /** Partitions running at once. */
  readonly concurrency: number;
  /** No partition starts once it fires; the ones running end on their own (they watch it too). */
  readonly signal?: AbortSignal | undefined;
  /** The summary of a partition not run because one it reads from did not succeed, with why. */
  readonly skip: (stream: StreamName, partition: string, reason: string) => PartitionSummary;
}

/**
 * Runs the partitions of several streams, `concurrency` at a time, each only once every partition
 * of the streams it reads from (its parent, the stream its ids come from) has ended, whatever
 * their result: a child then finds the work its parent queued. A partition whose upstream
 * partition did not succeed (failed, stopped or skipped itself) is not run but `skipped`, naming
 * it: its rows would be read from a stream left behind. Units must come in run order
 * (stream-order.ts), so the plan can never wait on a unit that has not started. Summaries come
 * back in that order, for the partitions that started.
 */
export async function runPlan(
  units: readonly StreamPartition[],
  run: (stream: StreamName, partition: string) => Promise<PartitionSummary>,
  options: RunPlanOptions,
): Promise<PartitionSummary[]> {
  const summaries: (PartitionSummary | undefined)[] = [];
  const unfinished = new Map<string, number>();
  for (const unit of units) unfinished.set(unit.stream, (unfinished.get(unit.stream) ?? 0) + 1);
  const ready = (index: number) =>
    dependenciesOf(units[index]!.stream).every((dependency) => !unfinished.get(dependency));
  const waiting = units.map((_, index) => index);
  const running = new Set<Promise<void>>();

  const upstreamLeft = (unit: StreamPartition) =>
    summaries.find(
      (done) =>
        done !== undefined &&
        done.result !== 'succeeded' &&
        dependenciesOf(unit.stream).includes(done.stream) &&
        readsFrom(unit.stream, unit.partition, done.partition),
    );
  const runUnit = (unit: StreamPartition): Promise<PartitionSummary> => {
    const left = upstreamLeft(unit);
    if (!left) return run(unit.stream, unit.partition);
    const reason = `${partitionLabel(left)} ${left.result === 'skipped' ? 'was skipped' : left.result}, and ${unit.stream} reads its rows`;
    return Promise.resolve(options.skip(unit.stream, unit.partition, reason));
  };

  const start = (index: number) => {
    const unit = units[index]!;
    const ran = runUnit(unit)
      .then((summary) => {
        summaries[index] = summary;
      })
      .finally(() => {
        unfinished.set(unit.stream, unfinished.get(unit.stream)! - 1);
        running.delete(ran);
      });
    running.add(ran);
  };

  while (waiting.length > 0 && !options.signal?.aborted) {
    const next = waiting.findIndex(ready);
    if (next >= 0 && running.size < options.concurrency) {
      start(waiting.splice(next, 1)[0]!);
    } else {
      await Promise.race(running);
    }
  }
  await Promise.all(running);
  return summaries.filter((summary) => summary !== undefined);
}
