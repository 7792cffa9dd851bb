import { expect, it } from 'vitest';
import { differencesFromTruth } from '../../src/cli/store-vs-truth.js';
import { restStreams } from '../../src/sim/admin/sim-truth.js';
import { describeOnEachDialect, useSyncSetup } from '../support/on-each-dialect.js';

// The ids `.` and `..` must reach the TMS as ids, not as dot segments that a
// proxy resolves into another resource (`GET /invoice/invoices/..` is `GET /invoice/`). tms-sim's
// `dots` ids make the first invoice and client `.` and `..`, and it resolves raw dot segments
// before routing as a proxy would.

describeOnEachDialect('records whose ids are dot segments', (fixture) => {
  const { store, setup } = useSyncSetup(fixture, {
    invoices: 30,
    clients: 12,
    variant: { idStyle: 'dots' },
  });

  it('syncs the child streams of the parents `.` and `..` like any other, and again after they change', async () => {
    const first = await setup().engine.run(restStreams);
    expect(first.filter((summary) => summary.result !== 'succeeded')).toEqual([]);
    const truth = await setup().admin.truth();
    for (const parent of ['.', '..']) {
      expect(truth.invoices?.['']?.records.some((record) => (record as { id?: unknown }).id === parent)).toBe(
        true,
      );
      expect(truth.invoice_lines?.[parent]?.records.length ?? 0).toBeGreaterThan(0);
    }
    expect(await differencesFromTruth(store(), truth, restStreams)).toEqual([]);

    // Changes include hard deletes (of `.` itself, with seed 3): reconcile finds those.
    await setup().admin.applyChanges(40, 3);
    const second = await setup().engine.run(restStreams, { reconcile: true });
    expect(second.filter((summary) => summary.result !== 'succeeded')).toEqual([]);
    expect(await differencesFromTruth(store(), await setup().admin.truth(), restStreams)).toEqual([]);
  });
});
