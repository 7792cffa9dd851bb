import type { CompiledQuery, Kysely } from 'kysely';
import type { PageObservations } from '../columns/page-observations.js';
import type { TypedColumn } from '../columns/typed-column.js';
import type { StoreDatabase } from '../database.js';
import type { HistorySql } from '../history-dialect.js';
import { versionsTableName } from '../history-names.js';
import { liveViewStatement } from '../live-view.js';
import { compiledOnce } from '../statement-once.js';
import type { SqlTypes } from '../store-dialect.js';
import type { StreamTable } from '../stream-tables.js';

/** The statements that grow a table by a page's new columns, inside the page's transaction. */
export interface SchemaGrowth {
  /** Moves `stream_schemas.version` from the page's base to the new version; no row = another writer grew it first. */
  readonly claim: CompiledQuery;
  /** ALTER TABLE ... ADD COLUMN and the `stream_columns` rows, then the live view with them, run after the claim. */
  readonly statements: readonly CompiledQuery[];
}

export function growthStatements(
  db: Kysely<StoreDatabase>,
  parts: { types: SqlTypes; history: HistorySql },
  from: StreamTable,
  to: StreamTable,
  now: Date,
): SchemaGrowth {
  const { types } = parts;
  const added = to.columns.slice(from.columns.length);
  const at = now.toISOString();
  return {
    claim: db
      .updateTable('stream_schemas')
      .set({ version: to.version, updated_at: at })
      .where('stream', '=', to.name)
      .where('version', '=', from.version)
      .returning('version')
      .compile(),
    statements: [
      ...added.map((column) =>
        db.schema.alterTable(to.name).addColumn(column.name, types.typed[column.type]).compile(),
      ),
      ...registerColumns(db, to.name, added, from.columns.length, at),
      ...(types.viewsFixColumns ? [liveViewStatement(to.name, types)] : []),
      ...historyGrowth(db, parts, to, added),
    ],
  };
}

/** A table with history: its versions table takes the new columns too, its triggers and view are defined again. */
export function historyGrowth(
  db: Kysely<StoreDatabase>,
  parts: { types: SqlTypes; history: HistorySql },
  table: StreamTable,
  added: readonly TypedColumn[],
): CompiledQuery[] {
  if (table.history === null) return [];
  return [
    ...added.map((column) =>
      db.schema
        .alterTable(versionsTableName(table.name))
        .addColumn(column.name, parts.types.typed[column.type])
        .compile(),
    ),
    ...parts.history.define(table, table.history),
  ];
}

/**
 * The `stream_columns` rows of columns from `position` on, one statement for all of them (a new
 * table registers tens at once; at most `maxInferredColumns` plus docs/api.md's, far below either
 * dialect's cap on bound values). None for no columns.
 */
export function registerColumns(
  db: Kysely<StoreDatabase>,
  stream: string,
  columns: readonly TypedColumn[],
  position: number,
  addedAt: string,
): CompiledQuery[] {
  if (columns.length === 0) return [];
  const rows = columns.map((column, index) => ({
    stream,
    name: column.name,
    path: JSON.stringify(column.path),
    type: column.type,
    origin: column.origin,
    position: position + index,
    added_at: addedAt,
    drift: 0,
    drift_sample: null,
    drift_at: null,
  }));
  return [
    db
      .insertInto('stream_columns')
      .values(rows)
      .onConflict((conflict) => conflict.columns(['stream', 'name']).doNothing())
      .compile(),
  ];
}

/** Answers a row only while the table is at the version the page was prepared with. */
export function schemaCheck(db: Kysely<StoreDatabase>, table: StreamTable): CompiledQuery {
  return schemaVersionRead(db, { stream: table.name, version: table.version });
}

const schemaVersionRead = compiledOnce((db, at: { stream: string; version: number }) =>
  db
    .selectFrom('stream_schemas')
    .select('version')
    .where('stream', '=', at.stream)
    .where('version', '=', at.version),
);

/** Adds a page's misfit values to each column's drift count, with the latest sample. */
export function driftStatements(
  db: Kysely<StoreDatabase>,
  table: StreamTable,
  drift: PageObservations['drift'],
  now: Date,
): CompiledQuery[] {
  const at = now.toISOString();
  return [...drift].map(([index, { count, sample }]) =>
    db
      .updateTable('stream_columns')
      .set((eb) => ({ drift: eb('drift', '+', count), drift_sample: sample, drift_at: at }))
      .where('stream', '=', table.name)
      .where('name', '=', table.columns[index]!.name)
      .compile(),
  );
}

/** Keeps the most fields a page held beyond the table's cap of inferred columns (shown by `tms-sync schema`). */
export function refusedFieldsStatement(
  db: Kysely<StoreDatabase>,
  stream: string,
  refused: number,
): CompiledQuery {
  return db
    .updateTable('stream_schemas')
    .set({ refused_fields: refused })
    .where('stream', '=', stream)
    .where('refused_fields', '<', refused)
    .compile();
}
