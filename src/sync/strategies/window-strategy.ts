import type { WindowStream } from '../../../config/stream-definition.js';
import { keyReader, toStoreRejects } from '../record-keys.js';
import type { StreamStrategy } from '../stream-strategy.js';
import { operatorsOf } from './snapshot-strategy.js';

interface WindowState {
  /** End of the last committed window (ISO 8601); the next starts an overlap before it. */
  readonly windowEnd: string;
}

/**
 * A time window read from the last window's end, minus an overlap for late arrivals, up to now.
 * Records read twice are deduplicated by key (the upsert); the window's end is committed with them.
 * `--full` and `--reconcile` re-read the whole lookback, catching arrivals later than the overlap.
 */
export const windowStrategy: StreamStrategy<WindowStream> = {
  partitions: (_definition, ctx) => operatorsOf(ctx),
  async run(job) {
    const { ctx, definition } = job;
    const state = await job.readState();
    const to = ctx.now();
    const from = windowStart(
      job.options.full || job.options.reconcile ? null : (state.strategyState as WindowState | null),
      to,
      ctx.settings.sync,
    );
    const batch = await ctx.client.driverList(definition, {
      operatorId: job.partition,
      query: { [definition.fromParam]: from.toISOString(), [definition.toParam]: to.toISOString() },
      signal: job.signal,
    });
    await job.writePage({
      scope: job.partition,
      records: batch.items,
      rejected: toStoreRejects(batch.rejected, keyReader(definition)),
      state: {
        expectedVersion: state.version,
        strategyState: { windowEnd: to.toISOString() } satisfies WindowState,
      },
    });
  },
};

function windowStart(
  state: WindowState | null,
  to: Date,
  settings: { windowOverlapSeconds: number; windowLookbackDays: number },
): Date {
  const lookback = to.getTime() - settings.windowLookbackDays * 86_400_000;
  if (!state?.windowEnd) return new Date(lookback);
  return new Date(Math.max(lookback, Date.parse(state.windowEnd) - settings.windowOverlapSeconds * 1000));
}
