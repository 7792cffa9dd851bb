import type { ColumnValue } from './column-values.js';
import type { ValueKind } from './value-kind.js';

/** What the records of one page showed beyond their column values. */
export interface PageObservations {
  /** Per column index: values that did not fit the column's type, and one of them described. */
  readonly drift: Map<number, { count: number; sample: string }>;
  /** Scalar fields without a column yet, by path key, with the kinds of their values. */
  readonly unknown: Map<string, { readonly path: string[]; readonly kinds: Set<ValueKind> }>;
}

/** Fills one record's column values (aligned with the columns) and notes what else it holds. */
export type RecordWalker = (record: object, observations: PageObservations) => ColumnValue[];

export function emptyObservations(): PageObservations {
  return { drift: new Map(), unknown: new Map() };
}
