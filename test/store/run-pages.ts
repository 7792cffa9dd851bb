import type {
  OpenRunInput,
  PageCommit,
  PartitionRun,
  RunTally,
  Store,
  StoreRecord,
  SyncState,
} from '../../src/store/store.js';

/** How a test's run opens: a partition ('' by default), a clock, a dry run, the guard. */
export interface TestRunOptions
  extends Partial<Pick<OpenRunInput, 'partition' | 'trigger' | 'dryRun' | 'guard'>> {
  /** The run's clock, fixed. @default new Date() */
  readonly now?: Date;
}

/** Opens a run of the stream through the store's one door for writing (`openRun`). */
export function openTestRun(
  store: Store,
  stream: string,
  options: TestRunOptions = {},
): Promise<PartitionRun> {
  const at = options.now;
  return store.openRun({
    stream,
    partition: options.partition ?? '',
    trigger: options.trigger ?? 'manual',
    ...(at === undefined ? {} : { now: () => at }),
    ...(options.dryRun === undefined ? {} : { dryRun: options.dryRun }),
    ...(options.guard === undefined ? {} : { guard: options.guard }),
  });
}

/**
 * Runs `work` in one run of the stream, as the engine does: opened, every page flushed, finished
 * (`failed`, and the error thrown on, when the work throws). Answers the run's counts.
 */
export async function inRun(
  store: Store,
  stream: string,
  work: (run: PartitionRun) => Promise<void>,
  options: TestRunOptions = {},
): Promise<RunTally> {
  const run = await openTestRun(store, stream, options);
  try {
    await work(run);
    await run.flush();
  } catch (error) {
    await run.finish({ result: 'failed', error: String(error) });
    throw error;
  }
  await run.finish({ result: 'succeeded', error: null });
  return { ...run.counts };
}

/** A page of records as a test commits it: only strategy state (null) unless it says otherwise. */
export type TestPage = Partial<PageCommit> & { readonly records: readonly StoreRecord[] };

/** Commits the records as one page of one run; answers the run's counts. */
export function commitRecords(
  store: Store,
  stream: string,
  page: TestPage,
  options: TestRunOptions = {},
): Promise<RunTally> {
  return inRun(store, stream, (run) => run.commitPage({ state: { strategyState: null }, ...page }), options);
}

/** The committed state of a stream partition, as a run finds it when it opens (a dry run: it records nothing). */
export async function stateOf(store: Store, stream: string, partition = ''): Promise<SyncState> {
  return (await openTestRun(store, stream, { partition, dryRun: true })).state();
}
