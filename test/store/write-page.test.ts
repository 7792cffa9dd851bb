import fc from 'fast-check';
import { expect, it } from 'vitest';
import { StateConflictError, StreamUsageError } from '../../src/store/errors.js';
import { openStoreVerbs } from '../../src/store/open-store.js';
import type { StoreVerbs } from '../../src/store/store.js';
import { describeOnEachDialect, useStore } from '../support/on-each-dialect.js';
import { invoice, keyed, later, now, task } from './records.js';

describeOnEachDialect('writePage', (fixture) => {
  const store = useStore(fixture);

  const write = (records: object[], extra: Partial<Parameters<StoreVerbs['writePage']>[0]> = {}) =>
    store().writePage({ stream: 'invoices', records: keyed(records), now, runId: null, ...extra });

  it('inserts new rows and counts them', async () => {
    const result = await write([invoice('a', 1), invoice('b', 2)]);
    expect(result).toMatchObject({ inserted: 2, updated: 0, unchanged: 0, staleSkipped: 0, drift: 0 });
    const rows = await store().readRows('invoices');
    expect(rows.map((r) => [r.id, r.sequence, r.deletedAt])).toEqual([
      ['a', 1, null],
      ['b', 2, null],
    ]);
    expect(rows[0]!.data).toEqual(invoice('a', 1));
  });

  it('a row is never overwritten by an older sequence', async () => {
    await write([invoice('a', 10, { number: 'new' })]);
    const result = await write([invoice('a', 9, { number: 'old' })], { now: later });
    expect(result).toMatchObject({ inserted: 0, updated: 0, staleSkipped: 1 });
    const [row] = await store().readRows('invoices');
    expect(row).toMatchObject({ sequence: 10, columns: expect.objectContaining({ number: 'new' }) });
    expect(row!.syncedAt).toEqual(now);
  });

  it('an equal or higher sequence wins', async () => {
    await write([invoice('a', 10), invoice('b', 10)]);
    const result = await write([
      invoice('a', 10, { number: 'same-seq' }),
      invoice('b', 11, { number: 'newer' }),
    ]);
    expect(result).toMatchObject({ updated: 2 });
    const rows = await store().readRows('invoices');
    expect(rows.map((r) => r.columns.number)).toEqual(['same-seq', 'newer']);
  });

  it('null sequences: the last write wins', async () => {
    await write([invoice('a', 5)]);
    await store().writePage({
      stream: 'invoices',
      records: [{ key: 'a', sequence: null, data: { ...invoice('a', 1, { number: 'x' }) } }],
      now,
      runId: null,
    });
    const [row] = await store().readRows('invoices');
    expect(row).toMatchObject({ sequence: null, columns: expect.objectContaining({ number: 'x' }) });
  });

  it('unchanged rows are not rewritten (synced_at kept)', async () => {
    await write([invoice('a', 1), invoice('b', 2)]);
    const result = await write([invoice('a', 1), invoice('b', 3)], { now: later });
    expect(result).toMatchObject({ inserted: 0, updated: 1, unchanged: 1, staleSkipped: 0 });
    const rows = await store().readRows('invoices');
    expect(rows.map((r) => r.syncedAt)).toEqual([now, later]);
  });

  it('soft deletes set deleted_at with reason upstream', async () => {
    await write([invoice('a', 1), invoice('b', 2)]);
    const result = await write([invoice('a', 3, { status: 'deleted' }), invoice('c', 4)], {
      deletedUpstream: true,
      now: later,
    });
    expect(result).toMatchObject({ inserted: 1, updated: 1 });
    const rows = await store().readRows('invoices');
    expect(rows.map((r) => [r.id, r.deletedReason, r.deletedAt])).toEqual([
      ['a', 'upstream', later],
      ['b', null, null],
      ['c', 'upstream', later],
    ]);
    const again = await write([invoice('a', 3, { status: 'deleted' })], { deletedUpstream: true });
    expect(again).toMatchObject({ unchanged: 1 });
    expect(await store().countRows('invoices', { live: true })).toBe(1);
  });

  it('a row that reappears upstream is restored', async () => {
    await write([invoice('a', 1)], { deletedUpstream: true });
    const result = await write([invoice('a', 2)], { now: later });
    expect(result).toMatchObject({ updated: 1 });
    const [row] = await store().readRows('invoices');
    expect(row).toMatchObject({ deletedAt: null, deletedReason: null, sequence: 2 });
  });

  it('keeps one row per key when a page lists a key twice, the highest sequence', async () => {
    const result = await write([
      invoice('a', 2, { number: 'two' }),
      invoice('a', 5, { number: 'five' }),
      invoice('a', 3),
    ]);
    expect(result).toMatchObject({ inserted: 1 });
    const [row] = await store().readRows('invoices');
    expect(row).toMatchObject({ sequence: 5, columns: expect.objectContaining({ number: 'five' }) });
  });

  it('the watermark is never ahead of the data (a failing page leaves neither rows nor state)', async () => {
    const first = await write([invoice('a', 1)], {
      state: { stream: 'invoices', expectedVersion: 0, cursor: 'p1' },
    });
    expect(first.state).toMatchObject({ version: 1, cursor: 'p1', watermark: null });
    const failing = write([invoice('b', 2, { brandNew: 'field' } as never)], {
      state: { stream: 'invoices', expectedVersion: 0, watermark: 2 },
    });
    await expect(failing).rejects.toBeInstanceOf(StateConflictError);
    expect((await store().readRows('invoices')).map((r) => r.id)).toEqual(['a']);
    expect(await store().readState('invoices')).toMatchObject({ version: 1, watermark: null, cursor: 'p1' });
    // The failed page's new column went with it, and the next page that brings the field adds it.
    expect((await store().describeColumns('invoices')).map((c) => c.column)).not.toContain('brand_new');
    await write([invoice('c', 3, { brandNew: 'field' } as never)]);
    expect((await store().readRows('invoices')).find((r) => r.id === 'c')!.columns.brand_new).toBe('field');
  });

  it('a page sent behind another commits only after it, and never if it failed', async () => {
    // Page numbers of this test alone (partition runs number theirs from 1).
    const [first, failing, behind, early, late] = [1e9 + 1, 1e9 + 2, 1e9 + 3, 1e9 + 4, 1e9 + 5];
    await write([invoice('a', 1)], {
      state: { stream: 'invoices', expectedVersion: 0, cursor: 'p1' },
      order: { page: first, after: undefined },
    });
    // The page before fails (its compare-and-set is stale); the one behind it expects the version
    // the store happens to hold, so only the order, not the version, can keep it out.
    const a = write([invoice('b', 2)], {
      state: { stream: 'invoices', expectedVersion: 0, cursor: 'p2' },
      order: { page: failing, after: first },
      after: Promise.resolve(),
    });
    const b = write([invoice('c', 3)], {
      state: { stream: 'invoices', expectedVersion: 1, cursor: 'p3' },
      order: { page: behind, after: failing },
      after: a,
    });
    await expect(a).rejects.toBeInstanceOf(StateConflictError);
    await expect(b).rejects.toBeInstanceOf(StateConflictError);
    expect((await store().readRows('invoices')).map((r) => r.id)).toEqual(['a']);
    expect(await store().readState('invoices')).toMatchObject({ version: 1, cursor: 'p1' });

    // The page behind sent while the one before still waits for its turn (refused, sent again once
    // that one committed): it commits after it.
    let release!: () => void;
    const turn = new Promise<void>((resolve) => {
      release = resolve;
    });
    const c = write([invoice('d', 4), invoice('a', 5)], {
      state: { stream: 'invoices', expectedVersion: 1, cursor: 'p4' },
      order: { page: early, after: undefined },
      after: turn,
    });
    const d = write([invoice('e', 6), invoice('a', 7)], {
      state: { stream: 'invoices', expectedVersion: 2, cursor: 'p5' },
      order: { page: late, after: early },
      after: c,
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    expect(await c).toMatchObject({ inserted: 1, updated: 1, state: { version: 2, cursor: 'p4' } });
    expect(await d).toMatchObject({ inserted: 1, updated: 1, state: { version: 3, cursor: 'p5' } });
    const rows = await store().readRows('invoices');
    expect(rows.map((r) => [r.id, r.sequence])).toEqual([
      ['a', 7],
      ['d', 4],
      ['e', 6],
    ]);
  });

  it('preview writes nothing and reports the same counts', async () => {
    await write([invoice('a', 1), invoice('b', 5)]);
    const page = [invoice('a', 2), invoice('b', 4), invoice('c', 1)];
    const state = { stream: 'invoices', expectedVersion: 0, watermark: 9 };
    const preview = await store().previewPage({
      stream: 'invoices',
      records: keyed(page),
      now: later,
      runId: null,
      state,
    });
    expect(preview).toMatchObject({
      inserted: 1,
      updated: 1,
      staleSkipped: 1,
      unchanged: 0,
      state: { watermark: 9 },
    });
    expect((await store().readRows('invoices')).map((r) => [r.id, r.sequence])).toEqual([
      ['a', 1],
      ['b', 5],
    ]);
    expect(await store().readState('invoices')).toMatchObject({ version: 0 });
    const written = await store().writePage({
      stream: 'invoices',
      records: keyed(page),
      now: later,
      runId: null,
      state,
    });
    expect(written).toEqual(preview);
  });

  it("fills the spec's typed columns; a value that does not fit is NULL there and counted as drift", async () => {
    const result = await store().writePage({
      stream: 'tasks',
      scope: 'op1',
      now,
      runId: null,
      records: keyed([
        task('t1', {
          planned: { start: '2024-05-01T10:00:00+02:00', end: null },
          address: { city: 'Gent', country: { code: 'BE' }, location: { latitude: 51.05, longitude: 3.72 } },
          client: [{ id: 'c1' }],
          cashOnDelivery: 'not a number',
          index: 2 ** 40,
          rideId: 17,
        }),
      ]),
    });
    expect(result.drift).toBe(2);
    const [t1] = await store().readRows('tasks', { scope: 'op1' });
    expect(t1!.scope).toBe('op1');
    expect(t1!.columns).toMatchObject({
      planned_start: '2024-05-01T08:00:00.000Z',
      planned_end: null,
      address_city: 'Gent',
      address_country_code: 'BE',
      address_latitude: 51.05,
      client_id: null,
      cash_on_delivery: null,
      task_index: null,
      ride_id: '17',
      status: 'notStarted',
    });
    const drift = (await store().describeColumns('tasks')).filter((column) => column.drift > 0);
    expect(drift.map((c) => [c.column, c.drift, c.driftSample])).toEqual([
      ['cash_on_delivery', 1, 'string "not a number"'],
      ['task_index', 1, 'number 1099511627776'],
    ]);
  });

  const pallet = {
    id: 'p1',
    name: 'Pallet',
    isCarrier: true,
    weightKg: 12.5,
    since: '2024-01-01',
    seenAt: '2024-05-01T10:00:00Z',
    dims: { widthCm: 80, tags: ['a'] },
  };

  it('infers a column for every scalar field from the data: snake_case names, nested objects flattened with __', async () => {
    await store().writePage({
      stream: 'packaging',
      now,
      runId: null,
      records: keyed([
        pallet,
        { id: 'p2', isCarrier: false, weightKg: '13.25', dims: { widthCm: 120, material: { name: 'wood' } } },
      ]),
    });
    const columns = await store().describeColumns('packaging');
    expect(columns.map((c) => [c.column, c.type, c.path, c.origin])).toEqual([
      ['dims__material__name', 'text', 'dims.material.name', 'inferred'],
      ['dims__width_cm', 'number', 'dims.widthCm', 'inferred'],
      ['dims__width_cm_cents', 'cents', 'dims.widthCm', 'inferred'],
      ['is_carrier', 'boolean', 'isCarrier', 'inferred'],
      ['name', 'text', 'name', 'inferred'],
      ['seen_at', 'timestamp', 'seenAt', 'inferred'],
      ['since', 'date', 'since', 'inferred'],
      ['weight_kg', 'text', 'weightKg', 'inferred'],
    ]);
    const rows = await store().readRows('packaging');
    expect(rows.map((r) => r.columns)).toEqual([
      {
        dims__material__name: null,
        dims__width_cm: 80,
        dims__width_cm_cents: 8000,
        is_carrier: true,
        name: 'Pallet',
        seen_at: '2024-05-01T10:00:00.000Z',
        since: '2024-01-01',
        weight_kg: '12.5',
      },
      {
        dims__material__name: 'wood',
        dims__width_cm: 120,
        dims__width_cm_cents: 12000,
        is_carrier: false,
        name: null,
        seen_at: null,
        since: null,
        weight_kg: '13.25',
      },
    ]);
    expect(rows[0]!.data).toEqual(pallet);
  });

  it("never costs a row when a value stops fitting: NULL in the column, drift counted, an object's fields get columns", async () => {
    await store().writePage({
      stream: 'clients',
      now,
      runId: null,
      records: keyed([{ id: 'c1', total: 10, address: { country: 'NL' } }]),
    });
    const second = await store().writePage({
      stream: 'clients',
      now: later,
      runId: null,
      records: keyed([
        { id: 'c2', total: '12.50', address: { country: { code: 'BE', name: 'Belgium' } } },
        { id: 'c3', total: 'n/a', address: null },
      ]),
    });
    expect(second).toMatchObject({ inserted: 2, drift: 2 });
    const rows = await store().readRows('clients');
    expect(
      rows.map((r) => [r.id, r.columns.total, r.columns.address__country, r.columns.address__country__code]),
    ).toEqual([
      ['c1', 10, 'NL', null],
      ['c2', 12.5, null, 'BE'],
      ['c3', null, null, null],
    ]);
    const drift = (await store().describeColumns('clients')).filter((c) => c.drift > 0);
    expect(drift.map((c) => [c.column, c.drift, c.driftSample, c.driftAt])).toEqual([
      ['address__country', 1, 'object {"code":"BE","name":"Belgium"}', later],
      ['total', 1, 'string "n/a"', later],
    ]);
  });

  it('gives a field named like a fixed or scope column another name, and cuts long names with a hash', async () => {
    const long = 'aVeryLongFieldNameThatGoesOnAndOnBeyondWhatPostgresKeepsInAnIdentifier';
    await store().writePage({
      stream: 'settings',
      scope: 'op1',
      now,
      runId: null,
      records: [
        {
          key: 'op1',
          sequence: null,
          data: { operatorId: 'op1', data: 'x', deletedAt: null, syncedAt: 'y', [long]: 1 },
        },
      ],
    });
    const names = (await store().describeColumns('settings')).map((c) => c.column);
    expect(names).toHaveLength(5);
    expect(names).toEqual(expect.arrayContaining(['operator_id_2', 'data_2', 'synced_at_2']));
    const [cut, cents] = names.filter((name) => name.startsWith('a_very_long'));
    expect(cut).toMatch(/^a_very_long_field_name_that_goes_on_and_on_beyond_what_[0-9a-f]{8}$/);
    expect(cut!.length).toBeLessThanOrEqual(63);
    expect(cents).toBe(`${cut!.slice(0, 57)}_cents`);
  });

  it('a dry run adds no column', async () => {
    await store().previewPage({
      stream: 'vehicles',
      now,
      runId: null,
      records: keyed([{ id: 'v1', plate: 'X' }]),
    });
    expect(await store().describeColumns('vehicles')).toEqual([]);
    await store().writePage({
      stream: 'vehicles',
      now,
      runId: null,
      records: keyed([{ id: 'v1', plate: 'X' }]),
    });
    expect((await store().describeColumns('vehicles')).map((c) => c.column)).toEqual(['plate']);
  });

  it('two stores on one database grow the same table at once without losing a value', async () => {
    const other = await openStoreVerbs(await fixture.url());
    try {
      const page = (writer: string, i: number) =>
        keyed([{ id: `${writer}-${i}`, [`${writer}Field${i % 3}`]: i, shared: `${writer}${i}` }]);
      await Promise.all([
        (async () => {
          for (let i = 0; i < 6; i++)
            await store().writePage({ stream: 'trailers', now, runId: null, records: page('a', i) });
        })(),
        (async () => {
          for (let i = 0; i < 6; i++)
            await other.writePage({ stream: 'trailers', now, runId: null, records: page('b', i) });
        })(),
      ]);
      await store().loadColumns();
      const rows = await store().readRows('trailers');
      expect(rows).toHaveLength(12);
      for (const row of rows) {
        const [writer, i] = row.id.split('-') as [string, string];
        expect(row.columns[`${writer}_field${Number(i) % 3}`]).toBe(Number(i));
        expect(row.columns.shared).toBe(`${writer}${i}`);
      }
    } finally {
      await other.close();
    }
  });

  it('scopes rows: the same id in two scopes is two rows, and a scope is required', async () => {
    await store().writePage({
      stream: 'tasks',
      scope: 'op1',
      records: keyed([task('t1')]),
      now,
      runId: null,
    });
    await store().writePage({
      stream: 'tasks',
      scope: 'op2',
      records: keyed([task('t1')]),
      now,
      runId: null,
    });
    expect(await store().countRows('tasks')).toBe(2);
    expect(await store().countRows('tasks', { scope: 'op2' })).toBe(1);
    await expect(
      store().writePage({ stream: 'tasks', records: keyed([task('t1')]), now, runId: null }),
    ).rejects.toBeInstanceOf(StreamUsageError);
    await expect(
      store().writePage({ stream: 'nope', records: keyed([]), now, runId: null }),
    ).rejects.toBeInstanceOf(StreamUsageError);
  });

  it('counts each row of a page, many rows to a statement, by what the store held: inserted, updated, unchanged, stale', async () => {
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
          if (stored.length > 0)
            await store().writePage({ stream: 'invoices', records: stored, now, runId: null });
          const expected = { inserted: 0, updated: 0, unchanged: 0, staleSkipped: 0 };
          for (const { stored: before, incoming } of rows) {
            if (!before) expected.inserted++;
            else if (
              incoming.sequence !== null &&
              before.sequence !== null &&
              incoming.sequence < before.sequence
            )
              expected.staleSkipped++;
            else if (incoming.sequence === before.sequence && incoming.number === before.number)
              expected.unchanged++;
            else expected.updated++;
          }
          const incoming = rows.map((row) => record(id(row.key), row.incoming));
          const result = await store().writePage({
            stream: 'invoices',
            records: incoming,
            now: later,
            runId: null,
          });
          expect(result).toMatchObject(expected);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('any sequence of page writes ends with each row holding its highest-sequence record', async () => {
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
        for (const page of pages) {
          await write(page.map((r) => invoice(r.id, r.sequence, { number: r.tag })));
          for (const r of page) if (r.sequence >= (best.get(r.id)?.sequence ?? 0)) best.set(r.id, r);
        }
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
