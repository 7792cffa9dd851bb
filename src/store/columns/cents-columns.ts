import { centsColumnName } from './column-name.js';
import { sharedColumn, type TypedColumn } from './typed-column.js';

/**
 * Each number column with its companion in hundredths (`cents`, the same field), which BI sums
 * exactly on SQLite as on PostgreSQL; a number column that has one already is left as it is.
 * `taken`: names the companions may not take (fixed columns, every other column).
 */
export function withCentsColumns(
  columns: readonly TypedColumn[],
  taken: ReadonlySet<string>,
  existing: readonly TypedColumn[] = [],
): TypedColumn[] {
  const names = new Set([...taken, ...existing.map((column) => column.name), ...columns.map((c) => c.name)]);
  const covered = new Set(
    [...existing, ...columns]
      .filter((column) => column.type === 'cents')
      .map((column) => pathKey(column.path)),
  );
  return columns.flatMap((column) => {
    if (column.type !== 'number' || covered.has(pathKey(column.path))) return [column];
    const name = centsColumnName(column.name, names);
    names.add(name);
    covered.add(pathKey(column.path));
    return [column, sharedColumn({ name, path: column.path, type: 'cents' as const, origin: column.origin })];
  });
}

const pathKey = (path: readonly string[]) => path.join('\u001f');
