import { jsonTypeOf } from '../../../schemas/json-object.js';
import { type ColumnConverter, type ColumnValue, columnConverters, misfit } from './column-values.js';
import type { TypedColumn } from './typed-column.js';
import { kindOf, type ValueKind } from './value-kind.js';

/** Nested objects are flattened this many levels down; deeper values stay in `data` only. */
export const maxFlattenDepth = 6;

/** What the records of one page showed beyond their column values. */
export interface PageObservations {
  /** Per column index: values that did not fit the column's type, and one of them described. */
  readonly drift: Map<number, { count: number; sample: string }>;
  /** Scalar fields without a column yet, by path key, with the kinds of their values. */
  readonly unknown: Map<string, { readonly path: string[]; readonly kinds: Set<ValueKind> }>;
}

/** Fills one record's column values (aligned with the columns) and notes what else it holds. */
export type RecordWalker = (record: object, observations: PageObservations) => ColumnValue[];

interface PathNode {
  /** The columns at this path (a spec column and an inferred one may share a field). */
  columns?: Array<{ readonly index: number; readonly convert: ColumnConverter }>;
  /** The record's key or sequence field: it has its own column. */
  excluded?: boolean;
  children?: Map<string, PathNode>;
}

export function emptyObservations(): PageObservations {
  return { drift: new Map(), unknown: new Map() };
}

/**
 * Builds the walker of a column set. One pass over each record's properties (a trie of the
 * column paths, so the cost is the record's size, not columns x depth): known paths are
 * converted, values that do not fit are NULL and counted as drift, objects are descended,
 * arrays are left to `data`, and scalar fields with no column are collected for the schema
 * to grow (docs/store.md, "Typed columns").
 */
export function createRecordWalker(
  columns: readonly TypedColumn[],
  excludedPaths: readonly (readonly string[])[],
): RecordWalker {
  const root: PathNode = {};
  columns.forEach((column, index) => {
    const node = nodeAt(root, column.path);
    node.columns ??= [];
    node.columns.push({ index, convert: columnConverters[column.type] });
  });
  for (const path of excludedPaths) nodeAt(root, path).excluded = true;
  return (record, observations) => {
    const values: ColumnValue[] = new Array(columns.length).fill(null);
    walk(record as Record<string, unknown>, root, [], values, observations);
    return values;
  };
}

function walk(
  object: Record<string, unknown>,
  node: PathNode | undefined,
  path: string[],
  values: ColumnValue[],
  observations: PageObservations,
): void {
  for (const key in object) {
    const value = object[key];
    if (value === null || value === undefined) continue;
    const child = node?.children?.get(key);
    if (child?.excluded) continue;
    if (typeof value === 'object') {
      if (child?.columns) for (const { index } of child.columns) noteDrift(observations, index, value);
      if (Array.isArray(value) || path.length + 1 >= maxFlattenDepth) continue;
      path.push(key);
      walk(value as Record<string, unknown>, child, path, values, observations);
      path.pop();
    } else if (child?.columns) {
      for (const { index, convert } of child.columns) {
        const converted = convert(value);
        if (converted === misfit) noteDrift(observations, index, value);
        else values[index] = converted;
      }
    } else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      noteUnknown(observations, [...path, key], value);
    }
  }
}

function noteDrift(observations: PageObservations, column: number, value: unknown): void {
  const seen = observations.drift.get(column);
  if (seen) seen.count += 1;
  else observations.drift.set(column, { count: 1, sample: describe(value) });
}

function noteUnknown(observations: PageObservations, path: string[], value: string | number | boolean) {
  const key = path.join('\u001f');
  const seen = observations.unknown.get(key);
  if (seen) seen.kinds.add(kindOf(value));
  else observations.unknown.set(key, { path, kinds: new Set([kindOf(value)]) });
}

/** A short description of a value that did not fit: its JSON type and its start. */
function describe(value: unknown): string {
  const text = shortJson(value);
  return `${jsonTypeOf(value)} ${text.length > 60 ? `${text.slice(0, 57)}...` : text}`;
}

/** The value's JSON text; a value nested too deep to serialize is described, never thrown. */
function shortJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch (error) {
    if (error instanceof RangeError) return '(nested too deep to show)';
    throw error;
  }
}

function nodeAt(root: PathNode, path: readonly string[]): PathNode {
  let node = root;
  for (const step of path) {
    node.children ??= new Map();
    let next = node.children.get(step);
    if (!next) {
      next = {};
      node.children.set(step, next);
    }
    node = next;
  }
  return node;
}
