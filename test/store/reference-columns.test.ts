import { expect, it } from 'vitest';
import type { StreamDefinition } from '../../config/stream-definition.js';
import { streams } from '../../config/streams.js';
import { openStore } from '../../src/store/open-store.js';
import { CatalogueError } from '../../src/store/store-errors.js';
import { streamTables } from '../../src/store/stream-tables.js';
import { describeOnEachDialect, useSyncSetup } from '../support/on-each-dialect.js';

// BI joins a reference column with the key it names: both must be text, on both dialects
// (PostgreSQL refuses `text = integer`; docs/store.md, "Keys and references").

it('the catalogue refuses a column for a key field that is not text', () => {
  const notes = {
    ...streams.invoices,
    columns: { ride_id: { type: 'integer', path: 'rideId' } },
  } satisfies StreamDefinition;
  expect(() => streamTables({ notes })).toThrow(CatalogueError);
  expect(() => streamTables({ notes })).toThrow(/'rideId' names a key/);
  expect(() => streamTables(streams)).not.toThrow();
});

describeOnEachDialect('reference columns', (fixture) => {
  const { setup } = useSyncSetup(fixture);

  it('tasks and rides join the master data and each other on their text keys', async () => {
    await setup().engine.run(['tasks', 'rides', 'trailers', 'activities', 'completion_statuses']);
    const url = await fixture.url();
    const joined = async (sql: string) =>
      Number((await fixture.query<{ rows: number | string }>(url, sql))[0]!.rows);
    const joins = {
      'tasks.ride_id': `select count(*) as rows from tasks t join rides r on r.operator_id = t.operator_id and r.id = t.ride_id`,
      'tasks.trailer_id': `select count(*) as rows from tasks t join trailers r on r.id = t.trailer_id`,
      'tasks.activity_id': `select count(*) as rows from tasks t join activities a on a.id = t.activity_id`,
      'tasks.completion_status_id': `select count(*) as rows from tasks t join completion_statuses s on s.id = t.completion_status_id`,
      'rides.trailer_id': `select count(*) as rows from rides r join trailers t on t.id = r.trailer_id`,
    };
    for (const [column, sql] of Object.entries(joins)) {
      expect(await joined(sql), column).toBeGreaterThan(0);
    }
    // Every reference column of the simulator's tasks and rides joins: none is left NULL by a misfit.
    const unmatched = await joined(
      `select count(*) as rows from tasks t left join trailers r on r.id = t.trailer_id
       where t.trailer_id is not null and r.id is null`,
    );
    expect(unmatched).toBe(0);
  });
});

describeOnEachDialect('reference columns of a store made before 0.2', (fixture) => {
  const columnType = {
    sqlite: "select lower(type) as type from pragma_table_info('tasks') where name = 'ride_id'",
    postgres:
      "select data_type as type from information_schema.columns where table_name = 'tasks' and column_name = 'ride_id'",
  };

  /** Takes a new store back to the layout of 0.1: 0001-0003, typed columns of its own (an integer ride_id). */
  async function storeOfVersion01(url: string): Promise<void> {
    await (await openStore(url)).close();
    const q = (text: string) => fixture.query(url, text);
    for (const stream of Object.keys(streams)) {
      await q(`drop view "${stream}_live"`);
      for (const column of Object.keys(streams[stream as keyof typeof streams].columns))
        await q(`alter table "${stream}" drop column "${column}"`);
    }
    for (const table of ['stream_columns', 'stream_schemas', 'held_deletes']) await q(`drop table ${table}`);
    for (const column of ['drift', 'held_deletes']) await q(`alter table sync_runs drop column ${column}`);
    for (const column of ['last_error', 'failures']) await q(`alter table child_queue drop column ${column}`);
    await q(
      "delete from kysely_migration where name like '0004%' or name like '0005%' or name like '0007%' or name like '0011%' or name like 'stream-%-spec-%'",
    );
    await q(
      "insert into kysely_migration (name, timestamp) values ('stream-tasks-column-ride_id', '2026-11-01T00:00:00.000Z')",
    );
    await q('alter table tasks add column ride_id integer');
    await q(
      `insert into tasks (id, operator_id, data, synced_at, ride_id) values ('t1', '1001', '{"id": "t1", "rideId": 5}', '2026-11-01T00:00:00.000Z', 5)`,
    );
    await q(
      `insert into rides (id, operator_id, data, synced_at) values ('5', '1001', '{"id": "5"}', '2026-11-01T00:00:00.000Z')`,
    );
  }

  it('upgrading turns an integer reference column into text, filled from data, and it joins', async () => {
    const url = await fixture.freshUrl();
    await storeOfVersion01(url);
    expect((await fixture.query<{ type: string }>(url, columnType[fixture.dialect]))[0]!.type).toBe(
      'integer',
    );
    const store = await openStore(url, { migrate: false });
    const applied = (await store.migrate()).applied;
    await store.close();
    expect(applied).toEqual(
      expect.arrayContaining(['0004-schema-registry', '0007-live-views', 'stream-tasks-spec-ride_id']),
    );
    expect((await fixture.query<{ type: string }>(url, columnType[fixture.dialect]))[0]!.type).toBe('text');
    const joined = await fixture.query<{ id: string; ride_id: string }>(
      url,
      'select t.id, t.ride_id from tasks_live t join rides_live r on r.operator_id = t.operator_id and r.id = t.ride_id',
    );
    expect(joined).toEqual([{ id: 't1', ride_id: '5' }]);
  });
});
