import { describe, expect, it } from 'vitest';
import type { StreamName } from '../../config/streams.js';
import { emptyTally, type PartitionSummary } from '../../src/sync/run-options.js';
import { runPlan } from '../../src/sync/run-plan.js';

const summary = (stream: string, partition: string): PartitionSummary => ({
  ...emptyTally(),
  stream,
  partition,
  runId: null,
  result: 'succeeded',
  error: null,
  durationMs: 0,
  dryRun: false,
});
const skip = (stream: StreamName, partition: string, reason: string): PartitionSummary => ({
  ...summary(stream, partition),
  result: 'skipped',
  error: reason,
});
const units = (count: number) =>
  Array.from({ length: count }, (_, i) => ({ stream: 'invoices' as StreamName, partition: `p${i}` }));
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('runPlan', () => {
  it('runs every unit, at most `concurrency` at once, summaries in the units order', async () => {
    let running = 0;
    let most = 0;
    const summaries = await runPlan(
      units(50),
      async (stream, partition) => {
        most = Math.max(most, ++running);
        await settle();
        running--;
        return summary(stream, partition);
      },
      { concurrency: 4, skip },
    );
    expect(most).toBe(4);
    expect(summaries.map((s) => s.partition)).toEqual(units(50).map((u) => u.partition));
  });

  it('ends with the error of a run that threw, even the last one', async () => {
    for (const failing of ['p0', 'p9']) {
      const plan = runPlan(
        units(10),
        async (stream, partition) => {
          await settle();
          if (partition === failing) throw new Error(`store away at ${partition}`);
          return summary(stream, partition);
        },
        { concurrency: 3, skip },
      );
      await expect(plan).rejects.toThrow(`store away at ${failing}`);
    }
  });
});
