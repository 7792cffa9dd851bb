import { describe, expect, it } from 'vitest';
import { describeOnEachDialect, useSyncSetup } from '../support/on-each-dialect.js';

// A child stream ran, and succeeded with nothing, once its parent's small `deleted` partition had
// committed and before its live listing had: `status` showed it synced while it held no row (seen
// in the connections bench as a store "differing" right after every partition's first success).

// Also against another TMS's ways: other record shapes, ids to encode, another sequence field.
const otherTms = { recordShapes: 'alt', idStyle: 'unsafe', sequenceField: 'seqNo' } as const;

describeOnEachDialect("a child stream's first run", (fixture) => {
  for (const [name, variant] of [['tms-sim', {}] as const, ['another TMS', otherTms] as const])
    describe(`against ${name}`, () => liveListingCases(fixture, variant));
});

function liveListingCases(fixture: Parameters<typeof useSyncSetup>[0], variant: object) {
  const { store, setup } = useSyncSetup(fixture, { invoices: 60, clients: 10, operators: 1, variant });

  it("waits for its parent's live listing, not its deleted partition", async () => {
    const { engine } = setup();
    expect((await engine.runPartition('invoices', 'deleted')).result).toBe('succeeded');
    const early = await engine.runPartition('invoice_lines', '');
    expect(early.result).toBe('skipped');
    expect(early.error).toBe(
      'invoices has never been synced (invoice_lines reads its rows): sync invoices first, or both together',
    );
    expect(await store().listRuns({ stream: 'invoice_lines' })).toHaveLength(0);

    expect((await engine.runPartition('invoices', '')).result).toBe('succeeded');
    const lines = await engine.runPartition('invoice_lines', '');
    expect(lines.result).toBe('succeeded');
    expect(lines.pages).toBe(await store().countRows('invoices', { live: true }));
  });
}
