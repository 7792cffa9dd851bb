import type { RunCounts, RunTrigger, Store } from '../../src/store/store.js';
import type { StoreFixture } from '../store/store-fixture.js';

export interface RecordedRun {
  /** `stream` or `stream/partition`. */
  readonly label: string;
  readonly result: 'succeeded' | 'failed' | 'interrupted';
  readonly error?: string | null;
  readonly startedAt: Date;
  /** @default startedAt */
  readonly finishedAt?: Date;
  readonly trigger?: RunTrigger;
  /** What `sync_runs` says the run wrote, as an earlier run had left it. @default nothing */
  readonly counts?: Partial<RunCounts>;
}

/**
 * One finished run in `sync_runs`, for the CLI's views of the run history: opened and finished
 * through the store's door, its counts then set as the run being told of wrote them.
 */
export async function recordRun(store: Store, fixture: StoreFixture, url: string, recorded: RecordedRun) {
  const [stream, partition = ''] = recorded.label.split('/');
  const clock = { at: recorded.startedAt };
  const run = await store.openRun({
    stream: stream!,
    partition,
    trigger: recorded.trigger ?? 'schedule',
    now: () => clock.at,
  });
  clock.at = recorded.finishedAt ?? recorded.startedAt;
  await run.finish({ result: recorded.result, error: recorded.error ?? null });
  const counts = Object.entries(recorded.counts ?? {});
  if (counts.length > 0) {
    const set = counts.map(
      ([name, value]) => `${name === 'held' ? 'held_deletes' : name} = ${Number(value)}`,
    );
    await fixture.query(url, `update sync_runs set ${set.join(', ')} where id = ${run.runId}`);
  }
  return run.runId!;
}
