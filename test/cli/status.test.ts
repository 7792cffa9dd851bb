import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readStatus } from '../../src/cli/status-command.js';
import type { Store } from '../../src/store/store.js';
import { dialects, type StoreFixture } from '../store/store-fixture.js';
import { type SyncSetup, startSyncSetup } from '../support/sync-setup.js';

describe.each(dialects)('status on $name', ({ fixture: makeFixture }) => {
  const fixture: StoreFixture = makeFixture();
  let store: Store;
  let setup: SyncSetup;

  beforeEach(async () => {
    store = await fixture.open();
    setup = await startSyncSetup(store);
  });
  afterEach(async () => {
    await setup.close();
    await store.close();
  });
  afterAll(() => fixture.cleanup());

  const line = async (stream: string, partition = '') =>
    (await readStatus(store, new Date())).find(
      (item) => item.stream === stream && item.partition === partition,
    )!;

  it("shows a child stream's waiting parents, and that a backfill left every parent to refresh", async () => {
    await setup.engine.run(['invoices']);
    const invoices = await line('invoices');
    expect(invoices.watermark).not.toBeNull();
    expect(invoices.lastRun?.result).toBe('succeeded');
    expect(invoices.pending).toBeUndefined();
    const deleted = await store.countRows('invoices', { live: false });
    expect((await line('invoice_lines')).pending).toEqual({ queuedParents: deleted, everyParent: true });
    await setup.engine.run(['invoice_lines']);
    expect((await line('invoice_lines')).pending).toBeUndefined();
    expect((await line('invoice_payments')).pending).toEqual({ queuedParents: deleted, everyParent: true });
  });
});
