import { expect, it } from 'vitest';
import { StateConflictError, WatermarkRegressionError } from '../../src/store/errors.js';
import { openStoreVerbs } from '../../src/store/open-store.js';
import type { StoreVerbs } from '../../src/store/store.js';
import { describeOnEachDialect, useStore } from '../support/on-each-dialect.js';
import { invoice, keyed, now, task } from './records.js';

describeOnEachDialect('sync state', (fixture) => {
  const store = useStore(fixture);

  const page = (target: StoreVerbs, id: string, state: Parameters<StoreVerbs['writePage']>[0]['state']) =>
    target.writePage({ stream: 'invoices', records: keyed([invoice(id, 1)]), now, runId: null, state });

  it('reads version 0 and nulls before the first transition', async () => {
    expect(await store().readState('invoices')).toEqual({
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
    const cycle = { stream: 'invoices', partition: 'p', cycleMaxSequence: 2 ** 53 };
    const first = await page(store(), 'a', { ...cycle, expectedVersion: 0, cursor: 'c1' });
    const last = await page(store(), 'b', {
      ...cycle,
      expectedVersion: first.state!.version,
      cursor: null,
      watermark: 2 ** 53,
      cycleMaxSequence: null,
      strategyState: { windowEnd: '2024-06-01' },
    });
    expect(last.state).toMatchObject({
      version: 2,
      watermark: 2 ** 53,
      cursor: null,
      cycleMaxSequence: null,
    });
    expect(await store().readState('invoices', 'p')).toMatchObject({
      version: 2,
      watermark: 2 ** 53,
      strategyState: { windowEnd: '2024-06-01' },
    });
    expect(await store().listStates()).toHaveLength(1);
  });

  it('a run only advances the state it started from (two concurrent transitions: exactly one wins)', async () => {
    await page(store(), 'a', { stream: 'invoices', expectedVersion: 0, watermark: 10 });
    // PostgreSQL: two pools, truly concurrent. SQLite: one store per file and process (a second
    // connection would block the event loop on busy_timeout); its transactions queue on the connection.
    const other = fixture.dialect === 'postgres' ? await openStoreVerbs(await fixture.url()) : store();
    try {
      const results = await Promise.allSettled([
        page(store(), 'b', { stream: 'invoices', expectedVersion: 1, watermark: 20 }),
        page(other, 'c', { stream: 'invoices', expectedVersion: 1, watermark: 30 }),
      ]);
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
      expect(won).toHaveLength(1);
      expect(lost[0]).toBeInstanceOf(StateConflictError);
      expect(lost[0]).toMatchObject({ stream: 'invoices', partition: '', expected: 1, actual: 2 });
      const state = await store().readState('invoices');
      const ids = (await store().readRows('invoices')).map((r) => r.id);
      expect(ids).toEqual(state.watermark === 20 ? ['a', 'b'] : ['a', 'c']);
    } finally {
      if (other !== store()) await other.close();
    }
  });

  it('two first transitions from version 0: exactly one wins', async () => {
    const results = await Promise.allSettled([
      page(store(), 'a', { stream: 'invoices', expectedVersion: 0, cursor: 'x' }),
      page(store(), 'b', { stream: 'invoices', expectedVersion: 0, cursor: 'y' }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(await store().countRows('invoices')).toBe(1);
  });

  it('the watermark never moves backwards', async () => {
    await page(store(), 'a', { stream: 'invoices', expectedVersion: 0, watermark: 100 });
    await expect(
      page(store(), 'b', { stream: 'invoices', expectedVersion: 1, watermark: 99 }),
    ).rejects.toMatchObject({
      constructor: WatermarkRegressionError,
      committed: 100,
      attempted: 99,
    });
    await expect(
      page(store(), 'b', { stream: 'invoices', expectedVersion: 1, watermark: null }),
    ).rejects.toBeInstanceOf(WatermarkRegressionError);
    expect(await store().countRows('invoices')).toBe(1);
    await page(store(), 'c', { stream: 'invoices', expectedVersion: 1, watermark: 100, cursor: 'keep' });
  });

  it('reset forgets watermark and checkpoint of every partition, keeps the data, and fences runs in flight', async () => {
    await page(store(), 'a', { stream: 'invoices', expectedVersion: 0, watermark: 100, cursor: 'c' });
    await page(store(), 'b', { stream: 'invoices', partition: 'p2', expectedVersion: 0, watermark: 5 });
    expect((await store().resetState('invoices')).partitions).toBe(2);
    expect(await store().readState('invoices')).toMatchObject({ version: 2, watermark: null, cursor: null });
    expect(await store().countRows('invoices')).toBe(2);
    await expect(
      page(store(), 'c', { stream: 'invoices', expectedVersion: 1, watermark: 200 }),
    ).rejects.toBeInstanceOf(StateConflictError);
    await page(store(), 'c', { stream: 'invoices', expectedVersion: 2, watermark: 1 });
  });

  it('reset of one partition forgets only its state; with data it deletes only its scope, and refuses a partition that is no scope', async () => {
    const tasks = (operator: string, ids: string[]) =>
      store().writePage({
        stream: 'tasks',
        scope: operator,
        records: keyed(ids.map((id) => task(id))),
        now,
        runId: null,
        state: { stream: 'tasks', partition: operator, expectedVersion: 0, strategyState: { pass: 1 } },
      });
    await tasks('1001', ['a', 'b']);
    await tasks('1002', ['c']);
    expect(await store().resetState('tasks', { partition: '1001', data: true })).toEqual({
      partitions: 1,
      rows: 2,
    });
    expect(await store().countRows('tasks')).toBe(1);
    expect(await store().readState('tasks', '1001')).toMatchObject({ version: 2, strategyState: null });
    expect(await store().readState('tasks', '1002')).toMatchObject({
      version: 1,
      strategyState: { pass: 1 },
    });
    await page(store(), 'a', { stream: 'invoices', partition: 'deleted', expectedVersion: 0, watermark: 5 });
    await expect(store().resetState('invoices', { partition: 'deleted', data: true })).rejects.toThrow(
      /shares the invoices table/,
    );
    expect(await store().resetState('invoices', { data: true })).toEqual({ partitions: 1, rows: 1 });
    expect(await store().countRows('invoices')).toBe(0);
  });

  it('reset of a child stream marks it to refresh every parent in its next run', async () => {
    expect(await store().refreshAllPending('invoice_lines', { take: false })).toBeUndefined();
    await store().resetState('invoice_lines');
    expect(await store().refreshAllPending('invoice_lines', { take: false })).toEqual({ after: undefined });
  });
});
