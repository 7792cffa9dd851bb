import { describe, expect, it } from 'vitest';
import { differencesFromTruth } from '../../src/cli/store-vs-truth.js';
import type { SimVariant } from '../../src/sim/sim-options.js';
import type { PartitionSummary } from '../../src/sync/run-options.js';
import { describeOnEachDialect, useSyncSetup } from '../support/on-each-dialect.js';

const failures = (summaries: readonly PartitionSummary[]) =>
  summaries
    .filter((summary) => summary.result !== 'succeeded')
    .map((summary) => `${summary.stream}/${summary.partition}: ${summary.error}`);

/** tms-sim's default, and other TMSs: other record shapes combined with the other variants (docs/records.md). */
const variants: ReadonlyArray<[string, Partial<SimVariant>]> = [
  ['default shapes', {}],
  [
    'random shapes, unsafe ids, a renamed sequence field',
    { recordShapes: 'random', recordShapesSeed: 7, idStyle: 'unsafe', sequenceField: 'rev' },
  ],
  [
    'alt shapes, single records in data.items, opaque tokens',
    { recordShapes: 'alt', singleEnvelope: 'items', tokenFormat: 'opaque' },
  ],
];

describe.each(variants)('against %s', (_label, variant) => {
  describeOnEachDialect('the sync engine', (fixture) => {
    const { store, setup } = useSyncSetup(fixture, { invoices: 300, clients: 60, operators: 2, variant });

    it('makes the store() equal the simulator truth for every stream after a full backfill', async () => {
      const summaries = await setup().engine.run([]);
      expect(failures(summaries)).toEqual([]);
      expect(await differencesFromTruth(store(), await setup().admin.truth())).toEqual([]);
      const invoices = summaries.find((summary) => summary.stream === 'invoices' && summary.partition === '');
      expect(invoices?.inserted).toBeGreaterThan(0);
      expect(invoices?.watermark).not.toBeNull();
    });

    it('converges again after random changes with an incremental run plus reconcile, fetching only what changed', async () => {
      await setup().engine.run([]);
      const changes = await setup().admin.applyChanges(60, 7);
      const incremental = await setup().engine.run([], { reconcile: true });
      expect(failures(incremental)).toEqual([]);
      expect(await differencesFromTruth(store(), await setup().admin.truth())).toEqual([]);
      const invoicesFetched = incremental.find((s) => s.stream === 'invoices' && s.partition === '')!.records;
      const invoiceChanges = new Set(
        changes
          .filter((c) => ['invoices', 'invoice_lines', 'invoice_payments'].includes(c.stream))
          .map((c) => c.scope ?? c.id),
      );
      expect(invoicesFetched).toBeLessThanOrEqual(invoiceChanges.size);
    });

    it('moves nothing on a second run when nothing changed', async () => {
      await setup().engine.run([]);
      const again = await setup().engine.run(['invoices', 'clients', 'tasks']);
      expect(failures(again)).toEqual([]);
      for (const summary of again) {
        expect(summary.inserted + summary.updated + summary.deleted).toBe(0);
      }
    });
  });
});
