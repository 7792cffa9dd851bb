import { CompiledQuery } from 'kysely';
import type { PageUpsert } from '../store-dialect.js';
import { rowsJson } from '../stored-record.js';
import type { StreamTable } from '../stream-tables.js';
import { conflictClause, quote, writtenColumns } from '../upsert-sql.js';
import { postgresTypes } from './postgres-types.js';

/**
 * The PostgreSQL page upsert: all rows of all groups as ONE JSONB parameter expanded by
 * `jsonb_to_recordset` (BENCHMARKS.md: the fastest path measured), one round trip per page or per
 * batch of child scopes (each row carries its scope). `xmax = 0` tells inserted rows from updated
 * ones. Only when some rows were neither (guarded) does a second statement tell the stale ones
 * from the unchanged, by their stored sequence: a backfill never pays for that join.
 */
export function createPostgresPageUpsert(table: StreamTable): PageUpsert {
  const text = upsertSql(table);
  const staleText = staleSql(table);
  const names = table.columns.map((column) => column.name);
  const scopeColumn = table.scopeColumn;
  return (page) => {
    const input: Array<{ id: string; data: unknown } & Record<string, unknown>> = [];
    for (const { scope, rows } of page.groups) {
      for (const row of rows) {
        const item: { id: string; data: unknown } & Record<string, unknown> = {
          id: row.id,
          data: row.record,
          sequence: row.sequence,
        };
        if (scopeColumn) item[scopeColumn] = scope;
        row.values.forEach((value, index) => {
          item[names[index]!] = value;
        });
        input.push(item);
      }
    }
    const json = rowsJson(table.name, input);
    return async (trx) => {
      const written = await trx.executeQuery<{ inserted: number; updated: number }>(
        CompiledQuery.raw(text, [json, page.syncedAt, page.deletedAt, page.deletedReason]),
      );
      const { inserted, updated } = written.rows[0]!;
      const guarded = input.length - inserted - updated;
      const staleSkipped =
        guarded === 0
          ? 0
          : (await trx.executeQuery<{ stale: number }>(CompiledQuery.raw(staleText, [json]))).rows[0]!.stale;
      return { inserted, updated, staleSkipped, unchanged: guarded - staleSkipped };
    };
  };
}

function recordColumns(table: StreamTable): string {
  const scope = table.scopeColumn ? [`${quote(table.scopeColumn)} text`] : [];
  return [
    '"id" text',
    ...scope,
    '"data" jsonb',
    '"sequence" bigint',
    ...table.columns.map((c) => `${quote(c.name)} ${postgresTypes.typed[c.type]}`),
  ].join(', ');
}

/** Input rows whose stored row has a higher sequence (after the upsert: it left those untouched). */
function staleSql(table: StreamTable): string {
  const scope = table.scopeColumn ? [quote(table.scopeColumn)] : [];
  const sameKey = ['c."id" = i."id"', ...scope.map((column) => `c.${column} = i.${column}`)].join(' AND ');
  return `SELECT count(*) AS "stale" FROM jsonb_to_recordset($1::jsonb) AS i(${recordColumns(table)})
  JOIN ${quote(table.name)} c ON ${sameKey} WHERE i."sequence" < c."sequence"`;
}

function upsertSql(table: StreamTable): string {
  const name = quote(table.name);
  const scope = table.scopeColumn ? [quote(table.scopeColumn)] : [];
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
  return `WITH written AS (
  INSERT INTO ${name} AS t (${writtenColumns(table).map(quote).join(', ')})
  SELECT ${selected.join(', ')} FROM jsonb_to_recordset($1::jsonb) AS r(${recordColumns(table)})
  ${conflictClause(table, 't', 'IS DISTINCT FROM')}
  RETURNING (xmax = 0) AS inserted
)
SELECT count(*) FILTER (WHERE inserted) AS "inserted", count(*) FILTER (WHERE NOT inserted) AS "updated" FROM written`;
}
