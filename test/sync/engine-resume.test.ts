import { expect, it } from 'vitest';
import { differencesFromTruth } from '../../src/cli/store-vs-truth.js';
import { stateOf } from '../store/run-pages.js';
import { describeOnEachDialect, useSyncSetup } from '../support/on-each-dialect.js';

describeOnEachDialect('a sequence stream', (fixture) => {
  const { store, setup } = useSyncSetup(fixture, { invoices: 1000 });

  it('resumes from the checkpoint after a run aborted mid-cycle and loses nothing', async () => {
    const controller = new AbortController();
    const aborted = await setup().engine.runPartition('invoices', '', {
      signal: controller.signal,
      onProgress: (progress) => progress.pages === 3 && controller.abort(),
    });
    expect(aborted.result).toBe('interrupted');
    const checkpoint = await stateOf(store(), 'invoices', '');
    expect(checkpoint.cursor).not.toBeNull();
    // The watermark is never ahead of the data: none before the cycle's last page.
    expect(checkpoint.watermark).toBeNull();
    // Pages of 100; the abort came after the third page's commit. On SQLite the next three pages
    // may already wait at the store's thread behind it (docs/sync-engine.md, "Pages in flight"):
    // each commits whole, with its checkpoint, or not at all.
    const committed = (await store().countRows('invoices')) / 100;
    expect([3, 4, 5, 6]).toContain(committed);

    const resumed = await setup().engine.runPartition('invoices', '');
    expect(resumed.result).toBe('succeeded');
    // The resumed run starts at the checkpoint: it fetches only the pages not yet committed (of
    // 10), then one catch-up cycle from the new watermark (one empty page, nothing changed meanwhile).
    expect(resumed.pages).toBe(10 - committed + 1);
    expect(await differencesFromTruth(store(), await setup().admin.truth('invoices'), ['invoices'])).toEqual(
      [],
    );
  });

  it('a backfill marks the child streams once; an interrupted refresh of every parent goes on where it stood', async () => {
    await setup().engine.runPartition('invoices', '');
    expect(await store().pendingChildWork()).toMatchObject([
      { stream: 'invoice_lines', queuedParents: 0, everyParent: true },
      { stream: 'invoice_payments', queuedParents: 0, everyParent: true },
    ]);
    const controller = new AbortController();
    const aborted = await setup().engine.run(['invoice_lines'], {
      signal: controller.signal,
      onProgress: (progress) => progress.pages >= 200 && controller.abort(),
    });
    expect(aborted[0]?.result).toBe('interrupted');
    // The pass stood after the parents it settled: a run now takes up from there.
    const run = await store().openRun({
      stream: 'invoice_lines',
      partition: '',
      trigger: 'cli',
      dryRun: true,
    });
    for await (const batch of run.childWork().batches(() => run.flush())) {
      const first = (await store().readRows('invoices', { live: true }))[0]!.id;
      expect(batch.parents[0]).not.toBe(first);
      break;
    }
    const resumed = await setup().engine.run(['invoice_lines']);
    expect(resumed[0]?.result).toBe('succeeded');
    const live = await store().countRows('invoices', { live: true });
    // The resumed pass starts after the parents the interrupted one finished, all of them from the
    // first: it repeats at most the parents that were in flight.
    expect(resumed[0]!.pages).toBeLessThan(live);
    const repeated = aborted[0]!.pages + resumed[0]!.pages - live;
    expect(repeated).toBeGreaterThanOrEqual(0);
    expect(repeated).toBeLessThanOrEqual(setup().settings.tms.maxConcurrency);
    expect(
      (await store().pendingChildWork()).find((work) => work.stream === 'invoice_lines'),
    ).toBeUndefined();
    const truth = await setup().admin.truth('invoice_lines');
    expect(await differencesFromTruth(store(), truth, ['invoice_lines'])).toEqual([]);
  });

  it('stores a record whose fields have other types as received: the run goes on and the columns follow', async () => {
    await setup().engine.run(['invoices']);
    await setup().admin.setOverride('invoices', '0000000005', {
      totals: 'not an object',
      status: 42,
      paidAmount: 'lots',
    });
    const live = await setup().engine.runPartition('invoices', '');
    expect(live).toMatchObject({ result: 'succeeded', drift: 1, updated: 1 });
    const row = (await store().readRows('invoices')).find((candidate) => candidate.id === '0000000005')!;
    expect(row.data).toMatchObject({ totals: 'not an object', status: 42, paidAmount: 'lots' });
    expect(row.columns).toMatchObject({
      totals: 'not an object',
      totals__gross: null,
      status: '42',
      paid_amount: null,
    });
    expect(await differencesFromTruth(store(), await setup().admin.truth('invoices'), ['invoices'])).toEqual(
      [],
    );
  });

  it('fails the run when a page holds a record without a usable key, committing nothing of that page', async () => {
    await setup().engine.run(['invoices']);
    const before = await stateOf(store(), 'invoices', '');
    await setup().admin.setOverride('invoices', '0000000007', { id: null, number: 'changed' });
    await setup().admin.setOverride('invoices', '0000000008', { number: 'changed too' });
    const live = await setup().engine.runPartition('invoices', '');
    expect(live?.result).toBe('failed');
    expect(live?.error).toMatch(
      /^RecordKeyError: invoices: record \d+ of \d+ in page 1 has no usable key: 'id' is null/,
    );
    expect(await stateOf(store(), 'invoices', '')).toMatchObject({
      watermark: before.watermark,
      version: before.version,
    });
    const numbers = (await store().readRows('invoices')).filter((row) =>
      String((row.data as { number: unknown }).number).startsWith('changed'),
    );
    expect(numbers).toEqual([]);
  });
});
