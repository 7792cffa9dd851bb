import { expect, it } from 'vitest';
import type { PartitionRun } from '../../src/store/store.js';
import { StreamUsageError } from '../../src/store/store-errors.js';
import { describeOnEachDialect, useStore } from '../support/on-each-dialect.js';
import { invoice, keyed, later, now, task } from './records.js';
import { commitRecords, inRun, type TestRunOptions } from './run-pages.js';

describeOnEachDialect('a run marks rows deleted', (fixture) => {
  const store = useStore(fixture);

  const tasks = (scope: string, count: number, prefix = 't') =>
    commitRecords(
      store(),
      'tasks',
      { scope, records: keyed(Array.from({ length: count }, (_, i) => task(`${prefix}${i}`))) },
      { partition: scope, now },
    );
  const seenOf = (count: number, prefix = 't') => Array.from({ length: count }, (_, i) => `${prefix}${i}`);
  /** A snapshot pass of one operator's tasks in a run of its own; answers the run's counts. */
  const pass = (
    scope: string,
    seenIds: readonly string[],
    options: TestRunOptions & { listedNew?: number } = {},
  ) =>
    inRun(
      store(),
      'tasks',
      (run: PartitionRun) =>
        run.markMissing({
          scope,
          seenIds,
          reason: 'snapshot_missing',
          ...(options.listedNew === undefined ? {} : { listedNew: options.listedNew }),
        }),
      { partition: scope, now, ...options },
    );

  it('a snapshot marks the rows it no longer lists deleted, in its scope only', async () => {
    await tasks('op1', 30);
    await tasks('op2', 30);
    expect(await pass('op1', seenOf(25), { now: later })).toMatchObject({ deleted: 5, held: 0 });
    const gone = await store().readRows('tasks', { scope: 'op1', live: false });
    expect(gone.map((r) => [r.id, r.deletedReason, r.deletedAt])).toEqual(
      ['t25', 't26', 't27', 't28', 't29'].map((id) => [id, 'snapshot_missing', later]),
    );
    expect(await store().countRows('tasks', { scope: 'op2', live: true })).toBe(30);
  });

  it('holds back an implausible pass: nothing deleted, the scope recorded, the rest goes on', async () => {
    await tasks('op1', 150);
    await tasks('op2', 150);
    expect(await pass('op1', ['t0', 't1'])).toMatchObject({ deleted: 0, held: 148 });
    expect(await store().countRows('tasks', { scope: 'op1', live: true })).toBe(150);
    const [run] = await store().listRuns({ stream: 'tasks', partition: 'op1', limit: 1 });
    expect(await store().heldDeletes('tasks')).toEqual([
      {
        stream: 'tasks',
        scope: 'op1',
        reason: 'snapshot_missing',
        wouldDelete: 148,
        liveBefore: 150,
        liveAfter: 2,
        runId: run!.id,
        detectedAt: now,
        approvedAt: null,
      },
    ]);
    expect(await pass('op2', seenOf(140))).toMatchObject({ deleted: 10, held: 0 });
  });

  it('applies held deletes on the next pass once approved, and forgets the scope', async () => {
    await tasks('op1', 150);
    expect((await pass('op1', ['t0'])).held).toBe(149);
    expect((await pass('op1', ['t0'])).held).toBe(149);
    expect(await store().approveDeletes({ stream: 'tasks', scopes: ['op1', 'op9'], now: later })).toEqual([
      'op1',
    ]);
    expect((await store().heldDeletes())[0]!.approvedAt).toEqual(later);
    expect(await pass('op1', ['t0'])).toMatchObject({ deleted: 149, held: 0 });
    expect(await store().heldDeletes()).toEqual([]);
  });

  it('forgets a held scope when a later pass finds it plausible (the server recovered)', async () => {
    await tasks('op1', 150);
    await pass('op1', []);
    expect(await store().heldDeletes()).toHaveLength(1);
    expect(await pass('op1', seenOf(150))).toMatchObject({ deleted: 0, held: 0 });
    expect(await store().heldDeletes()).toEqual([]);
  });

  it('a list replaced by new records is no mass delete: the scope loses nothing on balance', async () => {
    await tasks('op1', 150);
    const written = await tasks('op1', 150, 'new-');
    expect(await pass('op1', seenOf(150, 'new-'), { listedNew: written.inserted })).toMatchObject({
      deleted: 150,
      held: 0,
    });
  });

  it('does not judge small scopes on their own: a few rows may all go', async () => {
    await tasks('op1', 30);
    expect(await pass('op1', [])).toMatchObject({ deleted: 30, held: 0 });
  });

  it('approveAll (sync --approve-deletes) applies an implausible pass at once', async () => {
    await tasks('op1', 150);
    expect(await pass('op1', [], { guard: { approveAll: true } })).toMatchObject({ deleted: 150, held: 0 });
  });

  it('a dry run computes and guards but writes nothing', async () => {
    await tasks('op1', 20);
    expect(await pass('op1', seenOf(12), { dryRun: true })).toMatchObject({ deleted: 8, held: 0 });
    expect(await store().countRows('tasks', { live: true })).toBe(20);
    await tasks('op2', 150);
    expect(await pass('op2', [], { dryRun: true })).toMatchObject({ deleted: 0, held: 150 });
    expect(await store().heldDeletes()).toEqual([]);
  });

  it('a pass of 100,000+ ids works', async () => {
    const count = 120_000;
    const records = Array.from({ length: count }, (_, i) => invoice(`inv-${i}`, i + 1));
    const seen = records.filter((_, i) => i % 1000 !== 0).map((r) => r.id);
    const counts = await inRun(store(), 'invoices', async (run) => {
      for (let start = 0; start < count; start += 10_000)
        await run.commitPage({
          records: keyed(records.slice(start, start + 10_000)),
          state: { strategyState: null },
        });
      await run.flush();
      await run.markMissing({ seenIds: seen, reason: 'reconcile_missing' });
    });
    expect(counts).toMatchObject({ inserted: count, deleted: 120 });
    expect(await store().countRows('invoices', { live: false })).toBe(120);
  }, 60_000);

  it('marks the children of deleted parents deleted, by scope', async () => {
    for (const parent of ['i1', 'i2', 'i3'])
      await commitRecords(store(), 'invoice_lines', {
        scope: parent,
        records: keyed([{ id: 'l1' }, { id: 'l2' }]),
      });
    const counts = await inRun(store(), 'invoice_lines', (run) => run.markScopesDeleted(['i1', 'i3']), {
      now,
    });
    expect(counts.deleted).toBe(4);
    const rows = await store().readRows('invoice_lines', { live: false });
    expect(rows.map((r) => [r.scope, r.id, r.deletedReason])).toEqual([
      ['i1', 'l1', 'parent_deleted'],
      ['i1', 'l2', 'parent_deleted'],
      ['i3', 'l1', 'parent_deleted'],
      ['i3', 'l2', 'parent_deleted'],
    ]);
    await expect(inRun(store(), 'invoices', (run) => run.markScopesDeleted(['x']))).rejects.toBeInstanceOf(
      StreamUsageError,
    );
  });
});
