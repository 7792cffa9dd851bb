import { expect, it } from 'vitest';
import type { StoreVerbs } from '../../src/store/store.js';
import { describeOnEachDialect, useStore } from '../support/on-each-dialect.js';
import { invoice, keyed, later, now } from './records.js';

describeOnEachDialect('child queue', (fixture) => {
  const store = useStore(fixture);

  const children = ['invoice_lines', 'invoice_payments'];
  const page = (ids: string[], extra: Partial<Parameters<StoreVerbs['writePage']>[0]> = {}) =>
    store().writePage({
      stream: 'invoices',
      records: keyed(ids.map((id, i) => invoice(id, i + 1))),
      now,
      runId: null,
      enqueueChildren: children,
      ...extra,
    });

  it('a parent page queues its keys for every child stream, in its transaction', async () => {
    await page(['b', 'a']);
    await expect(page(['c'], { state: { stream: 'invoices', expectedVersion: 5 } })).rejects.toThrow();
    expect(await store().pendingParents('invoice_lines', { limit: 10 })).toEqual(['a', 'b']);
    expect(await store().pendingParents('invoice_payments', { limit: 1 })).toEqual(['a']);
    expect(await store().pendingParents('invoice_payments', { limit: 10, after: 'a' })).toEqual(['b']);
  });

  it('the last page of a full cycle marks each child stream to refresh every parent, in its transaction', async () => {
    const mark = { enqueueChildren: [], refreshAllChildren: children };
    await expect(
      page(['a'], { ...mark, state: { stream: 'invoices', expectedVersion: 5 } }),
    ).rejects.toThrow();
    expect(await store().refreshAllPending('invoice_lines', { take: false })).toBeUndefined();
    await page(['a', 'b'], mark);
    expect(await store().pendingParents('invoice_lines', { limit: 10 })).toEqual([]);
    expect(await store().refreshAllPending('invoice_lines', { take: true })).toEqual({ after: undefined });
    await store().advanceRefreshAll('invoice_lines', 'a');
    expect(await store().refreshAllPending('invoice_lines', { take: true })).toEqual({ after: 'a' });
    // Marked again while the pass runs: the pass neither advances nor ends it; it restarts from the first parent.
    await page(['c'], { ...mark, now: later });
    await store().advanceRefreshAll('invoice_lines', 'b');
    await store().advanceRefreshAll('invoice_lines', undefined);
    expect(await store().refreshAllPending('invoice_lines', { take: true })).toEqual({ after: undefined });
    await store().advanceRefreshAll('invoice_lines', undefined);
    expect(await store().refreshAllPending('invoice_lines', { take: false })).toBeUndefined();
    expect(await store().refreshAllPending('invoice_payments', { take: false })).toEqual({
      after: undefined,
    });
  });

  it('an ack dequeues the batch, but not a parent queued again while it was worked on', async () => {
    await page(['a', 'b']);
    const batch = await store().pendingParents('invoice_lines', { limit: 10 });
    await page(['b'], { now: later });
    await store().ackParents('invoice_lines', batch);
    expect(await store().pendingParents('invoice_lines', { limit: 10 })).toEqual(['b']);
  });

  it('parents marked missing are queued; every parent can be queued; liveKeys tells the live ones', async () => {
    await store().writePage({
      stream: 'invoices',
      records: keyed([invoice('a', 1), invoice('b', 2), invoice('c', 3)]),
      now,
      runId: null,
    });
    await store().markMissing({
      stream: 'invoices',
      seenIds: ['a', 'b'],
      reason: 'reconcile_missing',
      now,
      enqueueChildren: ['invoice_lines'],
    });
    expect(await store().pendingParents('invoice_lines', { limit: 10 })).toEqual(['c']);
    expect([...(await store().liveKeys('invoices', ['a', 'c', 'zz']))]).toEqual(['a']);
    await store().enqueueAllParents('invoice_payments', 'invoices');
    expect(await store().pendingParents('invoice_payments', { limit: 10 })).toEqual(['a', 'b', 'c']);
  });
});
