import type { StreamName } from '../../config/streams.js';
import type { PartitionSummary } from './run-options.js';
import { dependenciesOf } from './stream-order.js';

/** One partition to run, or a stream whose partitions could not even be listed. */
export type PlannedUnit =
  | { readonly stream: StreamName; readonly partition: string }
  | { readonly stream: StreamName; readonly notStarted: PartitionSummary };

export interface RunPlanOptions {
  /** Partitions running at once. */
  readonly concurrency: number;
  /** No partition starts once it fires; the ones running end on their own (they watch it too). */
  readonly signal?: AbortSignal | undefined;
}

/**
 * Runs the partitions of several streams, `concurrency` at a time, each only once every partition
 * of the streams it reads from (its parent, the stream its ids come from) has ended, whatever
 * their result: a child then finds the work its parent queued. Units must come in run order
 * (stream-order.ts), so the plan can never wait on a unit that has not started. Summaries come
 * back in that order, for the partitions that started.
 */
export async function runPlan(
  units: readonly PlannedUnit[],
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

  const start = (index: number) => {
    const unit = units[index]!;
    const ran = ('notStarted' in unit ? Promise.resolve(unit.notStarted) : run(unit.stream, unit.partition))
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
