import { expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';
import { describeOnEachDialect, useStore } from '../support/on-each-dialect.js';
import { invoice, keyed, later, now } from './records.js';
import { commitRecords, inRun, openTestRun, type TestPage } from './run-pages.js';
import { statementCounter } from './statement-counter.js';

/** The parents a child run would take now, in order (a dry run: nothing is taken). */
async function queued(store: Store, child: string): Promise<string[]> {
  const run = await openTestRun(store, child, { dryRun: true });
  const parents: string[] = [];
  for await (const batch of run.childWork().batches(async () => undefined)) parents.push(...batch.parents);
  return parents;
}

/** Whether the child stream is marked to refresh every parent. */
async function everyParent(store: Store, child: string): Promise<boolean> {
  return (await store.pendingChildWork()).find((work) => work.stream === child)?.everyParent ?? false;
}

describeOnEachDialect('the child queue', (fixture) => {
  const counter = statementCounter();
  const store = useStore(fixture, { plugins: [counter] });

  const page = (ids: string[], extra: Partial<TestPage> = {}, at = now) =>
    commitRecords(
      store(),
      'invoices',
      { records: keyed(ids.map((id, i) => invoice(id, i + 1))), ...extra },
      { now: at },
    );
  const fullCycle = { fullCycle: true, state: { watermark: 9 } };

  it("a parent's page queues its keys for every child stream, in its transaction", async () => {
    const stale = await openTestRun(store(), 'invoices', { now });
    await page(['b', 'a']);
    await stale.commitPage({ records: keyed([invoice('c', 1)]), state: { strategyState: null } });
    await expect(stale.flush()).rejects.toThrow();
    expect(await queued(store(), 'invoice_lines')).toEqual(['a', 'b']);
    expect(await queued(store(), 'invoice_payments')).toEqual(['a', 'b']);
    expect(await store().pendingChildWork()).toMatchObject([
      { stream: 'invoice_lines', queuedParents: 2, everyParent: false },
      { stream: 'invoice_payments', queuedParents: 2, everyParent: false },
    ]);
  });

  it('the last page of a full cycle marks each child stream to refresh every parent, in its transaction', async () => {
    const stale = await openTestRun(store(), 'invoices', { now });
    await page([]);
    await stale.commitPage({ records: keyed([invoice('a', 1)]), ...fullCycle });
    await expect(stale.flush()).rejects.toThrow();
    expect(await everyParent(store(), 'invoice_lines')).toBe(false);
    await page(['a', 'b'], fullCycle);
    expect(await everyParent(store(), 'invoice_lines')).toBe(true);
    expect(await everyParent(store(), 'invoice_payments')).toBe(true);
    // The refresh is of every live parent, in id order; done, the mark goes.
    expect(await queued(store(), 'invoice_lines')).toEqual(['a', 'b']);
    await inRun(store(), 'invoice_lines', async (run) => {
      for await (const batch of run.childWork().batches(() => run.flush())) await batch.done(batch.parents);
    });
    expect(await everyParent(store(), 'invoice_lines')).toBe(false);
    expect(await everyParent(store(), 'invoice_payments')).toBe(true);
  });

  it('a refresh-all pass resumes after the parents it settled, and restarts when marked again meanwhile', async () => {
    await page(['a', 'b', 'c'], fullCycle);
    const stopped = new AbortController();
    const run = await store().openRun({
      stream: 'invoice_lines',
      partition: '',
      trigger: 'manual',
      signal: stopped.signal,
    });
    const batches = run.childWork().batches(() => run.flush());
    for await (const batch of batches) {
      await batch.done(['a']);
      break;
    }
    await run.finish({ result: 'interrupted', error: null });
    expect(await queued(store(), 'invoice_lines')).toEqual(['b', 'c']);

    // Marked again while a pass runs: the pass neither advances nor ends it.
    const next = await openTestRun(store(), 'invoice_lines');
    for await (const batch of next.childWork().batches(() => next.flush())) {
      await page(['d'], fullCycle, later);
      await batch.done(batch.parents);
    }
    expect(await everyParent(store(), 'invoice_lines')).toBe(true);
    expect(await queued(store(), 'invoice_lines')).toEqual(['a', 'b', 'c', 'd']);
  });

  it('a child run with no work makes one read, in no transaction; a parent queued after it is found by the next', async () => {
    const idle = await openTestRun(store(), 'invoice_lines', { now });
    counter.statements = 0;
    const parents: string[] = [];
    for await (const batch of idle.childWork().batches(() => idle.flush())) parents.push(...batch.parents);
    expect(parents).toEqual([]);
    // The mark and the queue were read in a transaction each before.
    expect(counter.statements).toBe(1);
    await page(['a']);
    expect(await queued(store(), 'invoice_lines')).toEqual(['a']);
  });

  it('done dequeues the batch, but not a parent queued again while it was worked on', async () => {
    await page(['a', 'b']);
    await inRun(store(), 'invoice_lines', async (run) => {
      for await (const batch of run.childWork().batches(() => run.flush())) {
        await page(['b'], {}, later);
        await batch.done(batch.parents);
      }
    });
    expect(await queued(store(), 'invoice_lines')).toEqual(['b']);
  });

  it('a parent left keeps its place with its error; a dry run settles nothing', async () => {
    await page(['a', 'b']);
    await inRun(
      store(),
      'invoice_lines',
      async (run) => {
        for await (const batch of run.childWork().batches(() => run.flush())) await batch.done(batch.parents);
      },
      { dryRun: true },
    );
    expect(await queued(store(), 'invoice_lines')).toEqual(['a', 'b']);
    await inRun(store(), 'invoice_lines', async (run) => {
      for await (const batch of run.childWork().batches(() => run.flush())) {
        await batch.done(['a']);
        await batch.leave([{ parentId: 'b', error: 'HttpStatusError 503' }]);
      }
    });
    expect(await queued(store(), 'invoice_lines')).toEqual(['b']);
    expect(await store().pendingChildWork()).toMatchObject([
      {
        stream: 'invoice_lines',
        queuedParents: 1,
        leftParents: 1,
        lastError: 'parent b: HttpStatusError 503',
      },
      { stream: 'invoice_payments', queuedParents: 2 },
    ]);
  });

  it('parents marked missing are queued; every parent can be queued; liveKeys tells the live ones', async () => {
    await page(['a', 'b', 'c'], { fullCycle: true, state: { strategyState: null } });
    await inRun(store(), 'invoices', (run) =>
      run.markMissing({ seenIds: ['a', 'b'], reason: 'reconcile_missing' }),
    );
    expect(await queued(store(), 'invoice_lines')).toEqual(['c']);
    expect([...(await store().liveKeys('invoices', ['a', 'c', 'zz']))]).toEqual(['a']);
    await inRun(store(), 'invoice_payments', (run) => run.childWork().queueEveryParent());
    expect(await queued(store(), 'invoice_payments')).toEqual(['a', 'b', 'c']);
  });
});
