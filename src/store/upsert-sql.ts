import type { StreamTable } from './stream-tables.js';

/** Quotes an identifier; catalogue names are checked to be plain identifiers (stream-tables.ts). */
export function quote(name: string): string {
  return `"${name}"`;
}

/** The columns a stream table row is written with, in the order both dialects bind them. */
export function writtenColumns(table: StreamTable): string[] {
  const scope = table.scopeColumn ? [table.scopeColumn] : [];
  return [
    'id',
    ...scope,
    'data',
    'sequence',
    'synced_at',
    'deleted_at',
    'deleted_reason',
    ...table.columns.map((c) => c.name),
  ];
}

/**
 * The conflict clause of the page upsert, shared so both dialects guard alike:
 * - a stored row with a higher sequence is never overwritten (null sequences: last write wins);
 * - a row whose data, sequence and live state are unchanged is not rewritten (snapshot re-reads cost little);
 * - a live record clears `deleted_at` (a row that reappears upstream is restored), an upstream
 *   deletion keeps the first `deleted_at` of a row that was already deleted.
 * `target` is how the statement names the stored row; `distinct` is the dialect's null-safe `<>`.
 */
export function conflictClause(
  table: StreamTable,
  target: string,
  distinct: 'IS NOT' | 'IS DISTINCT FROM',
): string {
  const key = table.scopeColumn ? `${quote(table.scopeColumn)}, "id"` : '"id"';
  const copied = ['data', 'sequence', 'synced_at', 'deleted_reason', ...table.columns.map((c) => c.name)];
  const set = [
    ...copied.map((column) => `${quote(column)} = excluded.${quote(column)}`),
    `"deleted_at" = CASE WHEN excluded."deleted_at" IS NULL THEN NULL ELSE coalesce(${target}."deleted_at", excluded."deleted_at") END`,
  ];
  const notOlder = `(excluded."sequence" IS NULL OR ${target}."sequence" IS NULL OR excluded."sequence" >= ${target}."sequence")`;
  const changed = ['data', 'sequence', 'deleted_reason']
    .map((column) => `${target}.${quote(column)} ${distinct} excluded.${quote(column)}`)
    .join(' OR ');
  return `ON CONFLICT (${key}) DO UPDATE SET ${set.join(', ')} WHERE ${notOlder} AND (${changed})`;
}
