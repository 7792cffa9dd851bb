import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { MassDeleteError, StreamUsageError } from '../../src/store/errors.js';
import type { Store } from '../../src/store/store.js';
import { invoice, later, now, sequenceOf, task } from './records.js';
import { dialects } from './store-fixture.js';

describe.each(dialects)('deletes on $name', ({ fixture: createFixture }) => {
  const fixture = createFixture();
  let store: Store;

  beforeEach(async () => {
    store = await fixture.open();
    return () => store.close();
  });
  afterAll(() => fixture.cleanup());

  const tasks = (scope: string, count: number) =>
    store.writePage({
      stream: 'tasks',
      scope,
      records: Array.from({ length: count }, (_, i) => task(`t${i}`)),
      now,
      runId: null,
    });

  it('a snapshot marks the rows it no longer lists deleted, in its scope only', async () => {
    await tasks('op1', 30);
    await tasks('op2', 30);
    const seen = Array.from({ length: 25 }, (_, i) => `t${i}`);
    const result = await store.markMissing({
      stream: 'tasks',
      scope: 'op1',
      seenIds: seen,
      reason: 'snapshot_missing',
      now: later,
    });
    expect(result).toEqual({ deleted: 5, live: 30 });
    const gone = await store.readRows('tasks', { scope: 'op1', live: false });
    expect(gone.map((r) => [r.id, r.deletedReason, r.deletedAt])).toEqual(
      ['t25', 't26', 't27', 't28', 't29'].map((id) => [id, 'snapshot_missing', later]),
    );
    expect(await store.countRows('tasks', { scope: 'op2', live: true })).toBe(30);
  });

  it('a snapshot that would delete an implausible share stops and changes nothing', async () => {
    await tasks('op1', 40);
    const pass = store.markMissing({
      stream: 'tasks',
      scope: 'op1',
      seenIds: ['t0', 't1'],
      reason: 'snapshot_missing',
      now,
    });
    await expect(pass).rejects.toBeInstanceOf(MassDeleteError);
    await expect(pass).rejects.toMatchObject({
      stream: 'tasks',
      scope: 'op1',
      wouldDelete: 38,
      live: 40,
      share: 0.95,
    });
    expect(await store.countRows('tasks', { live: true })).toBe(40);
    const allowed = await store.markMissing({
      stream: 'tasks',
      scope: 'op1',
      seenIds: ['t0'],
      reason: 'snapshot_missing',
      now,
      maxDeleteShare: 1,
    });
    expect(allowed.deleted).toBe(39);
  });

  it('does not block tiny scopes: a few rows may all go', async () => {
    await tasks('op1', 3);
    const result = await store.markMissing({
      stream: 'tasks',
      scope: 'op1',
      seenIds: [],
      reason: 'snapshot_missing',
      now,
    });
    expect(result).toEqual({ deleted: 3, live: 3 });
  });

  it('a dry run computes and guards but writes nothing', async () => {
    await tasks('op1', 20);
    const result = await store.markMissing({
      stream: 'tasks',
      scope: 'op1',
      seenIds: ['t0', 't1', 't2', 't3', 't4', 't5', 't6', 't7', 't8', 't9', 't10', 't11'],
      reason: 'snapshot_missing',
      now,
      dryRun: true,
    });
    expect(result).toEqual({ deleted: 8, live: 20 });
    expect(await store.countRows('tasks', { live: true })).toBe(20);
  });

  it('markMissing with 100,000+ ids works', async () => {
    const count = 120_000;
    const records = Array.from({ length: count }, (_, i) => invoice(`inv-${i}`, i + 1));
    for (let start = 0; start < count; start += 10_000) {
      await store.writePage({
        stream: 'invoices',
        records: records.slice(start, start + 10_000),
        sequenceOf,
        now,
        runId: null,
      });
    }
    const seen = records.filter((_, i) => i % 1000 !== 0).map((r) => r.id);
    const result = await store.markMissing({
      stream: 'invoices',
      seenIds: seen,
      reason: 'reconcile_missing',
      now,
      state: { stream: 'invoices', expectedVersion: 0, strategyState: { reconciledAt: now.toISOString() } },
    });
    expect(result).toMatchObject({ deleted: 120, live: count, state: { version: 1 } });
    expect(await store.countRows('invoices', { live: false })).toBe(120);
  }, 60_000);

  it('markDeleted marks the given ids, and leaves already deleted rows as they were', async () => {
    await tasks('op1', 5);
    expect(
      (
        await store.markDeleted({
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
        await store.markDeleted({
          stream: 'tasks',
          scope: 'op1',
          ids: ['t1'],
          reason: 'upstream',
          now: later,
        })
      ).deleted,
    ).toBe(0);
    const [t1] = await store.readRows('tasks', { scope: 'op1', live: false });
    expect(t1).toMatchObject({ id: 't1', deletedReason: 'reconcile_missing', deletedAt: now });
  });

  it('marks the children of deleted parents deleted, by scope', async () => {
    for (const parent of ['i1', 'i2', 'i3']) {
      await store.writePage({
        stream: 'invoice_lines',
        scope: parent,
        records: [{ id: 'l1' }, { id: 'l2' }],
        now,
        runId: null,
      });
    }
    const result = await store.markDeletedByScope({
      stream: 'invoice_lines',
      scopeValues: ['i1', 'i3'],
      now,
    });
    expect(result.deleted).toBe(4);
    const rows = await store.readRows('invoice_lines', { live: false });
    expect(rows.map((r) => [r.scope, r.id, r.deletedReason])).toEqual([
      ['i1', 'l1', 'parent_deleted'],
      ['i1', 'l2', 'parent_deleted'],
      ['i3', 'l1', 'parent_deleted'],
      ['i3', 'l2', 'parent_deleted'],
    ]);
    await expect(
      store.markDeletedByScope({ stream: 'invoices', scopeValues: ['x'], now }),
    ).rejects.toBeInstanceOf(StreamUsageError);
  });
});
