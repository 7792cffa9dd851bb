import { expect, it } from 'vitest';
import { StreamUsageError } from '../../src/store/errors.js';
import { describeOnEachDialect, useStore } from '../support/on-each-dialect.js';
import { invoice, keyed, later, now, task } from './records.js';

describeOnEachDialect('deletes', (fixture) => {
  const store = useStore(fixture);

  const tasks = (scope: string, count: number, prefix = 't') =>
    store().writePage({
      stream: 'tasks',
      scope,
      records: keyed(Array.from({ length: count }, (_, i) => task(`${prefix}${i}`))),
      now,
      runId: null,
    });

  it('a snapshot marks the rows it no longer lists deleted, in its scope only', async () => {
    await tasks('op1', 30);
    await tasks('op2', 30);
    const seen = Array.from({ length: 25 }, (_, i) => `t${i}`);
    const result = await store().markMissing({
      stream: 'tasks',
      scope: 'op1',
      seenIds: seen,
      reason: 'snapshot_missing',
      now: later,
    });
    expect(result).toEqual({ deleted: 5, held: 0, live: 30 });
    const gone = await store().readRows('tasks', { scope: 'op1', live: false });
    expect(gone.map((r) => [r.id, r.deletedReason, r.deletedAt])).toEqual(
      ['t25', 't26', 't27', 't28', 't29'].map((id) => [id, 'snapshot_missing', later]),
    );
    expect(await store().countRows('tasks', { scope: 'op2', live: true })).toBe(30);
  });

  const seenOf = (count: number, prefix = 't') => Array.from({ length: count }, (_, i) => `${prefix}${i}`);

  it('holds back an implausible pass: nothing deleted, the scope recorded, the rest goes on', async () => {
    await tasks('op1', 150);
    await tasks('op2', 150);
    const held = await store().markMissing({
      stream: 'tasks',
      scope: 'op1',
      seenIds: ['t0', 't1'],
      reason: 'snapshot_missing',
      now,
      runId: 7,
    });
    expect(held).toEqual({ deleted: 0, held: 148, live: 150 });
    expect(await store().countRows('tasks', { scope: 'op1', live: true })).toBe(150);
    expect(await store().heldDeletes('tasks')).toEqual([
      {
        stream: 'tasks',
        scope: 'op1',
        reason: 'snapshot_missing',
        wouldDelete: 148,
        liveBefore: 150,
        liveAfter: 2,
        runId: 7,
        detectedAt: now,
        approvedAt: null,
      },
    ]);
    const other = await store().markMissing({
      stream: 'tasks',
      scope: 'op2',
      seenIds: seenOf(140),
      reason: 'snapshot_missing',
      now,
    });
    expect(other).toEqual({ deleted: 10, held: 0, live: 150 });
  });

  it('applies held deletes on the next pass once approved, and forgets the scope', async () => {
    await tasks('op1', 150);
    const pass = { stream: 'tasks', scope: 'op1', seenIds: ['t0'], reason: 'snapshot_missing', now } as const;
    expect((await store().markMissing(pass)).held).toBe(149);
    expect((await store().markMissing(pass)).held).toBe(149);
    expect(await store().approveDeletes({ stream: 'tasks', scopes: ['op1', 'op9'], now: later })).toEqual([
      'op1',
    ]);
    expect((await store().heldDeletes())[0]!.approvedAt).toEqual(later);
    expect(await store().markMissing(pass)).toEqual({ deleted: 149, held: 0, live: 150 });
    expect(await store().heldDeletes()).toEqual([]);
  });

  it('forgets a held scope when a later pass finds it plausible (the server recovered)', async () => {
    await tasks('op1', 150);
    await store().markMissing({
      stream: 'tasks',
      scope: 'op1',
      seenIds: [],
      reason: 'snapshot_missing',
      now,
    });
    expect(await store().heldDeletes()).toHaveLength(1);
    const recovered = await store().markMissing({
      stream: 'tasks',
      scope: 'op1',
      seenIds: seenOf(150),
      reason: 'snapshot_missing',
      now,
    });
    expect(recovered).toEqual({ deleted: 0, held: 0, live: 150 });
    expect(await store().heldDeletes()).toEqual([]);
  });

  it('a list replaced by new records is no mass delete: the scope loses nothing on balance', async () => {
    await tasks('op1', 150);
    const written = await tasks('op1', 150, 'new-');
    const result = await store().markMissing({
      stream: 'tasks',
      scope: 'op1',
      seenIds: seenOf(150, 'new-'),
      reason: 'snapshot_missing',
      listedNew: written.inserted,
      now,
    });
    expect(result).toEqual({ deleted: 150, held: 0, live: 300 });
  });

  it('does not judge small scopes on their own: a few rows may all go', async () => {
    await tasks('op1', 30);
    const result = await store().markMissing({
      stream: 'tasks',
      scope: 'op1',
      seenIds: [],
      reason: 'snapshot_missing',
      now,
    });
    expect(result).toEqual({ deleted: 30, held: 0, live: 30 });
  });

  it('approveAll (sync --approve-deletes) applies an implausible pass at once', async () => {
    await tasks('op1', 150);
    const result = await store().markMissing({
      stream: 'tasks',
      scope: 'op1',
      seenIds: [],
      reason: 'snapshot_missing',
      now,
      guard: { approveAll: true },
    });
    expect(result).toEqual({ deleted: 150, held: 0, live: 150 });
  });

  it('a dry run computes and guards but writes nothing', async () => {
    await tasks('op1', 20);
    const result = await store().markMissing({
      stream: 'tasks',
      scope: 'op1',
      seenIds: ['t0', 't1', 't2', 't3', 't4', 't5', 't6', 't7', 't8', 't9', 't10', 't11'],
      reason: 'snapshot_missing',
      now,
      dryRun: true,
    });
    expect(result).toEqual({ deleted: 8, held: 0, live: 20 });
    expect(await store().countRows('tasks', { live: true })).toBe(20);
  });

  it('markMissing with 100,000+ ids works', async () => {
    const count = 120_000;
    const records = Array.from({ length: count }, (_, i) => invoice(`inv-${i}`, i + 1));
    for (let start = 0; start < count; start += 10_000) {
      await store().writePage({
        stream: 'invoices',
        records: keyed(records.slice(start, start + 10_000)),
        now,
        runId: null,
      });
    }
    const seen = records.filter((_, i) => i % 1000 !== 0).map((r) => r.id);
    const result = await store().markMissing({
      stream: 'invoices',
      seenIds: seen,
      reason: 'reconcile_missing',
      now,
      state: { stream: 'invoices', expectedVersion: 0, strategyState: { reconciledAt: now.toISOString() } },
    });
    expect(result).toMatchObject({ deleted: 120, live: count, state: { version: 1 } });
    expect(await store().countRows('invoices', { live: false })).toBe(120);
  }, 60_000);

  it('markDeleted marks the given ids, and leaves already deleted rows as they were', async () => {
    await tasks('op1', 5);
    expect(
      (
        await store().markDeleted({
          stream: 'tasks',
          scope: 'op1',
          ids: ['t1', 't2', 'zz'],
          reason: 'reconcile_missing',
          now,
        })
      ).deleted,
    ).toBe(2);
    expect(
      (
        await store().markDeleted({
          stream: 'tasks',
          scope: 'op1',
          ids: ['t1'],
          reason: 'upstream',
          now: later,
        })
      ).deleted,
    ).toBe(0);
    const [t1] = await store().readRows('tasks', { scope: 'op1', live: false });
    expect(t1).toMatchObject({ id: 't1', deletedReason: 'reconcile_missing', deletedAt: now });
  });

  it('marks the children of deleted parents deleted, by scope', async () => {
    for (const parent of ['i1', 'i2', 'i3']) {
      await store().writePage({
        stream: 'invoice_lines',
        scope: parent,
        records: keyed([{ id: 'l1' }, { id: 'l2' }]),
        now,
        runId: null,
      });
    }
    const result = await store().markDeletedByScope({
      stream: 'invoice_lines',
      scopeValues: ['i1', 'i3'],
      now,
    });
    expect(result.deleted).toBe(4);
    const rows = await store().readRows('invoice_lines', { live: false });
    expect(rows.map((r) => [r.scope, r.id, r.deletedReason])).toEqual([
      ['i1', 'l1', 'parent_deleted'],
      ['i1', 'l2', 'parent_deleted'],
      ['i3', 'l1', 'parent_deleted'],
      ['i3', 'l2', 'parent_deleted'],
    ]);
    await expect(
      store().markDeletedByScope({ stream: 'invoices', scopeValues: ['x'], now }),
    ).rejects.toBeInstanceOf(StreamUsageError);
  });
});
