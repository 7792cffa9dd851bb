import { expect, it } from 'vitest';
import { readStatus } from '../../src/cli/status-command.js';
import { describeOnEachDialect, useSyncSetup } from '../support/on-each-dialect.js';

describeOnEachDialect('status', (fixture) => {
  const { store, setup } = useSyncSetup(fixture);

  const line = async (stream: string, partition = '') =>
    (await readStatus(store(), new Date())).find(
      (item) => item.stream === stream && item.partition === partition,
    )!;

  it("shows a child stream's waiting parents, and that a backfill left every parent to refresh", async () => {
    await setup().engine.run(['invoices']);
    const invoices = await line('invoices');
    expect(invoices.watermark).not.toBeNull();
    expect(invoices.lastRun?.result).toBe('succeeded');
    expect(invoices.pending).toBeUndefined();
    const deleted = await store().countRows('invoices', { live: false });
    expect((await line('invoice_lines')).pending).toEqual({
      queuedParents: deleted,
      everyParent: true,
      leftParents: 0,
      lastError: null,
    });
    await setup().engine.run(['invoice_lines']);
    expect((await line('invoice_lines')).pending).toBeUndefined();
    expect((await line('invoice_payments')).pending).toEqual({
      queuedParents: deleted,
      everyParent: true,
      leftParents: 0,
      lastError: null,
    });
  });
});
