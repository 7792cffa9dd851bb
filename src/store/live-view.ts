import { CompiledQuery } from 'kysely';

/** What a stream table's live view adds to its name: `invoices` -> `invoices_live`. */
const liveViewSuffix = '_live';

/** The live view of a stream table: its rows that exist upstream (`deleted_at IS NULL`), every column. */
export function liveViewName(table: string): string {
  return `${table}${liveViewSuffix}`;
}

/**
 * Defines a table's live view, idempotently. PostgreSQL expands the view's `*` when the view is
 * defined, so this replaces it (keeping views that users built on it) each time the table gains a
 * column; SQLite expands it at every read, so the view is created once. Names are catalogue
 * identifiers, checked in stream-tables.ts.
 */
export function liveViewStatement(
  table: string,
  types: { readonly viewsFixColumns: boolean },
): CompiledQuery {
  const define = types.viewsFixColumns ? 'create or replace view' : 'create view if not exists';
  return CompiledQuery.raw(
    `${define} "${liveViewName(table)}" as select * from "${table}" where deleted_at is null`,
  );
}
