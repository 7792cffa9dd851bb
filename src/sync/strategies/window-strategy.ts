import type { WindowStream } from '../../../config/stream-definition.js';
import { keyedRecords, sequenceReader } from '../record-keys.js';
import type { StreamStrategy } from '../stream-strategy.js';
import { operatorsOf } from './snapshot-strategy.js';

interface WindowState {
  /** End of the last committed window (ISO 8601); the next starts an overlap before it. */
  readonly windowEnd: string;
}

/**
 * A time window read from the last window's end, minus an overlap for late arrivals, up to now.
 * Records read twice are deduplicated by key (the upsert); the window's end is committed with them
 * (an empty window commits nothing: the next one starts where the last committed one ended).
 * `--full` and `--reconcile` re-read the whole lookback, catching arrivals later than the overlap.
 */
export const windowStrategy: StreamStrategy<WindowStream> = {
  // The whole lookback is re-read: messages that arrived later than the overlap.
  reconciles: () => true,
  partitions: (_definition, ctx) => operatorsOf(ctx),
  async run(partition) {
    const { client, definition, run, settings } = partition;
    const to = partition.now();
    const committed = run.state().strategyState as WindowState | null;
    const from = windowStart(partition.full || partition.reconcile ? null : committed, to, settings.sync);
    const items = await client.driverList(definition, {
      operatorId: partition.partition,
      query: { [definition.fromParam]: from.toISOString(), [definition.toParam]: to.toISOString() },
      signal: partition.signal,
    });
    // An empty window leaves the committed end where it is: the next window starts there and so
    // still covers this one (a message arriving late in it is found), and a quiet operator's run
    // writes only its row. The first window is committed, empty or not: the partition has synced.
    if (items.length === 0 && committed?.windowEnd) return;
    const origin = {
      stream: partition.stream,
      partition: partition.partition,
      where: `the window from ${from.toISOString()}`,
    };
    await run.commitPage({
      scope: partition.partition,
      records: keyedRecords(definition, items, origin, sequenceReader(settings.sequenceField)),
      state: { strategyState: { windowEnd: to.toISOString() } satisfies WindowState },
    });
    await run.flush();
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
