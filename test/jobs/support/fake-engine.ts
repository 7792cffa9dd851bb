import { emptyTally, type PartitionSummary, type RunOptions } from '../../../src/sync/run-options.js';
import type { SyncEngine } from '../../../src/sync/sync-engine.js';

/** One call of the fake engine: what it was asked and when it ran. */
export interface FakeRun {
  readonly stream: string;
  readonly partition: string;
  readonly options: RunOptions;
  readonly startedAt: number;
  finishedAt?: number;
}

export type FakeBehaviour = (
  run: FakeRun,
) => Promise<Partial<PartitionSummary> & { cause?: unknown }> | Partial<PartitionSummary>;

/**
 * An engine double at the worker's seam (`engine.runPartition`): records every run, counts runs of one
 * partition that overlap, and answers what `behave` says (a succeeded summary by default).
 */
export function fakeEngine(behave: FakeBehaviour = () => ({})) {
  const runs: FakeRun[] = [];
  const active = new Map<string, number>();
  let overlaps = 0;
  let maxParallel = 0;
  const runPartition: SyncEngine['runPartition'] = async (stream, partition, options = {}) => {
    const entry: FakeRun = { stream, partition, options, startedAt: Date.now() };
    const key = `${entry.stream}/${entry.partition}`;
    active.set(key, (active.get(key) ?? 0) + 1);
    if (active.get(key)! > 1) overlaps += 1;
    maxParallel = Math.max(
      maxParallel,
      [...active.values()].reduce((sum, count) => sum + count, 0),
    );
    runs.push(entry);
    try {
      const overrides = await behave(entry);
      return summaryOf(entry, overrides);
    } finally {
      entry.finishedAt = Date.now();
      active.set(key, active.get(key)! - 1);
    }
  };
  return { runPartition, runs, overlaps: () => overlaps, maxParallel: () => maxParallel };
}

export function summaryOf(
  target: { stream: string; partition: string },
  overrides: Partial<PartitionSummary> = {},
): PartitionSummary {
  return {
    ...emptyTally(),
    stream: target.stream,
    partition: target.partition,
    runId: null,
    result: 'succeeded',
    error: null,
    durationMs: 1,
    dryRun: false,
    ...overrides,
  };
}

/** A promise to open later: `gate.wait` blocks runs until `gate.open()`. */
export function gate() {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}
