import { sql } from 'kysely';
import { historyViewName } from '../history-names.js';
import { type StoreContext, scopeValue } from '../store-context.js';
import { StreamUsageError } from '../store-errors.js';
import type { DeleteReason, StoredVersion } from '../store-types.js';
import { recordFromData } from '../stored-record.js';
import { decodeColumn, toStoredDate } from '../stored-values.js';

/**
 * The versions of one record from `<stream>__history`, oldest first, the open one last (none when
 * the record was never seen). A stream whose history was never switched on has no view: refused.
 */
export async function readHistory(
  context: StoreContext,
  stream: string,
  key: { readonly id: string; readonly scope?: string },
): Promise<StoredVersion[]> {
  const table = context.table(stream);
  const scope = scopeValue(table, key.scope);
  const view = sql.table(historyViewName(stream));
  const scopeFilter = table.scopeColumn ? sql` and ${sql.ref(table.scopeColumn)} = ${scope}` : sql``;
  const query = sql<Record<string, unknown>>`select * from ${view} where "id" = ${key.id}${scopeFilter}
    order by "valid_from", case when "valid_to" is null then 1 else 0 end, "valid_to"`;
  let rows: Record<string, unknown>[];
  try {
    rows = (await query.execute(context.dialect.db)).rows;
  } catch (error) {
    if (table.history !== null) throw error;
    throw new StreamUsageError(
      stream,
      'history mode was never on for this stream (streams.history in the config)',
    );
  }
  const { decodeJson } = context.dialect.types;
  return rows.map((row) => ({
    id: row.id as string,
    scope: table.scopeColumn ? (row[table.scopeColumn] as string) : null,
    validFrom: toStoredDate(row.valid_from)!,
    validTo: toStoredDate(row.valid_to),
    change: row.change as StoredVersion['change'],
    run: row.run === null || row.run === undefined ? null : Number(row.run),
    data: recordFromData(decodeJson(row.data)),
    sequence: row.sequence === null || row.sequence === undefined ? null : Number(row.sequence),
    deletedAt: toStoredDate(row.deleted_at),
    deletedReason: row.deleted_reason as DeleteReason | null,
    columns: Object.fromEntries(table.columns.map((c) => [c.name, decodeColumn(c.type, row[c.name])])),
  }));
}
