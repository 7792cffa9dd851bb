import { withCentsColumns } from './cents-columns.js';
import { columnNameFor } from './column-name.js';
import type { PageObservations } from './page-observations.js';
import { sharedColumn, type TypedColumn } from './typed-column.js';
import { columnTypeFor } from './value-kind.js';

/** At most this many inferred columns per table; fields beyond stay in `data` (a hostile TMS must not add thousands). */
export const maxInferredColumns = 300;

interface GrownColumns {
  /** The new columns, in path order. */
  readonly added: readonly TypedColumn[];
  /** Fields left without a column because the table has `maxInferredColumns` already. */
  readonly refused: number;
}

/**
 * The columns a page's unknown fields get: a name from the path (column-name.ts) not taken by a
 * fixed column or another column, and a type from the values seen (value-kind.ts); a number
 * column comes with its `_cents` companion (cents-columns.ts). The order is the paths' order, so
 * the same page always gives the same names.
 */
export function growColumns(
  existing: readonly TypedColumn[],
  observations: PageObservations,
  reservedNames: readonly string[],
): GrownColumns {
  const taken = new Set([...reservedNames, ...existing.map((column) => column.name)]);
  let room = maxInferredColumns - existing.filter((column) => column.origin === 'inferred').length;
  const added: TypedColumn[] = [];
  let refused = 0;
  const unknown = [...observations.unknown.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [, { path, kinds }] of unknown) {
    if (room <= 0) {
      refused += 1;
      continue;
    }
    const name = columnNameFor(path, taken);
    taken.add(name);
    added.push(sharedColumn({ name, path, type: columnTypeFor(kinds, path.at(-1)!), origin: 'inferred' }));
    room -= 1;
  }
  return { added: withCentsColumns(added, taken, existing), refused };
}
