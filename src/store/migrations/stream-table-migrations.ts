import { type Kysely, type Migration, sql } from 'kysely';
import { columnConverters, misfit } from '../columns/column-values.js';
import type { StoreDatabase, StreamTables } from '../database.js';
import type { HistorySql } from '../history-dialect.js';
import { liveViewStatement } from '../live-view.js';
import { toColumn } from '../schema/schema-registry.js';
import { historyGrowth, registerColumns } from '../schema/schema-statements.js';
import type { SqlTypes } from '../store-dialect.js';
import { recordFromData } from '../stored-record.js';
import type { StreamTable, TypedColumn } from '../stream-tables.js';

const backfillBatch = 1000;

/**
 * Creates a stream table with the fixed columns (docs/store.md), its live view and its `stream_schemas` row.
 * The spec's typed columns are one migration each (`specColumnMigration`); a table created in this
 * run of the migrations gets them in its CREATE TABLE instead, registered as those migrations
 * would (in their order, one version each), and notes them in `created`: their migrations then
 * only record their names: a new SQLite store migrates in ~20 ms instead of ~70 (an ALTER, a
 * backfill query and a version each, BENCHMARKS.md). Inferred columns come with the records
 * (prepare-rows.ts).
 */
export function createStreamTableMigration(
  table: StreamTable,
  types: SqlTypes,
  created: Set<string>,
): Migration {
  const key = table.scopeColumn ? [table.scopeColumn, 'id'] : ['id'];
  // The order the column migrations would run in: by name (catalogue-migrations.ts).
  const columns = [...table.columns].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return {
    async up(db: Kysely<unknown>) {
      let create = db.schema.createTable(table.name).addColumn('id', 'text', (c) => c.notNull());
      if (table.scopeColumn) create = create.addColumn(table.scopeColumn, 'text', (c) => c.notNull());
      create = create
        .addColumn('data', types.json, (c) => c.notNull())
        .addColumn('sequence', types.bigint)
        .addColumn('synced_at', types.timestamp, (c) => c.notNull())
        .addColumn('deleted_at', types.timestamp)
        .addColumn('deleted_reason', 'text');
      for (const column of columns) create = create.addColumn(column.name, types.typed[column.type]);
      await create.addPrimaryKeyConstraint(`${table.name}_pkey`, key as never).execute();
      // Partial: live rows, the vast majority, cost the hot path nothing; BI finds deletions fast.
      await db.schema
        .createIndex(`${table.name}_deleted_at`)
        .on(table.name)
        .column('deleted_at')
        .where(sql.ref('deleted_at'), 'is not', null)
        .execute();
      await db.executeQuery(liveViewStatement(table.name, types));
      const store = db as Kysely<StoreDatabase>;
      const at = new Date().toISOString();
      await store
        .insertInto('stream_schemas')
        .values({ stream: table.name, version: columns.length, refused_fields: 0, updated_at: at })
        .execute();
      for (const query of registerColumns(store, table.name, columns, 0, at)) await store.executeQuery(query);
      for (const column of columns) created.add(column.name);
    },
  };
}

/**
 * Adds one of the catalogue's typed columns, registers it in `stream_columns` (a new version of
 * the table's columns) and fills it from `data` of the rows already stored, with the same
 * conversion as the write path, so BI sees a new column complete without a re-sync (a re-sync
 * would not rewrite unchanged rows).
 */
export function specColumnMigration(
  table: StreamTable,
  column: TypedColumn,
  parts: { types: SqlTypes; history: HistorySql },
): Migration {
  return { up: (db: Kysely<unknown>) => addStoredColumn(db, table, column, parts) };
}

/**
 * Adds a typed column to a stream table that has rows already, in the migration's transaction: the
 * column (and the live view again on PostgreSQL), its registration as the table's next version,
 * its values from `data` (the write path's conversion), and its place in the history objects.
 */
export async function addStoredColumn(
  db: Kysely<unknown>,
  table: StreamTable,
  column: TypedColumn,
  parts: { types: SqlTypes; history: HistorySql },
): Promise<void> {
  const { types } = parts;
  const store = db as Kysely<StoreDatabase>;
  await db.schema.alterTable(table.name).addColumn(column.name, types.typed[column.type]).execute();
  if (types.viewsFixColumns) await db.executeQuery(liveViewStatement(table.name, types));
  const { count } = await store
    .selectFrom('stream_columns')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('stream', '=', table.name)
    .executeTakeFirstOrThrow();
  const at = new Date().toISOString();
  const [register] = registerColumns(store, table.name, [column], Number(count), at);
  await store.executeQuery(register!);
  await store
    .updateTable('stream_schemas')
    .set((eb) => ({ version: eb('version', '+', 1), updated_at: at }))
    .where('stream', '=', table.name)
    .execute();
  await backfillColumn(db as unknown as Kysely<StreamTables>, table, column, types);
  await growHistory(store, parts, table, column);
}

/** A table with history gets the column in its versions table too, and its triggers and view again. */
async function growHistory(
  db: Kysely<StoreDatabase>,
  parts: { types: SqlTypes; history: HistorySql },
  table: StreamTable,
  column: TypedColumn,
): Promise<void> {
  const schema = await db
    .selectFrom('stream_schemas')
    .select('history_since')
    .where('stream', '=', table.name)
    .executeTakeFirst();
  if (!schema?.history_since) return;
  const columns = await db
    .selectFrom('stream_columns')
    .selectAll()
    .where('stream', '=', table.name)
    .orderBy('position')
    .execute();
  const grown = {
    ...table,
    columns: columns.map(toColumn),
    history: new Date(schema.history_since).toISOString(),
  };
  for (const statement of historyGrowth(db, parts, grown, [column])) await db.executeQuery(statement);
}

async function backfillColumn(
  db: Kysely<StreamTables>,
  table: StreamTable,
  column: TypedColumn,
  types: SqlTypes,
) {
  const convert = columnConverters[column.type];
  const get = (record: unknown) =>
    column.path.reduce<unknown>(
      (value, step) =>
        value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[step] : undefined,
      record,
    );
  const scope = table.scopeColumn ?? 'id';
  let after: { scope: unknown; id: string } | undefined;
  for (;;) {
    const rows = await db
      .selectFrom(table.name)
      .select([sql<unknown>`${sql.ref(scope)}`.as('scope'), 'id', 'data'])
      .$if(after !== undefined, (q) =>
        q.where(sql<boolean>`(${sql.ref(scope)}, id) > (${after!.scope}, ${after!.id})`),
      )
      .orderBy(sql.ref(scope))
      .orderBy('id')
      .limit(backfillBatch)
      .execute();
    for (const row of rows) {
      const value = convert(get(recordFromData(types.decodeJson(row.data))));
      if (value === null || value === misfit) continue;
      await db
        .updateTable(table.name)
        .set({ [column.name]: types.encode(value) })
        .where(sql.ref(scope), '=', row.scope)
        .where('id', '=', row.id)
        .execute();
    }
    if (rows.length < backfillBatch) return;
    const last = rows[rows.length - 1]!;
    after = { scope: last.scope, id: last.id };
  }
}
