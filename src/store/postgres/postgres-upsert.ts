import { CompiledQuery } from 'kysely';
import { sharedText } from '../shared-text.js';
import type { PageUpsert } from '../store-dialect.js';
import { rowsJson } from '../stored-record.js';
import type { StreamTable } from '../stream-tables.js';
import { conflictClause, quote, writtenColumns } from '../upsert-sql.js';
import { postgresTypes } from './postgres-types.js';

/**
 * The PostgreSQL page upsert: all rows of all groups as ONE JSONB parameter expanded by
 * `jsonb_to_recordset` (BENCHMARKS.md: the fastest path measured), one round trip per page or per
 * batch of child scopes (each row carries its scope). `xmax = 0` tells inserted rows from updated
 * ones. Only when some rows were neither (guarded) does the same statement tell the stale ones from
 * the unchanged, by their stored sequence (the subquery is evaluated only then: a backfill never
 * pays for that join, and an idle cycle's page is one round trip, not two).
 */
export function createPostgresPageUpsert(table: StreamTable): PageUpsert {
  const text = sharedText(upsertSql(table));
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
    if (input.length === 0) return async () => noRows;
    const json = rowsJson(table.name, input);
    return async (trx) => {
      const written = await trx.executeQuery<{ inserted: number; updated: number; stale: number }>(
        CompiledQuery.raw(text, [json, page.syncedAt, page.deletedAt, page.deletedReason, input.length]),
      );
      const { inserted, updated, stale } = written.rows[0]!;
      return { inserted, updated, staleSkipped: stale, unchanged: input.length - inserted - updated - stale };
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

/**
 * Input rows whose stored row has a higher sequence. Read in the upsert's own statement, it sees
 * the rows as they were before it: the upsert leaves exactly those untouched, and the rows it
 * updates had no higher sequence, so the count is the same as after it.
 */
function staleSql(table: StreamTable): string {
  const scope = table.scopeColumn ? [quote(table.scopeColumn)] : [];
  const sameKey = ['c."id" = i."id"', ...scope.map((column) => `c.${column} = i.${column}`)].join(' AND ');
  return `SELECT count(*) FROM jsonb_to_recordset($1::jsonb) AS i(${recordColumns(table)})
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
),
counted AS (
  SELECT count(*) FILTER (WHERE inserted) AS "inserted", count(*) FILTER (WHERE NOT inserted) AS "updated" FROM written
)
SELECT "inserted", "updated",
  CASE WHEN "inserted" + "updated" < $5::int THEN (${staleSql(table)}) ELSE 0 END AS "stale"
FROM counted`;
}

/** A page of no rows sends no upsert. */
const noRows = { inserted: 0, updated: 0, staleSkipped: 0, unchanged: 0 } as const;
