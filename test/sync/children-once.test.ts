import { expect, it } from 'vitest';
import { describeOnEachDialect, useSyncSetup } from '../support/on-each-dialect.js';

// `sync --full` fetched every invoice's children twice (1,906 pages for 953 invoices).

describeOnEachDialect('child streams', (fixture) => {
  const { store, setup } = useSyncSetup(fixture, { invoices: 120, clients: 20, operators: 1 });

  const detailRequests = async () =>
    Object.values((await setup().admin.requests())['GET /invoice/invoices/:invoiceId'] ?? {}).reduce(
      (a, b) => a + b,
      0,
    );

  it('fetch the children of each live parent once, in a backfill and in a --full run', async () => {
    const streams = ['invoices', 'invoice_lines'];
    const backfill = await setup().engine.run(streams);
    expect(backfill.every((s) => s.result === 'succeeded')).toBe(true);
    const live = await store().countRows('invoices', { live: true });
    expect(await detailRequests()).toBe(live);
    const full = await setup().engine.run(streams, { full: true });
    expect(full.every((s) => s.result === 'succeeded')).toBe(true);
    expect(await detailRequests()).toBe(2 * live);
    expect(full.find((s) => s.stream === 'invoice_lines')?.pages).toBe(live);
  });
});
