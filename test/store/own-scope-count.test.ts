import { expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';
import { describeOnEachDialect, useStore } from '../support/on-each-dialect.js';
import { keyed, now, task } from './records.js';
import { commitRecords } from './run-pages.js';
import { statementCounter } from './statement-counter.js';

/** A run of operator 1001's tasks that will ask of its own scope, as the engine opens a snapshot run. */
const openTasksRun = (store: Store) =>
  store.openRun({
    stream: 'tasks',
    partition: '1001',
    trigger: 'manual',
    now: () => now,
    readsOwnScope: true,
  });

describeOnEachDialect("a run's own scope read with its start", (fixture) => {
  const counter = statementCounter();
  const store = useStore(fixture, { plugins: [counter] });
  // PostgreSQL: the run's start statement counted the scope. SQLite reads it on the calling thread.
  const countedAtStart = () => (fixture.dialect === 'postgres' ? 0 : 1);
  const commitTasks = (ids: string[]) =>
    commitRecords(
      store(),
      'tasks',
      { scope: '1001', records: keyed(ids.map((id) => task(id))), state: { strategyState: null } },
      { partition: '1001', now },
    );

  it('an unchanged pass of its own scope asks nothing more on PostgreSQL; a pass of another count is not kept', async () => {
    await commitTasks(['a', 'b']);
    const run = await openTasksRun(store());
    counter.statements = 0;
    expect(await run.keepUnchangedAnswers({ scope: '1001', records: 2 })).toBe(true);
    expect(counter.statements).toBe(countedAtStart());
    expect(await run.keepUnchangedAnswers({ scope: '1001', records: 3 })).toBe(false);
    // Another scope than its own is counted as it stands.
    expect(await run.keepUnchangedAnswers({ scope: '1002', records: 0 })).toBe(true);
    await run.finish({ result: 'succeeded', error: null });
  });

  it("an unscoped stream's own scope is every row of its table", async () => {
    const vehicles = (ids: string[]) => keyed(ids.map((id) => ({ id, name: `vehicle ${id}` })));
    await commitRecords(store(), 'vehicles', { records: vehicles(['v1', 'v2', 'v3']) }, { now });
    const run = await store().openRun({
      stream: 'vehicles',
      partition: '',
      trigger: 'manual',
      readsOwnScope: true,
    });
    counter.statements = 0;
    expect(await run.keepUnchangedAnswers({ records: 3 })).toBe(true);
    expect(counter.statements).toBe(countedAtStart());
    expect(await run.keepUnchangedAnswers({ records: 2 })).toBe(false);
    await run.finish({ result: 'succeeded', error: null });
  });

  it('a pass over an own scope found empty at the start marks nothing missing; one found full marks what the pass lacks', async () => {
    const first = await openTasksRun(store());
    await first.commitPage({
      scope: '1001',
      records: keyed([task('a'), task('b')]),
      state: { strategyState: null },
    });
    await first.flush();
    await first.markMissing({ scope: '1001', seenIds: ['a', 'b'], reason: 'snapshot_missing' });
    await first.finish({ result: 'succeeded', error: null });
    expect(first.counts).toMatchObject({ inserted: 2, deleted: 0 });
    const second = await openTasksRun(store());
    await second.commitPage({ scope: '1001', records: keyed([task('a')]), state: { strategyState: null } });
    await second.flush();
    await second.markMissing({ scope: '1001', seenIds: ['a'], reason: 'snapshot_missing' });
    await second.finish({ result: 'succeeded', error: null });
    expect(second.counts).toMatchObject({ deleted: 1 });
    expect((await store().readRows('tasks')).map((row) => [row.id, row.deletedAt !== null])).toEqual([
      ['a', false],
      ['b', true],
    ]);
  });
});
