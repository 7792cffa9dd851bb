import { expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import type { PageState, PartitionRun, Store } from '../../src/store/store.js';
import { StateConflictError, WatermarkRegressionError } from '../../src/store/store-errors.js';
import { describeOnEachDialect, useStore } from '../support/on-each-dialect.js';
import { invoice, keyed, now, task } from './records.js';
import { commitRecords, openTestRun, stateOf } from './run-pages.js';
import { statementCounter } from './statement-counter.js';

describeOnEachDialect('sync state', (fixture) => {
  const counter = statementCounter();
  const store = useStore(fixture, { plugins: [counter] });

  /** One invoice committed by a run with the state it leaves. */
  const page = (target: Store, id: string, state: PageState, partition = '') =>
    commitRecords(target, 'invoices', { records: keyed([invoice(id, 1)]), state }, { partition, now });
  /** Commits one page in a run opened earlier, and waits for its commit. */
  const commitIn = async (run: PartitionRun, id: string, state: PageState) => {
    await run.commitPage({ records: keyed([invoice(id, 1)]), state });
    await run.flush();
  };

  it('a run finds version 0 and nulls before the first transition', async () => {
    const run = await openTestRun(store(), 'invoices', { dryRun: true });
    expect(run.state()).toEqual({
      stream: 'invoices',
      partition: '',
      watermark: null,
      cursor: null,
      cycleMaxSequence: null,
      strategyState: null,
      version: 0,
      updatedAt: null,
    });
  });

  it('checkpoints a cycle page by page and moves the watermark with the last page', async () => {
    const run = await openTestRun(store(), 'invoices', { partition: 'p', now });
    await commitIn(run, 'a', {
      checkpoint: { cursor: 'c1', cycleMaxSequence: 2 ** 53, strategyState: null },
    });
    expect(run.state()).toMatchObject({ version: 1, cursor: 'c1', cycleMaxSequence: 2 ** 53 });
    await commitIn(run, 'b', { watermark: 2 ** 53 });
    expect(run.state()).toMatchObject({
      version: 2,
      watermark: 2 ** 53,
      cursor: null,
      cycleMaxSequence: null,
    });
    expect(run.counts.watermark).toBe(2 ** 53);
    expect(await stateOf(store(), 'invoices', 'p')).toMatchObject({ version: 2, watermark: 2 ** 53 });
    expect(await store().listStates()).toHaveLength(1);
  });

  it('a checkpoint dropped keeps the watermark and forgets where the cycle stood', async () => {
    const run = await openTestRun(store(), 'invoices', { now });
    await commitIn(run, 'a', { watermark: 7 });
    await commitIn(run, 'b', { checkpoint: { cursor: 'c2', cycleMaxSequence: 9, strategyState: { w: 1 } } });
    await run.dropCheckpoint();
    expect(await stateOf(store(), 'invoices')).toMatchObject({
      version: 3,
      watermark: 7,
      cursor: null,
      cycleMaxSequence: null,
      strategyState: null,
    });
  });

  it('a run only advances the state it started from (two concurrent runs: exactly one wins)', async () => {
    await page(store(), 'a', { watermark: 10 });
    // PostgreSQL: two pools, truly concurrent. SQLite: one store per file and process (a second
    // connection would block the event loop on busy_timeout); its transactions queue on the connection.
    const other = fixture.dialect === 'postgres' ? await openStore(await fixture.url()) : store();
    try {
      const runs = [
        await openTestRun(store(), 'invoices', { now }),
        await openTestRun(other, 'invoices', { now }),
      ];
      const results = await Promise.allSettled([
        commitIn(runs[0]!, 'b', { watermark: 20 }),
        commitIn(runs[1]!, 'c', { watermark: 30 }),
      ]);
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
      expect(won).toHaveLength(1);
      expect(lost[0]).toBeInstanceOf(StateConflictError);
      expect(lost[0]).toMatchObject({ stream: 'invoices', partition: '', expected: 1, actual: 2 });
      const state = await stateOf(store(), 'invoices');
      const ids = (await store().readRows('invoices')).map((r) => r.id);
      expect(ids).toEqual(state.watermark === 20 ? ['a', 'b'] : ['a', 'c']);
    } finally {
      if (other !== store()) await other.close();
    }
  });

  it('two first transitions from version 0: exactly one wins', async () => {
    const runs = [await openTestRun(store(), 'invoices'), await openTestRun(store(), 'invoices')];
    const checkpoint = (cursor: string): PageState => ({
      checkpoint: { cursor, cycleMaxSequence: 1, strategyState: null },
    });
    const results = await Promise.allSettled([
      commitIn(runs[0]!, 'a', checkpoint('x')),
      commitIn(runs[1]!, 'b', checkpoint('y')),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(await store().countRows('invoices')).toBe(1);
  });

  it('the watermark never moves backwards', async () => {
    await page(store(), 'a', { watermark: 100 });
    await expect(page(store(), 'b', { watermark: 99 })).rejects.toMatchObject({
      constructor: WatermarkRegressionError,
      committed: 100,
      attempted: 99,
    });
    expect(await store().countRows('invoices')).toBe(1);
    await page(store(), 'c', { watermark: 100 });
    expect(await stateOf(store(), 'invoices')).toMatchObject({ version: 2, watermark: 100 });
  });

  it('a page of no records moves the state alone: refused as any page when another run moved it, never backwards; one statement on PostgreSQL', async () => {
    await page(store(), 'a', { watermark: 10 });
    const stale = await openTestRun(store(), 'invoices', { now });
    const run = await openTestRun(store(), 'invoices', { now });
    counter.statements = 0;
    await run.commitPage({ records: [], state: { watermark: 20 } });
    await run.flush();
    // PostgreSQL: the transition alone (an upsert, the schema check and it, in a transaction,
    // before). SQLite: a page is one message to the store's thread whatever it holds.
    if (fixture.dialect === 'postgres') expect(counter.statements).toBe(1);
    expect(await stateOf(store(), 'invoices')).toMatchObject({ version: 2, watermark: 20 });
    await expect(
      stale.commitPage({ records: [], state: { watermark: 30 } }).then(() => stale.flush()),
    ).rejects.toBeInstanceOf(StateConflictError);
    const behind = await openTestRun(store(), 'invoices', { now });
    await expect(
      behind.commitPage({ records: [], state: { watermark: 15 } }).then(() => behind.flush()),
    ).rejects.toBeInstanceOf(WatermarkRegressionError);
    expect(await stateOf(store(), 'invoices')).toMatchObject({ version: 2, watermark: 20 });
    expect(await store().countRows('invoices')).toBe(1);
  });

  it('whether a partition ever committed is asked of the database until it has, and stays so through a reset', async () => {
    expect(await store().everCommitted('invoices', 'p1')).toBe(false);
    expect(await store().everCommitted('invoices')).toBe(false);
    await page(store(), 'a', { watermark: 5 }, 'p1');
    await store().resetState('invoices', { partition: 'p1' });
    counter.statements = 0;
    expect(await store().everCommitted('invoices', 'p1')).toBe(true);
    expect(await store().everCommitted('invoices', 'p1')).toBe(true);
    expect(counter.statements).toBe(1);
    expect(await store().everCommitted('invoices')).toBe(true);
    expect(await store().everCommitted('invoices', 'p2')).toBe(false);
  });

  it('reset forgets watermark and checkpoint of every partition, keeps the data, and fences runs in flight', async () => {
    await page(store(), 'a', { checkpoint: { cursor: 'c', cycleMaxSequence: 100, strategyState: null } });
    await page(store(), 'b', { watermark: 5 }, 'p2');
    const inFlight = await openTestRun(store(), 'invoices', { now });
    expect((await store().resetState('invoices')).partitions).toBe(2);
    expect(await stateOf(store(), 'invoices')).toMatchObject({ version: 2, watermark: null, cursor: null });
    expect(await store().countRows('invoices')).toBe(2);
    await expect(commitIn(inFlight, 'c', { watermark: 200 })).rejects.toBeInstanceOf(StateConflictError);
    await page(store(), 'c', { watermark: 1 });
  });

  it('reset of one partition forgets only its state; with data it deletes only its scope, and refuses a partition that is no scope', async () => {
    const tasks = (operator: string, ids: string[]) =>
      commitRecords(
        store(),
        'tasks',
        { scope: operator, records: keyed(ids.map((id) => task(id))), state: { strategyState: { pass: 1 } } },
        { partition: operator, now },
      );
    await tasks('1001', ['a', 'b']);
    await tasks('1002', ['c']);
    expect(await store().resetState('tasks', { partition: '1001', data: true })).toEqual({
      partitions: 1,
      rows: 2,
    });
    expect(await store().countRows('tasks')).toBe(1);
    expect(await stateOf(store(), 'tasks', '1001')).toMatchObject({ version: 2, strategyState: null });
    expect(await stateOf(store(), 'tasks', '1002')).toMatchObject({ version: 1, strategyState: { pass: 1 } });
    await page(store(), 'a', { watermark: 5 }, 'deleted');
    await expect(store().resetState('invoices', { partition: 'deleted', data: true })).rejects.toThrow(
      /shares the invoices table/,
    );
    expect(await store().resetState('invoices', { data: true })).toEqual({ partitions: 1, rows: 1 });
    expect(await store().countRows('invoices')).toBe(0);
  });

  it('reset of a child stream marks it to refresh every parent in its next run', async () => {
    expect(await store().pendingChildWork()).toEqual([]);
    await store().resetState('invoice_lines');
    expect(await store().pendingChildWork()).toEqual([
      { stream: 'invoice_lines', queuedParents: 0, leftParents: 0, lastError: null, everyParent: true },
    ]);
  });
});
