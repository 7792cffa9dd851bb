import { afterAll, describe, expect, it } from 'vitest';
import type { StreamDefinition } from '../../config/stream-definition.js';
import { streams } from '../../config/streams.js';
import { liveViewStatement } from '../../src/store/live-view.js';
import { openStore } from '../../src/store/open-store.js';
import { postgresTypes } from '../../src/store/postgres/postgres-types.js';
import { keyed, now } from './records.js';
import { commitRecords } from './run-pages.js';
import { dialects } from './store-fixture.js';

const tableNames = {
  sqlite: "select name from sqlite_master where type = 'table'",
  postgres: "select tablename as name from pg_tables where schemaname = 'public'",
};
const columnNames = {
  sqlite: (table: string) => `select name from pragma_table_info('${table}') order by cid`,
  postgres: (table: string) =>
    `select column_name as name from information_schema.columns where table_name = '${table}' order by ordinal_position`,
};

describe.each(dialects)('migrations on $name', ({ fixture: createFixture }) => {
  const fixture = createFixture();
  afterAll(() => fixture.cleanup());

  it('migrations are idempotent and create every catalogue table', async () => {
    const url = await fixture.freshUrl();
    const store = await openStore(url);
    expect((await store.migrate()).applied).toEqual([]);
    await store.close();
    const reopened = await openStore(url);
    expect((await reopened.migrate()).applied).toEqual([]);
    await reopened.close();
    const names = (await fixture.query<{ name: string }>(url, tableNames[fixture.dialect])).map(
      (t) => t.name,
    );
    expect(names).toEqual(
      expect.arrayContaining([...Object.keys(streams), 'sync_state', 'sync_runs', 'rejected_records']),
    );
    const taskColumns = (
      await fixture.query<{ name: string }>(url, columnNames[fixture.dialect]('tasks'))
    ).map((c) => c.name);
    expect(taskColumns).toEqual(
      expect.arrayContaining([
        'id',
        'operator_id',
        'data',
        'sequence',
        'synced_at',
        'deleted_at',
        'deleted_reason',
        ...Object.keys(streams.tasks.columns),
      ]),
    );
  });

  it('adding a stream or a column adds a migration, and a new column is filled from the stored data', async () => {
    const url = await fixture.freshUrl();
    const notes = {
      strategy: 'sequence',
      description: 'x',
      path: '/n',
      softDeletes: false,
      key: { field: 'id' },
      columns: { title: { type: 'text', path: 'title' } },
    } satisfies StreamDefinition;
    const before = await openStore(url, { catalogue: { notes } });
    await commitRecords(
      before,
      'notes',
      {
        records: keyed([
          { id: 'n1', title: 'a', meta: { pinned: true, at: '2024-01-01T00:00:00+01:00' } },
          { id: 'n2', title: 'b' },
        ]),
      },
      { now },
    );
    await before.close();
    const grown = {
      notes: {
        ...notes,
        columns: {
          ...notes.columns,
          pinned: { type: 'boolean', path: 'meta.pinned' },
          at: { type: 'timestamp', path: 'meta.at' },
        },
      },
      labels: { ...notes, columns: {} },
    } satisfies Record<string, StreamDefinition>;
    const after = await openStore(url, { catalogue: grown, migrate: false });
    expect((await after.migrate()).applied).toEqual([
      'stream-labels',
      'stream-notes-spec-at',
      'stream-notes-spec-pinned',
    ]);
    // The fields had inferred columns already; the catalogue's own columns now hold them too.
    expect((await after.readRows('notes')).map((r) => r.columns)).toEqual([
      {
        title: 'a',
        meta__at: '2023-12-31T23:00:00.000Z',
        meta__pinned: true,
        pinned: true,
        at: '2023-12-31T23:00:00.000Z',
      },
      { title: 'b', meta__at: null, meta__pinned: null, pinned: null, at: null },
    ]);
    expect((await after.describeColumns('notes')).map((c) => [c.column, c.origin, c.path])).toEqual([
      ['title', 'spec', 'title'],
      ['meta__at', 'inferred', 'meta.at'],
      ['meta__pinned', 'inferred', 'meta.pinned'],
      ['at', 'spec', 'meta.at'],
      ['pinned', 'spec', 'meta.pinned'],
    ]);
    await after.close();
    const shrunk = await openStore(url, { catalogue: { notes } });
    expect((await shrunk.migrate()).applied).toEqual([]);
    await shrunk.close();
  });

  it('a store made before the cents companions gets one beside every number column, filled from data', async () => {
    const url = await fixture.freshUrl();
    const notes = {
      strategy: 'sequence',
      description: 'x',
      path: '/n',
      softDeletes: false,
      key: { field: 'id' },
      columns: { total: { type: 'number', path: 'total' } },
    } satisfies StreamDefinition;
    const made = await openStore(url, { catalogue: { notes } });
    await commitRecords(
      made,
      'notes',
      {
        records: keyed([
          { id: 'n1', total: 12.5, paid: 3.3 },
          { id: 'n2', total: 0.125, paid: null },
        ]),
      },
      { now },
    );
    await made.close();
    // As a store of an earlier version has it: the number columns alone.
    const companions = ['total_cents', 'paid_cents'];
    if (fixture.dialect === 'postgres') await fixture.query(url, 'drop view notes_live');
    for (const column of companions) await fixture.query(url, `alter table notes drop column ${column}`);
    if (fixture.dialect === 'postgres')
      await fixture.query(url, liveViewStatement('notes', postgresTypes).sql);
    await fixture.query(url, `delete from stream_columns where name in ('total_cents', 'paid_cents')`);
    await fixture.query(
      url,
      `delete from kysely_migration where name in ('0013-cents-columns', 'stream-notes-spec-total_cents')`,
    );
    const upgraded = await openStore(url, { catalogue: { notes }, migrate: false });
    expect((await upgraded.migrate()).applied).toEqual([
      '0013-cents-columns',
      'stream-notes-spec-total_cents',
    ]);
    expect((await upgraded.readRows('notes')).map((row) => row.columns)).toEqual([
      { total: 12.5, paid: 3.3, paid_cents: 330, total_cents: 1250 },
      { total: 0.125, paid: null, paid_cents: null, total_cents: 13 },
    ]);
    expect((await upgraded.describeColumns('notes')).map((c) => [c.column, c.type, c.origin])).toEqual([
      ['total', 'number', 'spec'],
      ['paid', 'number', 'inferred'],
      ['paid_cents', 'cents', 'inferred'],
      ['total_cents', 'cents', 'spec'],
    ]);
    await upgraded.close();
  });

  it('a table created with its typed columns ends as one that got them a migration each', async () => {
    const bare = Object.fromEntries(
      Object.entries(streams).map(([name, definition]) => [name, { ...definition, columns: {} }]),
    ) as Record<string, StreamDefinition>;
    const grown = await fixture.freshUrl();
    await (await openStore(grown, { catalogue: bare })).close();
    const store = await openStore(grown);
    expect((await store.migrate()).applied).toEqual([]);
    await store.close();
    const created = await fixture.freshUrl();
    await (await openStore(created)).close();

    const schemaOf = async (url: string) => {
      const tables: Record<string, string[]> = {};
      for (const stream of Object.keys(streams)) {
        const columns = await fixture.query<{ name: string }>(url, columnNames[fixture.dialect](stream));
        tables[stream] = columns.map((column) => column.name);
      }
      const registry = await fixture.query(
        url,
        'select stream, name, path, type, origin, position from stream_columns order by stream, position',
      );
      const versions = await fixture.query(url, 'select stream, version from stream_schemas order by stream');
      const migrations = await fixture.query(url, 'select name from kysely_migration order by name');
      return { tables, registry, versions, migrations };
    };
    const [incremental, atOnce] = [await schemaOf(grown), await schemaOf(created)];
    expect(atOnce).toEqual(incremental);
    expect(atOnce.tables.invoices).toEqual(expect.arrayContaining(Object.keys(streams.invoices.columns)));
  });
});
