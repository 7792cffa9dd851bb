import type { CompiledQuery, Kysely, Transaction } from 'kysely';
import type { StoreDatabase } from '../database.js';
import type { HistorySql } from '../history-dialect.js';
import { asOfIndexName, historyColumns, maxHistoryStreamName, versionsTableName } from '../history-names.js';
import { liveViewStatement } from '../live-view.js';
import type { SqlTypes } from '../store-dialect.js';
import { CatalogueError } from '../store-errors.js';
import type { StreamTable } from '../stream-tables.js';

/** What switching history to the settings did, by stream. */
export interface HistorySwitch {
  readonly enabled: readonly string[];
  readonly disabled: readonly string[];
}

interface SwitchContext {
  readonly trx: Transaction<StoreDatabase>;
  readonly types: SqlTypes;
  readonly history: HistorySql;
  readonly now: string;
}

/**
 * Turns history on for the `wanted` streams and off for the others, in one transaction. Each
 * switch claims the stream's `stream_schemas` row (the next version of its table, so writes
 * prepared before it map their rows again, and two processes switching together do it once).
 * On: the versions table, the row bookkeeping, the triggers and the view; the rows already stored
 * open their versions at this moment ("history starts here"). Off: every open version is closed
 * now, the triggers go, the view shows the closed versions; the tables stay.
 */
export async function switchHistory(
  db: Kysely<StoreDatabase>,
  parts: { types: SqlTypes; history: HistorySql },
  tables: readonly StreamTable[],
  wanted: ReadonlySet<string>,
): Promise<HistorySwitch> {
  const changing = tables.filter((table) => wanted.has(table.name) !== (table.history !== null));
  if (changing.length === 0) return { enabled: [], disabled: [] };
  for (const table of changing) {
    if (wanted.has(table.name) && table.name.length > maxHistoryStreamName)
      throw new CatalogueError(
        `stream ${table.name}: history needs a name of at most ${maxHistoryStreamName} characters`,
      );
  }
  return db.transaction().execute(async (trx) => {
    const context: SwitchContext = { trx, ...parts, now: new Date().toISOString() };
    const enabled: string[] = [];
    const disabled: string[] = [];
    for (const table of changing) {
      const on = wanted.has(table.name);
      if (!(await claim(context, table.name, on))) continue;
      if (on) {
        await turnOn(context, table);
        enabled.push(table.name);
      } else {
        await turnOff(context, table);
        disabled.push(table.name);
      }
    }
    return { enabled, disabled };
  });
}

async function claim(context: SwitchContext, stream: string, on: boolean): Promise<boolean> {
  const row = await context.trx
    .updateTable('stream_schemas')
    .set((eb) => ({
      version: eb('version', '+', 1),
      history_since: on ? context.now : null,
      updated_at: context.now,
    }))
    .where('stream', '=', stream)
    .where('history_since', on ? 'is' : 'is not', null)
    .returning('version')
    .executeTakeFirst();
  return row !== undefined;
}

async function turnOn(context: SwitchContext, table: StreamTable): Promise<void> {
  const { trx, types, history } = context;
  await run(trx, history.bookkeeping());
  const existing = await columnsOf(trx);
  const versions = versionsTableName(table.name);
  if (!existing.has(versions)) {
    let create = trx.schema.createTable(versions).addColumn('id', 'text', (c) => c.notNull());
    if (table.scopeColumn) create = create.addColumn(table.scopeColumn, 'text', (c) => c.notNull());
    await create
      .addColumn('valid_from', types.timestamp, (c) => c.notNull())
      .addColumn('valid_to', types.timestamp, (c) => c.notNull())
      .addColumn('change', 'text', (c) => c.notNull())
      .addColumn('run', types.bigint)
      .addColumn('data', types.json, (c) => c.notNull())
      .addColumn('sequence', types.bigint)
      .addColumn('deleted_at', types.timestamp)
      .addColumn('deleted_reason', 'text')
      .execute();
    const key = table.scopeColumn ? [table.scopeColumn, 'id', 'valid_from'] : ['id', 'valid_from'];
    await trx.schema.createIndex(asOfIndexName(table.name)).on(versions).columns(key).execute();
  }
  // Typed columns: all of them for a new versions table, those added while history was off otherwise.
  const versionsHas = existing.get(versions) ?? new Set<string>();
  for (const column of table.columns) {
    if (!versionsHas.has(column.name))
      await trx.schema.alterTable(versions).addColumn(column.name, types.typed[column.type]).execute();
  }
  const tableHas = existing.get(table.name) ?? new Set<string>();
  await run(
    trx,
    history.addBookkeeping(
      table,
      historyColumns.filter((column) => !tableHas.has(column)),
    ),
  );
  if (types.viewsFixColumns) await trx.executeQuery(liveViewStatement(table.name, types));
  await run(trx, history.define(table, context.now));
}

async function turnOff(context: SwitchContext, table: StreamTable): Promise<void> {
  await run(context.trx, context.history.undefine(table, table.history!, context.now));
}

async function run(trx: Transaction<StoreDatabase>, statements: readonly CompiledQuery[]): Promise<void> {
  for (const statement of statements) await trx.executeQuery(statement);
}

/** Tables (and views) with their column names. */
async function columnsOf(trx: Transaction<StoreDatabase>): Promise<Map<string, Set<string>>> {
  const tables = await trx.introspection.getTables();
  return new Map(tables.map((table) => [table.name, new Set(table.columns.map((column) => column.name))]));
}
