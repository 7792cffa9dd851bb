import { type AliasedRawBuilder, sql } from 'kysely';
import { type StoreContext, scopeValue, streamDb } from './store-context.js';
import type { DeleteReason, RowFilter, StoredRow } from './store-types.js';
import { recordFromData } from './stored-record.js';
import { decodeColumn, toStoredDate } from './stored-values.js';
import type { StreamTable } from './stream-tables.js';
import { valuesAtPath } from './values-at-path.js';

export async function countRows(
  context: StoreContext,
  stream: string,
  filter: RowFilter = {},
): Promise<number> {
  const table = context.table(stream);
  const row = await filtered(context, table, filter)
    .select((eb) => eb.fn.countAll<number | bigint | string>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function liveKeys(
  context: StoreContext,
  stream: string,
  ids: readonly string[],
): Promise<Set<string>> {
  const table = context.table(stream);
  scopeValue(table, undefined);
  const live = new Set<string>();
  for (let start = 0; start < ids.length; start += 1000) {
    const rows = await filtered(context, table, { live: true })
      .select('id')
      .where('id', 'in', ids.slice(start, start + 1000))
      .execute();
    for (const row of rows) live.add(row.id as string);
  }
  return live;
}

/** Every row matching the filter, ordered by scope and id (for tests and comparisons: it loads all). */
export async function readRows(
  context: StoreContext,
  stream: string,
  filter: RowFilter = {},
): Promise<StoredRow[]> {
  const table = context.table(stream);
  const rows = await filtered(context, table, filter)
    .selectAll()
    .$if(table.scopeColumn !== null, (q) => q.orderBy(sql.ref(table.scopeColumn!)))
    .orderBy('id')
    .execute();
  const { decodeJson } = context.dialect.types;
  return rows.map((row) => ({
    id: row.id as string,
    scope: table.scopeColumn ? (row[table.scopeColumn] as string) : null,
    data: recordFromData(decodeJson(row.data)),
    sequence: row.sequence as number | null,
    syncedAt: toStoredDate(row.synced_at)!,
    deletedAt: toStoredDate(row.deleted_at),
    deletedReason: row.deleted_reason as DeleteReason | null,
    columns: Object.fromEntries(table.columns.map((c) => [c.name, decodeColumn(c.type, row[c.name])])),
  }));
}

export interface LiveBatchOptions {
  /** Required exactly for scoped streams. */
  readonly scope?: string;
  /** @default 10000 */
  readonly batchSize?: number;
  /** Start after this id (ids come in id order). @default undefined */
  readonly after?: string | undefined;
}

/** Live ids in key order, by keyset pages: no cursor stays open, so the caller may write in between. */
export async function* liveIds(
  context: StoreContext,
  stream: string,
  options: LiveBatchOptions = {},
): AsyncIterable<string[]> {
  for await (const batch of liveBatches(context, stream, options)) yield batch.map((row) => row.id);
}

/**
 * The distinct key-like values at `path` of the live rows (of one scope), sorted: the ids another
 * stream's rows reference (the goods of an operator's tasks). Where the database computes them
 * (SQLite, on its thread), only the ids come back, not the records.
 */
export async function referencedIds(
  context: StoreContext,
  stream: string,
  options: { readonly path: string; readonly scope?: string | undefined },
): Promise<string[]> {
  const table = context.table(stream);
  const scope = scopeValue(table, options.scope);
  const { valuesAt, onlyMember, decodeJson } = context.dialect.types;
  const ids = new Set<string>();
  if (options.path === table.keyField) {
    // Every stored row's id is the key field's value, as `valuesAtPath` reads it: no record parsed.
    for await (const rows of liveBatches(context, stream, scope === null ? {} : { scope }))
      for (const row of rows) ids.add(row.id);
  } else if (valuesAt) {
    const rows = await filtered(context, table, { live: true, ...(scope === null ? {} : { scope }) })
      .innerJoin(
        sql`json_each(${valuesAt(sql.ref(`${table.name}.data`), options.path)})`.as('found'),
        (join) => join.onTrue(),
      )
      .select(sql<string>`found.value`.as('value'))
      .distinct()
      .execute();
    for (const row of rows) ids.add(row.value);
  } else {
    const read = valuesAtPath(options.path);
    const first = options.path.split('.')[0]!;
    const data = onlyMember ? onlyMember(sql.ref(`${table.name}.data`), first).as('data') : 'data';
    for await (const rows of liveBatches(context, stream, scope === null ? {} : { scope }, data))
      for (const row of rows) for (const id of read(recordFromData(decodeJson(row.data)))) ids.add(id);
  }
  return [...ids].sort();
}

/** Live rows in key order, by keyset pages of `batchSize`: their id, and `data` as selected. */
async function* liveBatches(
  context: StoreContext,
  stream: string,
  options: LiveBatchOptions,
  data?: 'data' | AliasedRawBuilder<unknown, 'data'>,
): AsyncIterable<Array<{ id: string; data?: unknown }>> {
  const table = context.table(stream);
  const scope = scopeValue(table, options.scope);
  const size = options.batchSize ?? 10_000;
  let after = options.after;
  for (;;) {
    const rows: Array<{ id: string; data?: unknown }> = await filtered(context, table, {
      live: true,
      ...(scope === null ? {} : { scope }),
    })
      .select(data ? ['id', data] : ['id'])
      .$if(after !== undefined, (q) => q.where('id', '>', after!))
      .orderBy('id')
      .limit(size)
      .execute();
    if (rows.length > 0) yield rows;
    if (rows.length < size) return;
    after = rows[rows.length - 1]!.id;
  }
}

function filtered(context: StoreContext, table: StreamTable, filter: RowFilter) {
  return streamDb(context.dialect.db)
    .selectFrom(table.name)
    .$if(filter.scope !== undefined && table.scopeColumn !== null, (q) =>
      q.where(sql.ref(table.scopeColumn!), '=', filter.scope),
    )
    .$if(filter.live === true, (q) => q.where('deleted_at', 'is', null))
    .$if(filter.live === false, (q) => q.where('deleted_at', 'is not', null));
}
