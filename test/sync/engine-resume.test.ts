import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { differencesFromTruth } from '../../src/sim/verify/store-vs-truth.js';
import type { Store } from '../../src/store/store.js';
import { dialects, type StoreFixture } from '../store/store-fixture.js';
import { type SyncSetup, startSyncSetup } from '../support/sync-setup.js';

describe.each(dialects)('a sequence stream on $name', ({ fixture: makeFixture }) => {
  const fixture: StoreFixture = makeFixture();
  let store: Store;
  let setup: SyncSetup;

  beforeEach(async () => {
    store = await fixture.open();
    setup = await startSyncSetup(store, { invoices: 1000 });
  });
  afterEach(async () => {
    await setup.close();
    await store.close();
  });
  afterAll(() => fixture.cleanup());

  it('resumes from the checkpoint after a run aborted mid-cycle and loses nothing', async () => {
    const controller = new AbortController();
    const aborted = await setup.engine.run(['invoices'], {
      partition: '',
      signal: controller.signal,
      onProgress: (progress) => progress.pages === 3 && controller.abort(),
    });
    expect(aborted[0]?.result).toBe('aborted');
    const checkpoint = await store.readState('invoices', '');
    expect(checkpoint.cursor).not.toBeNull();
    // The watermark is never ahead of the data: none before the cycle's last page.
    expect(checkpoint.watermark).toBeNull();
    expect(await store.countRows('invoices')).toBe(300);

    const resumed = await setup.engine.run(['invoices'], { partition: '' });
    expect(resumed[0]?.result).toBe('succeeded');
    // The resumed run starts at the checkpoint: it fetches only the pages not yet committed (7),
    // then one catch-up cycle from the new watermark (one empty page, nothing changed meanwhile).
    expect(resumed[0]?.pages).toBe(8);
    expect(await differencesFromTruth(store, await setup.admin.truth('invoices'), ['invoices'])).toEqual([]);
  });

  it('a backfill marks the child streams once; an interrupted refresh of every parent goes on where it stood', async () => {
    await setup.engine.run(['invoices'], { partition: '' });
    expect(await store.pendingParents('invoice_lines', { limit: 10 })).toEqual([]);
    const controller = new AbortController();
    const aborted = await setup.engine.run(['invoice_lines'], {
      signal: controller.signal,
      onProgress: (progress) => progress.pages >= 200 && controller.abort(),
    });
    expect(aborted[0]?.result).toBe('aborted');
    const stood = await store.refreshAllPending('invoice_lines', { take: false });
    expect(stood?.after).toBeDefined();
    const resumed = await setup.engine.run(['invoice_lines']);
    expect(resumed[0]?.result).toBe('succeeded');
    const live = await store.countRows('invoices', { live: true });
    // The resumed pass starts after the last parent the interrupted one finished.
    expect(resumed[0]!.pages).toBeLessThan(live);
    expect(aborted[0]!.pages + resumed[0]!.pages).toBe(live);
    expect(await store.refreshAllPending('invoice_lines', { take: false })).toBeUndefined();
    const truth = await setup.admin.truth('invoice_lines');
    expect(await differencesFromTruth(store, truth, ['invoice_lines'])).toEqual([]);
  });

  it('stores a record whose known fields have the wrong type in rejected_records and keeps the stream going', async () => {
    await setup.engine.run(['invoices']);
    await setup.admin.setOverride('invoices', '0000000005', { totals: 'not an object' });
    const [live] = await setup.engine.run(['invoices'], { partition: '' });
    expect(live?.result).toBe('succeeded');
    expect(live?.rejected).toBe(1);
    const rejected = await fixture.query<{ record_key: string; reason: string }>(
      await fixture.url(),
      'select record_key, reason from rejected_records',
    );
    expect(rejected).toEqual([expect.objectContaining({ record_key: '0000000005' })]);
    expect(rejected[0]?.reason).toContain('/totals');
  });
});
