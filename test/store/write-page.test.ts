import fc from 'fast-check';
import { expect, it } from 'vitest';
import type { PageState, StoreRecord } from '../../src/store/store.js';
import { StateConflictError, StreamUsageError } from '../../src/store/store-errors.js';
import { describeOnEachDialect, useStore } from '../support/on-each-dialect.js';
import { invoice, keyed, later, now, task } from './records.js';
import { commitRecords, inRun, openTestRun, stateOf, type TestPage } from './run-pages.js';

describeOnEachDialect('a run writes pages', (fixture) => {
  const store = useStore(fixture);

  /** One page of invoices in a run of its own; answers the run's counts. */
  const write = (records: object[], page: Partial<TestPage> = {}, at = now) =>
    commitRecords(store(), 'invoices', { records: keyed(records), ...page }, { now: at });

  it('inserts new rows and counts them', async () => {
    const counts = await write([invoice('a', 1), invoice('b', 2)]);
    expect(counts).toMatchObject({
      pages: 1,
      records: 2,
      inserted: 2,
      updated: 0,
      unchanged: 0,
      older: 0,
      drift: 0,
    });
    const rows = await store().readRows('invoices');
    expect(rows.map((r) => [r.id, r.sequence, r.deletedAt])).toEqual([
      ['a', 1, null],
      ['b', 2, null],
    ]);
    expect(rows[0]!.data).toEqual(invoice('a', 1));
  });

  it('a row is never overwritten by an older sequence', async () => {
    await write([invoice('a', 10, { number: 'new' })]);
    const counts = await write([invoice('a', 9, { number: 'old' })], {}, later);
    expect(counts).toMatchObject({ inserted: 0, updated: 0, older: 1 });
    const [row] = await store().readRows('invoices');
    expect(row).toMatchObject({ sequence: 10, columns: expect.objectContaining({ number: 'new' }) });
    expect(row!.syncedAt).toEqual(now);
  });

  it('an equal or higher sequence wins', async () => {
    await write([invoice('a', 10), invoice('b', 10)]);
    const counts = await write([
      invoice('a', 10, { number: 'same-seq' }),
      invoice('b', 11, { number: 'newer' }),
    ]);
    expect(counts).toMatchObject({ updated: 2 });
    const rows = await store().readRows('invoices');
    expect(rows.map((r) => r.columns.number)).toEqual(['same-seq', 'newer']);
  });

  it('null sequences: the last write wins', async () => {
    await write([invoice('a', 5)]);
    const records: StoreRecord[] = [
      { key: 'a', sequence: null, data: { ...invoice('a', 1, { number: 'x' }) } },
    ];
    await commitRecords(store(), 'invoices', { records }, { now });
    const [row] = await store().readRows('invoices');
    expect(row).toMatchObject({ sequence: null, columns: expect.objectContaining({ number: 'x' }) });
  });

  it('unchanged rows are not rewritten (synced_at kept)', async () => {
    await write([invoice('a', 1), invoice('b', 2)]);
    const counts = await write([invoice('a', 1), invoice('b', 3)], {}, later);
    expect(counts).toMatchObject({ inserted: 0, updated: 1, unchanged: 1, older: 0 });
    const rows = await store().readRows('invoices');
    expect(rows.map((r) => r.syncedAt)).toEqual([now, later]);
  });

  it('soft deletes set deleted_at with reason upstream', async () => {
    await write([invoice('a', 1), invoice('b', 2)]);
    const deleted = { deletedUpstream: true };
    const counts = await write([invoice('a', 3, { status: 'deleted' }), invoice('c', 4)], deleted, later);
    expect(counts).toMatchObject({ inserted: 1, updated: 1 });
    const rows = await store().readRows('invoices');
    expect(rows.map((r) => [r.id, r.deletedReason, r.deletedAt])).toEqual([
      ['a', 'upstream', later],
      ['b', null, null],
      ['c', 'upstream', later],
    ]);
    expect(await write([invoice('a', 3, { status: 'deleted' })], deleted)).toMatchObject({ unchanged: 1 });
    expect(await store().countRows('invoices', { live: true })).toBe(1);
  });

  it('a row that reappears upstream is restored', async () => {
    await write([invoice('a', 1)], { deletedUpstream: true });
    expect(await write([invoice('a', 2)], {}, later)).toMatchObject({ updated: 1 });
    const [row] = await store().readRows('invoices');
    expect(row).toMatchObject({ deletedAt: null, deletedReason: null, sequence: 2 });
  });

  it('keeps one row per key when a page lists a key twice, the highest sequence', async () => {
    const counts = await write([
      invoice('a', 2, { number: 'two' }),
      invoice('a', 5, { number: 'five' }),
      invoice('a', 3),
    ]);
    expect(counts).toMatchObject({ inserted: 1 });
    const [row] = await store().readRows('invoices');
    expect(row).toMatchObject({ sequence: 5, columns: expect.objectContaining({ number: 'five' }) });
  });

  it('the watermark is never ahead of the data (a failing page leaves neither rows nor state)', async () => {
    const checkpoint: PageState = { checkpoint: { cursor: 'p1', cycleMaxSequence: 9, strategyState: null } };
    const stale = await openTestRun(store(), 'invoices', { now });
    await write([invoice('a', 1)], { state: checkpoint });
    expect(await stateOf(store(), 'invoices')).toMatchObject({ version: 1, cursor: 'p1', watermark: null });
    // A run that read the state before another committed: its page is refused whole.
    await stale.commitPage({
      records: keyed([invoice('b', 2, { brandNew: 'field' } as never)]),
      state: { watermark: 2 },
    });
    await expect(stale.flush()).rejects.toBeInstanceOf(StateConflictError);
    expect((await store().readRows('invoices')).map((r) => r.id)).toEqual(['a']);
    expect(await stateOf(store(), 'invoices')).toMatchObject({ version: 1, watermark: null, cursor: 'p1' });
    // The failed page's new column went with it, and the next page that brings the field adds it.
    expect((await store().describeColumns('invoices')).map((c) => c.column)).not.toContain('brand_new');
    await write([invoice('c', 3, { brandNew: 'field' } as never)]);
    expect((await store().readRows('invoices')).find((r) => r.id === 'c')!.columns.brand_new).toBe('field');
  });

  it('pages commit in the order given; a page after a failed one never commits', async () => {
    const stale = await openTestRun(store(), 'invoices', { now });
    await write([invoice('a', 1)], { state: { strategyState: 'other run' } });
    // The first page's compare-and-set is stale; the page behind it expects the version the store
    // happens to hold, so only the order, not the version, can keep it out.
    await stale.commitPage({ records: keyed([invoice('b', 2)]), state: { strategyState: 1 } });
    await stale
      .commitPage({ records: keyed([invoice('c', 3)]), state: { strategyState: 2 } })
      .catch(() => undefined);
    await expect(stale.flush()).rejects.toBeInstanceOf(StateConflictError);
    expect((await store().readRows('invoices')).map((r) => r.id)).toEqual(['a']);
    expect(await stateOf(store(), 'invoices')).toMatchObject({ version: 1, strategyState: 'other run' });

    const counts = await inRun(store(), 'invoices', async (run) => {
      await run.commitPage({
        records: keyed([invoice('d', 4), invoice('a', 5)]),
        state: { strategyState: 'p4' },
      });
      await run.commitPage({
        records: keyed([invoice('e', 6), invoice('a', 7)]),
        state: { strategyState: 'p5' },
      });
    });
    expect(counts).toMatchObject({ pages: 2, inserted: 2, updated: 2 });
    expect(await stateOf(store(), 'invoices')).toMatchObject({ version: 3, strategyState: 'p5' });
    const rows = await store().readRows('invoices');
    expect(rows.map((r) => [r.id, r.sequence])).toEqual([
      ['a', 7],
      ['d', 4],
      ['e', 6],
    ]);
  });

  it('a dry run writes nothing and reports the same counts', async () => {
    await write([invoice('a', 1), invoice('b', 5)]);
    const page = {
      records: keyed([invoice('a', 2), invoice('b', 4), invoice('c', 1)]),
      state: { watermark: 9 },
    };
    const dry = await commitRecords(store(), 'invoices', page, { now: later, dryRun: true });
    expect(dry).toMatchObject({ inserted: 1, updated: 1, older: 1, unchanged: 0, watermark: 9 });
    expect((await store().readRows('invoices')).map((r) => [r.id, r.sequence])).toEqual([
      ['a', 1],
      ['b', 5],
    ]);
    expect(await stateOf(store(), 'invoices')).toMatchObject({ version: 1, watermark: null });
    expect(await store().listRuns({ stream: 'invoices' })).toHaveLength(1);
    expect(await commitRecords(store(), 'invoices', page, { now: later })).toEqual(dry);
  });

  it('scopes rows: the same id in two scopes is two rows, and a scope is required', async () => {
    for (const scope of ['op1', 'op2'])
      await commitRecords(
        store(),
        'tasks',
        { scope, records: keyed([task('t1')]) },
        { partition: scope, now },
      );
    expect(await store().countRows('tasks')).toBe(2);
    expect(await store().countRows('tasks', { scope: 'op2' })).toBe(1);
    await expect(commitRecords(store(), 'tasks', { records: keyed([task('t1')]) })).rejects.toBeInstanceOf(
      StreamUsageError,
    );
    await expect(commitRecords(store(), 'nope', { records: [] })).rejects.toBeInstanceOf(StreamUsageError);
  });

  it('counts each row of a page, many rows to a statement, by what the store held: inserted, updated, unchanged, older', async () => {
    const sequence = fc.option(fc.integer({ min: 1, max: 4 }), { nil: null });
    const version = fc.record({ sequence, number: fc.constantFrom('x', 'y') });
    const rowArb = fc.record({
      key: fc.nat(60),
      stored: fc.option(version, { nil: undefined }),
      incoming: version,
    });
    const record = (id: string, { sequence, number }: { sequence: number | null; number: string }) => ({
      key: id,
      sequence,
      data: { ...invoice(id, 0, { number }), sequence },
    });
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(rowArb, { selector: (row) => row.key, maxLength: 40 }),
        async (rows) => {
          await fixture.query(await fixture.url(), 'delete from invoices');
          const id = (key: number) => `k${String(key).padStart(2, '0')}`;
          const stored = rows.flatMap((row) => (row.stored ? [record(id(row.key), row.stored)] : []));
          if (stored.length > 0) await commitRecords(store(), 'invoices', { records: stored }, { now });
          const expected = { inserted: 0, updated: 0, unchanged: 0, older: 0 };
          for (const { stored: before, incoming } of rows) {
            if (!before) expected.inserted++;
            else if (
              incoming.sequence !== null &&
              before.sequence !== null &&
              incoming.sequence < before.sequence
            )
              expected.older++;
            else if (incoming.sequence === before.sequence && incoming.number === before.number)
              expected.unchanged++;
            else expected.updated++;
          }
          const incoming = rows.map((row) => record(id(row.key), row.incoming));
          const counts = await commitRecords(store(), 'invoices', { records: incoming }, { now: later });
          expect(counts).toMatchObject(expected);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('any sequence of pages ends with each row holding its highest-sequence record', async () => {
    const pageArb = fc.array(
      fc.record({
        id: fc.constantFrom('a', 'b', 'c', 'd'),
        sequence: fc.integer({ min: 1, max: 1_000_000 }),
        tag: fc.string({ maxLength: 3 }),
      }),
      { maxLength: 8 },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(pageArb, { minLength: 1, maxLength: 6 }), async (pages) => {
        await fixture.query(await fixture.url(), 'delete from invoices');
        const best = new Map<string, { sequence: number; tag: string }>();
        await inRun(store(), 'invoices', async (run) => {
          for (const page of pages) {
            const records = keyed(page.map((r) => invoice(r.id, r.sequence, { number: r.tag })));
            await run.commitPage({ records, state: { strategyState: null } });
            for (const r of page) if (r.sequence >= (best.get(r.id)?.sequence ?? 0)) best.set(r.id, r);
          }
        });
        const rows = await store().readRows('invoices');
        expect(rows.map((r) => [r.id, r.sequence])).toEqual(
          [...best].sort(([a], [b]) => (a < b ? -1 : 1)).map(([id, r]) => [id, r.sequence]),
        );
        for (const row of rows) expect(row.columns.number).toBe(best.get(row.id)!.tag);
      }),
      { numRuns: 40 },
    );
  });
});
