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
    expect(await store().referencedIds('tasks', { path: 'id', scope: 'op2' })).toEqual(['t0']);
  });

  it("keeps each partition's latest run and latest success as runs pile up, and when runs are deleted", async () => {
    const run = async (partition: string, result: 'succeeded' | 'failed', at: Date) => {
      const id = await store().startRun({ stream: 'tasks', partition, trigger: 'schedule', now: at });
      const counts = { pages: 0, inserted: 0, updated: 0, deleted: 0, drift: 0, held: 0 };
      await store().finishRun(id, { ...counts, result, error: null, now: at });
      return id;
    };
    const at = (minutes: number) => new Date(now.getTime() + minutes * 60_000);
    await run('op1', 'succeeded', at(1));
    const success = await run('op1', 'succeeded', at(2));
    const failure = await run('op1', 'failed', at(3));
    const other = await run('op2', 'failed', at(4));
    const latest = () =>
      store()
        .lastRuns()
        .then((runs) => runs.map((r) => [r.partition, r.id, r.result]));
    const successes = () =>
      store()
        .lastSuccesses()
        .then((runs) => runs.map((r) => [r.partition, r.finishedAt.toISOString()]));
    expect(await latest()).toEqual([
      ['op1', failure, 'failed'],
      ['op2', other, 'failed'],
    ]);
    expect(await successes()).toEqual([['op1', at(2).toISOString()]]);
    const url = await fixture.url();
    await fixture.query(url, `delete from sync_runs where id in (${failure}, ${success})`);
    expect((await latest())[0]).toEqual(['op1', success - 1, 'succeeded']);
    expect(await successes()).toEqual([['op1', at(1).toISOString()]]);
    await fixture.query(url, "delete from sync_runs where partition = 'op1'");
    expect(await latest()).toEqual([['op2', other, 'failed']]);
    expect(await successes()).toEqual([]);
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
