import { expect, it } from 'vitest';
import { describeOnEachDialect, useStore } from '../support/on-each-dialect.js';
import { invoice, keyed, later, now, task } from './records.js';

describeOnEachDialect('runs and reads', (fixture) => {
  const store = useStore(fixture);

  it('records runs from start to finish and lists the latest per stream partition', async () => {
    const first = await store().startRun({ stream: 'invoices', trigger: 'schedule', now });
    await store().finishRun(first, {
      result: 'failed',
      pages: 1,
      inserted: 2,
      updated: 0,
      deleted: 0,
      drift: 1,
      held: 4,
      error: 'boom',
      now: later,
    });
    const second = await store().startRun({ stream: 'invoices', trigger: 'manual', now: later });
    const tasks = await store().startRun({ stream: 'tasks', partition: 'op1', trigger: 'webhook', now });
    expect(second).toBeGreaterThan(first);
    expect(await store().listRuns({ stream: 'invoices' })).toMatchObject([
      { id: second, result: 'running', finishedAt: null, trigger: 'manual' },
      {
        id: first,
        result: 'failed',
        error: 'boom',
        pages: 1,
        inserted: 2,
        drift: 1,
        held: 4,
        startedAt: now,
        finishedAt: later,
      },
    ]);
    expect((await store().lastRuns()).map((r) => [r.stream, r.partition, r.id])).toEqual([
      ['invoices', '', second],
      ['tasks', 'op1', tasks],
    ]);
    expect(await store().listRuns({ limit: 1 })).toHaveLength(1);
  });

  it('iterates live ids and records in key order, in batches', async () => {
    await store().writePage({
      stream: 'tasks',
      scope: 'op1',
      records: keyed(['t3', 't1', 't2', 't4', 't5'].map((id) => task(id))),
      now,
      runId: null,
    });
    await store().writePage({
      stream: 'tasks',
      scope: 'op2',
      records: keyed([task('t0')]),
      now,
      runId: null,
    });
    await store().markDeleted({ stream: 'tasks', scope: 'op1', ids: ['t4'], reason: 'upstream', now });
    const batches: string[][] = [];
    for await (const batch of store().liveIds('tasks', { scope: 'op1', batchSize: 2 })) batches.push(batch);
    expect(batches).toEqual([
      ['t1', 't2'],
      ['t3', 't5'],
    ]);
    const records: unknown[] = [];
    for await (const batch of store().liveRecords('tasks', { scope: 'op2' })) records.push(...batch);
    expect(records).toEqual([{ id: 't0', data: task('t0') }]);
  });

  it('counts rows, live and deleted', async () => {
    await store().writePage({
      stream: 'invoices',
      records: keyed([invoice('a', 1), invoice('b', 2)]),
      now,
      runId: null,
    });
    await store().writePage({
      stream: 'invoices',
      records: keyed([invoice('c', 3)]),
      now,
      runId: null,
      deletedUpstream: true,
    });
    expect([
      await store().countRows('invoices'),
      await store().countRows('invoices', { live: true }),
      await store().countRows('invoices', { live: false }),
    ]).toEqual([3, 2, 1]);
  });

  it('answers a ping', async () => {
    await expect(store().ping()).resolves.toBeUndefined();
  });
});
