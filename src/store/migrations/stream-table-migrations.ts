import { type Kysely, type Migration, sql } from 'kysely';
import { compilePath, toColumnValue } from '../column-values.js';
import type { StreamTables } from '../database.js';
import type { SqlTypes } from '../store-dialect.js';
import type { StreamTable, TypedColumn } from '../stream-tables.js';

const backfillBatch = 1000;

/** Creates a stream table with the fixed columns (PRODUCT.md section 5); typed columns come one migration each. */
export function createStreamTableMigration(table: StreamTable, types: SqlTypes): Migration {
  const key = table.scopeColumn ? [table.scopeColumn, 'id'] : ['id'];
  return {
    async up(db: Kysely<unknown>) {
      let create = db.schema.createTable(table.name).addColumn('id', 'text', (c) => c.notNull());
      if (table.scopeColumn) create = create.addColumn(table.scopeColumn, 'text', (c) => c.notNull());
      await create
        .addColumn('data', types.json, (c) => c.notNull())
        .addColumn('sequence', types.bigint)
        .addColumn('synced_at', types.timestamp, (c) => c.notNull())
        .addColumn('deleted_at', types.timestamp)
        .addColumn('deleted_reason', 'text')
        .addPrimaryKeyConstraint(`${table.name}_pkey`, key as never)
        .execute();
      // Partial: live rows, the vast majority, cost the hot path nothing; BI finds deletions fast.
      await db.schema
        .createIndex(`${table.name}_deleted_at`)
        .on(table.name)
        .column('deleted_at')
        .where(sql.ref('deleted_at'), 'is not', null)
        .execute();
    },
  };
}

/**
 * Adds one typed column and fills it from `data` of the rows already stored, with the same
 * extraction as the write path, so BI sees a new column complete without a re-sync (a re-sync
 * would not rewrite unchanged rows).
 */
export function addColumnMigration(table: StreamTable, column: TypedColumn, types: SqlTypes): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable(table.name).addColumn(column.name, types.typed[column.type]).execute();
      await backfillColumn(db as unknown as Kysely<StreamTables>, table, column, types);
    },
  };
}

async function backfillColumn(
  db: Kysely<StreamTables>,
  table: StreamTable,
  column: TypedColumn,
  types: SqlTypes,
) {
  const get = compilePath(column.path);
  const convert = toColumnValue[column.type];
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
      const value = convert(get(types.decodeJson(row.data)));
      if (value === null) continue;
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
