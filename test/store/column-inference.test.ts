import { expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import type { StoreRecord } from '../../src/store/store.js';
import { describeOnEachDialect, useStore } from '../support/on-each-dialect.js';
import { keyed, later, now, task } from './records.js';
import { commitRecords, inRun, openTestRun } from './run-pages.js';

describeOnEachDialect('typed columns of a page', (fixture) => {
  const store = useStore(fixture);

  const write = (stream: string, records: readonly StoreRecord[], at = now, scope?: string) =>
    commitRecords(
      store(),
      stream,
      { records, ...(scope === undefined ? {} : { scope }) },
      { now: at, ...(scope === undefined ? {} : { partition: scope }) },
    );

  it("fills the spec's typed columns; a value that does not fit is NULL there and counted as drift", async () => {
    const records = keyed([
      task('t1', {
        planned: { start: '2024-05-01T10:00:00+02:00', end: null },
        address: { city: 'Gent', country: { code: 'BE' }, location: { latitude: 51.05, longitude: 3.72 } },
        client: [{ id: 'c1' }],
        cashOnDelivery: 'not a number',
        index: 2 ** 40,
        rideId: 17,
      }),
    ]);
    expect((await write('tasks', records, now, 'op1')).drift).toBe(2);
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
    await write(
      'packaging',
      keyed([
        pallet,
        { id: 'p2', isCarrier: false, weightKg: '13.25', dims: { widthCm: 120, material: { name: 'wood' } } },
      ]),
    );
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
    await write('clients', keyed([{ id: 'c1', total: 10, address: { country: 'NL' } }]));
    const second = await write(
      'clients',
      keyed([
        { id: 'c2', total: '12.50', address: { country: { code: 'BE', name: 'Belgium' } } },
        { id: 'c3', total: 'n/a', address: null },
      ]),
      later,
    );
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
    const data = { operatorId: 'op1', data: 'x', deletedAt: null, syncedAt: 'y', [long]: 1 };
    await write('settings', [{ key: 'op1', sequence: null, data }], now, 'op1');
    const names = (await store().describeColumns('settings')).map((c) => c.column);
    expect(names).toHaveLength(5);
    expect(names).toEqual(expect.arrayContaining(['operator_id_2', 'data_2', 'synced_at_2']));
    const [cut, cents] = names.filter((name) => name.startsWith('a_very_long'));
    expect(cut).toMatch(/^a_very_long_field_name_that_goes_on_and_on_beyond_what_[0-9a-f]{8}$/);
    expect(cut!.length).toBeLessThanOrEqual(63);
    expect(cents).toBe(`${cut!.slice(0, 57)}_cents`);
  });

  it('a dry run adds no column', async () => {
    const page = { records: keyed([{ id: 'v1', plate: 'X' }]) };
    await commitRecords(store(), 'vehicles', page, { now, dryRun: true });
    expect(await store().describeColumns('vehicles')).toEqual([]);
    await commitRecords(store(), 'vehicles', page, { now });
    expect((await store().describeColumns('vehicles')).map((c) => c.column)).toEqual(['plate']);
  });

  it('a page mapped with columns whose growth then rolled back is mapped again, not failed', async () => {
    // The dry run's page grows the table (v1, not committed); the real run's page, prepared while
    // that growth is in flight, takes v1's columns and waits for it. The growth rolls back: the
    // real page must find its columns missing and grow the table itself.
    const dry = await openTestRun(store(), 'trailers', { partition: 'dry', dryRun: true, now });
    const tally = await inRun(
      store(),
      'trailers',
      async (real) => {
        const dryPage = dry.commitPage({
          state: { strategyState: null },
          records: keyed([{ id: 'd', fresh: 1 }]),
        });
        await real.commitPage({ state: { strategyState: null }, records: keyed([{ id: 'r', fresh: 2 }]) });
        await dryPage;
        await dry.flush();
      },
      { partition: 'real', now },
    );
    expect(tally.records).toBe(1);
    const rows = await store().readRows('trailers');
    expect(rows.map((row) => [row.id, row.columns.fresh])).toEqual([['r', 2]]);
  });

  it('two stores on one database grow the same table at once without losing a value', async () => {
    const url = await fixture.url();
    const other = await openStore(url);
    try {
      const page = (writer: string, i: number) => ({
        records: keyed([{ id: `${writer}-${i}`, [`${writer}Field${i % 3}`]: i, shared: `${writer}${i}` }]),
      });
      const writer = async (target: typeof other, name: string) => {
        // A partition each: the two writers' state rows do not meet, their tables do.
        for (let i = 0; i < 6; i++)
          await commitRecords(target, 'trailers', page(name, i), { now, partition: name });
      };
      await Promise.all([writer(store(), 'a'), writer(other, 'b')]);
    } finally {
      await other.close();
    }
    // A store opened now reads the columns both added.
    const reader = await openStore(url, { migrate: false });
    try {
      const rows = await reader.readRows('trailers');
      expect(rows).toHaveLength(12);
      for (const row of rows) {
        const [writer, i] = row.id.split('-') as [string, string];
        expect(row.columns[`${writer}_field${Number(i) % 3}`]).toBe(Number(i));
        expect(row.columns.shared).toBe(`${writer}${i}`);
      }
    } finally {
      await reader.close();
    }
  });
});
