import { createHash } from 'node:crypto';

/** The longest identifier PostgreSQL keeps (63 bytes); SQLite takes the same names. */
const maxLength = 63;

/**
 * The column name for a record field, in the style of dlt's naming: each path segment in
 * snake_case (`totalExclVat` -> `total_excl_vat`), nested objects joined with `__`
 * (`address.city` -> `address__city`). A name longer than 63 characters keeps its start and ends
 * in a hash of the path; a name already taken gets `_2`, `_3`, ... Names are assigned once and
 * kept in `stream_columns`, so they never change for a column that exists.
 */
export function columnNameFor(path: readonly string[], taken: ReadonlySet<string>): string {
  let base = path.map(snakeCase).join('__');
  if (base === '' || !/^[a-z_]/.test(base)) base = `f_${base}`;
  if (base.length > maxLength) base = `${base.slice(0, maxLength - 9)}_${hashOf(path)}`;
  return untaken(base, taken);
}

/**
 * The name of a number column's companion in hundredths (docs/store.md, "Amounts"): the column's
 * name and `_cents` (`amount_cents`, `totals__gross_cents`), then `_2`, ... when taken.
 */
export function centsColumnName(column: string, taken: ReadonlySet<string>): string {
  return untaken(`${column.slice(0, maxLength - 6)}_cents`, taken);
}

/** `base`, or `base_2`, `base_3`, ... (cut to fit) when taken. */
function untaken(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let suffix = 2; ; suffix++) {
    const tail = `_${suffix}`;
    const name = `${base.slice(0, maxLength - tail.length)}${tail}`;
    if (!taken.has(name)) return name;
  }
}

function snakeCase(segment: string): string {
  return segment
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

function hashOf(path: readonly string[]): string {
  return createHash('sha1').update(JSON.stringify(path)).digest('hex').slice(0, 8);
}
