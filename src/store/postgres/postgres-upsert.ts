import { CompiledQuery } from 'kysely';
import type { PageUpsert, UpsertCounts } from '../store-dialect.js';
import type { StreamTable } from '../stream-tables.js';
import { conflictClause, quote, writtenColumns } from '../upsert-sql.js';
import { postgresTypes } from './postgres-types.js';

/**
 * The PostgreSQL page upsert: all rows of all groups as ONE JSONB parameter expanded by
 * `jsonb_to_recordset` (PERF-NOTES: the fastest path measured), one round trip per page or per
 * batch of child scopes (each row carries its scope). `xmax = 0` tells inserted rows from updated
 * ones; the stale count joins the input to the table as it was before the statement (every part
 * of a WITH sees the same snapshot).
 */
export function createPostgresPageUpsert(table: StreamTable): PageUpsert {
  const text = upsertSql(table);
  const names = table.columns.map((column) => column.name);
  const scopeColumn = table.scopeColumn;
  return async (trx, page) => {
    const input: Record<string, unknown>[] = [];
    for (const { scope, rows } of page.groups) {
      for (const row of rows) {
        const item: Record<string, unknown> = { id: row.id, data: row.record, sequence: row.sequence };
        if (scopeColumn) item[scopeColumn] = scope;
        row.values.forEach((value, index) => {
          item[names[index]!] = value;
        });
        input.push(item);
      }
    }
    const parameters = [JSON.stringify(input), page.syncedAt, page.deletedAt, page.deletedReason];
    const result = await trx.executeQuery<Omit<UpsertCounts, 'unchanged'>>(
      CompiledQuery.raw(text, parameters),
    );
    const { inserted, updated, staleSkipped } = result.rows[0]!;
    return {
      inserted,
      updated,
      staleSkipped,
      unchanged: input.length - inserted - updated - staleSkipped,
    };
  };
}

function upsertSql(table: StreamTable): string {
  const name = quote(table.name);
  const scope = table.scopeColumn ? [quote(table.scopeColumn)] : [];
  const record = [
    '"id" text',
    ...scope.map((column) => `${column} text`),
    '"data" jsonb',
    '"sequence" bigint',
    ...table.columns.map((c) => `${quote(c.name)} ${postgresTypes.typed[c.type]}`),
  ];
  const typed = table.columns.map((c) => quote(c.name));
  const selected = [
    '"id"',
    ...scope,
    '"data"',
    '"sequence"',
    '$2::timestamptz',
    '$3::timestamptz',
    '$4::text',
    ...typed,
  ];
  const sameKey = ['c."id" = i."id"', ...scope.map((column) => `c.${column} = i.${column}`)].join(' AND ');
  return `WITH input AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(${record.join(', ')})),
written AS (
  INSERT INTO ${name} AS t (${writtenColumns(table).map(quote).join(', ')})
  SELECT ${selected.join(', ')} FROM input
  ${conflictClause(table, 't', 'IS DISTINCT FROM')}
  RETURNING (xmax = 0) AS inserted
)
SELECT (SELECT count(*) FROM written WHERE inserted) AS "inserted",
  (SELECT count(*) FROM written WHERE NOT inserted) AS "updated",
  (SELECT count(*) FROM input i JOIN ${name} c ON ${sameKey} WHERE i."sequence" < c."sequence") AS "staleSkipped"`;
}
