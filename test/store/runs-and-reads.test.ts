import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';
import { invoice, later, now, sequenceOf, task } from './records.js';
import { dialects } from './store-fixture.js';

describe.each(dialects)('runs and reads on $name', ({ fixture: createFixture }) => {
  const fixture = createFixture();
  let store: Store;

  beforeEach(async () => {
    store = await fixture.open();
    return () => store.close();
  });
  afterAll(() => fixture.cleanup());

  it('records runs from start to finish and lists the latest per stream partition', async () => {
    const first = await store.startRun({ stream: 'invoices', trigger: 'schedule', now });
    await store.finishRun(first, {
      result: 'failed',
      pages: 1,
      inserted: 2,
      updated: 0,
      deleted: 0,
      rejected: 1,
      error: 'boom',
      now: later,
    });
    const second = await store.startRun({ stream: 'invoices', trigger: 'manual', now: later });
    const tasks = await store.startRun({ stream: 'tasks', partition: 'op1', trigger: 'webhook', now });
    expect(second).toBeGreaterThan(first);
    expect(await store.listRuns({ stream: 'invoices' })).toMatchObject([
      { id: second, result: 'running', finishedAt: null, trigger: 'manual' },
      {
        id: first,
        result: 'failed',
        error: 'boom',
        pages: 1,
        inserted: 2,
        rejected: 1,
        startedAt: now,
        finishedAt: later,
      },
    ]);
    expect((await store.lastRuns()).map((r) => [r.stream, r.partition, r.id])).toEqual([
      ['invoices', '', second],
      ['tasks', 'op1', tasks],
    ]);
    expect(await store.listRuns({ limit: 1 })).toHaveLength(1);
  });

  it('inserts a rejected record on its own', async () => {
    const runId = await store.startRun({ stream: 'tasks', partition: 'op1', trigger: 'cli' });
    await store.insertRejected({
      runId,
      stream: 'tasks',
      scope: 'op1',
      key: 't9',
      reason: 'status: expected string',
      data: { id: 't9' },
      now,
    });
    const rows = await fixture.query(
      await fixture.url(),
      'select cast(run_id as integer) as run_id, stream, scope, record_key, reason, data from rejected_records',
    );
    expect(rows).toEqual([
      {
        run_id: runId,
        stream: 'tasks',
        scope: 'op1',
        record_key: 't9',
        reason: 'status: expected string',
        data: '{"id":"t9"}',
      },
    ]);
  });

  it('iterates live ids and records in key order, in batches', async () => {
    await store.writePage({
      stream: 'tasks',
      scope: 'op1',
      records: ['t3', 't1', 't2', 't4', 't5'].map((id) => task(id)),
      now,
      runId: null,
    });
    await store.writePage({ stream: 'tasks', scope: 'op2', records: [task('t0')], now, runId: null });
    await store.markDeleted({ stream: 'tasks', scope: 'op1', ids: ['t4'], reason: 'upstream', now });
    const batches: string[][] = [];
    for await (const batch of store.liveIds('tasks', { scope: 'op1', batchSize: 2 })) batches.push(batch);
    expect(batches).toEqual([
      ['t1', 't2'],
      ['t3', 't5'],
    ]);
    const records: unknown[] = [];
    for await (const batch of store.liveRecords('tasks', { scope: 'op2' })) records.push(...batch);
    expect(records).toEqual([{ id: 't0', data: task('t0') }]);
  });

  it('counts rows, live and deleted', async () => {
    await store.writePage({
      stream: 'invoices',
      records: [invoice('a', 1), invoice('b', 2)],
      sequenceOf,
      now,
      runId: null,
    });
    await store.writePage({
      stream: 'invoices',
      records: [invoice('c', 3)],
      sequenceOf,
      now,
      runId: null,
      deletedUpstream: true,
    });
    expect([
      await store.countRows('invoices'),
      await store.countRows('invoices', { live: true }),
      await store.countRows('invoices', { live: false }),
    ]).toEqual([3, 2, 1]);
  });

  it('answers a ping', async () => {
    await expect(store.ping()).resolves.toBeUndefined();
  });
});
